"""The GPUArray surface and gpuarray's module functions PyCUDA 2026.1 has (real, imag, conj,
mul_add, reverse, view, copy, get/set of strided arrays, fill with records, take, multi_take_put,
concatenate, stack, where, if_positive, minimum, maximum, logical_*, arange, splay, ...), each
against numpy on inputs that catch a wrong index, stride, dtype or offset: odd sizes, empty and
0-d arrays, reversed, strided and transposed views, every dtype the function takes.

CPU tests check the argument errors raised before anything runs on a GPU; the rest need one."""

import pickle

import numpy as np
import pytest

from test_gpuarray import random as numeric_random

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import _gpukit
from gpukit.gpuarray import vec
from gpukit.tools import DeviceMemoryPool

gpu = pytest.mark.gpu

REAL_TYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float32,
    np.float64,
]
COMPLEX_TYPES = [np.complex64, np.complex128]
ALL_TYPES = REAL_TYPES + COMPLEX_TYPES
INDEX_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]
SIZES = [0, 1, 1000, 1025, (1 << 20) + 3]


def random(shape, dtype, seed=0):
    """test_gpuarray's random numbers; records and vector types get random bytes."""
    dtype = np.dtype(dtype)
    if dtype.kind in "biufc":
        return numeric_random(shape, dtype, seed)
    raw = np.random.default_rng(seed).integers(0, 256, int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def views(host, device):
    """(host view, device view) pairs of one 2-D array: whole, sliced with gaps, reversed,
    transposed, F-ordered, a column."""
    return [
        (host, device),
        (host[1::2, ::3], device[1::2, ::3]),
        (host[::-1, ::-2], device[::-1, ::-2]),
        (host.T, device.T),
        (host[:, 3], device[:, 3]),
        (host[2:, 1:-1], device[2:, 1:-1]),
    ]


def fake_array(shape, dtype, **kwargs):
    """A GPUArray over a made-up device address: enough for everything checked before a launch."""
    return gpuarray.GPUArray(shape, dtype, gpudata=1 << 20, **kwargs)


def assert_same(got, want, rtol=0):
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if got.dtype.kind == "V":  # records: their bytes (random ones may hold NaNs)
        assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()
    elif rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


# ---- CPU: names, signatures and the errors raised before a launch

PYCUDA_NAMES = [
    "vec",
    "splay",
    "GPUArray",
    "to_gpu",
    "to_gpu_async",
    "empty",
    "zeros",
    "ones",
    "empty_like",
    "zeros_like",
    "ones_like",
    "arange",
    "take",
    "multi_take",
    "multi_put",
    "multi_take_put",
    "concatenate",
    "stack",
    "transpose",
    "reshape",
    "if_positive",
    "where",
    "minimum",
    "maximum",
    "logical_and",
    "logical_or",
    "logical_not",
    "sum",
    "dot",
    "min",
    "max",
]
PYCUDA_METHODS = [
    "get",
    "get_async",
    "set",
    "set_async",
    "copy",
    "mul_add",
    "fill",
    "astype",
    "reshape",
    "ravel",
    "view",
    "squeeze",
    "transpose",
    "T",
    "real",
    "imag",
    "conj",
    "conjugate",
    "reverse",
    "_new_like_me",
    "_grid",
    "_block",
    "bind_to_texref",
    "bind_to_texref_ext",
    "gpudata",
    "shape",
    "dtype",
    "size",
    "mem_size",
    "nbytes",
    "strides",
    "flags",
    "ptr",
    "itemsize",
    "allocator",
    "base",
    "ndim",
]


def test_pycuda_names_exist():
    for name in PYCUDA_NAMES:
        assert hasattr(gpuarray, name), name
    for name in PYCUDA_METHODS:
        assert hasattr(gpuarray.GPUArray, name), name


def test_attributes_and_array_interface():
    x = fake_array((4, 6), np.float32)
    assert (x.size, x.mem_size, x.nbytes, x.itemsize, x.ndim, x.ptr) == (24, 24, 96, 4, 2, 1 << 20)
    assert x.flags.c_contiguous and not x.flags.f_contiguous and x.flags.forc
    interface = x.__cuda_array_interface__
    # As PyCUDA's: strides and stream are always there.
    assert interface["strides"] == (24, 4) and interface["stream"] is None
    assert x[:, ::2].__cuda_array_interface__["strides"] == (24, 8)
    assert x[1:].__cuda_array_interface__["data"] == ((1 << 20) + 24, False)


@pytest.mark.parametrize(
    "shape", [np.array(3), np.array([3]), np.array([2, 3]), np.int32(17), (np.int32(17), np.int64(3))]
)
def test_numpy_arrays_and_integers_as_shapes(shape):
    want = np.empty(shape, np.float32).shape
    assert fake_array(shape, np.float32).shape == want
    assert gpuarray.empty(shape, np.float32, gpudata=1 << 20).shape == want


def test_empty_takes_pycudas_arguments():
    base = fake_array((12,), np.float32)
    a = gpuarray.empty((3, 2), np.float32, None, base, (1 << 20) + 8, (4, 12))
    assert a.shape == (3, 2) and a.strides == (4, 12) and a.base is base and a.ptr == (1 << 20) + 8
    with pytest.raises(TypeError):
        gpuarray.empty((3,), np.float32, shape_of_it=3)


def test_views_follow_numpy():
    host = np.zeros((4, 6), np.float32)
    x = fake_array((4, 6), np.float32)
    for dtype in (np.complex64, np.int16, np.int8, np.float64, np.uint32, vec.float2):
        assert x.view(dtype).shape == host.view(dtype).shape
        assert x.view(dtype).strides == host.view(dtype).strides
        assert x.view(dtype).dtype == np.dtype(dtype)
    assert x.view().shape == (4, 6) and x.view().dtype == np.float32
    assert x[:3, :5].view().strides == (24, 4)  # PyCUDA's test_view_and_strides
    assert x[::-1].view(np.float64).strides == host[::-1].view(np.float64).strides
    assert x[:, 2:3].view(np.int16).strides == host[:, 2:3].view(np.int16).strides
    for ours, numpys, dtype in [
        (x.T, host.T, np.float64),
        (x[:, ::2], host[:, ::2], np.float64),
        (x[:, :5], host[:, :5], np.float64),
        (fake_array((3,), vec.float3), np.zeros(3, vec.float3), np.float64),
        (fake_array((), np.float32), np.zeros((), np.float32), np.int16),
    ]:
        with pytest.raises(ValueError) as our_error:
            ours.view(dtype)
        with pytest.raises(ValueError) as numpys_error:
            numpys.view(dtype)
        assert str(our_error.value) == str(numpys_error.value)


def test_transpose_forms():
    x = fake_array((2, 3, 4), np.float64)
    host = np.empty((2, 3, 4))
    for args, kwargs, axes in [
        ((), {}, None),
        ((None,), {}, None),
        (((1, 0, 2),), {}, (1, 0, 2)),
        ((2, 0, 1), {}, (2, 0, 1)),
        ((), {"axes": (1, 0, 2)}, (1, 0, 2)),
        ((), {"axes": None}, None),
    ]:
        expected = np.transpose(host, axes)
        got = x.transpose(*args, **kwargs)
        assert got.shape == expected.shape and got.strides == expected.strides
    assert x.T.strides == host.T.strides
    assert gpuarray.transpose(x, axes=(2, 1, 0)).strides == host.transpose(2, 1, 0).strides
    assert gpuarray.transpose(x).shape == (4, 3, 2)
    # PyCUDA issue 385: transposes of non-contiguous arrays.
    assert x[:, 1:3, :].transpose(axes=(1, 0, 2)).strides == host[:, 1:3, :].transpose(1, 0, 2).strides
    with pytest.raises(TypeError):
        x.transpose((1, 0, 2), axes=(1, 0, 2))
    with pytest.raises(ValueError):
        x.transpose(axes=(0, 0, 1))


def test_reshape_forms_and_errors():
    x = fake_array((8, 16), np.float32)
    assert x.reshape(4, 32).shape == x.reshape((4, 32)).shape == x.reshape([4, 32]).shape == (4, 32)
    assert x.reshape(-1, 32).shape == (4, 32) and x.reshape((32, -1)).shape == (32, 4)
    assert x.reshape((8, -1, 4)).shape == (8, 4, 4)
    assert gpuarray.reshape(x, 2, 64).shape == (2, 64) and gpuarray.reshape(x, (128,)).shape == (128,)
    assert x.reshape(4, 32, order="A").flags.c_contiguous
    f = fake_array((8, 16), np.float32, order="F")
    assert f.reshape(4, 32, order="A").flags.f_contiguous and f.reshape(4, 32, order="F").flags.f_contiguous
    for shape in [(-1, -1, 4), (5, -1), (25,), (-2, 64), (0, -1)]:
        with pytest.raises(ValueError):
            x.reshape(*shape)
    with pytest.raises(ValueError):
        x.reshape(128, order="K")


def test_argument_errors_before_any_launch():
    x, idx = fake_array((4, 6), np.float32), fake_array((5,), np.int32)
    with pytest.raises(TypeError, match="integer type"):
        gpuarray.take(x, fake_array((5,), np.float64))
    with pytest.raises(TypeError, match="must be a GPUArray"):
        gpuarray.take(x, [1, 2])
    with pytest.raises(ValueError, match=r"shape \(4,\) differs from the indices' \(5,\)"):
        gpuarray.take(x, idx, out=fake_array((4,), np.float32))
    with pytest.raises(TypeError, match="dtype"):
        gpuarray.take(x, idx, out=fake_array((5,), np.float64))
    with pytest.raises(TypeError, match="share one dtype"):
        gpuarray.multi_take([x, fake_array((4, 6), np.float64)], idx)
    with pytest.raises(ValueError, match="contiguous"):
        gpuarray.multi_take([x[:, ::2]], idx)
    with pytest.raises(ValueError, match="dest_shape or out"):
        gpuarray.multi_put([x], idx)
    with pytest.raises(ValueError, match="same shape"):
        gpuarray.multi_take_put([x], idx, fake_array((4,), np.int32), dest_shape=(5,))
    with pytest.raises(ValueError, match="one offset per array"):
        gpuarray.multi_take_put([x], idx, idx, dest_shape=(5,), src_offsets=[1, 2])
    with pytest.raises(ValueError, match="same length"):
        gpuarray.multi_take([x], idx, out=[])
    assert gpuarray.multi_take([], idx) == [] and gpuarray.multi_put([], idx) == []
    # Indices of None were read as an array (a segfault): they are required.
    for call, name in [
        (lambda: gpuarray.multi_take([x], None), r"multi_take\(indices\)"),
        (lambda: gpuarray.multi_put([x], None, dest_shape=(5,)), r"multi_put\(dest_indices\)"),
        (lambda: gpuarray.multi_take_put([x], idx, None, dest_shape=(5,)), r"multi_take_put\(src_indices\)"),
        (lambda: gpuarray.multi_take_put([x], None, idx, dest_shape=(5,)), r"multi_take_put\(dest_indices\)"),
    ]:
        with pytest.raises(TypeError, match=name + " must be a GPUArray, got NoneType"):
            call()

    with pytest.raises(ValueError, match="need at least one array to concatenate"):
        gpuarray.concatenate([])
    with pytest.raises(
        ValueError, match="along dimension 1, the array at index 0 has size 6 and the array at index 1 has size 5"
    ):
        gpuarray.concatenate([x, fake_array((4, 5), np.float32)])
    with pytest.raises(ValueError, match="same number of dimensions"):
        gpuarray.concatenate([x, fake_array((4,), np.float32)])
    with pytest.raises(np.exceptions.AxisError):
        gpuarray.concatenate([x], axis=2)
    with pytest.raises(ValueError, match="zero-dimensional"):
        gpuarray.concatenate([fake_array((), np.float32)])
    with pytest.raises(TypeError, match="cannot join"):
        gpuarray.concatenate([fake_array((3,), vec.float3), fake_array((3,), np.float32)])
    with pytest.raises(ValueError, match="same shape"):
        gpuarray.stack([x, fake_array((4, 5), np.float32)])
    with pytest.raises(np.exceptions.AxisError):
        gpuarray.stack([x], axis=3)
    with pytest.raises(ValueError, match="need at least one array to stack"):
        gpuarray.stack([])

    with pytest.raises(TypeError, match="criterion must be a GPUArray"):
        gpuarray.where(5, x, x)
    with pytest.raises(TypeError, match="copy the host array"):
        gpuarray.if_positive(x, np.ones((4, 6), np.float32), x)
    with pytest.raises(ValueError, match="broadcast"):
        gpuarray.where(x, fake_array((5,), np.float32), 0)
    with pytest.raises(OverflowError, match="too large"):
        gpuarray.where(x, fake_array((4, 6), np.uint8), 2**64)
    with pytest.raises(TypeError, match="at least one operand must be a GPUArray"):
        gpuarray.maximum(1, 2)
    with pytest.raises(TypeError, match="operands are GPUArrays or scalars"):
        gpuarray.minimum(x, "text")
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        gpuarray.maximum(fake_array((3,), np.uint8), 1000)
    with pytest.raises(OverflowError, match="too large to convert to C long"):
        gpuarray.logical_and(fake_array((3,), np.uint8), 2**63)
    with pytest.raises(TypeError, match="same_kind"):
        gpuarray.maximum(x, 1.5, out=fake_array((4, 6), np.int32))
    with pytest.raises(ValueError, match="non-broadcastable output"):
        gpuarray.minimum(x, x, out=fake_array((6, 4), np.float32))
    with pytest.raises(TypeError, match="out must be a GPUArray"):
        gpuarray.minimum(x, x, out=np.empty((4, 6), np.float32))
    with pytest.raises(TypeError, match="factors"):
        x.mul_add(2, "x", 3)
    with pytest.raises(TypeError, match="no GPU kernels"):
        gpuarray.maximum(fake_array((3,), vec.float3), 1)
    with pytest.raises(ValueError, match="order must be one of"):
        gpuarray.empty_like(x, order="X")
    with pytest.raises(_gpukit.LogicError, match="texture references"):
        x.bind_to_texref(None)
    with pytest.raises(_gpukit.LogicError, match="texture references"):
        x.bind_to_texref_ext(None, allow_double_hack=True)


# Every out= of gpuarray, cumath, the PyCUDA back-ends and ReductionKernel: a host array (or
# anything else that is not a GPUArray) is a TypeError. The scalar forms of logical_* and the
# real form of conj filled a numpy out= on the host and returned None before issue 29.
def _out_calls():
    x, c, i = fake_array((4,), np.float32), fake_array((4,), np.complex64), fake_array((4,), np.int64)
    from gpukit import cumath
    from gpukit.reduction import ReductionKernel

    total = ReductionKernel(np.float32, "0", "a+b", arguments="float *in")
    return [
        ("logical_not", lambda out: gpuarray.logical_not(1.0, out=out)),
        ("logical_not", lambda out: gpuarray.logical_not(x, out=out)),
        ("logical_and", lambda out: gpuarray.logical_and(1.0, 0, out=out)),
        ("logical_and", lambda out: gpuarray.logical_and(x, 0, out=out)),
        ("logical_or", lambda out: gpuarray.logical_or(0, 0, out=out)),
        ("logical_or", lambda out: gpuarray.logical_or(x, x, out=out)),
        ("conj", lambda out: x.conj(out=out)),
        ("conj", lambda out: x.conjugate(out=out)),
        ("conj", lambda out: c.conj(out=out)),
        ("mul_add", lambda out: x.mul_add(2, x, 3, out=out)),
        ("mul_add", lambda out: x._axpbyz(2, x, 3, out)),
        ("mul_add", lambda out: x._axpbz(2, 3, out)),
        ("[*]", lambda out: x._elwise_multiply(x, out)),
        ("/", lambda out: x._div(x, out)),
        ("/", lambda out: x._rdiv_scalar(2, out)),
        ("take", lambda out: gpuarray.take(x, i, out=out)),
        ("multi_take", lambda out: gpuarray.multi_take([x], i, out=[out])),
        ("multi_put", lambda out: gpuarray.multi_put([x], i, out=[out])),
        ("multi_take_put", lambda out: gpuarray.multi_take_put([x], i, i, out=[out])),
        ("if_positive", lambda out: gpuarray.if_positive(x, x, x, out=out)),
        ("where", lambda out: gpuarray.where(x, x, 0, out=out)),
        ("minimum", lambda out: gpuarray.minimum(x, x, out=out)),
        ("maximum", lambda out: gpuarray.maximum(x, 1, out=out)),
        ("cumath.sin", lambda out: cumath.sin(x, out=out)),
        ("cumath.exp", lambda out: cumath.exp(x, out)),  # PyCUDA's positional stream_or_out
        ("ReductionKernel 'reduce_kernel': out=", lambda out: total(x, out=out)),
    ]


@pytest.mark.filterwarnings("ignore:please use 'out' or 'stream':DeprecationWarning")
@pytest.mark.parametrize("number", range(len(_out_calls())))
@pytest.mark.parametrize("out", [np.zeros(4, np.float32), np.zeros((), np.bool_), [0.0] * 4, 7])
def test_out_must_be_a_gpuarray_everywhere(number, out):
    name, call = _out_calls()[number]
    with pytest.raises(TypeError, match=f"{name}.*GPUArray"):
        call(out.copy() if isinstance(out, np.ndarray) else out)
    if isinstance(out, np.ndarray):
        assert not out.any()  # nothing was written on the host


def test_arange_argument_errors():
    with pytest.raises(TypeError, match="requires stop"):
        gpuarray.arange()
    with pytest.raises(TypeError, match="at most 3"):
        gpuarray.arange(1, 2, 3, 4)
    with pytest.raises(TypeError, match="stop given by position and keyword"):
        gpuarray.arange(0, 10, stop=3)
    with pytest.raises(TypeError, match="start given by position and keyword"):
        gpuarray.arange(2, start=1)
    with pytest.raises(TypeError, match="dtype given by position and keyword"):
        gpuarray.arange(0, 10, np.dtype(np.float32), dtype=np.float32)
    with pytest.raises(ValueError, match="step must not be zero"):
        gpuarray.arange(0, 10, 0)
    with pytest.raises(TypeError):
        gpuarray.arange(10, stream=None, allocater=None)


def test_misaligned_views_are_refused_before_a_launch():
    x = fake_array((7,), np.float32)
    with pytest.raises(ValueError, match="multiples of 8 bytes"):
        -x[1:7].view(np.float64)


# ---- GPU: complex numbers


@gpu
@pytest.mark.parametrize("dtype", COMPLEX_TYPES)
@pytest.mark.parametrize("n", SIZES)
def test_real_imag_conj(pool_ctx, dtype, n):
    host = random(n, dtype, n)
    z = gpuarray.to_gpu(host)
    assert_same(z.real.get(), host.real.copy())
    assert_same(z.imag.get(), host.imag.copy())
    assert_same(z.conj().get(), host.conj())
    assert_same(z.conjugate().get(), host.conj())
    # Into out, cast as numpy's same_kind allows (PyCUDA's test_complex_bits).
    out = gpuarray.empty(n, np.complex64)
    assert z.conj(out=out) is out
    assert_same(out.get(), host.conj().astype(np.complex64))


@gpu
@pytest.mark.parametrize("dtype", COMPLEX_TYPES)
def test_complex_parts_keep_the_order_of_axes(pool_ctx, dtype):
    host = random((5, 7, 3), dtype, 1)
    z = gpuarray.to_gpu(host)
    for h, d in [
        (host, z),
        (np.asfortranarray(host), gpuarray.to_gpu(np.asfortranarray(host))),
        (host.transpose(2, 0, 1), z.transpose(2, 0, 1)),
        (host[::-1, 1::2], z[::-1, 1::2]),
    ]:
        for name, want in [("real", h.real), ("imag", h.imag), ("conj", h.conj())]:
            got = getattr(d, name)() if name == "conj" else getattr(d, name)
            np.testing.assert_array_equal(got.get(), want)
            assert got.flags.c_contiguous == want.copy(order="K").flags.c_contiguous
            assert got.flags.f_contiguous == want.copy(order="K").flags.f_contiguous
            assert got.strides == np.empty_like(want, order="K").strides


@gpu
def test_parts_of_real_arrays(pool_ctx):
    host = random((4, 5), np.float32, 2)
    x = gpuarray.to_gpu(host)
    assert x.real is x and x.conj() is x and x.conjugate() is x
    assert_same(x.imag.get(), np.zeros_like(host))
    out = gpuarray.empty((4, 5), np.float64)
    assert x.conj(out=out) is out
    assert_same(out.get(), host.astype(np.float64))


@gpu
@pytest.mark.parametrize("dtype", COMPLEX_TYPES)
def test_complex_power(pool_ctx, dtype):
    # complex64 powers are computed in double and rounded once, so they are compared with
    # numpy's complex128 power rounded to complex64: numpy's own complex64 power is off by up
    # to 3e-5 at exponent 100 (it rounds arg a in float before multiplying it by 100).
    rtol = 1e-6 if dtype == np.complex64 else 1e-12

    def power(x, y):
        wide = [v.astype(np.complex128) if isinstance(v, np.ndarray) else v for v in (x, y)]
        return (wide[0] ** wide[1]).astype(dtype)

    # Magnitudes from 0.5 to 1.2, so that powers up to 100 neither overflow nor underflow complex64.
    rng = np.random.default_rng(3)
    a = (rng.uniform(0.5, 1.2, 1001) * np.exp(1j * rng.uniform(-np.pi, np.pi, 1001))).astype(dtype)
    b = random(1001, dtype, 4) / 10
    ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    with np.errstate(all="ignore"):
        assert_same((ga**gb).get(), power(a, b), rtol)
        for exponent in [0, 1, 2, 3, -3, 7, 50, 99, 100, 2.5, -0.5, 1j, 0.5 - 2j]:
            # Whole exponents below 100 in magnitude multiply (repeated squaring), others use exp and log.
            assert_same((ga**exponent).get(), power(a, exponent), rtol)
            assert_same((exponent**ga).get(), power(exponent, a), rtol)
        # numpy's special cases: a zero exponent gives 1, a zero base 0 or NaN.
        special = np.array([0, 0, 0, np.nan, 1 + 1j, 0], dtype)
        exponents = np.array([1 + 1j, -1 + 1j, 1j, 0, 0, 2], dtype)
        assert_same((gpuarray.to_gpu(special) ** gpuarray.to_gpu(exponents)).get(), special**exponents)
        c = ga.copy()
        c **= 2
        assert_same(c.get(), power(a, 2), rtol)
        # Mixed with real arrays, numpy's types.
        r = random(1001, np.float32, 5)
        assert (r**a).dtype == dtype
        assert_same((gpuarray.to_gpu(r) ** ga).get(), power(r, a), rtol)


@gpu
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16])
def test_integer_power(pool_ctx, dtype):
    base = np.array([-3, -2, -1, 0, 1, 2, 3, 7, 11]).astype(dtype)  # wrapped for unsigned types
    exponent = np.array([0, 1, 2, 3, 5, 7, 9, 2, 30], dtype)
    gb, ge = gpuarray.to_gpu(base), gpuarray.to_gpu(exponent)
    with np.errstate(all="ignore"):
        assert_same((gb**ge).get(), base**exponent)  # wraps on overflow, as numpy
        assert_same((gb[::-1] ** ge).get(), base[::-1] ** exponent)  # a reversed view
    signed = np.dtype(dtype).kind == "i"
    # numpy's errors: -1 is refused as an exponent, or (unsigned) as a value of the type.
    error, message = (ValueError, "negative integer powers") if signed else (OverflowError, "out of bounds")
    with pytest.raises(error, match=message):
        gb**-1
    if signed:
        # numpy raises for a negative exponent inside an array; gpukit gives the truncated
        # 1 / base**n (docs/arrays.md says why).
        negative = gpuarray.to_gpu(np.array([-1, -2, -3, -1, -2, -1, -1, -2, -5], dtype))
        want = np.array([0, 0, -1, 0, 1, 0, 0, 0, 0], dtype)
        assert_same((gb**negative).get(), want)


