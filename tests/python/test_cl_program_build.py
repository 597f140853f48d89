"""Program.build(options=None, devices=None, cache_dir=None), PyOpenCL's signature: `devices`
builds for some of the context's devices, `cache_dir` is accepted (PyOpenCL's binary cache
directory, which neither library writes on PoCL or NVIDIA: their OpenCL caches builds itself).

The tests of two devices need a platform with two; PoCL makes two with
POCL_DEVICES="pthread basic", and test_two_device_tests_run_on_pocl runs them so where this
process has fewer. Like test_cl_subclasses.py, the tests run on PyOpenCL itself with
GPUKIT_PYOPENCL_ORIGINAL=1 (where PyOpenCL behaves otherwise, the check is gpukit's only).
"""

import os
import re
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from cl_devices import all_devices

ORIGINAL = os.environ.get("GPUKIT_PYOPENCL_ORIGINAL") == "1"
if ORIGINAL:
    import pyopencl as cl
else:
    import gpukit.cl as cl


def _platforms():
    try:
        return cl.get_platforms()
    except (cl.Error, OSError):  # no ICD loader, or (PyOpenCL) no platform
        return []


def _devices():
    return all_devices(cl)


_DEVICE_NAMES = [f"{d.platform.name.split()[0]}:{d.name}"[:40] for d in _devices()]

pytestmark = [pytest.mark.opencl, pytest.mark.skipif(not _DEVICE_NAMES, reason="no OpenCL platform with a device")]

gpukit_only = pytest.mark.skipif(ORIGINAL, reason="PyOpenCL behaves otherwise here (see the test)")


@pytest.fixture(params=range(len(_DEVICE_NAMES)), ids=_DEVICE_NAMES)
def ctx(request):
    return cl.Context([_devices()[request.param]])


@pytest.fixture
def two_devices():
    for platform in _platforms():
        devices = platform.get_devices()
        if len(devices) >= 2:
            return devices[:2]
    pytest.skip(
        "no OpenCL platform with two devices here (PoCL makes two with POCL_DEVICES='pthread basic'; "
        "test_two_device_tests_run_on_pocl runs these tests so)"
    )


# out[i] = SCALE * i + offset: the results show which build ran.
SCALED = """
__kernel void scaled(__global int *out, int offset) {
    const int i = (int)get_global_id(0);
    out[i] = SCALE * i + offset;
}
"""
N = 96


def run_scaled(ctx, queue, kernel, offset):
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4)
    kernel(queue, (N,), None, out, np.int32(offset))
    result = np.empty(N, np.int32)
    cl.enqueue_copy(queue, result, out)
    return result


def expected(scale, offset):
    return scale * np.arange(N, dtype=np.int32) + np.int32(offset)


# ---- one device --------------------------------------------------------------------------------


def test_build_takes_pyopencls_arguments_by_position_and_keyword(ctx):
    queue = cl.CommandQueue(ctx)
    device = ctx.devices[0]
    calls = {
        3: lambda prg: prg.build("-DSCALE=3", [device], None),
        4: lambda prg: prg.build(options=["-DSCALE=4"], devices=[device]),
        5: lambda prg: prg.build("-DSCALE=5", devices=None, cache_dir=None),
        6: lambda prg: prg.build(["-D", "SCALE=6"], []),  # no devices: all of them, as OpenCL takes it
        7: lambda prg: prg.build(devices=(device,), options="-DSCALE=7"),
    }
    for scale, build in calls.items():
        prg = cl.Program(ctx, SCALED)
        assert build(prg) is prg
        np.testing.assert_array_equal(run_scaled(ctx, queue, cl.Kernel(prg, "scaled"), -scale), expected(scale, -scale))


def test_cache_dir_is_accepted_and_nothing_is_written_there(ctx, tmp_path):
    queue = cl.CommandQueue(ctx)
    for scale, cache_dir in enumerate([None, False, str(tmp_path), tmp_path, os.fsencode(tmp_path)], start=2):
        prg = cl.Program(ctx, SCALED).build(options=[f"-DSCALE={scale}"], cache_dir=cache_dir)
        np.testing.assert_array_equal(run_scaled(ctx, queue, cl.Kernel(prg, "scaled"), 9), expected(scale, 9))
    # Neither library keeps a binary cache where the implementation caches builds (PoCL, NVIDIA).
    if ctx.devices[0].platform.name == "Portable Computing Language" or "NVIDIA" in ctx.devices[0].platform.name:
        assert list(tmp_path.iterdir()) == []


