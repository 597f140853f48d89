"""PyOpenCL's signatures of gpukit.cl's calls: the argument order PyOpenCL code passes by
position, checked by results against numpy.

Like test_cl_subclasses.py, the tests run on PyOpenCL itself with GPUKIT_PYOPENCL_ORIGINAL=1
(``GPUKIT_PYOPENCL_ORIGINAL=1 python -m pytest tests/python/test_cl_pyopencl_signatures.py``
in an environment with pyopencl); checks of gpukit's own messages run on gpukit only.
"""
import os

import numpy as np
import pytest

ORIGINAL = os.environ.get("GPUKIT_PYOPENCL_ORIGINAL") == "1"
if ORIGINAL:
    import pyopencl as cl
    import pyopencl.tools as cl_tools
else:
    import gpukit.cl as cl
    import gpukit.cl.tools as cl_tools


def _devices():
    try:
        return [d for p in cl.get_platforms() for d in p.get_devices()]
    except (cl.Error, OSError):  # no ICD loader, or (PyOpenCL) no platform
        return []


_DEVICE_NAMES = [f"{d.platform.name.split()[0]}:{d.name}"[:40] for d in _devices()]

pytestmark = [pytest.mark.opencl,
              pytest.mark.skipif(not _DEVICE_NAMES, reason="no OpenCL platform with a device")]


@pytest.fixture(params=range(len(_DEVICE_NAMES)), ids=_DEVICE_NAMES)
def ctx(request):
    return cl.Context([_devices()[request.param]])


@pytest.fixture
def queue(ctx):
    return cl.CommandQueue(ctx)


@pytest.fixture
def rng():
    return np.random.default_rng(1028)


def _needs_svm(ctx):
    if not ctx.devices[0].svm_capabilities:
        pytest.skip(f"device {ctx.devices[0].name!r} reports no SVM capabilities")


NEGATE = """
__kernel void negate(__global int *x) { x[get_global_id(0)] = -x[get_global_id(0)]; }
"""


def test_svm_allocator_by_position(ctx, queue, rng):
    _needs_svm(ctx)
    negate = cl.Kernel(cl.Program(ctx, NEGATE).build(), "negate")
    for alignment in (0, 64, 128):
        # PyOpenCL's order: context, alignment, flags, queue.
        allocator = cl_tools.SVMAllocator(ctx, alignment, cl.svm_mem_flags.READ_WRITE, queue)
        x = rng.integers(-1000, 1000, 37).astype(np.int32)
        svm = allocator(x.nbytes)
        assert svm.size == x.nbytes
        if alignment:
            assert svm.svm_ptr % alignment == 0, alignment
        cl.enqueue_copy(queue, svm, x)
        negate(queue, x.shape, None, svm)
        out = np.empty_like(x)
        cl.enqueue_copy(queue, out, svm)
        np.testing.assert_array_equal(out, -x)
        svm.release()  # on the allocator's queue, after the copy
    queue.finish()


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL's SVMAllocator has no attributes")
def test_svm_allocator_positional_and_keyword_forms_agree(ctx, queue):
    _needs_svm(ctx)
    by_position = cl_tools.SVMAllocator(ctx, 64, cl.svm_mem_flags.READ_ONLY)
    by_keyword = cl_tools.SVMAllocator(ctx, flags=cl.svm_mem_flags.READ_ONLY, alignment=64)
    assert (by_position.alignment, by_position.flags) == (by_keyword.alignment, by_keyword.flags) == (64, 4)
    assert cl_tools.SVMAllocator(ctx).alignment == 0


def test_svm_allocator_refuses_a_fifth_argument_and_unknown_keywords(ctx, queue):
    with pytest.raises(TypeError):
        cl_tools.SVMAllocator(ctx, 0, cl.svm_mem_flags.READ_WRITE, queue, 5)
    with pytest.raises(TypeError):
        cl_tools.SVMAllocator(ctx, align=16)
