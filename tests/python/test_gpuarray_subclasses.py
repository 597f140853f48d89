"""GPUArray as the open Python class libraries built on PyCUDA treat it as: every attribute
PyCUDA's __init__ sets can be read and assigned (on GPUArray and on a subclass), views hold
PyCUDA's gpudata, and results of a subclass come from its _new_like_me where PyCUDA's do
(operators, astype to another dtype, reverse, real/imag/conj, cumath's functions of one array,
logical_and/or, mul_add), while copies, views, reductions and *_like functions are plain
GPUArrays, as in PyCUDA.

The attribute tests need no GPU (the arrays lie over made-up addresses); results need one."""

import numpy as np
import pytest

import gpukit.cumath as cumath
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit.cuda import DeviceNDArray

gpu = pytest.mark.gpu

ADDRESS = 1 << 20


def fake(shape, dtype=np.float32, **kwargs):
    """A GPUArray over a made-up device address: nothing here reads its memory."""
    return gpuarray.GPUArray(shape, dtype, gpudata=ADDRESS, **kwargs)


# ---- attributes (no GPU)


@pytest.mark.parametrize("name", ["nbytes", "size", "mem_size", "itemsize"])
def test_counts_read_back_as_assigned(name):
    a = fake((3, 5))
    before = getattr(a, name)
    for value in (4096, None, "anything"):
        setattr(a, name, value)
        assert getattr(a, name) == value
    # The layout itself is unchanged: views and other counts still follow it.
    assert a.shape == (3, 5) and a.strides == (20, 4) and a[1:].shape == (2, 5)
    assert getattr(a[:], name) == before


def test_assigned_gpudata_moves_element_0():
    a = fake((4, 6))
    view = a[1:, 2:]
    a.gpudata = ADDRESS + 4096
    assert a.ptr == ADDRESS + 4096 and int(a.gpudata) == ADDRESS + 4096
    assert int(a[1].gpudata) == ADDRESS + 4096 + 24
    assert view.ptr == ADDRESS + 24 + 8  # views made before keep their own memory
    view.gpudata = 12345 * 256
    assert view.ptr == 12345 * 256 and view.shape == (3, 4) and view.strides == (24, 4)
    assert int(view[1, 1].gpudata) == 12345 * 256 + 28


def test_views_hold_pycudas_gpudata():
    # PyCUDA's views hold int(gpudata) + offset: the address of their element 0.
    a = fake((4, 6), np.float64)
    assert isinstance(a[1:].gpudata, int) and a[1:].gpudata == ADDRESS + 48
    assert int(a[:, 2].gpudata) == ADDRESS + 16
    assert int(a[::-1, ::-1].gpudata) == ADDRESS + 3 * 48 + 5 * 8
    assert int(a.T.gpudata) == ADDRESS and int(a.reshape(6, 4).gpudata) == ADDRESS
    assert a[1:].gpudata == a[1:].ptr == int(a[1:].__cuda_array_interface__["data"][0])


def test_gpudata_assignment_errors():
    a = fake((4,))
    with pytest.raises(TypeError, match="gpudata must be device memory"):
        a.gpudata = 1.5
    with pytest.raises(ValueError, match="without memory"):
        a.gpudata = None
    # A negative or too large address raised "std::bad_cast".
    for bad in (-1, 2**64):
        with pytest.raises(drv.LogicError, match=rf"^gpudata: expected an integer from 0 to \d+, got {bad}$"):
            a.gpudata = bad
        with pytest.raises(
            drv.LogicError, match=rf"^GPUArray\(gpudata\): expected an integer from 0 to \d+, got {bad}$"
        ):
            gpuarray.GPUArray((4,), np.float32, gpudata=bad)
    empty = fake((0,))
    empty.gpudata = None
    assert empty.gpudata is None and empty.size == 0