@gpu
@pytest.mark.parametrize("dtype", COMPLEX_TYPES)
def test_complex_ordering(pool_ctx, dtype):
    values = np.array([complex(r, i) for r in (-1, 0, 1, np.nan) for i in (-1, 0, 1, np.nan)], dtype)
    a = np.repeat(values, len(values))
    b = np.tile(values, len(values))
    ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    with np.errstate(invalid="ignore"):
        for op in ["__lt__", "__le__", "__gt__", "__ge__"]:
            assert_same(getattr(ga, op)(gb).get(), getattr(a, op)(b))
            assert_same(getattr(ga, op)(0.5).get(), getattr(a, op)(0.5))
        assert_same(gpuarray.maximum(ga, gb).get(), np.maximum(a, b))
        assert_same(gpuarray.minimum(ga, gb).get(), np.minimum(a, b))


# ---- GPU: elementwise functions


def check_binary_function(name, a, b, ga, gb, out_dtype):
    """gpuarray.<name> against numpy's on host arrays a and b (ga and gb on the GPU): whole,
    on each pair of their views, and into out= of out_dtype. Returns (gpuarray's, numpy's)."""
    function, numpys = getattr(gpuarray, name), getattr(np, name)
    assert_same(function(ga, gb).get(), numpys(a, b))
    for (h, d), (h2, d2) in zip(views(a, ga), views(b, gb)):
        assert_same(function(d, d2).get(), numpys(h, h2))
    out = gpuarray.empty(a.shape, out_dtype)
    assert function(ga, gb, out=out) is out
    assert_same(out.get(), numpys(a, b).astype(out_dtype))
    return function, numpys


