"""For the OpenCL test files that also run on PyOpenCL itself: the module under test (gpukit.cl,
or pyopencl with GPUKIT_PYOPENCL_ORIGINAL=1, to confirm that both behave the same), and one
context per OpenCL device.

    from cl_either import ORIGINAL, cl, cl_tools, ctx, needs_device, queue  # noqa: F401
"""

import os

import pytest
from cl_devices import all_devices, shared_context, why_no_opencl

ORIGINAL = os.environ.get("GPUKIT_PYOPENCL_ORIGINAL") == "1"
if ORIGINAL:
    import pyopencl as cl
    import pyopencl.tools as cl_tools
else:
    import gpukit.cl as cl
    import gpukit.cl.tools as cl_tools  # noqa: F401  (the tests import it from here)


def devices():
    return all_devices(cl)


DEVICE_NAMES = [f"{d.platform.name.split()[0]}:{d.name}"[:40] for d in devices()]

needs_device = pytest.mark.skipif(not DEVICE_NAMES, reason=str(why_no_opencl()))


# Device numbers, not Device objects: objects kept by pytest for the whole session would outlive
# the module at exit.
@pytest.fixture(params=range(len(DEVICE_NAMES)), ids=DEVICE_NAMES)
def ctx(request):
    return shared_context(cl, request.param)


@pytest.fixture
def queue(ctx):
    return cl.CommandQueue(ctx)
