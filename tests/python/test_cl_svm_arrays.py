"""PyOpenCL's SVM arrays: svm_empty and its coarse- and fine-grained forms (numpy arrays whose
base is the SVMAllocation), the SVM wrapper as kernel argument and copy side, mapping for host
access, and SVM as a Buffer; checked against numpy, and also on PyOpenCL itself
(GPUKIT_PYOPENCL_ORIGINAL=1)."""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

if ORIGINAL:
    import pyopencl.characterize as characterize
else:
    import gpukit.cl.characterize as characterize

pytestmark = [pytest.mark.opencl, needs_device]

TWICE = "__kernel void twice(__global float *a, int offset) { a[get_global_id(0) + offset] *= 2; }"


def _needs(ctx, fine=False):
    device = ctx.devices[0]
    has = characterize.has_fine_grain_buffer_svm if fine else characterize.has_coarse_grain_buffer_svm
    if not has(device):
        pytest.skip(f"{device.name} has no {'fine' if fine else 'coarse'}-grained buffer SVM")


@pytest.mark.parametrize("order", ["C", "F"])
def test_coarse_grained_arrays_are_mapped_for_the_host_and_doubled_by_kernels(ctx, queue, order):
    _needs(ctx)
    ary = cl.csvm_empty(ctx, (37, 3), np.float32, order=order, alignment=64)
    assert isinstance(ary.base, cl.SVMAllocation) and ary.shape == (37, 3)
    assert ary.flags.f_contiguous if order == "F" else ary.flags.c_contiguous
    svm = cl.SVM(ary)
    assert svm.mem is ary and svm.size == ary.nbytes
    values = np.arange(111, dtype=np.float32).reshape((37, 3), order=order)
    with svm.map_rw(queue) as host:
        assert host is ary
        host[...] = values
    program = cl.Program(ctx, TWICE).build()
    program.twice(queue, (111,), None, svm, np.int32(0))
    program.twice(queue, (100,), None, svm.as_buffer(ctx), np.int32(11))  # as a Buffer: elements 11 on
    expected = values.ravel(order="K").copy()
    expected *= 2
    expected[11:] *= 2
    with svm.map_ro(queue) as host:
        np.testing.assert_array_equal(host.ravel(order="K"), expected)
    out = np.empty(111, np.float32)
    cl.enqueue_copy(queue, out, svm)
    np.testing.assert_array_equal(out, expected)


def test_an_allocation_maps_as_bytes(ctx, queue):
    _needs(ctx)
    allocation = cl.SVMAllocation(ctx, 40, 64, cl.svm_mem_flags.READ_WRITE)
    with allocation.map_rw(queue) as host:
        assert host.dtype == np.uint8 and host.nbytes == 40
        host.view(np.int32)[:] = np.arange(10, dtype=np.int32)
    out = np.empty(10, np.int32)
    cl.enqueue_copy(queue, out, allocation)
    np.testing.assert_array_equal(out, np.arange(10))


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL's SVM refuses an SVMAllocation (TypeError)")
def test_an_svm_over_an_allocation_maps_and_wraps_its_bytes(ctx, queue):
    _needs(ctx)
    allocation = cl.SVMAllocation(ctx, 40, 64, cl.svm_mem_flags.READ_WRITE)
    svm = cl.SVM(allocation)
    with svm.map_rw(queue) as host:
        assert host.dtype == np.uint8 and host.nbytes == 40
        host.view(np.float32)[:] = np.arange(10, dtype=np.float32)
    cl.Program(ctx, TWICE).build().twice(queue, (6,), None, svm.as_buffer(ctx), np.int32(4))
    out = np.empty(10, np.float32)
    cl.enqueue_copy(queue, out, allocation)
    expected = np.arange(10, dtype=np.float32)
    expected[4:] *= 2
    np.testing.assert_array_equal(out, expected)


def test_fine_grained_arrays_are_shared_without_mapping(ctx, queue):
    _needs(ctx, fine=True)
    ary = cl.fsvm_empty(ctx, 1001, np.float32)
    assert isinstance(ary.base, cl.SVMAllocation)
    ary[:] = np.arange(1001, dtype=np.float32)
    cl.Program(ctx, TWICE).build().twice(queue, (1001,), None, cl.SVM(ary), np.int32(0))
    queue.finish()
    np.testing.assert_array_equal(ary, 2 * np.arange(1001, dtype=np.float32))
    like = cl.fsvm_empty_like(ctx, np.zeros((4, 5), np.int16, order="F"))
    assert like.shape == (4, 5) and like.dtype == np.int16 and like.flags.f_contiguous


def test_svm_refusals(ctx, queue):
    _needs(ctx)
    if ORIGINAL:
        pytest.skip("PyOpenCL wraps any host array (fine-grained system SVM) and does not track the owner's release")
    with pytest.raises(TypeError, match="not over SVM"):
        cl.SVM(np.zeros(4, np.float32))
    allocation = cl.SVMAllocation(ctx, 64, 64, cl.svm_mem_flags.READ_WRITE)
    view = cl.SVM(allocation)
    allocation.release()
    with pytest.raises(cl.LogicError, match="released"):
        cl.Program(ctx, TWICE).build().twice(queue, (1,), None, view, np.int32(0))
    mapping = cl.SVM(cl.csvm_empty(ctx, 4, np.float32)).map_rw(queue)
    mapping.release()
    with pytest.raises(cl.LogicError, match="already released"):
        mapping.release()
