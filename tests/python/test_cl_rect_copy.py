"""enqueue_copy's rectangular copies (buffer_origin/host_origin/region, src_origin/dst_origin)
against numpy slicing, on every OpenCL device.

The results also run on PyOpenCL itself with GPUKIT_PYOPENCL_ORIGINAL=1 (as in
test_cl_pyopencl_signatures.py); checks of gpukit's own messages run on gpukit only.
"""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

pytestmark = [pytest.mark.opencl, needs_device]


def _buffer(ctx, host):
    return cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)


def _download(queue, buf, like):
    out = np.empty_like(like)
    cl.enqueue_copy(queue, out, buf)
    return out


def test_a_2d_box_goes_host_to_buffer_to_buffer_to_host(ctx, queue):
    rng = np.random.default_rng(7)
    host = rng.integers(0, 2**31, (13, 17), dtype=np.int32)  # odd sizes: a wrong pitch shows
    item = host.itemsize
    dev_in = np.full((20, 23), -1, np.int32)
    buf_in = _buffer(ctx, dev_in)
    # rows 3..3+5 and columns 2..2+7 of host to rows 4.. and columns 6.. of the buffer
    cl.enqueue_copy(
        queue,
        buf_in,
        host,
        buffer_origin=(6 * item, 4),
        host_origin=(2 * item, 3),
        region=(7 * item, 5),
        buffer_pitches=(23 * item,),
        host_pitches=(17 * item,),
    )
    expected_in = dev_in.copy()
    expected_in[4:9, 6:13] = host[3:8, 2:9]
    np.testing.assert_array_equal(_download(queue, buf_in, dev_in), expected_in)

    dev_out = np.zeros((11, 9), np.int32)
    buf_out = _buffer(ctx, dev_out)
    cl.enqueue_copy(
        queue,
        buf_out,
        buf_in,
        src_origin=(6 * item, 4, 0),
        dst_origin=(1 * item, 2, 0),
        region=(7 * item, 5, 1),
        src_pitches=(23 * item, 0),
        dst_pitches=(9 * item, 0),
    )
    expected_out = dev_out.copy()
    expected_out[2:7, 1:8] = host[3:8, 2:9]
    np.testing.assert_array_equal(_download(queue, buf_out, dev_out), expected_out)

    back = np.full((6, 10), 99, np.int32)
    cl.enqueue_copy(
        queue,
        back,
        buf_out,
        buffer_origin=(1 * item, 2),
        host_origin=(3 * item, 1),
        region=(7 * item, 5),
        buffer_pitches=(9 * item,),
        host_pitches=(10 * item,),
    )
    expected_back = np.full((6, 10), 99, np.int32)
    expected_back[1:6, 3:10] = host[3:8, 2:9]
    np.testing.assert_array_equal(back, expected_back)


def test_a_3d_box_with_slice_pitches(ctx, queue):
    host = np.arange(4 * 6 * 5, dtype=np.float64).reshape(4, 6, 5)
    item = host.itemsize
    buf = _buffer(ctx, np.zeros((3, 7, 8)))
    cl.enqueue_copy(
        queue,
        buf,
        host,
        buffer_origin=(1 * item, 2, 1),
        host_origin=(2 * item, 1, 1),
        region=(3 * item, 4, 2),
        buffer_pitches=(8 * item, 7 * 8 * item),
        host_pitches=(5 * item, 6 * 5 * item),
    )
    expected = np.zeros((3, 7, 8))
    expected[1:3, 2:6, 1:4] = host[1:3, 1:5, 2:5]
    np.testing.assert_array_equal(_download(queue, buf, expected), expected)


def test_tight_pitches_are_the_default(ctx, queue):
    host = np.arange(24, dtype=np.uint8)
    buf = _buffer(ctx, np.zeros(24, np.uint8))
    # no pitches: the region's own row and slice lengths, so the box is the first 24 bytes
    cl.enqueue_copy(queue, buf, host, buffer_origin=(0, 0, 0), host_origin=(0, 0, 0), region=(4, 3, 2))
    np.testing.assert_array_equal(_download(queue, buf, host), host)


