"""PyOpenCL's Arrays over shared virtual memory (an SVMAllocator or SVMPool as the allocator, an
SVMAllocation as data): the engine's kernels take SVM as a pointer and copy it with SVM copies,
results come from the allocator, and the allocation's queue is the one it is freed on, with
PyOpenCL's InconsistentOpenCLQueueWarning when an Array works on another. Checked against numpy
over views that catch a wrong offset or stride, and also on PyOpenCL itself
(GPUKIT_PYOPENCL_ORIGINAL=1) where PyOpenCL does the same."""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, cl_tools, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

if ORIGINAL:
    import pyopencl.array as cla
    import pyopencl.characterize as characterize
    from pyopencl.elementwise import ElementwiseKernel
else:
    import gpukit.cl.array as cla
    import gpukit.cl.characterize as characterize
    from gpukit.cl.elementwise import ElementwiseKernel

pytestmark = [pytest.mark.opencl, needs_device]

# PyOpenCL operates on contiguous arrays only, and on SVM from its start only (an offset view's
# get() is its ValueError "src_offset must be 0"): gpukit does both
BEYOND = not ORIGINAL


def _needs_svm(ctx):
    device = ctx.devices[0]
    if not characterize.has_coarse_grain_buffer_svm(device):
        pytest.skip(f"{device.name} has no coarse-grained buffer SVM")


def _allocator(ctx, queue, pooled):
    allocator = cl_tools.SVMAllocator(ctx, queue=queue)
    return cl_tools.SVMPool(allocator) if pooled else allocator


@pytest.mark.parametrize("pooled", [False, True], ids=["allocator", "pool"])
def test_arrays_over_svm_compute_like_numpy(ctx, queue, pooled):
    _needs_svm(ctx)
    alloc = _allocator(ctx, queue, pooled)
    host = np.arange(7 * 33, dtype=np.float32).reshape(7, 33) * 0.5 - 40
    a = cla.to_device(queue, host, allocator=alloc)
    assert isinstance(a.base_data, cl.SVMPointer) and a.allocator is alloc
    b = 2 * a - 3
    assert isinstance(b.base_data, cl.SVMPointer)
    np.testing.assert_array_equal(b.get(), 2 * host - 3)
    np.testing.assert_array_equal((a * b).get(), host * (2 * host - 3))
    np.testing.assert_array_equal((a > 0).get(), (host > 0).astype(np.int8))
    assert cla.sum(a).get() == pytest.approx(host.sum(dtype=np.float64), rel=1e-6)
    zeros = cla.zeros(queue, (5, 3), np.int32, allocator=alloc)
    assert isinstance(zeros.base_data, cl.SVMPointer)
    np.testing.assert_array_equal(zeros.get(), np.zeros((5, 3), np.int32))
    expected = host.copy()
    if BEYOND:
        # a view that starts inside the allocation: get, set and get_async honour its offset
        rows = a[2:5]
        assert rows.offset == 2 * 33 * 4
        np.testing.assert_array_equal(rows.get(), host[2:5])
        np.testing.assert_array_equal((rows + 1).get(), host[2:5] + 1)
        got, event = rows.get_async()
        event.wait()
        np.testing.assert_array_equal(got, host[2:5])
        rows.set(np.full((3, 33), 7, np.float32))
        expected[2:5] = 7
        np.testing.assert_array_equal(a.get(), expected)
        view = a[::-2, 1::3]
        np.testing.assert_array_equal(view.get(), expected[::-2, 1::3])
        np.testing.assert_array_equal((view * view).get(), expected[::-2, 1::3] ** 2)
        np.testing.assert_array_equal(a.T.copy().get(), expected.T)


def test_kernels_and_gathers_take_svm_arrays(ctx, queue):
    _needs_svm(ctx)
    alloc = _allocator(ctx, queue, pooled=False)
    x_host = np.linspace(-3, 3, 101, dtype=np.float32)
    x = cla.to_device(queue, x_host, allocator=alloc)
    y = cla.empty_like(x)
    axpb = ElementwiseKernel(ctx, "float a, float *x, float b, float *y", "y[i] = a * x[i] + b", "axpb")
    axpb(np.float32(2.5), x, np.float32(-1), y)
    np.testing.assert_allclose(y.get(), 2.5 * x_host - 1, rtol=1e-6)
    if BEYOND:
        # into the middle of an allocation: the kernel's view of y starts at its offset
        axpb(np.float32(1), x[50:], np.float32(100), y[:51])
        expected = 2.5 * x_host - 1
        expected[:51] = x_host[50:] + 100
        np.testing.assert_allclose(y.get(), expected, rtol=1e-6)
    indices = cla.to_device(queue, np.array([100, 0, 37, 37, 5], np.int32), allocator=alloc)
    np.testing.assert_array_equal(cla.take(x, indices).get(), x_host[[100, 0, 37, 37, 5]])


def test_svm_arrays_mix_with_buffer_arrays(ctx, queue):
    _needs_svm(ctx)
    host = np.arange(64, dtype=np.int32)
    on_svm = cla.to_device(queue, host, allocator=_allocator(ctx, queue, pooled=True))
    on_buffer = cla.to_device(queue, host[::-1].copy())
    total = on_svm + on_buffer
    np.testing.assert_array_equal(total.get(), host + host[::-1])
    np.testing.assert_array_equal((on_buffer - on_svm).get(), host[::-1] - host)


def test_the_allocation_is_freed_on_its_queue_and_warns_when_an_array_uses_another(ctx, queue):
    _needs_svm(ctx)
    queue2 = cl.CommandQueue(ctx)
    alloc = cl_tools.SVMAllocator(ctx, queue=queue)
    allocation = alloc(400)
    assert allocation._queue == queue
    allocation.bind_to_queue(queue2)
    assert allocation._queue == queue2
    allocation.unbind_from_queue()
    assert allocation._queue is None
    pool = cl_tools.SVMPool(alloc)
    assert pool(64)._queue == queue
    with pytest.warns(cla.InconsistentOpenCLQueueWarning):
        cla.empty(queue2, 100, np.float32, allocator=alloc)
    a = cla.arange(queue, 100, dtype=np.float32, allocator=alloc)
    with pytest.warns(cla.InconsistentOpenCLQueueWarning):
        a.with_queue(queue2)


@pytest.mark.skipif(ORIGINAL, reason="gpukit's message for memory released under an array")
def test_an_array_whose_svm_was_released_is_refused(ctx, queue):
    _needs_svm(ctx)
    allocation = cl.SVMAllocation(ctx, 400, 0, cl.svm_mem_flags.READ_WRITE, queue)
    a = cla.Array(queue, (100,), np.float32, data=allocation)
    a.fill(1)
    np.testing.assert_array_equal(a.get(), np.ones(100, np.float32))
    allocation.release()
    with pytest.raises(cl.LogicError, match="released"):
        a + 1


@pytest.mark.skipif(
    ORIGINAL, reason="PyOpenCL binds a queue of another context, or a released allocation, without a word"
)
def test_binding_a_queue_of_another_context_or_released_svm_is_refused(ctx, queue):
    _needs_svm(ctx)
    allocation = cl_tools.SVMAllocator(ctx, queue=queue)(64)
    other = cl.CommandQueue(cl.Context(ctx.devices))
    with pytest.raises(cl.LogicError, match="another context"):
        allocation.bind_to_queue(other)
    assert allocation._queue == queue  # unchanged by the refusal
    allocation.release()
    with pytest.raises(cl.LogicError, match="released"):
        allocation.bind_to_queue(queue)