@gpu
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_minimum_maximum(pool_ctx, dtype):
    a, b = random((33, 31), dtype, 6), random((33, 31), dtype, 7)
    if np.dtype(dtype).kind == "f":
        a[::7, ::5] = np.nan
        b[1::6, ::4] = np.nan
    ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    for name in ["minimum", "maximum"]:
        function, numpys = check_binary_function(name, a, b, ga, gb, np.complex128)
        if np.dtype(dtype).kind != "b":
            assert_same(function(ga, 3).get(), numpys(a, 3))
            assert_same(function(3, ga).get(), numpys(3, a))
        assert_same(function(ga, 1.5).get(), numpys(a, 1.5))
        assert_same(function(ga[:, :1], gb[:1]).get(), numpys(a[:, :1], b[:1]))  # broadcast


@gpu
def test_minimum_maximum_mixed_types_and_streams(pool_ctx):
    a, b = random(1000, np.int64, 8), random(1000, np.uint64, 9)
    assert_same(gpuarray.maximum(gpuarray.to_gpu(a), gpuarray.to_gpu(b)).get(), np.maximum(a, b))
    x = random(20, np.float32, 10)
    gx = gpuarray.to_gpu(x)
    assert_same(gpuarray.maximum(gx, 0).get(), np.maximum(x, 0))  # PyCUDA's test_minimum_maximum_scalar
    assert_same(gpuarray.minimum(0, gx).get(), np.minimum(0, x))
    assert_same(gpuarray.maximum(gx, np.float64(0)).get(), np.maximum(x, np.float64(0)))
    stream = drv.Stream()
    got = gpuarray.minimum(gx, gx[::-1], stream=stream)
    stream.synchronize()
    assert_same(got.get(), np.minimum(x, x[::-1]))
    empty = gpuarray.empty((0, 3), np.float32)
    assert gpuarray.minimum(empty, 1).shape == (0, 3)