@pytest.mark.skipif(ORIGINAL, reason="gpukit's checks and messages")
class TestRefusals:
    def test_a_host_array_too_small_for_the_box_is_refused(self, ctx, queue):
        buf = _buffer(ctx, np.zeros(64, np.uint8))
        small = np.zeros(10, np.uint8)
        with pytest.raises(cl.LogicError, match=r"host side of the copy reaches byte 16, beyond its 10 bytes"):
            cl.enqueue_copy(queue, small, buf, buffer_origin=(0,), host_origin=(0,), region=(4, 4), host_pitches=(4,))
        with pytest.raises(cl.LogicError, match=r"buffer side of the copy reaches byte 65, beyond its 64 bytes"):
            cl.enqueue_copy(queue, buf, np.zeros(100, np.uint8), buffer_origin=(1, 0), host_origin=(0,), region=(8, 8))
        with pytest.raises(cl.LogicError, match=r"destination side of the copy reaches"):
            cl.enqueue_copy(
                queue, cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 8), buf, src_origin=(0,), dst_origin=(0,), region=(3, 3)
            )

    def test_bad_pitches_and_empty_regions_are_refused(self, ctx, queue):
        buf = _buffer(ctx, np.zeros(64, np.uint8))
        host = np.zeros(64, np.uint8)
        with pytest.raises(cl.LogicError, match=r"row pitch 3 is less than a row of the region \(4 bytes\)"):
            cl.enqueue_copy(queue, buf, host, buffer_origin=(0,), host_origin=(0,), region=(4, 2), buffer_pitches=(3,))
        with pytest.raises(cl.LogicError, match=r"slice pitch 10 must be at least"):
            cl.enqueue_copy(
                queue, buf, host, buffer_origin=(0,), host_origin=(0,), region=(4, 2, 2), host_pitches=(4, 10)
            )
        with pytest.raises(cl.LogicError, match=r"region \(0, 1, 1\) is empty"):
            cl.enqueue_copy(queue, buf, host, buffer_origin=(0,), host_origin=(0,), region=(0,))
        with pytest.raises(cl.LogicError, match=r"beyond the address space"):
            cl.enqueue_copy(
                queue, buf, host, buffer_origin=(0, 2**62), host_origin=(0,), region=(4, 2), buffer_pitches=(2**40,)
            )

    def test_arguments_of_the_wrong_kind_of_copy_are_refused(self, ctx, queue):
        buf = _buffer(ctx, np.zeros(64, np.uint8))
        host = np.zeros(64, np.uint8)
        with pytest.raises(TypeError, match=r"needs region"):
            cl.enqueue_copy(queue, buf, host, buffer_origin=(0,), host_origin=(0,))
        with pytest.raises(TypeError, match=r"needs host_origin"):
            cl.enqueue_copy(queue, buf, host, buffer_origin=(0,), region=(4,))
        with pytest.raises(TypeError, match=r"src_origin is not an argument of this copy"):
            cl.enqueue_copy(queue, buf, host, src_origin=(0,), buffer_origin=(0,), host_origin=(0,), region=(4,))
        with pytest.raises(TypeError, match=r"host_origin is not an argument of this copy; between Buffers"):
            cl.enqueue_copy(queue, buf, buf, host_origin=(0,), src_origin=(0,), dst_origin=(8,), region=(4,))
        with pytest.raises(TypeError, match=r"byte_count is an argument of a linear copy"):
            cl.enqueue_copy(queue, buf, host, buffer_origin=(0,), host_origin=(0,), region=(4,), byte_count=4)
        with pytest.raises(TypeError, match=r"region\) must be a tuple of 1 to 3 ints, got 4 of them"):
            cl.enqueue_copy(queue, buf, host, buffer_origin=(0,), host_origin=(0,), region=(1, 1, 1, 1))
        with pytest.raises(TypeError, match=r"host_pitches\) must be a tuple of 1 to 2 ints, got int"):
            cl.enqueue_copy(queue, buf, host, buffer_origin=(0,), host_origin=(0,), region=(4,), host_pitches=4)
        with pytest.raises(TypeError, match=r"needs a Buffer"):
            cl.enqueue_copy(queue, host, host, buffer_origin=(0,), host_origin=(0,), region=(4,))
        # the linear copy still takes its offsets
        cl.enqueue_copy(queue, buf, host[:8], dst_offset=8)
