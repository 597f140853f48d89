"""Every OpenCL device on the machine, so the OpenCL tests run on each of them (PoCL in CI;
PoCL and NVIDIA's OpenCL on the GPU machine)."""

import pytest

import gpukit.cl as cl


def all_devices():
    if not cl.available():
        return []
    try:
        return [d for p in cl.get_platforms() for d in p.get_devices()]
    except cl.Error:
        return []


def device_id(device):
    return f"{device.platform.name.split()[0]}:{device.name}"[:40]


# The parameters are device numbers, not Device objects: pytest keeps its parameters for the
# whole session, and gpukit objects kept that long outlive the module at exit (nanobind's leak
# report lists them).
@pytest.fixture(params=list(range(len(all_devices()))) or [None], ids=[device_id(d) for d in all_devices()] or ["none"])
def ctx(request, monkeypatch):
    """A context on one OpenCL device; the test runs once per device."""
    if request.param is None:
        pytest.skip("no OpenCL device on this machine")
    monkeypatch.delenv("GPUKIT_CL_CTX", raising=False)
    monkeypatch.delenv("GPUKIT_CL_TEST", raising=False)
    device = all_devices()[request.param]
    return cl.Context([device])


def why_no_opencl():
    """Why the OpenCL tests cannot run here, or None when they can."""
    if not cl.available():
        return "no OpenCL ICD loader (libOpenCL.so.1)"
    if not all_devices():
        return "no OpenCL platform with a device"
    return None


def needs_opencl(test):
    """Marks `test` opencl and skips it, with the reason, where OpenCL cannot run."""
    why = why_no_opencl()
    return pytest.mark.opencl(pytest.mark.skipif(why is not None, reason=str(why))(test))
