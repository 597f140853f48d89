"""Every program in examples/python runs, each in a process of its own, and exits 0 (each
example checks its own result and exits non-zero when it is wrong). docs/architecture.md
promises that every example is run as a test: a new example without an entry in
REQUIREMENTS fails here until it says what it needs."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cl_devices import why_no_opencl
from gpukit.pytest_plugin import why_no_cuda

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "python"


def why_no_device_at_all():
    """demo.py runs on CUDA, or on OpenCL where there is no CUDA device."""
    no_cuda, no_opencl = why_no_cuda(), why_no_opencl()
    return f"{no_cuda}; {no_opencl}" if no_cuda and no_opencl else None


# What each example needs: a function giving the reason it cannot run here, or None.
REQUIREMENTS = {
    "demo.py": why_no_device_at_all,
    "cl_doublify.py": why_no_opencl,
    "arrays_either_backend.py": why_no_device_at_all,
}


def example_names():
    return sorted(path.name for path in EXAMPLES.glob("*.py"))


def test_examples_are_found():
    assert "demo.py" in example_names()


@pytest.mark.parametrize("name", example_names())
def test_example_runs(name):
    assert name in REQUIREMENTS, f"examples/python/{name}: add it to REQUIREMENTS in {Path(__file__).name}"
    reason = REQUIREMENTS[name]()
    if reason:
        pytest.skip(f"{name} needs a device: {reason}")
    # The example imports the gpukit this process imports (the sanitizer build's, under make sanitize-python).
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{name} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}"


def test_the_demo_without_cuda_or_opencl_says_what_to_install(tmp_path):
    # No GPU visible, and an OpenCL loader that finds no implementation (an empty vendors folder).
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), CUDA_VISIBLE_DEVICES="", OCL_ICD_VENDORS=str(tmp_path))
    for variable in ("GPUKIT_CL_CTX", "GPUKIT_CL_TEST", "PYOPENCL_TEST", "PYOPENCL_CTX"):
        env.pop(variable, None)
    # Some OpenCL loaders do not read OCL_ICD_VENDORS (the GPU machine's finds its devices anyway).
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import gpukit.cl as cl\ntry:\n    print(len(cl.get_platforms()))\nexcept cl.Error:\n    print(0)",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if probe.stdout.strip() != "0":
        pytest.skip(
            f"this OpenCL loader still finds platforms with OCL_ICD_VENDORS={tmp_path} ({probe.stdout.strip()})"
        )
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "demo.py")], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(
        "No CUDA device and no OpenCL device here. For a GPU, install NVIDIA's driver; "
        "for the CPU, PoCL (Debian/Ubuntu: apt install pocl-opencl-icd). OpenCL said: "
    ), line
