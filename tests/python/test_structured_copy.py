"""Memcpy2D, Memcpy3D and Memcpy3DPeer: argument checks (no GPU needed) and copies of
sub-rectangles and boxes of random data through pitched device memory and arrays."""

import numpy as np
import pytest

import gpukit.driver as drv


def host_2d_copy(src, dst, width_in_bytes, height):
    copy = drv.Memcpy2D()
    copy.set_src_host(src)
    copy.set_dst_host(dst)
    copy.width_in_bytes = width_in_bytes
    copy.height = height
    return copy


def test_fields_start_at_zero_and_are_settable():
    copy = drv.Memcpy3D()
    for name in (
        "src_x_in_bytes",
        "src_y",
        "src_z",
        "src_lod",
        "src_pitch",
        "src_height",
        "dst_x_in_bytes",
        "dst_y",
        "dst_z",
        "dst_lod",
        "dst_pitch",
        "dst_height",
        "width_in_bytes",
    ):
        assert getattr(copy, name) == 0
        setattr(copy, name, 5)
        assert getattr(copy, name) == 5
    assert not hasattr(drv.Memcpy2D(), "src_z")


def test_missing_side_is_a_logic_error():
    copy = drv.Memcpy2D()
    copy.set_src_host(np.zeros(16, np.uint8))
    copy.width_in_bytes, copy.height = 4, 2
    with pytest.raises(drv.LogicError, match="set_dst_host"):
        copy()


def test_host_buffer_too_small_is_refused_before_copying():
    src = np.zeros(100, np.uint8)
    dst = np.zeros(10, np.uint8)
    copy = host_2d_copy(src, dst, 4, 3)
    copy.src_pitch = 10
    copy.dst_pitch = 4
    copy.dst_y = 1  # rows 1..3 of 4 bytes need 16 bytes, the buffer has 10
    with pytest.raises(drv.LogicError, match="holds 10 bytes"):
        copy()
    copy.dst_y = 0
    copy.dst_pitch = 3  # smaller than a row
    with pytest.raises(drv.LogicError, match="pitch 3"):
        copy()


def test_3d_slice_height_must_hold_the_rows():
    copy = drv.Memcpy3D()
    copy.set_src_host(np.zeros(1000, np.uint8))
    copy.set_dst_host(np.zeros(1000, np.uint8))
    copy.width_in_bytes, copy.height, copy.depth = 4, 5, 2
    copy.src_height = 4
    with pytest.raises(drv.LogicError, match="src_height"):
        copy()


def test_read_only_destination_is_refused():
    copy = drv.Memcpy2D()
    with pytest.raises(drv.LogicError):
        copy.set_dst_host(bytes(16))


def test_peer_copy_needs_both_contexts():
    copy = drv.Memcpy3DPeer()
    copy.set_src_host(np.zeros(8, np.uint8))
    copy.set_dst_host(np.zeros(8, np.uint8))
    copy.width_in_bytes = 8
    with pytest.raises(drv.LogicError, match="set_src_context"):
        copy()


@pytest.mark.gpu
@pytest.mark.parametrize("aligned", [True, False])
def test_2d_sub_rectangle_through_pitched_memory(ctx, aligned):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((37, 53)).astype(np.float32)
    dev, pitch = drv.mem_alloc_pitch(53 * 4, 37, 4)
    up = drv.Memcpy2D()
    up.set_src_host(a)
    up.set_dst_device(dev)
    up.src_pitch = a.strides[0]
    up.dst_pitch = pitch
    up.width_in_bytes, up.height = 53 * 4, 37
    up(aligned)
    # Bring back rows 5..24, columns 3..43 into the middle of a larger host array.
    out = np.zeros((30, 60), np.float32)
    down = drv.Memcpy2D()
    down.set_src_device(dev)
    down.set_dst_host(out)
    down.src_x_in_bytes, down.src_y, down.src_pitch = 3 * 4, 5, pitch
    down.dst_x_in_bytes, down.dst_y, down.dst_pitch = 2 * 4, 4, out.strides[0]
    down.width_in_bytes, down.height = 40 * 4, 20
    down(aligned)
    expected = np.zeros_like(out)
    expected[4:24, 2:42] = a[5:25, 3:43]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.gpu
def test_2d_async_on_a_stream(ctx):
    a = drv.pagelocked_empty((16, 32), np.int32)
    a[:] = np.random.default_rng(2).integers(-1000, 1000, a.shape)
    dev = drv.mem_alloc(a.nbytes)
    out = drv.pagelocked_zeros_like(a)
    stream = drv.Stream()
    up, down = drv.Memcpy2D(), drv.Memcpy2D()
    up.set_src_host(a)
    up.set_dst_device(dev)
    down.set_src_device(dev)
    down.set_dst_host(out)
    for c in (up, down):
        c.width_in_bytes, c.height = 32 * 4, 16
    up(stream)
    down(stream)
    stream.synchronize()
    np.testing.assert_array_equal(out, a)


@pytest.mark.gpu
def test_3d_box_through_device_memory(ctx):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2**16, (9, 11, 13), dtype=np.uint16)
    dev = drv.to_device(a)
    out = np.zeros((5, 6, 7), np.uint16)
    copy = drv.Memcpy3D()
    copy.set_src_device(dev)
    copy.set_dst_host(out)
    copy.src_x_in_bytes, copy.src_y, copy.src_z = 2 * 2, 3, 4
    copy.src_pitch, copy.src_height = 13 * 2, 11
    copy.width_in_bytes, copy.height, copy.depth = 7 * 2, 6, 5
    copy()
    np.testing.assert_array_equal(out, a[4:9, 3:9, 2:9])


@pytest.mark.gpu
def test_3d_through_an_array_and_back(ctx):
    a = np.random.default_rng(4).standard_normal((4, 5, 6)).astype(np.float32)
    ary = drv.np_to_array(a, "C")
    out = np.zeros_like(a)
    copy = drv.Memcpy3D()
    copy.set_src_array(ary)
    copy.set_dst_host(out)
    copy.width_in_bytes, copy.height, copy.depth = 6 * 4, 5, 4
    copy()
    np.testing.assert_array_equal(out, a)


@pytest.mark.gpu
def test_3d_peer_within_one_context(ctx):
    a = np.random.default_rng(5).integers(0, 255, (3, 4, 8), dtype=np.uint8)
    src = drv.to_device(a)
    dst = drv.mem_alloc(a.nbytes)
    copy = drv.Memcpy3DPeer()
    copy.set_src_device(src)
    copy.set_dst_device(dst)
    copy.set_src_context(ctx)
    copy.set_dst_context(ctx)
    copy.width_in_bytes, copy.height, copy.depth = 8, 4, 3
    copy()
    np.testing.assert_array_equal(drv.from_device(dst, a.shape, a.dtype), a)


@pytest.mark.gpu
def test_unified_accepts_host_and_device(ctx):
    a = np.arange(64, dtype=np.uint8)
    dev = drv.mem_alloc(64)
    copy = drv.Memcpy2D()
    copy.set_src_unified(a)
    copy.set_dst_unified(dev)
    copy.width_in_bytes, copy.height = 64, 1
    copy()
    np.testing.assert_array_equal(drv.from_device(dev, (64,), np.uint8), a)
