"""CUDA arrays: descriptors and argument checks (no GPU needed), and round trips of random
data through arrays with memcpy_htoa/atoh/dtoa/atod/atoa, np_to_array, matrix_to_array and
make_multichannel_2d_array."""

import numpy as np
import pytest

import gpukit.driver as drv


def descriptor_2d(width, height, fmt=drv.array_format.FLOAT, channels=1):
    d = drv.ArrayDescriptor()
    d.width, d.height, d.format, d.num_channels = width, height, fmt, channels
    return d


def read_array(ary, shape, dtype):
    out = np.empty(shape, dtype)
    drv.memcpy_atoh(out, ary, 0)
    return out


def test_descriptors_hold_their_fields():
    d = descriptor_2d(7, 3, drv.array_format.SIGNED_INT32, 2)
    assert (d.width, d.height, d.num_channels) == (7, 3, 2)
    assert d.format is drv.array_format.SIGNED_INT32
    d3 = drv.ArrayDescriptor3D()
    d3.depth, d3.flags = 4, drv.array3d_flags.LAYERED
    assert d3.depth == 4 and d3.flags == drv.array3d_flags.LAYERED


def test_unsupported_dtypes_and_orders_are_refused():
    with pytest.raises(ValueError, match="no CUDA array format"):
        drv.np_to_array(np.zeros((2, 2), np.int64), "C")
    with pytest.raises(ValueError, match="order"):
        drv.np_to_array(np.zeros((2, 2), np.float32), "X")
    with pytest.raises(ValueError, match="allow_double_hack"):
        drv.matrix_to_array(np.zeros((2, 2), np.float64))
    with pytest.raises(ValueError, match="2-D or 3-D"):
        drv.np_to_array(np.zeros(4, np.float32), "C")
    with pytest.raises(ValueError, match="channels"):
        drv.make_multichannel_2d_array(np.zeros((2, 2, 3), np.float32), "C")


@pytest.mark.gpu
def test_array_descriptor_and_free(ctx):
    ary = drv.Array(descriptor_2d(33, 17, drv.array_format.UNSIGNED_INT16, 4))
    d = ary.get_descriptor()
    assert (d.width, d.height, d.num_channels, d.format) == (33, 17, 4, drv.array_format.UNSIGNED_INT16)
    assert ary.get_descriptor_3d().depth == 0
    assert ary.nbytes == 33 * 17 * 4 * 2
    assert ary.handle != 0
    ary.free()
    ary.free()
    with pytest.raises(drv.LogicError, match="freed"):
        ary.get_descriptor()


@pytest.mark.gpu
def test_bad_descriptor_is_a_logic_error(ctx):
    with pytest.raises(drv.LogicError, match="num_channels"):
        drv.Array(descriptor_2d(4, 4, channels=3))
    with pytest.raises(drv.LogicError, match="width"):
        drv.Array(descriptor_2d(0, 4))


@pytest.mark.gpu
def test_unstructured_array_copies(ctx):
    rng = np.random.default_rng(10)
    a = rng.standard_normal((12, 20)).astype(np.float32)
    ary = drv.Array(descriptor_2d(20, 12))
    drv.memcpy_htoa(ary, 0, a)
    np.testing.assert_array_equal(read_array(ary, a.shape, a.dtype), a)
    # device -> array at an offset, array -> device, array -> array
    row = rng.standard_normal(20).astype(np.float32)
    drv.memcpy_dtoa(ary, 3 * 80, drv.to_device(row), 80)
    a[3] = row
    dev = drv.mem_alloc(a.nbytes)
    drv.memcpy_atod(dev, ary, 0, a.nbytes)
    np.testing.assert_array_equal(drv.from_device(dev, a.shape, a.dtype), a)
    other = drv.Array(descriptor_2d(20, 12))
    drv.memcpy_atoa(other, 0, ary, 0, a.nbytes)
    np.testing.assert_array_equal(read_array(other, a.shape, a.dtype), a)
    with pytest.raises(drv.LogicError, match="do not fit"):
        drv.memcpy_htoa(ary, 8, a)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("order", ["C", "F"])
def test_np_to_array_2d_round_trip(ctx, dtype, order):
    rng = np.random.default_rng(11)
    a = (rng.random((13, 9)) * 100).astype(dtype)
    if np.iscomplexobj(a):
        a += 1j * rng.standard_normal(a.shape).astype(dtype)
    ary = drv.np_to_array(a, order)
    d = ary.get_descriptor()
    width, height = (a.shape[0], a.shape[1]) if order == "F" else (a.shape[1], a.shape[0])
    assert (d.width, d.height) == (width, height)
    back = read_array(ary, a.size, a.dtype)
    np.testing.assert_array_equal(back, a.reshape(-1, order=order))


@pytest.mark.gpu
def test_np_to_array_3d_and_surface_flag(ctx):
    a = np.random.default_rng(12).integers(-5, 5, (4, 6, 8), dtype=np.int32)
    ary = drv.np_to_array(a, "C", allowSurfaceBind=True)
    d = ary.get_descriptor_3d()
    assert (d.width, d.height, d.depth) == (8, 6, 4)
    assert d.flags & drv.array3d_flags.SURFACE_LDST
    np.testing.assert_array_equal(read_array(ary, a.shape, a.dtype), a)


@pytest.mark.gpu
def test_matrix_to_array_double_hack(ctx):
    a = np.random.default_rng(13).standard_normal((5, 7))
    ary = drv.matrix_to_array(a, "C", allow_double_hack=True)
    d = ary.get_descriptor()
    assert (d.format, d.num_channels) == (drv.array_format.SIGNED_INT32, 2)
    np.testing.assert_array_equal(read_array(ary, a.shape, a.dtype), a)


@pytest.mark.gpu
@pytest.mark.parametrize("order", ["C", "F"])
def test_make_multichannel_2d_array(ctx, order):
    rng = np.random.default_rng(14)
    shape = (6, 10, 4) if order == "C" else (4, 10, 6)
    a = np.require(rng.standard_normal(shape).astype(np.float32), requirements=order)
    ary = drv.make_multichannel_2d_array(a, order)
    d = ary.get_descriptor()
    assert (d.width, d.height, d.num_channels) == (10, 6, 4)
    np.testing.assert_array_equal(read_array(ary, a.size, a.dtype), a.reshape(-1, order=order))