@gpu
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_logical_functions(pool_ctx, dtype):
    a, b = random((17, 9), dtype, 11), random((17, 9), dtype, 12)
    a[::3] = 0
    b[:, ::2] = 0
    ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    for name in ["logical_and", "logical_or"]:
        function, numpys = check_binary_function(name, a, b, ga, gb, np.float32)
        for scalar in [0, 1, 1000, -(2**63), 0.0, 1e-50, 1j, True, np.float32(0)]:
            assert_same(function(ga, scalar).get(), numpys(a, scalar))
            assert_same(function(scalar, ga).get(), numpys(scalar, a))
    assert_same(gpuarray.logical_not(ga).get(), np.logical_not(a))
    assert_same(gpuarray.logical_not(ga.T).get(), np.logical_not(a.T))
    assert gpuarray.logical_not(ga.T).strides == np.logical_not(a.T).strides


@gpu
def test_logical_functions_as_pycuda_calls_them(pool_ctx):
    # PyCUDA's test_logical_and_or and test_logical_not.
    rng = np.random.default_rng(seed=0)
    for op in ["logical_and", "logical_or"]:
        x_np, y_np = rng.random((10, 4)), rng.random((10, 4))
        x_cu, y_cu = gpuarray.to_gpu(x_np), gpuarray.to_gpu(y_np)
        for other, other_np in [
            (y_cu, y_np),
            (gpuarray.ones((10, 4)), np.ones((10, 4))),
            (gpuarray.zeros((10, 4), "float64"), np.zeros((10, 4))),
            (1.0, 1.0),
            (0.0, 0.0),
        ]:
            np.testing.assert_array_equal(getattr(gpuarray, op)(x_cu, other).get(), getattr(np, op)(x_np, other_np))
        both_scalars = getattr(gpuarray, op)(1.0, 0.0)
        assert both_scalars.shape == () and both_scalars.get() == getattr(np, op)(1.0, 0.0)
    x_np = rng.random((10, 4))
    np.testing.assert_array_equal(gpuarray.logical_not(gpuarray.to_gpu(x_np)).get(), np.logical_not(x_np))
    assert gpuarray.logical_not(0.0).get() == np.True_
    # The scalar forms fill a device out= (broadcast to its shape) and return it.
    out = gpuarray.zeros(5, np.bool_)
    assert gpuarray.logical_not(0.0, out=out) is out and out.get().all()
    assert gpuarray.logical_and(1.0, 0.0, out=out) is out and not out.get().any()
    assert gpuarray.logical_or(1.0, 0.0, out=out) is out and out.get().all()
    real = gpuarray.to_gpu(x_np)
    conj_out = gpuarray.zeros_like(real)
    assert real.conj(out=conj_out) is conj_out
    np.testing.assert_array_equal(conj_out.get(), x_np)
    allocate = DeviceMemoryPool().allocate
    result = gpuarray.logical_not(gpuarray.zeros(10, "float64"), allocator=allocate)
    assert result.allocator is allocate and result.get().all()