def test_shape_assignment_is_numpys_in_place_reshape():
    a = fake((6,))
    a.shape = (2, 3)
    assert a.shape == (2, 3) and a.strides == (12, 4)
    a.shape = (-1,)
    assert a.shape == (6,)
    t = fake((4, 6)).T
    t.shape = (6, 2, 2)  # a view of the transposed layout exists
    assert t.strides == np.empty((4, 6), np.float32).T.reshape(6, 2, 2).strides == (4, 48, 24)
    gaps = fake((4, 6))[:, :3]
    with pytest.raises(AttributeError, match="in-place"):
        gaps.shape = (12,)
    with pytest.raises(ValueError):
        a.shape = (4,)
    assert a.shape == (6,)


def test_strides_assignment():
    a = fake((3, 4))
    a.strides = (4, 12)
    assert a.strides == (4, 12) and a.flags.f_contiguous and not a.flags.c_contiguous
    a.strides = (-16, 4)
    assert a.strides == (-16, 4)
    with pytest.raises(ValueError, match="one stride per axis"):
        a.strides = (4,)
    with pytest.raises(TypeError):
        a.strides = ("a", 4)


def test_dtype_assignment_is_numpys_in_place_view():
    a = fake((3, 4), np.float32)
    a.dtype = np.int32
    assert a.dtype == np.int32 and a.shape == (3, 4) and a.itemsize == 4
    a.dtype = np.float64
    assert a.dtype == np.float64 and a.shape == (3, 2) and a.strides == (16, 8)
    a.dtype = "u1"
    assert a.shape == (3, 16) and a.strides == (16, 1)
    with pytest.raises(ValueError):
        fake((3, 4))[:, ::2].__setattr__("dtype", np.float64)
    with pytest.raises(TypeError):
        a.dtype = "not a dtype"


def test_allocator_and_base_assignment():
    a = fake((4,))
    calls = []
    a.allocator = calls.append
    assert a.allocator == calls.append
    a.allocator = None
    assert a.allocator is None
    with pytest.raises(TypeError, match="callable"):
        a.allocator = 17
    owner = object()
    a.base = owner
    assert a.base is owner


def test_launch_shape_is_assignable():
    a = fake((4,))
    a._grid, a._block = (7, 1), (64, 1, 1)
    assert a._grid == (7, 1) and a._block == (64, 1, 1)


class OffsetArray(gpuarray.GPUArray):
    """A subclass written as libraries built on PyCUDA write them (reikna's cluda.cuda.Array):
    its own constructor, memory lent with an offset, attributes set after the base __init__."""

    def __init__(self, owner, shape, dtype, strides=None, offset=0, nbytes=None, base_data=ADDRESS):
        gpuarray.GPUArray.__init__(self, shape, dtype, strides=strides, gpudata=int(base_data) + offset)
        self.base_data = base_data
        self.offset = offset
        self.nbytes = nbytes
        self.owner = owner

    def _new_like_me(self, dtype=None):
        return OffsetArray(self.owner, self.shape, self.dtype if dtype is None else dtype)

    def __getitem__(self, index):
        view = gpuarray.GPUArray.__getitem__(self, index)
        return OffsetArray(
            self.owner,
            view.shape,
            view.dtype,
            strides=view.strides,
            base_data=self.base_data,
            offset=int(view.gpudata) - int(self.base_data),
        )


def test_library_subclass_sets_its_attributes():
    a = OffsetArray("thread", (4, 6), np.float32, offset=64, nbytes=1024)
    assert a.nbytes == 1024 and a.offset == 64 and a.owner == "thread" and a.ptr == ADDRESS + 64
    view = a[1:, 2:]
    assert type(view) is OffsetArray and view.offset == 64 + 24 + 8 and view.ptr == ADDRESS + 96
    assert view.shape == (3, 4) and view.strides == (24, 4)
    none = OffsetArray("thread", (2,), np.int32)
    assert none.nbytes is None  # PyCUDA's attributes hold whatever the subclass assigns


def test_views_of_a_subclass_are_gpuarrays_as_in_pycuda():
    class Sub(gpuarray.GPUArray):
        pass

    s = Sub((4, 6), np.float32, gpudata=ADDRESS)
    for view in (
        gpuarray.GPUArray.__getitem__(s, 1),
        s.reshape(6, 4),
        s.T,
        s.transpose(),
        s.view(np.int32),
        s.squeeze(),
        s.ravel(),
    ):
        assert type(view) is gpuarray.GPUArray, view


