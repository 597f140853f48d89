"""Host views of OpenCL memory, as PyOpenCL's: enqueue_map_buffer (the array's base is the
MemoryMap that unmaps it) and Buffer.get_host_array over USE_HOST_PTR memory. Each result is
checked against numpy at odd offsets, in both orders, with strides and structured dtypes; the
results also hold on PyOpenCL itself (GPUKIT_PYOPENCL_ORIGINAL=1)."""

import gc

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

pytestmark = [pytest.mark.opencl, needs_device]

WRITE_ONCE = cl.map_flags.WRITE_INVALIDATE_REGION


def _filled(ctx, queue, values):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, values.nbytes)
    cl.enqueue_copy(queue, buf, values)
    return buf


def _read(queue, buf, dtype, count):
    out = np.empty(count, dtype)
    cl.enqueue_copy(queue, out, buf)
    return out


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_read_map_sees_the_bytes_at_an_odd_offset_in_either_order(ctx, queue, order):
    values = np.arange(101, dtype=np.float32) * 1.5
    buf = _filled(ctx, queue, values)
    array, event = cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 3 * 4, (7, 5), np.float32, order=order)
    with array.base:
        event.wait()
        assert isinstance(array.base, cl.MemoryMap)
        np.testing.assert_array_equal(array, values[3:38].reshape((7, 5), order=order))
        if not ORIGINAL:  # gpukit's arrays of a READ map are read-only
            assert not array.flags.writeable


def test_strides_and_a_structured_dtype_view_the_bytes_as_numpy_would(ctx, queue):
    pair = np.dtype([("a", np.int32), ("b", np.float32)])
    values = np.zeros(40, pair)
    values["a"] = np.arange(40)
    values["b"] = np.arange(40) * 0.25
    buf = _filled(ctx, queue, values)
    array, _ = cl.enqueue_map_buffer(
        queue, buf, cl.map_flags.READ | cl.map_flags.WRITE, 8, (4, 3), pair, strides=(8 * 9, 8 * 2)
    )
    expected = np.lib.stride_tricks.as_strided(values[1:], (4, 3), (8 * 9, 8 * 2))
    np.testing.assert_array_equal(array, expected)
    array.base.release().wait()


def test_writes_through_a_map_reach_the_buffer_once_released(ctx, queue):
    values = np.arange(64, dtype=np.int16)
    buf = _filled(ctx, queue, values)
    array, event = cl.enqueue_map_buffer(queue, buf, WRITE_ONCE, 10 * 2, (9,), np.int16, is_blocking=False)
    event.wait()
    array[:] = -np.arange(9, dtype=np.int16)
    array.base.release(queue).wait()
    expected = values.copy()
    expected[10:19] = -np.arange(9)
    np.testing.assert_array_equal(_read(queue, buf, np.int16, 64), expected)


def test_an_array_dropped_unreleased_unmaps_its_bytes(ctx, queue):
    buf = _filled(ctx, queue, np.zeros(16, np.int32))
    array, _ = cl.enqueue_map_buffer(queue, buf, cl.map_flags.WRITE, 0, (16,), np.int32)
    array[:] = 7
    del array
    gc.collect()
    queue.finish()
    np.testing.assert_array_equal(_read(queue, buf, np.int32, 16), np.full(16, 7, np.int32))


def test_map_refusals(ctx, queue):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    with pytest.raises(cl.LogicError):
        cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 60, (2,), np.int32)  # past the end
    with pytest.raises(cl.LogicError):
        cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 0, (0,), np.int32)  # no bytes
    if ORIGINAL:
        return
    with pytest.raises(cl.LogicError, match="WRITE_INVALIDATE_REGION alone"):
        cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ | WRITE_ONCE, 0, (2,), np.int32)
    with pytest.raises(TypeError, match="holds Python objects"):
        cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 0, (2,), object)
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 0, (2,), np.int32, order="K")
    with pytest.raises(ValueError, match="reach before the first element"):
        cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 0, (2,), np.int32, strides=(-4,))
    array, _ = cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 0, (2,), np.int32)
    array.base.release()
    with pytest.raises(cl.LogicError, match="already unmapped"):
        array.base.release()


def test_get_host_array_views_the_programs_memory(ctx):
    host = np.arange(25, dtype=np.float32) / 3
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, hostbuf=host)
    view = buf.get_host_array(25, np.float32)
    assert view.base is buf
    assert view.__array_interface__["data"][0] == host.__array_interface__["data"][0]
    np.testing.assert_array_equal(view, host)
    grid = buf.get_host_array((4, 6), np.float32, order="F")
    np.testing.assert_array_equal(grid, host[:24].reshape((4, 6), order="F"))
    with pytest.raises(cl.LogicError):
        cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR, 100).get_host_array(25, np.float32)
    with pytest.raises(cl.LogicError):
        cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host).get_host_array(
            25, np.float32
        )
    if not ORIGINAL:
        with pytest.raises(cl.LogicError, match="more than the buffer's 100"):
            buf.get_host_array(26, np.float32)
        assert not hasattr(buf, "__array_interface__")