@gpu
@pytest.mark.parametrize(
    "then_type,else_type",
    [
        (np.float32, np.float32),
        (np.int8, np.uint8),
        (np.float32, np.int64),
        (np.complex64, np.float64),
        (np.bool_, np.bool_),
        (np.uint64, np.int64),
        (np.int16, np.complex128),
    ],
)
def test_where_and_if_positive(pool_ctx, then_type, else_type):
    for criterion_type in [np.bool_, np.int32, np.float64, np.uint8, np.complex64]:
        c = random((29, 13), criterion_type, 13)
        t, e = random((29, 13), then_type, 14), random((29, 13), else_type, 15)
        gc, gt, ge = gpuarray.to_gpu(c), gpuarray.to_gpu(t), gpuarray.to_gpu(e)
        assert_same(gpuarray.where(gc, gt, ge).get(), np.where(c, t, e))
        for (hc, dc), (ht, dt), (he, de) in zip(views(c, gc), views(t, gt), views(e, ge)):
            assert_same(gpuarray.where(dc, dt, de).get(), np.where(hc, ht, he))
        if criterion_type != np.complex64:
            positive = c > 0
            assert_same(gpuarray.if_positive(gc, gt, ge).get(), np.where(positive, t, e))
            assert_same(gpuarray.if_positive(gc[::-1], gt, ge[:, ::-1]).get(), np.where(c[::-1] > 0, t, e[:, ::-1]))
        # scalars and broadcasting
        assert_same(gpuarray.where(gc, gt, 7).get(), np.where(c, t, 7))
        assert_same(gpuarray.where(gc, 2.5, ge).get(), np.where(c, 2.5, e))
        assert_same(gpuarray.where(gc, 1, 2).get(), np.where(c, 1, 2))
        assert_same(gpuarray.where(gc[:, :1], gt[:1], ge).get(), np.where(c[:, :1], t[:1], e))


@gpu
def test_where_with_python_ints_wraps_as_numpy(pool_ctx):
    c = np.array([False, True, False])
    u = np.array([1, 2, 3], np.uint8)
    gc, gu = gpuarray.to_gpu(c), gpuarray.to_gpu(u)
    for value in [1000, -1, 2**64 - 1, -(2**63)]:
        # numpy 2.4 wraps the integer to uint8; older numpy raises OverflowError, so the
        # expected values wrap it by hand.
        wrapped = np.array(value).astype(np.uint8)
        assert_same(gpuarray.where(gc, gu, value).get(), np.where(c, u, wrapped))
    # PyCUDA's test_where, out= and streams.
    a, b, cc = np.array([1, 0, -1]), np.array([2, 2, 2]), np.array([3, 3, 3])
    np.testing.assert_array_equal(gpuarray.where(*map(gpuarray.to_gpu, (a, b, cc))).get(), np.where(a, b, cc))
    out = gpuarray.empty(3, np.float64)
    stream = drv.Stream()
    assert gpuarray.where(gpuarray.to_gpu(a), gpuarray.to_gpu(b), 0.5, out=out, stream=stream) is out
    stream.synchronize()
    assert_same(out.get(), np.where(a, b, 0.5))
    assert gpuarray.if_positive(gpuarray.empty((0,), np.float32), 1, 2).shape == (0,)


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64])
def test_mul_add(pool_ctx, dtype):
    x, y = random(1025, dtype, 16), random(1025, dtype, 17)
    gx, gy = gpuarray.to_gpu(x), gpuarray.to_gpu(y)

    def check(got, want):
        assert got.dtype == want.dtype and got.shape == want.shape
        # The GPU may contract a multiply and an add into one fused multiply-add: compare with
        # the rounding of terms of magnitude ~30, not relative to a sum that may cancel.
        atol = 0 if want.dtype.kind in "iu" else 1e-4 if want.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=atol)

    check(gx.mul_add(3, gy, -2).get(), 3 * x + -2 * y)
    check(gx[::-2].mul_add(2, gy[::2], 5).get(), 2 * x[::-2] + 5 * y[::2])
    check(gx.mul_add(np.float64(0.5), gy, 1).get(), np.float64(0.5) * x + 1 * y)
    out = gpuarray.empty(1025, np.complex128)
    assert gx.mul_add(2, gy, 3, out=out) is out
    check(out.get(), (2 * x + 3 * y).astype(np.complex128))
    timings = []
    result = gx.mul_add(2, gy, 3, add_timer=lambda n, seconds: timings.append((n, seconds())))
    check(result.get(), 2 * x + 3 * y)
    assert timings[0][0] == 3 * 1025 and timings[0][1] >= 0


# ---- GPU: reverse, views, copies, reshape


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.complex128, vec.float3, vec.long4])
def test_reverse(pool_ctx, dtype):
    for n in SIZES[:4]:
        host = random(n, dtype, n)
        assert_same(gpuarray.to_gpu(host).reverse().get(), host[::-1])
    host = random((7, 11), dtype, 18)
    g = gpuarray.to_gpu(host)
    for h, d in views(host, g):
        flat_reversed = h.ravel()[::-1].reshape(h.shape)
        assert_same(d.reverse().get(), flat_reversed)
    f = gpuarray.to_gpu(np.asfortranarray(host))
    assert f.reverse().flags.f_contiguous
    assert_same(f.reverse().get(), host[::-1, ::-1])
    stream = drv.Stream()
    r = g.reverse(stream=stream)
    stream.synchronize()
    assert_same(r.get(), host[::-1, ::-1])


@gpu
def test_reverse_as_pycuda_tests_it(pool_ctx):
    a = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).astype(np.float32)
    b = gpuarray.to_gpu(a).reverse().get()
    assert all(a[len(a) - 1 - i] == b[i] for i in range(10))


@gpu
def test_views_read_the_same_bytes(pool_ctx):
    host = random((8, 16), np.float32, 19)
    g = gpuarray.to_gpu(host)
    for dtype in (np.complex64, np.int16, np.uint8, np.float64, vec.float4):
        assert_same(g.view(dtype).get(), host.view(dtype))
    assert_same(g[::-1].view(np.float64).get(), host[::-1].view(np.float64))
    assert_same(g[:, 4:].view(np.complex64).get(), host[:, 4:].view(np.complex64))
    v = g.view(np.complex64)
    v.fill(1 + 2j)
    assert_same(g.get(), np.tile(np.array([1, 2], np.float32), (8, 8)))


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex128, vec.float3])
def test_copy_keeps_the_order_of_axes(pool_ctx, dtype):
    host = random((6, 5, 4), dtype, 20)
    g = gpuarray.to_gpu(host)
    cases = [
        (host, g),
        (np.asfortranarray(host), gpuarray.to_gpu(np.asfortranarray(host))),
        (host.transpose(1, 2, 0), g.transpose(1, 2, 0)),
        (host[::2, :, 1:], g[::2, :, 1:]),
        (host[::-1, ::-2], g[::-1, ::-2]),
        (host[:, 2], g[:, 2]),
    ]
    for h, d in cases:
        c = d.copy()
        want = h.copy(order="K")
        assert_same(c.get(), want)
        assert c.strides == want.strides
        assert c.ptr != d.ptr
    stream = drv.Stream()
    c = g[::2].copy(stream=stream)
    stream.synchronize()
    assert_same(c.get(), host[::2])