def test_numbas_arrays_keep_their_class_for_views():
    d = DeviceNDArray((4, 6), None, np.float32, gpu_data=ADDRESS)
    assert type(d[1:]) is DeviceNDArray and type(d.T) is DeviceNDArray


# ---- PyCUDA's private helpers (no GPU)


def test_private_stride_helpers():
    assert gpuarray._c_contiguous_strides(4, (2, 3, 5)) == (60, 20, 4)
    assert gpuarray._f_contiguous_strides(4, (2, 3, 5)) == (4, 8, 24)
    assert gpuarray._c_contiguous_strides(8, (2, 0, 3)) == (24, 24, 8)  # PyCUDA counts an extent 0 as 1
    host = np.empty((4, 6), np.float64)[:, ::2].T
    assert gpuarray._compact_strides(host) == [8, 24]
    assert gpuarray._compact_strides(fake((3, 5)).T) == [4, 20]
    strided = gpuarray._as_strided(np.arange(6.0), shape=(3, 2), strides=(16, 8))
    np.testing.assert_array_equal(strided, np.arange(6.0).reshape(3, 2))


def test_get_common_dtype():
    f32, i64, c64 = fake((2,), np.float32), fake((2,), np.int64), fake((2,), np.complex64)
    assert gpuarray._get_common_dtype(f32, f32) == np.float32
    assert gpuarray._get_common_dtype(f32, i64) == np.float64
    assert gpuarray._get_common_dtype(c64, np.float64(1)) == np.complex128
    assert gpuarray._get_common_dtype(f32, 2) == np.float32


def test_array_like_helper():
    c, f = fake((3, 4)), fake((3, 4), order="F")
    mixed = fake((3, 4, 5)).transpose(1, 0, 2)  # strides (20, 80, 4): neither C nor F
    assert gpuarray._array_like_helper(c, None, "K") == (np.float32, "C", None)
    assert gpuarray._array_like_helper(c, None, "A") == (np.float32, "C", None)
    assert gpuarray._array_like_helper(f, None, "K") == (np.float32, "F", None)
    assert gpuarray._array_like_helper(f, np.int16, "A") == (np.int16, "F", None)
    assert gpuarray._array_like_helper(f, None, "C") == (np.float32, "C", None)
    assert gpuarray._array_like_helper(mixed, None, "K") == (np.float32, "K", [20, 80, 4])
    assert gpuarray._array_like_helper(mixed, np.float64, "K") == (np.float64, "K", [40, 160, 8])
    assert gpuarray._array_like_helper(mixed[::-1], None, "K")[2] == [20, 80, 4]  # positive strides
    with pytest.raises(ValueError, match="Unsupported order"):
        gpuarray._array_like_helper(c, None, "X")


def test_memcpy_discontig_argument_errors():
    a = fake((3, 4))
    with pytest.raises(TypeError, match="src must be"):
        gpuarray._memcpy_discontig(a, [1, 2])
    with pytest.raises(TypeError, match="dst must be"):
        gpuarray._memcpy_discontig(None, a)
    with pytest.raises(ValueError, match="same shape"):
        gpuarray._memcpy_discontig(a, np.zeros((4, 3), np.float32))
    with pytest.raises(TypeError, match="same dtype"):
        gpuarray._memcpy_discontig(a, np.zeros((3, 4), np.float64))
    host = np.zeros((3, 4))
    gpuarray._memcpy_discontig(host, np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(host, np.arange(12.0).reshape(3, 4))


# ---- results of subclasses (GPU)


class Recorded(gpuarray.GPUArray):
    """A subclass that keeps PyCUDA's constructor and records how it is called."""

    calls = []

    def __init__(self, shape, dtype, allocator=None, base=None, gpudata=None, strides=None, order="C"):
        Recorded.calls.append((tuple(shape) if not np.isscalar(shape) else shape, np.dtype(dtype), strides, order))
        super().__init__(shape, dtype, allocator=allocator, base=base, gpudata=gpudata, strides=strides, order=order)
        self.marker = "made by Recorded"


def recorded(host, order="C"):
    r = Recorded(host.shape, host.dtype, order=order)
    r.set(host)
    return r


def check(result, want, cls=Recorded, rtol=1e-6):
    assert type(result) is cls, type(result)
    if cls is Recorded:
        assert result.marker == "made by Recorded"
    got = result.get()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol)


