"""The OpenCL devices the tests run on: every device on the machine (PoCL in CI; PoCL and
NVIDIA's OpenCL on the GPU machine), or those GPUKIT_CL_TEST (else PYOPENCL_TEST) selects, as
for gpukit.cl.tools' test generator (scripts/gpu_check.sh selects NVIDIA's: CI runs PoCL)."""

import pytest

import gpukit.cl as cl
from gpukit.cl.testing import selection_from_environment

# Read once, at collection: tests that clear the variables must not change the device list.
SELECTION = selection_from_environment()


def all_devices(module=cl):
    """The selected devices of `module` (gpukit.cl, or pyopencl itself, which reads
    PYOPENCL_TEST its own way); none where there are none (why_no_opencl() says why)."""
    try:
        if module is cl:
            return cl.select_devices(SELECTION) if cl.available() else []
        import pyopencl.tools

        return [d for _, devices in pyopencl.tools.get_test_platforms_and_devices() for d in devices]
    except (module.Error, OSError):  # no platform, a selection of none, or (PyOpenCL) no ICD loader
        return []


def device_id(device):
    return f"{device.platform.name.split()[0]}:{device.name}"[:40]


# The parameters are device numbers, not Device objects: pytest keeps its parameters for the
# whole session, and gpukit objects kept that long outlive the module at exit (nanobind's leak
# report lists them).
@pytest.fixture(params=list(range(len(all_devices()))) or [None], ids=[device_id(d) for d in all_devices()] or ["none"])
def ctx(request, monkeypatch):
    """A context on one OpenCL device (shared by the tests of this process); the test runs
    once per device."""
    if request.param is None:
        pytest.skip(why_no_opencl())
    monkeypatch.delenv("GPUKIT_CL_CTX", raising=False)
    monkeypatch.delenv("GPUKIT_CL_TEST", raising=False)
    return shared_context(cl, request.param)


# The contexts that this process's OpenCL tests share, by module and device number: a context
# per test costs NVIDIA's OpenCL more than the test, and its workers queue for it.
_shared_contexts = {}


def shared_context(module, index):
    """A Context of `module` (gpukit.cl or pyopencl) on its selected device number `index`,
    made once per process."""
    key = (module.__name__, index)
    if key not in _shared_contexts:
        _shared_contexts[key] = module.Context([all_devices(module)[index]])
    return _shared_contexts[key]


def release_shared_contexts():
    _shared_contexts.clear()


def why_no_opencl():
    """Why the OpenCL tests cannot run here, or None when they can."""
    if not cl.available():
        return "no OpenCL ICD loader (libOpenCL.so.1)"
    if not all_devices():
        if SELECTION:
            return f"the OpenCL test selection {SELECTION!r} (GPUKIT_CL_TEST, else PYOPENCL_TEST) names no device here"
        return "no OpenCL platform with a device"
    return None


def needs_opencl(test):
    """Marks `test` opencl and skips it, with the reason, where OpenCL cannot run."""
    why = why_no_opencl()
    return pytest.mark.opencl(pytest.mark.skipif(why is not None, reason=str(why))(test))