@gpu
def test_reshape_of_views_that_need_copies(pool_ctx):
    host = random((6, 10), np.float64, 21)
    g = gpuarray.to_gpu(host)
    for h, d in views(host, g):
        assert_same(d.reshape(-1).get(), h.reshape(-1))
        assert_same(d.reshape(-1, order="F").get(), h.reshape(-1, order="F"))
    records = random((6, 4), vec.float3, 22)
    assert_same(gpuarray.to_gpu(records).T.reshape(24).get(), records.T.reshape(24))
    # PyCUDA's test_reshape: order F of a C array reads it in F order (a copy), as numpy does.
    a = np.arange(128).reshape(8, 16).astype(np.float32)
    f = gpuarray.to_gpu(a).reshape(4, 32, order="F")
    assert f.flags.f_contiguous
    assert_same(f.get(), a.reshape(4, 32, order="F"))
    assert gpuarray.to_gpu(a).reshape((4, 32), order="C").flags.c_contiguous
    # ... and the same shape in the other order is contiguous in the order asked for, with
    # numpy's elements (numpy itself returns the array unchanged there).
    c = gpuarray.to_gpu(a).reshape((4, 32))
    same_f = c.reshape(4, 32, order="F")
    assert same_f.flags.f_contiguous and int(same_f.gpudata) != int(c.gpudata)
    assert_same(same_f.get(), a.reshape(4, 32))
    back_c = same_f.reshape((4, 32))
    assert back_c.flags.c_contiguous
    assert_same(back_c.get(), a.reshape(4, 32))
    # A view when the order already fits, and for a strided array as numpy's.
    assert int(c.reshape(4, 32).gpudata) == int(c.gpudata)
    column = gpuarray.to_gpu(a)[:, 3]
    assert int(column.reshape(2, 4, order="F").gpudata) == int(column.gpudata)


# ---- GPU: host transfers of strided arrays


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.complex128, vec.float3])
def test_get_keeps_the_order_of_axes(pool_ctx, dtype):
    host = random((9, 300, 5), dtype, 23)
    g = gpuarray.to_gpu(host)
    for h, d in [
        (host, g),
        (host.transpose(2, 0, 1), g.transpose(2, 0, 1)),
        (host[:, :200], g[:, :200]),
        (host[::2, ::3, 1:], g[::2, ::3, 1:]),
        (host[::-1], g[::-1]),
    ]:
        got = d.get()
        assert_same(got, h)
        assert got.strides == np.empty_like(h, order="K").strides
        pinned = d.get(pagelocked=True)
        assert_same(pinned, h)


@gpu
@pytest.mark.parametrize("async_", [False, True])
def test_get_and_set_with_strided_host_arrays(pool_ctx, async_):
    host = random((12, 300), np.float32, 24)
    g = gpuarray.to_gpu(host)
    stream = drv.Stream() if async_ else None
    pinned = drv.pagelocked_empty((24, 600), np.float32)
    # Rows of 1200 bytes with gaps between them, and every other element.
    for target in [pinned[::2, :300], pinned[1::2, 300:], pinned[:12, :300], pinned[::2, ::2]]:
        target[...] = 0
        assert g.get(ary=target, async_=async_, stream=stream) is target
        if stream is not None:
            stream.synchronize()
        assert_same(target, host)
    # Device views into host views, and host views into device views.
    dest = np.zeros((12, 150), np.float32)
    g[:, ::2].get(ary=dest)
    assert_same(dest, host[:, ::2])
    dest_f = np.zeros((12, 300), np.float32, order="F")
    g.get(ary=dest_f)
    assert_same(dest_f, host)
    strided_host = np.zeros((24, 600), np.float32)[::2, ::2]
    g[::-1].get(ary=strided_host)
    assert_same(strided_host, host[::-1])
    z = gpuarray.zeros((24, 600), np.float32)
    z[::2, 300:].set(host, async_=async_, stream=stream)
    if stream is not None:
        stream.synchronize()
    want = np.zeros((24, 600), np.float32)
    want[::2, 300:] = host
    assert_same(z.get(), want)
    z[1::2, :300].set(np.asfortranarray(host))
    z[1::2, 300:].set(random((600, 24), np.float32, 25)[::2, ::2].T)
    want[1::2, :300] = host
    want[1::2, 300:] = random((600, 24), np.float32, 25)[::2, ::2].T
    assert_same(z.get(), want)


@gpu
def test_async_copies_of_pinned_views(pool_ctx):
    host = random((16, 256), np.float64, 26)
    g = gpuarray.to_gpu(host)
    stream = drv.Stream()
    pinned = drv.pagelocked_empty((16, 512), np.float64)
    view = pinned[:, 100:356]  # rows of 2048 bytes, 4096 apart: one 2-D copy
    assert g.get(ary=view, async_=True, stream=stream) is view
    stream.synchronize()
    assert_same(view, host)
    pinned[...] = 0
    pinned[:, :256] = host
    d = gpuarray.zeros((16, 256), np.float64)
    d.set(pinned[:, :256], async_=True, stream=stream)
    stream.synchronize()
    assert_same(d.get(), host)
    gaps = drv.pagelocked_empty((32, 256), np.float64)[::2, ::2]
    g[:, ::2].get(ary=gaps, async_=True, stream=stream)  # rows of one element: still one copy
    stream.synchronize()
    assert_same(gaps, host[:, ::2])
    with pytest.raises(ValueError, match="cannot be copied asynchronously"):
        g.get(ary=np.zeros((256, 16))[::-1].T, async_=True)


@gpu
def test_set_and_setitem_from_host_values(pool_ctx):
    host = random((5, 7), np.int32, 27)
    g = gpuarray.zeros((5, 7), np.int32)
    g[1:4, ::2] = host[1:4, ::2]
    g[0] = 9
    g[4, :] = np.arange(7)
    want = np.zeros((5, 7), np.int32)
    want[1:4, ::2] = host[1:4, ::2]
    want[0] = 9
    want[4, :] = np.arange(7)
    assert_same(g.get(), want)
    g.set(host.ravel())  # a different shape with the same size is read in C order
    assert_same(g.get(), host)
    with pytest.raises(ValueError, match="read-only"):
        g.get(ary=np.broadcast_to(np.zeros(7, np.int32), (5, 7)))


@gpu
def test_to_gpu_keeps_strides_order(pool_ctx):
    a = np.random.default_rng(28).random((3, 4, 5))
    for h in [a, a.T, a.transpose(1, 2, 0), a[::2, ::-1], np.asfortranarray(a)]:
        g = gpuarray.to_gpu(h)
        assert_same(g.get(), h)
        assert g.strides == np.empty_like(h, order="K").strides


# ---- GPU: fill, constructors, like


@gpu
def test_fill_with_records_and_vector_types(pool_ctx):
    a = gpuarray.GPUArray(100, dtype=vec.float3)  # PyCUDA's test_vector_fill
    a.fill(vec.make_float3(0.0, 0.0, 0.0))
    assert a.get().dtype == vec.float3
    record = np.dtype([("a", np.int8), ("b", np.float64), ("c", np.int16, (3,))])
    for dtype, value in [
        (vec.float3, vec.make_float3(1, -2.5, 3)),
        (vec.long4, (1, -2, 3, 2**40)),
        (vec.double2, vec.make_double2(0.5, 7)),
        (vec.uchar3, (1, 2, 3)),
        (record, (5, 2.5, (1, 2, 3))),
        (vec.int2, 7),
        (np.dtype("V7"), b"abcdefg"),
        (np.float16, 1.5),
    ]:
        for shape in [(0,), (1,), (1025,), (33, 7)]:
            host = np.zeros(shape, dtype)
            host.fill(value)
            g = gpuarray.zeros(shape, dtype)
            assert g.fill(value) is g
            assert_same(g.get(), host)
        # strided, reversed and Fortran-ordered views
        host = random((20, 9), dtype, 29)
        g = gpuarray.to_gpu(host)
        g[::3, 1::2].fill(value)
        host[::3, 1::2].fill(value)
        g[::-1, 8].fill(value)
        host[::-1, 8].fill(value)
        assert_same(g.get(), host)
        f = gpuarray.to_gpu(np.asfortranarray(host))
        f.fill(value)
        host.fill(value)
        assert_same(f.get(), host)


