#!/usr/bin/env bash
# One call on the GPU machine for "PyCUDA programs and libraries run unchanged": builds the
# extension module, installs PyCUDA and what the libraries need from wheels, runs gpukit's
# PyCUDA-facing GPU tests, the test library tests/python/pycuda_minilib on gpukit and on
# PyCUDA, and third-party libraries' own suites on both sides (tools/compare_library_suites.py).
#
#   GPUKIT_WHEELS=.whl            wheels to install into /tmp/site (PyCUDA built from its sdist,
#                                 pytools, mako, ... ; the machine has no package registry)
#   GPUKIT_LIBRARY_SUITES="name|dir|seconds|pytest args;..."
#                                 each library's checkout, a time limit per side, pytest args
#   GPUKIT_PYCUDA_CHECKOUT=dir    PyCUDA's test/ and examples/ through the drop-in
#   GPUKIT_CHECK_TESTS="files"    gpukit test files to run (default: the PyCUDA-facing ones)
#   GPUKIT_BENCH="cases"          `python -m gpukit bench` cases (gpukit beside CuPy and PyCUDA) ...
#   GPUKIT_BENCH_BEFORE=tar       ... and the same cases on an older tree (a `git archive` tar),
#                                 built meanwhile in /tmp/before, in the same call
# Logs go to $OUT (build, gpukit-tests, per library <name> and <name>-gpukit, pycuda-programs); a
# short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-library-logs}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
summary=()
note() { summary+=("$1"); }

if [ -n "${GPUKIT_WHEELS:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        "$GPUKIT_WHEELS"/*.whl > "$OUT/build.log" 2>&1 || note "wheels: install failed (see build.log)"
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
# PyCUDA's extension links libcurand.so.10: the toolkit's or a pip package's.
curand=$(ldconfig -p | grep -q 'libcurand.so.10 ' || find / -name 'libcurand.so.10*' -not -path '/proc/*' 2>/dev/null | head -n 1)
[ -n "$curand" ] && export LD_LIBRARY_PATH=$(dirname "$curand")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

start=$SECONDS
{ make configure JOBS="$(nproc)" && cmake --build build -j "$(nproc)" --target _gpukit; } >> "$OUT/build.log" 2>&1
note "build: rc=$? ($((SECONDS - start)) s)"
python3 -c 'import pycuda.driver as d; d.init(); print("PyCUDA", __import__("pycuda").VERSION, d.Device(0).name())' \
    >> "$OUT/build.log" 2>&1 && note "pycuda: $(tail -n 1 "$OUT/build.log")" || note "pycuda: not importable"

if [ -n "${GPUKIT_BENCH_BEFORE:-}" ]; then
    # The older tree builds on the CPUs while the GPU tests run.
    mkdir -p /tmp/before && tar -xf "$GPUKIT_BENCH_BEFORE" -C /tmp/before
    (cd /tmp/before && make configure > /tmp/before-build.log 2>&1 && \
        cmake --build build -j "$(nproc)" --target _gpukit _bench_baselines >> /tmp/before-build.log 2>&1) &
    before_build=$!
fi

tests=${GPUKIT_CHECK_TESTS:-tests/python/test_gpuarray_subclasses.py tests/python/test_pycuda_open_classes.py \
tests/python/test_pycuda_arguments.py tests/python/test_function.py tests/python/test_pycuda_minilib.py \
tests/python/test_pycuda_gl_sparse_sides.py}
start=$SECONDS
# shellcheck disable=SC2086  # a list of paths
# (-p no:pytest_grunnur: that plugin, installed for grunnur's suite, imports PyCUDA itself)
PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} timeout 300 python3 -m pytest -q -rfE -p no:cacheprovider \
    -p no:pytest_grunnur $tests \
    > "$OUT/gpukit-tests.log" 2>&1
note "gpukit tests: rc=$? ($((SECONDS - start)) s) $(tail -n 1 "$OUT/gpukit-tests.log")"
start=$SECONDS
GPUKIT_PYCUDA_ORIGINAL=1 PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} timeout 120 python3 -m pytest -q -rfE \
    -p no:cacheprovider -p no:pytest_grunnur tests/python/test_pycuda_minilib.py tests/python/test_pycuda_gl_sparse_sides.py \
    >> "$OUT/gpukit-tests.log" 2>&1
note "minilib, gl and sparse programs on PyCUDA: rc=$? ($((SECONDS - start)) s) $(tail -n 1 "$OUT/gpukit-tests.log")"

IFS=';' read -ra suites <<< "${GPUKIT_LIBRARY_SUITES:-}"
for suite in "${suites[@]}"; do
    IFS='|' read -r name dir seconds args <<< "$suite"
    [ -d "$dir" ] || { note "$name: no directory $dir"; continue; }
    start=$SECONDS
    # shellcheck disable=SC2086  # pytest arguments
    PYTHONPATH=$(realpath "$dir")${PYTHONPATH:+:$PYTHONPATH} python3 tools/compare_library_suites.py \
        --parallel --out "/tmp/suites-$name" --timeout "$seconds" "$dir" -- $args > "$OUT/$name.log" 2>&1
    cp "/tmp/suites-$name/gpukit.log" "$OUT/$name-gpukit.log" 2>/dev/null
    note "$name ($((SECONDS - start)) s): $(grep -E '^(pycuda|gpukit):|^passing' "$OUT/$name.log" | tr '\n' ' ')"
done

if [ -n "${GPUKIT_PYCUDA_CHECKOUT:-}" ]; then
    start=$SECONDS
    PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} timeout 400 python3 tools/run_pycuda_programs.py \
        "$GPUKIT_PYCUDA_CHECKOUT" --timeout 60 > "$OUT/pycuda-programs.log" 2>&1
    note "PyCUDA's tests and examples: ($((SECONDS - start)) s) $(tail -n 1 "$OUT/pycuda-programs.log")"
fi
if [ -n "${GPUKIT_BENCH:-}" ]; then
    if [ -n "${GPUKIT_BENCH_BEFORE:-}" ]; then
        wait "$before_build"; note "older tree's build: rc=$?"
        # shellcheck disable=SC2086  # case names
        (cd /tmp/before && PYTHONPATH=/tmp/before/python${PYTHONPATH:+:$PYTHONPATH} timeout 300 python3 -m gpukit \
            bench $GPUKIT_BENCH --json "$OUT/bench-before.json") > "$OUT/bench.log" 2>&1
        note "bench, older tree: rc=$?"
    fi
    # shellcheck disable=SC2086  # case names
    PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} timeout 300 python3 -m gpukit bench $GPUKIT_BENCH \
        --json "$OUT/bench.json" >> "$OUT/bench.log" 2>&1
    note "bench: rc=$?"
fi
printf '%s\n' "${summary[@]}"
