"""gpukit.debug and driver.set_debugging(): debug builds of kernels. The module checks run in
a fresh interpreter, so the switch never leaks into other tests."""

import os
import subprocess
import sys
import textwrap

import pytest

import gpukit.compiler as compiler
import gpukit.driver as drv
from gpukit import _gpukit

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))


def run(*args, code=None, cwd=None):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    command = [sys.executable, "-c", textwrap.dedent(code)] if code else [sys.executable, *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, cwd=cwd)


def test_set_debugging_sets_and_clears_the_flag():
    assert drv.CUDA_DEBUGGING is False
    try:
        drv.set_debugging()
        assert drv.CUDA_DEBUGGING is True
        drv.set_debugging(False)
        assert drv.CUDA_DEBUGGING is False
        drv.set_debugging(1)
        assert drv.CUDA_DEBUGGING is True
    finally:
        drv.set_debugging(False)


def test_importing_gpukit_debug_turns_debugging_on():
    result = run(
        code="""
        import gpukit.driver as drv
        assert drv.CUDA_DEBUGGING is False
        import gpukit.debug
        print(drv.CUDA_DEBUGGING)
    """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_module_runs_a_script_with_debugging_on(tmp_path):
    (tmp_path / "helper_module.py").write_text("VALUE = 7\n")
    script = tmp_path / "debugged.py"
    script.write_text(
        "import sys\nimport gpukit.driver as drv\nimport helper_module\n"
        "print(__name__, drv.CUDA_DEBUGGING, sys.argv[0].endswith('debugged.py'), sys.argv[1:], "
        "helper_module.VALUE)\n"
    )
    result = run("-m", "gpukit.debug", str(script), "x", "--y", cwd=str(tmp_path.parent))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "__main__ True True ['x', '--y'] 7"


def test_module_without_a_script_says_how_to_use_it(tmp_path):
    result = run("-m", "gpukit.debug")
    assert result.returncode != 0 and "usage: python -m gpukit.debug script.py" in result.stderr
    result = run("-m", "gpukit.debug", str(tmp_path / "missing.py"))
    assert result.returncode != 0 and "missing.py is not a file" in result.stderr


@pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")
def test_compiles_made_while_debugging_carry_device_debug_information():
    source = "__global__ void scale(float *a) { a[threadIdx.x] *= 2; }"
    assert b".debug_info" not in compiler.compile(source, arch="sm_90", cache_dir=False)
    try:
        drv.set_debugging()
        image = compiler.compile(source, arch="sm_90")
    finally:
        drv.set_debugging(False)
    assert b".debug_info" in image
    # Back to normal builds, which must not be handed the debug image from the cache.
    assert b".debug_info" not in compiler.compile(source, arch="sm_90")