@gpu
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_fill_converts_as_numpy(pool_ctx, dtype):
    for value in [0, 1, 7, 2.75, True]:
        host = np.empty(1003, dtype)
        try:
            host.fill(value)
        except (TypeError, OverflowError) as e:
            with pytest.raises(type(e)):
                gpuarray.empty(1003, dtype).fill(value)
            continue
        assert_same(gpuarray.empty(1003, dtype).fill(value).get(), host)
    with pytest.raises(OverflowError):
        gpuarray.empty(3, np.uint8).fill(300)


@gpu
def test_vector_types_in_elementwise_kernels(pool_ctx):
    from gpukit.elementwise import ElementwiseKernel

    a = gpuarray.empty(1000, vec.float3)
    a.fill(vec.make_float3(1, 2, 3))
    scale = ElementwiseKernel("float3 *a, float s", "a[i].x *= s; a[i].z += s", "scale_float3")
    scale(a, 2.0)
    host = np.zeros(1000, vec.float3)
    host.fill((2, 2, 5))
    assert_same(a.get(), host)


@gpu
def test_like_constructors_and_new_like_me(pool_ctx):
    # PyCUDA's test_zeros_like_etc, and non-contiguous arrays in order 'K' (numpy's layouts).
    a = np.random.default_rng(30).standard_normal((16, 16)).astype(np.float32)
    strided = np.arange(3 * 4 * 5).reshape(3, 4, 5).transpose(0, 2, 1)[:, ::2]
    cases = [
        (a, gpuarray.to_gpu(a)),
        (np.asfortranarray(a), gpuarray.to_gpu(np.asfortranarray(a))),
        (strided, gpuarray.to_gpu(np.arange(3 * 4 * 5).reshape(3, 4, 5)).transpose(0, 2, 1)[:, ::2]),
    ]
    for function, value in [(gpuarray.empty_like, None), (gpuarray.zeros_like, 0), (gpuarray.ones_like, 1)]:
        for host, device in cases:
            assert device.strides == host.strides
            for order in ["A", "C", "F", "K"]:
                for dtype in [None, np.complex64]:
                    new = function(device, dtype=dtype, order=order)
                    want = np.empty_like(host, dtype=dtype, order=order)
                    assert new.shape == want.shape and new.dtype == want.dtype
                    assert new.strides == want.strides, (order, dtype, host.strides)
                    if value is not None:
                        assert (new.get() == value).all()
            assert function(device).strides == np.empty_like(host).strides  # order 'K' by default
    host, device = cases[2]
    assert device._new_like_me().strides == np.empty_like(host, order="K").strides
    other = device._new_like_me(np.float64, order="F")
    assert other.dtype == np.float64 and other.flags.f_contiguous
    allocate = DeviceMemoryPool().allocate
    pooled = gpuarray.empty((4, 3), np.float32, allocator=allocate)
    assert pooled._new_like_me().allocator is allocate and gpuarray.zeros_like(pooled).allocator is allocate


@gpu
def test_arange_as_numpy(pool_ctx):
    for ours, numpys in [
        (gpuarray.arange(12, dtype=np.float32), np.arange(12, dtype=np.float32)),
        (gpuarray.arange(0, 10, 3), np.arange(0, 10, 3)),
        (gpuarray.arange(5, -7, -2), np.arange(5, -7, -2)),
        (gpuarray.arange(1.5), np.arange(1.5)),
        (gpuarray.arange(0, 10, 0.5), np.arange(0, 10, 0.5)),
        (gpuarray.arange(10, 0), np.arange(10, 0)),
        (gpuarray.arange(3, dtype=np.uint8), np.arange(3, dtype=np.uint8)),
        (gpuarray.arange(start=2, stop=11, step=3), np.arange(2, 11, 3)),
        (gpuarray.arange(2, stop=11, dtype=np.int16), np.arange(2, 11, dtype=np.int16)),
        (gpuarray.arange(-5, 5, dtype=np.complex64), np.arange(-5, 5, dtype=np.complex64)),
        (gpuarray.arange(np.float32(1), 10), np.arange(np.float32(1), 10)),
        (gpuarray.arange(0, 10, 1, np.dtype(np.float32)), np.arange(0, 10, 1, np.float32)),
    ]:
        assert_same(ours.get(), numpys)
    allocate = DeviceMemoryPool().allocate
    stream = drv.Stream()
    r = gpuarray.arange(7, dtype=np.int32, allocator=allocate, stream=stream)
    stream.synchronize()
    assert r.allocator is allocate and r.stream is stream
    assert_same(r.get(), np.arange(7, dtype=np.int32))