@gpu
def test_operators_of_a_subclass_return_it(pool_ctx):
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((33, 7)).astype(np.float32), rng.standard_normal((33, 7)).astype(np.float32)
    a, b = recorded(x), recorded(y)
    Recorded.calls.clear()
    check(a + b, x + y)
    assert Recorded.calls == [((33, 7), np.dtype(np.float32), (28, 4), "C")]  # PyCUDA's call
    check(a * 2.5 - b, x * np.float32(2.5) - y)  # fused in GPUArray; one result after another here
    check(3 - a, 3 - x)
    check(a / b, x / y)
    check(-a, -x)
    check(abs(a), abs(x))
    check(a**2, x**2, rtol=1e-5)
    check(a < b, x < y)
    check(a.astype(np.float64), x.astype(np.float64))
    check(a.reverse(), x[::-1, ::-1])
    check(a.mul_add(2, b, 3), 2 * x + 3 * y, rtol=1e-5)
    check(cumath.exp(a), np.exp(x), rtol=1e-5)
    check(gpuarray.logical_and(a, b), np.logical_and(x, y))
    plain = gpuarray.to_gpu(y)
    check(a + plain, x + y)  # the left operand has the result's shape
    check(plain + a, x + y, cls=gpuarray.GPUArray)
    zero_d = gpuarray.to_gpu(np.float32(2))
    check(zero_d * a, 2 * x)  # PyCUDA asks the operand of the result's shape


@gpu
def test_complex_parts_of_a_subclass_in_its_order(pool_ctx):
    rng = np.random.default_rng(6)
    z = (rng.standard_normal((6, 5)) + 1j * rng.standard_normal((6, 5))).astype(np.complex64)
    a = recorded(z, order="F")
    Recorded.calls.clear()
    check(a.real, z.real)
    check(a.imag, z.imag)
    check(a.conj(), z.conj())
    assert [call[3] for call in Recorded.calls] == ["F", "F", "F"]


@gpu
def test_plain_results_as_in_pycuda(pool_ctx):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = recorded(x)
    for result, want in (
        (a.copy(), x),
        (a.astype(np.float32), x),
        (a[1:], x[1:]),
        (a.reshape(6, 4), x.reshape(6, 4)),
        (a.sum(), x.sum()),
        (gpuarray.zeros_like(a), np.zeros_like(x)),
        (gpuarray.minimum(a, 3), np.minimum(x, 3)),
        (gpuarray.where(a > 3, a, 0), np.where(x > 3, x, 0)),
        (cumath.fmod(a, a + 1), np.fmod(x, x + 1)),
        (gpuarray.logical_not(a), np.logical_not(x)),
    ):
        check(result, want, cls=gpuarray.GPUArray)
    b = recorded(x[:, :1].copy())
    check(a[:, :1] + b, x[:, :1] + x[:, :1], cls=gpuarray.GPUArray)  # a view is a GPUArray
    row = gpuarray.to_gpu(x[:1])
    col = recorded(x[:, :1].copy())
    check(col + row, x[:, :1] + x[:1], cls=gpuarray.GPUArray)  # a broadcast PyCUDA refuses


@gpu
def test_library_subclass_results_through_its_own_new_like_me(pool_ctx):
    class Thread:
        def array(self, shape, dtype):
            return Owned(self, shape, dtype)

    class Owned(gpuarray.GPUArray):
        def __init__(self, thread, shape, dtype):
            super().__init__(shape, dtype)
            self.thread = thread

        def _new_like_me(self, dtype=None):
            return self.thread.array(self.shape, self.dtype if dtype is None else dtype)

    thread = Thread()
    x = np.linspace(-2, 2, 1001).astype(np.float32)
    a = Owned(thread, x.shape, x.dtype)
    a.set(x)
    for result, want in (
        (a + a, x + x),
        (a * 3, x * 3),
        (a.astype(np.int32), x.astype(np.int32)),
        (cumath.sin(a), np.sin(x)),
        (a > 0, x > 0),
    ):
        assert type(result) is Owned and result.thread is thread
        np.testing.assert_allclose(result.get(), want, rtol=1e-6)


