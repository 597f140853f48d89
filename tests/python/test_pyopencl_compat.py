"""gpukit.pyopencl_compat: pyopencl names resolve to gpukit.cl's modules, and
tools/run_pyopencl_tests.py runs PyOpenCL-style test files through them. Each check runs in a
fresh interpreter, so the aliases never leak into other tests."""

import os
import subprocess
import sys
import textwrap

import pytest

import gpukit.cl as cl

REPO = os.path.join(os.path.dirname(__file__), "..", "..")
PYTHON_DIR = os.path.abspath(os.path.join(REPO, "python"))


def run(command, cwd=None):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    env.pop("GPUKIT_CL_TEST", None)
    env.pop("PYOPENCL_TEST", None)
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_pyopencl_modules_are_gpukit_cl_modules():
    result = run(
        [
            sys.executable,
            "-c",
            textwrap.dedent("""
        import gpukit.pyopencl_compat
        import pyopencl as cl, pyopencl.tools, pyopencl.characterize, pyopencl.array
        from pyopencl.tools import MemoryPool, pytest_generate_tests_for_pyopencl
        import gpukit.cl, gpukit.cl.tools, gpukit.cl.characterize, gpukit.cl.array
        assert cl is gpukit.cl and pyopencl.tools is gpukit.cl.tools and pyopencl.array is gpukit.cl.array
        assert pyopencl.characterize is gpukit.cl.characterize and MemoryPool is gpukit.cl.tools.MemoryPool
        import pyopencl.scan, pyopencl.algorithm, gpukit.cl.scan, gpukit.cl.algorithm
        assert pyopencl.scan is gpukit.cl.scan and pyopencl.algorithm is gpukit.cl.algorithm
        for name, what in (("pyopencl.cache", "program cache"), ("pyopencl.invoker", "kernel invoker generator")):
            try:
                __import__(name)
            except ImportError as e:
                assert f"gpukit.cl does not implement {name} (PyOpenCL's {what})" in str(e), e
            else:
                raise AssertionError(name + " was imported")
        try:
            import pyopencl.no_such_module
        except ModuleNotFoundError as e:
            assert "PyOpenCL has no such module" in str(e), e
        # `from pyopencl import cache` asks gpukit.cl for the attribute, then imports
        # gpukit.cl.cache: the same explanation (with PyOpenCL's name) answers.
        try:
            from pyopencl import cache
        except ImportError as e:
            assert "gpukit.cl does not implement pyopencl.cache (PyOpenCL's program cache)" in str(e), e
            assert e.name == "pyopencl.cache"
        else:
            raise AssertionError("cache was imported")
        from pyopencl import tools  # a module gpukit has still imports this way
        assert tools is gpukit.cl.tools
        try:
            import gpukit.cl.no_such_module
        except ModuleNotFoundError as e:
            assert "No module named 'gpukit.cl.no_such_module'" in str(e), e
        print("ok")
    """),
        ]
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# A PyOpenCL-style test module: it imports pyopencl.capture_call (which gpukit.cl does not
# have) at its top, as PyOpenCL's do, and uses pyopencl.cltypes in a parametrize.
FAKE_TESTS = """
import numpy as np
import pytest
import pyopencl as cl
import pyopencl.array as cl_array
import pyopencl.cltypes as cltypes
from pyopencl.capture_call import capture_kernel_call
from pyopencl.tools import MemoryPool, ImmediateAllocator, pytest_generate_tests_for_pyopencl as pytest_generate_tests


def test_pool(ctx_factory: cl.CtxFactory):
    queue = cl.CommandQueue(ctx_factory())
    pool = MemoryPool(ImmediateAllocator(queue))
    pool.allocate(1000).release()
    assert pool.managed_bytes == 1023


@pytest.mark.parametrize("dtype", [np.uint64, cltypes.uint2])
def test_array(ctx_factory, dtype):
    a = cl_array.zeros(cl.CommandQueue(ctx_factory()), 10, dtype)
    capture_kernel_call(None, "out.py", None, None, None, a)


def test_skip(platform):
    pytest.skip("skipped on purpose")
"""


@pytest.mark.opencl
def test_the_runner_reports_each_test(tmp_path):
    if not cl.available() or not any(p.get_devices() for p in cl.get_platforms()):
        pytest.skip("no OpenCL platform with a device")
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "test_fake.py").write_text(FAKE_TESTS)
    result = run(
        [
            sys.executable,
            os.path.join(REPO, "tools", "run_pyopencl_tests.py"),
            str(tmp_path),
            "--all",
            "--test",
            "test/test_fake.py",
        ]
    )
    lines = result.stdout.splitlines()
    devices = len(cl.select_devices(""))
    assert sum("test_pool[" in line and " passed" in line for line in lines) == devices, result.stdout
    failed = [line for line in lines if "test_array[" in line]
    assert len(failed) == 2 * devices and all(" failed " in line for line in failed), result.stdout
    assert all("gpukit.cl does not implement pyopencl.capture_call" in line for line in failed), result.stdout
    # A test taking only `platform` runs once per device, as in PyOpenCL.
    assert sum("test_skip[" in line and " skipped " in line for line in lines) == devices, result.stdout
    assert lines[-1] == f"summary: {2 * devices} failed, {devices} passed, {devices} skipped", result.stdout
    assert result.returncode == 1