@gpu
def test_splay_grid_and_block(pool_ctx):
    data = drv.Context.get_device()
    from gpukit.tools import DeviceData

    dd = DeviceData()
    most_blocks = 4 * dd.thread_blocks_per_mp * data.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    warp = dd.warp_size
    for n in [
        0,
        1,
        warp - 1,
        warp,
        1000,
        most_blocks * warp - 1,
        most_blocks * warp,
        most_blocks * 128 - 1,
        most_blocks * 128,
        1 << 30,
    ]:
        if n < warp:
            want = ((1, 1), (warp, 1, 1))
        elif n < most_blocks * warp:
            want = (((n + warp - 1) // warp, 1), (warp, 1, 1))
        elif n < most_blocks * 128:
            warps = (n + warp - 1) // warp
            want = ((most_blocks, 1), ((warps + most_blocks - 1) // most_blocks * warp, 1, 1))
        else:
            want = ((most_blocks, 1), (128, 1, 1))
        assert gpuarray.splay(n) == want
        assert gpuarray.splay(n, data) == want
    a = gpuarray.empty(1000, np.float32)
    assert (a._grid, a._block) == gpuarray.splay(1000)


@gpu
def test_array_interface_stream_and_pickle(pool_ctx):
    stream = drv.Stream()
    a = gpuarray.to_gpu(np.arange(10, dtype=np.float32), stream=stream)
    assert a.__cuda_array_interface__["stream"] == stream.handle
    assert gpuarray.to_gpu(np.arange(3.0)).__cuda_array_interface__["stream"] is None
    b = pickle.loads(pickle.dumps(a[::2]))
    assert isinstance(b, gpuarray.GPUArray)
    assert_same(b.get(), np.arange(10, dtype=np.float32)[::2])


# ---- GPU: gathers, scatters, joins


def take_reference(source, indices):
    """numpy's take of source.flat with gpukit's rule for indices beyond it (a zero element)."""
    flat = source.ravel()
    n = flat.size
    big = indices.dtype == np.uint64
    j = indices.astype(np.int64) if not big else np.where(indices > 2**63 - 1, -n - 1, indices.astype(np.int64))
    j = np.where(j < 0, j + n, j)
    valid = (j >= 0) & (j < n)
    result = np.zeros(indices.shape, source.dtype)
    result[valid] = flat[j[valid]]
    return result


@gpu
@pytest.mark.parametrize(
    "dtype", [np.float32, np.int8, np.complex64, np.complex128, vec.float3, vec.double2, np.dtype("V5")]
)
def test_take(pool_ctx, dtype):
    host = random((37, 29), dtype, 31)
    g = gpuarray.to_gpu(host)
    rng = np.random.default_rng(32)
    for index_type in INDEX_TYPES:
        info = np.iinfo(index_type) if index_type != np.bool_ else None
        low = max(info.min, -host.size) if info else 0
        high = min(info.max, host.size + 20) if info else 2
        indices = rng.integers(low, high, (40, 3), endpoint=False).astype(index_type)
        gi = gpuarray.to_gpu(indices)
        for h, d in views(host, g):
            assert_same(gpuarray.take(d, gi).get(), take_reference(h, indices))
        assert_same(gpuarray.take(g, gi[::-1, 1]).get(), take_reference(host, indices[::-1, 1]))
    huge = np.array([0, 2**64 - 1, 2**63, 5], np.uint64)
    assert_same(gpuarray.take(g, gpuarray.to_gpu(huge)).get(), take_reference(host, huge))
    # Into a strided view given as out.
    out = gpuarray.zeros((6, 4), dtype)
    indices = rng.integers(-host.size, host.size, (3, 2)).astype(np.int64)
    target = out[::2, ::2]
    assert gpuarray.take(g, gpuarray.to_gpu(indices), out=target) is target
    want = np.zeros((6, 4), dtype)
    want[::2, ::2] = take_reference(host, indices)
    assert_same(out.get(), want)
    assert gpuarray.take(g, gpuarray.empty((0,), np.int32)).shape == (0,)
    assert_same(
        gpuarray.take(gpuarray.empty((0,), dtype), gpuarray.to_gpu(np.array([0, -1]))).get(), np.zeros(2, dtype)
    )


@gpu
def test_take_as_pycuda_tests_it(pool_ctx):
    idx = gpuarray.arange(0, 10000, 2, dtype=np.uint32)
    for dtype in [np.float32, np.complex64]:
        a = gpuarray.arange(0, 600000, dtype=np.uint32).astype(dtype)
        assert (a.get()[idx.get()] == gpuarray.take(a, idx).get()).all()
    stream = drv.Stream()
    got = gpuarray.take(a, idx, stream=stream)
    stream.synchronize()
    assert (a.get()[idx.get()] == got.get()).all()


def memory_order(a):
    return a.ravel(order="K")


@gpu
@pytest.mark.parametrize("count", [1, 3, 17, 40])
@pytest.mark.parametrize("dtype", [np.float32, np.int16, vec.float3])
def test_multi_take_put_and_take_put(pool_ctx, count, dtype):
    rng = np.random.default_rng(33)
    hosts = [random((50, 20) if k % 2 else (1000,), dtype, 34 + k) for k in range(count)]
    arrays = [gpuarray.to_gpu(h if k % 3 else np.asfortranarray(h)) for k, h in enumerate(hosts)]
    flats = [memory_order(a.get()) for a in arrays]
    n = 1000
    indices = rng.integers(-1000, 1000 + 30, 257).astype(np.int32)  # some beyond every array: zeros
    taken = gpuarray.multi_take(arrays, gpuarray.to_gpu(indices))
    assert len(taken) == count
    for flat, t in zip(flats, taken):
        assert_same(t.get(), take_reference(flat, indices))
    # multi_put: out[dest[i]] = a[i]; distinct destinations, some beyond (skipped).
    dest = rng.permutation(n + 40)[:257].astype(np.int64)
    outs = [gpuarray.zeros(n, dtype) for _ in range(count)]
    returned = gpuarray.multi_put(arrays, gpuarray.to_gpu(dest), out=outs)
    assert len(returned) == count and all(r is o for r, o in zip(returned, outs))
    for flat, o in zip(flats, outs):
        want = np.zeros(n, dtype)
        keep = dest < n
        want[dest[keep]] = flat[:257][keep]
        assert_same(o.get(), want)
    # multi_take_put with offsets, into new arrays of dest_shape (only the destinations are defined).
    src = rng.integers(0, 500, 257).astype(np.int64)
    offsets = [int(k * 7 % 400) for k in range(count)]
    dest = rng.permutation(300)[:257].astype(np.int64)
    results = gpuarray.multi_take_put(
        arrays, gpuarray.to_gpu(dest), gpuarray.to_gpu(src), dest_shape=(300,), src_offsets=offsets
    )
    for flat, offset, r in zip(flats, offsets, results):
        assert r.shape == (300,) and r.dtype == np.dtype(dtype)
        assert_same(r.get()[dest], take_reference(flat, src + offset))


@gpu
def test_multi_take_put_as_pycuda_tests_it(pool_ctx):
    for n in [5, 17, 333]:
        one_field_size = 8
        buf = gpuarray.arange(n * one_field_size, dtype=np.float32)
        dest_indices = gpuarray.to_gpu(np.array([0, 1, 2, 3, 32, 33, 34, 35], dtype=np.uint32))
        read_map = gpuarray.to_gpu(np.array([7, 6, 5, 4, 3, 2, 1, 0], dtype=np.uint32))
        results = gpuarray.multi_take_put(
            arrays=[buf for i in range(n)],
            dest_indices=dest_indices,
            src_indices=read_map,
            src_offsets=[i * one_field_size for i in range(n)],
            dest_shape=(96,),
        )
        drv.Context.synchronize()
        for i, r in enumerate(results):
            got = r.get()[[0, 1, 2, 3, 32, 33, 34, 35]]
            np.testing.assert_array_equal(got, np.arange(7, -1, -1, dtype=np.float32) + i * one_field_size)


@gpu
@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_concatenate(pool_ctx, axis):
    def shape_with(length):
        shape = [6, 250, 4]
        shape[axis] = length
        return tuple(shape)

    for seed, dtypes in enumerate(
        [
            [np.float32] * 4,
            [np.float32, np.int16, np.float64, np.uint8],
            [vec.float3] * 4,
            [np.complex64, np.float32, np.int8, np.bool_],
        ]
    ):
        hosts = [
            random(shape_with(length), dtype, seed * 10 + k)
            for k, (length, dtype) in enumerate(zip([5, 0, 3, 1], dtypes))
        ]
        devices = [gpuarray.to_gpu(h) for h in hosts]
        assert_same(gpuarray.concatenate(devices, axis=axis).get(), np.concatenate(hosts, axis=axis))
        # F-ordered, reversed and strided pieces
        pieces = [
            (np.asfortranarray(hosts[0]), gpuarray.to_gpu(np.asfortranarray(hosts[0]))),
            (hosts[2][::-1], devices[2][::-1]),
            (hosts[3], devices[3]),
        ]
        assert_same(
            gpuarray.concatenate([d for _, d in pieces], axis=axis).get(),
            np.concatenate([h for h, _ in pieces], axis=axis),
        )


@gpu
def test_concatenate_as_pycuda_tests_it(pool_ctx):
    a, b, c = (random(shape, np.float32, k) for k, shape in enumerate([(5, 15, 20), (4, 15, 20), (3, 15, 20)]))
    cat = gpuarray.concatenate((gpuarray.to_gpu(a), gpuarray.to_gpu(b), gpuarray.to_gpu(c)))
    assert_same(cat.get(), np.concatenate((a, b, c)))
    allocate = DeviceMemoryPool().allocate
    wide = [random((1000, 200), np.float32, 40), random((1000, 7), np.float32, 41)]  # 2-D copy and a kernel
    got = gpuarray.concatenate([gpuarray.to_gpu(w) for w in wide], axis=1, allocator=allocate)
    assert got.allocator is allocate
    assert_same(got.get(), np.concatenate(wide, axis=1))
    assert_same(gpuarray.concatenate([gpuarray.to_gpu(np.arange(3))]).get(), np.arange(3))


@gpu
@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("input_dims", [0, 1, 2, 3])
def test_stack(pool_ctx, order, input_dims):
    shape = (2, 3, 4)[:input_dims]
    for axis in range(-input_dims - 1, input_dims + 1):
        hosts = [random(shape, np.float64, k) for k in range(3)]
        hosts = [h if order == "C" else np.asfortranarray(h) for h in hosts]
        devices = [gpuarray.to_gpu(h) for h in hosts]
        got = gpuarray.stack(devices, axis=axis)
        assert_same(got.get(), np.stack(hosts, axis=axis))
        assert got.flags.c_contiguous
    mixed = [random((3, 5), np.int8, 1), random((3, 5), np.float32, 2)]
    assert_same(gpuarray.stack([gpuarray.to_gpu(m) for m in mixed], axis=1).get(), np.stack(mixed, axis=1))