@gpu
def test_new_like_me_must_give_the_result_shape_and_dtype(pool_ctx):
    class Wrong(gpuarray.GPUArray):
        def _new_like_me(self, dtype=None, order="C"):
            return gpuarray.empty((2,), np.float32)

    class NotAnArray(gpuarray.GPUArray):
        def _new_like_me(self, dtype=None, order="C"):
            return np.empty(self.shape, self.dtype)

    w = Wrong((5,), np.float32)
    w.fill(1)
    with pytest.raises(ValueError, match=r"Wrong._new_like_me\(float32\) returned shape \(2,\)"):
        w + w
    n = NotAnArray((5,), np.float32)
    n.fill(1)
    with pytest.raises(TypeError, match="returned a ndarray"):
        -n


@gpu
def test_device_subclass_with_attributes(pool_ctx):
    # reikna's cluda.cuda.Device: the method name becomes an attribute holding its value.
    class Device(drv.Device):
        def __init__(self, number):
            drv.Device.__init__(self, number)
            self.name = self.name()

    d = Device(0)
    assert d.name == drv.Device(0).name() and d == drv.Device(0)
    assert d.compute_capability() == drv.Device(0).compute_capability()


@gpu
def test_arithmetic_back_ends(pool_ctx):
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal(999).astype(np.float32), rng.uniform(1, 2, 999).astype(np.float32)
    a, b = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    out = gpuarray.empty_like(a)
    assert a._axpbyz(2, b, -3, out) is out
    np.testing.assert_allclose(out.get(), 2 * x - 3 * y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a._axpbz(-1.5, 4, out).get(), -1.5 * x + 4, rtol=1e-6, atol=1e-6)  # may fuse
    np.testing.assert_allclose(a._elwise_multiply(b, out).get(), x * y, rtol=1e-6)
    np.testing.assert_allclose(a._div(b, out).get(), x / y, rtol=1e-6)
    np.testing.assert_allclose(b._rdiv_scalar(3, out).get(), 3 / y, rtol=1e-6)


@gpu
def test_a_subclass_overriding_a_back_end_gets_pycudas_operators(pool_ctx):
    class Counting(gpuarray.GPUArray):
        calls = []

        def _axpbyz(self, selffac, other, otherfac, out, add_timer=None, stream=None):
            Counting.calls.append(("axpbyz", selffac, otherfac))
            return super()._axpbyz(selffac, other, otherfac, out, add_timer, stream)

        def _axpbz(self, selffac, other, out, stream=None):
            Counting.calls.append(("axpbz", selffac, other))
            return super()._axpbz(selffac, other, out, stream)

    x, y = np.arange(1, 11, dtype=np.float32), np.arange(11, 21, dtype=np.float32)
    a, b = Counting(x.shape, x.dtype), Counting(y.shape, y.dtype)
    a.set(x)
    b.set(y)
    np.testing.assert_allclose((a + b).get(), x + y)
    np.testing.assert_allclose((a - b).get(), x - y)
    np.testing.assert_allclose((a * 3).get(), x * 3)
    np.testing.assert_allclose((5 - a).get(), 5 - x)
    np.testing.assert_allclose((-a).get(), -x)
    np.testing.assert_allclose((a / 4).get(), x / 4)
    np.testing.assert_allclose((a * b).get(), x * y)  # _elwise_multiply is not overridden: gpukit's
    assert Counting.calls == [
        ("axpbyz", 1, 1),
        ("axpbyz", 1, -1),
        ("axpbz", 3, 0),
        ("axpbz", -1, 5),
        ("axpbz", -1, 0),
        ("axpbz", 0.25, 0),
    ]
    assert type(a + b) is Counting and type(a + 0) is gpuarray.GPUArray  # PyCUDA: a + 0 is a.copy()
    a += b
    np.testing.assert_allclose(a.get(), x + y)
    assert Counting.calls[-1] == ("axpbyz", 1, 1)
