"""PyOpenCL's signatures of gpukit.cl's calls: the argument order PyOpenCL code passes by
position, checked by results against numpy.

Like test_cl_subclasses.py, the tests run on PyOpenCL itself with GPUKIT_PYOPENCL_ORIGINAL=1
(``GPUKIT_PYOPENCL_ORIGINAL=1 python -m pytest tests/python/test_cl_pyopencl_signatures.py``
in an environment with pyopencl); checks of gpukit's own messages run on gpukit only.
"""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, cl_tools, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

pytestmark = [pytest.mark.opencl, needs_device]


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


ATTRIBUTED = """
__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void shift(__global int *x, int by) { x[get_global_id(0)] += by; }
__kernel void negate(__global int *x) { x[get_global_id(0)] = -x[get_global_id(0)]; }
"""


def test_kernel_get_info_and_its_attribute_forms(ctx, queue, rng):
    prg = cl.Program(ctx, ATTRIBUTED).build()
    shift = cl.Kernel(prg, "shift")
    info = cl.kernel_info
    assert shift.get_info(info.FUNCTION_NAME) == shift.function_name == "shift"
    assert shift.get_info(info.NUM_ARGS) == shift.num_args == 2
    assert shift.get_info(info.REFERENCE_COUNT) == shift.reference_count >= 1
    assert shift.get_info(info.CONTEXT) == shift.context == ctx
    assert shift.get_info(info.PROGRAM) == shift.program == prg
    assert isinstance(shift.attributes, str) and shift.get_info(info.ATTRIBUTES) == shift.attributes
    if ctx.devices[0].platform.name == "Portable Computing Language":  # an answer known here
        assert "reqd_work_group_size" in shift.attributes
        assert cl.Kernel(prg, "negate").attributes == ""
    # The program and context it gives are the kernel's own: another kernel of that program
    # runs on buffers of that context.
    x = rng.integers(-100, 100, 64).astype(np.int32)
    buf = cl.Buffer(shift.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    shift(queue, x.shape, (8,), buf, np.int32(5))
    cl.Kernel(shift.program, "negate")(queue, x.shape, None, buf)
    out = np.empty_like(x)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, -(x + 5))


def test_buffer_context(ctx):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    assert buf.get_info(cl.mem_info.CONTEXT) == buf.context == ctx
    assert buf.context != cl.Context(ctx.devices)


@pytest.mark.skipif(ORIGINAL, reason="gpukit's message")
def test_kernel_get_info_refuses_other_parameters(ctx):
    shift = cl.Kernel(cl.Program(ctx, ATTRIBUTED).build(), "shift")
    with pytest.raises(
        cl.LogicError,
        match=r"Kernel.get_info: parameter 4096 is not supported; expected "
        r"kernel_info.FUNCTION_NAME, .*kernel_info.ATTRIBUTES",
    ):
        shift.get_info(0x1000)
    with pytest.raises(TypeError, match=r"Kernel.get_info\(param\)"):
        shift.get_info("FUNCTION_NAME")


# out[id] = 10 * id + 1 for every work item's global id.
IDS = """
__kernel void ids(__global int *out) {
    const int i = (int)get_global_id(0);
    out[i] = 10 * i + 1;
}
"""
COUNT = 64


def _ids_setup(ctx, queue):
    knl = cl.Kernel(cl.Program(ctx, IDS).build(), "ids")
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.full(COUNT, -1, np.int32))
    return knl, out


def _read(queue, buf):
    values = np.empty(COUNT, np.int32)
    cl.enqueue_copy(queue, values, buf)
    return values


def _expected(first, last):
    values = np.full(COUNT, -1, np.int32)
    values[first:last] = 10 * np.arange(first, last, dtype=np.int32) + 1
    return values


def test_enqueue_nd_range_kernel_runs_a_kernel_whose_arguments_are_set(ctx, queue):
    knl, out = _ids_setup(ctx, queue)
    knl.set_args(out)
    evt = cl.enqueue_nd_range_kernel(queue, knl, (16,), (8,))
    evt.wait()
    np.testing.assert_array_equal(_read(queue, out), _expected(0, 16))
    # PyOpenCL's positional order: global_offset, then wait_for.
    cl.enqueue_nd_range_kernel(queue, knl, (8,), None, (20,), [evt]).wait()
    np.testing.assert_array_equal(
        _read(queue, out), np.where(np.arange(COUNT) < 16, _expected(0, 16), _expected(20, 28))
    )


def test_global_offset_and_work_group_counts_in_kernel_calls(ctx, queue):
    knl, out = _ids_setup(ctx, queue)
    knl(queue, (10,), None, out, global_offset=(5,)).wait()
    np.testing.assert_array_equal(_read(queue, out), _expected(5, 15))
    knl, out = _ids_setup(ctx, queue)
    knl(queue, (3,), (8,), out, g_times_l=True).wait()
    np.testing.assert_array_equal(_read(queue, out), _expected(0, 24))
    # With g_times_l, the offset counts work groups too.
    knl, out = _ids_setup(ctx, queue)
    knl.set_args(out)
    cl.enqueue_nd_range_kernel(queue, knl, (2,), (4,), (5,), g_times_l=True).wait()
    np.testing.assert_array_equal(_read(queue, out), _expected(20, 28))
    knl, out = _ids_setup(ctx, queue)
    knl(queue, (2,), (4,), out, global_offset=(3,), g_times_l=True).wait()
    np.testing.assert_array_equal(_read(queue, out), _expected(12, 20))