def test_an_unknown_keyword_is_a_type_error(ctx):
    with pytest.raises(TypeError):
        cl.Program(ctx, SCALED).build(options="-DSCALE=1", device=ctx.devices)


@gpukit_only  # PyOpenCL raises RuntimeError (std::bad_cast) for bad devices and takes any cache_dir here
def test_bad_devices_and_cache_dirs_are_type_errors(ctx):
    prg = cl.Program(ctx, SCALED)
    with pytest.raises(TypeError, match=r"Program.build\(devices\) must be a sequence of gpukit.cl.Device, got str"):
        prg.build("-DSCALE=1", devices="all")
    with pytest.raises(TypeError, match=r"Program.build\(devices\): item 1 is a int; expected gpukit.cl.Device"):
        prg.build("-DSCALE=1", devices=[ctx.devices[0], 0])
    with pytest.raises(TypeError, match=r"Program.build\(cache_dir\) must be a path .* got int"):
        prg.build("-DSCALE=1", cache_dir=5)
    assert prg.build("-DSCALE=1", cache_dir=pathlib.Path("unused")) is prg  # usable after the refusals


# ---- two devices -------------------------------------------------------------------------------


def test_build_for_one_of_two_devices(two_devices):
    first, second = two_devices
    ctx = cl.Context([first, second])
    first_queue, second_queue = cl.CommandQueue(ctx, first), cl.CommandQueue(ctx, second)
    prg = cl.Program(ctx, SCALED).build(options="-DSCALE=3", devices=[first])
    knl = cl.Kernel(prg, "scaled")
    np.testing.assert_array_equal(run_scaled(ctx, first_queue, knl, 4), expected(3, 4))
    other = cl.Program(ctx, SCALED).build("-DSCALE=-2", [second])
    np.testing.assert_array_equal(run_scaled(ctx, second_queue, cl.Kernel(other, "scaled"), 4), expected(-2, 4))
    both = cl.Program(ctx, SCALED).build("-DSCALE=8")
    for queue in (first_queue, second_queue):
        np.testing.assert_array_equal(run_scaled(ctx, queue, cl.Kernel(both, "scaled"), 1), expected(8, 1))


@gpukit_only  # PyOpenCL lets the launch through, and PoCL aborts the process on it
def test_a_kernel_is_refused_on_a_device_its_program_was_not_built_for_two_devices(two_devices):
    first, second = two_devices
    ctx = cl.Context([first, second])
    knl = cl.Kernel(cl.Program(ctx, SCALED).build("-DSCALE=3", devices=[first]), "scaled")
    with pytest.raises(cl.LogicError, match="its program was not built for the queue's device") as info:
        run_scaled(ctx, cl.CommandQueue(ctx, second), knl, 0)
    assert repr(second.name) in str(info.value)


@gpukit_only  # PyOpenCL reports a build failure without saying why
def test_a_device_of_another_context_is_refused_two_devices(two_devices):
    first, second = two_devices
    prg = cl.Program(cl.Context([first]), SCALED)
    with pytest.raises(
        cl.LogicError, match=re.escape(f"device '{second.name}' is not one of the devices of the program's")
    ):
        prg.build("-DSCALE=1", devices=[second])


def test_two_device_tests_run_on_pocl():
    if os.environ.get("POCL_DEVICES"):
        pytest.skip("POCL_DEVICES is set: the two-device tests ran in this process")
    if not any(p.name == "Portable Computing Language" for p in _platforms()):
        pytest.skip("PoCL is not installed")
    env = dict(os.environ, POCL_DEVICES="pthread basic")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", __file__, "-k", "two_devices"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    summary = result.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, report
    if not ORIGINAL:
        assert "skipped" not in summary, report