def test_an_empty_range_runs_nothing_when_allowed(ctx, queue):
    knl, out = _ids_setup(ctx, queue)
    written = cl.enqueue_copy(queue, out, np.full(COUNT, 3, np.int32), is_blocking=False)
    evt = knl(queue, (0,), None, out, allow_empty_ndrange=True, wait_for=[written])
    evt.wait()
    assert written.command_execution_status == 0  # CL_COMPLETE: the marker waited for it
    np.testing.assert_array_equal(_read(queue, out), np.full(COUNT, 3, np.int32))
    knl.set_args(out)
    cl.enqueue_nd_range_kernel(queue, knl, (0, 4), None, allow_empty_ndrange=True).wait()
    np.testing.assert_array_equal(_read(queue, out), np.full(COUNT, 3, np.int32))


def test_enqueue_marker(ctx, queue):
    knl, out = _ids_setup(ctx, queue)
    ran = knl(queue, (COUNT,), None, out)
    cl.enqueue_marker(queue).wait()
    assert ran.command_execution_status == 0
    cl.enqueue_marker(queue, wait_for=[ran]).wait()
    np.testing.assert_array_equal(_read(queue, out), _expected(0, COUNT))


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL does not refuse these before OpenCL sees them")
def test_launch_mistakes_are_refused_with_reasons(ctx, queue):
    knl, out = _ids_setup(ctx, queue)
    with pytest.raises(cl.LogicError, match="sizes must be positive"):
        knl(queue, (0,), None, out)
    with pytest.raises(cl.LogicError, match=r"g_times_l\), so a local size is needed"):
        knl(queue, (4,), None, out, g_times_l=True)
    with pytest.raises(cl.LogicError, match=r"global offset \(1, 2\) must have as many dimensions as global size"):
        knl(queue, (4,), None, out, global_offset=(1, 2))
    with pytest.raises(TypeError, match=r"g_times_l"):
        knl(queue, (4,), None, out, g_times_l="yes")
    with pytest.raises(TypeError, match="unexpected keyword 'offset'"):
        knl(queue, (4,), None, out, offset=(1,))
    with pytest.raises(TypeError):
        cl.enqueue_nd_range_kernel(queue, knl, (4,), None, None, None, True)  # g_times_l is keyword-only
    unset = cl.Kernel(cl.Program(ctx, IDS).build(), "ids")
    with pytest.raises(cl.LogicError, match=r"argument 0 \('out', __global int\*\) of kernel 'ids' was never set"):
        cl.enqueue_nd_range_kernel(queue, unset, (4,), None)


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL's kernel keeps no argument: PoCL aborts the process on this launch")
def test_a_kernel_keeps_the_buffer_it_was_given_until_set_again(ctx, queue):
    import gc
    import weakref

    class Tracked(cl.Buffer):
        pass

    knl, out = _ids_setup(ctx, queue)
    buf = Tracked(ctx, cl.mem_flags.READ_WRITE, COUNT * 4)
    handle, ref = buf.int_ptr, weakref.ref(buf)
    knl.set_arg(0, buf)
    del buf
    gc.collect()
    assert ref() is None  # the Python object went; the kernel keeps the OpenCL memory
    cl.enqueue_nd_range_kernel(queue, knl, (COUNT,), None).wait()
    np.testing.assert_array_equal(_read(queue, cl.Buffer.from_int_ptr(handle)), _expected(0, COUNT))


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL's kernel keeps no argument")
def test_a_kernel_keeps_the_svm_it_was_given_until_set_again(ctx, queue):
    import gc
    import weakref

    class TrackedSVM(cl.SVMAllocation):  # a subclass instance can be weakly referenced
        pass

    _needs_svm(ctx)
    knl, out = _ids_setup(ctx, queue)
    svm = TrackedSVM(ctx, COUNT * 4, 0, cl.svm_mem_flags.READ_WRITE)
    ref = weakref.ref(svm)
    knl.set_arg(0, svm)
    del svm
    gc.collect()
    assert ref() is not None  # kept, allocated, by the kernel
    cl.enqueue_nd_range_kernel(queue, knl, (COUNT,), None).wait()
    values = np.empty(COUNT, np.int32)
    cl.enqueue_copy(queue, values, ref())
    np.testing.assert_array_equal(values, 10 * np.arange(COUNT, dtype=np.int32) + 1)
    knl.set_arg(0, out)
    queue.finish()  # a gpukit.cl call that releases what was let go
    gc.collect()
    assert ref() is None
