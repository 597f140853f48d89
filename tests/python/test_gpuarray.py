"""gpukit.gpuarray: CPU checks of type resolution and kernel generation, GPU checks of every
operation against numpy on random data, contiguous and strided, odd sizes, every dtype."""

import numpy as np
import pytest

from gpukit import _gpukit
import gpukit.gpuarray as gpuarray
from gpukit.compiler import compile as nvrtc_compile

KERNEL_DTYPES = [
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
ALL_DTYPES = KERNEL_DTYPES + [np.complex64, np.complex128]


# ---- CPU


@pytest.mark.parametrize("a", ALL_DTYPES)
@pytest.mark.parametrize("b", ALL_DTYPES)
def test_promotion_matches_numpy(a, b):
    assert _gpukit._promote_types(np.dtype(a).name, np.dtype(b).name) == np.promote_types(a, b).name


def test_unsupported_dtype_names():
    assert _gpukit._dtype_supported("complex64") and not _gpukit._dtype_supported("float16")
    with pytest.raises(_gpukit.LogicError, match="unsupported dtype 'float16'"):
        _gpukit._promote_types("float16", "float32")


@pytest.mark.compile_sweep
@pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC is not installed")
@pytest.mark.parametrize("variant", ["vectorized", "contiguous", "strided"])
def test_generated_kernels_compile_for_sm90(variant):
    spec = _gpukit._ElementwiseSpec(
        "lin",
        [("a", "float32", "scalar"), ("x", "float32", "in"), ("y", "float64", "in"), ("z", "float64", "out")],
        "z[i] = a * x[i] + y[i]",
    )
    assert nvrtc_compile(spec.source(variant, 2), arch="sm_90", no_extern_c=True, options=["--std=c++17"])


@pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC is not installed")
@pytest.mark.parametrize("symbol", ["+", "-", "*", "/", "==", "!="])
def test_complex_operator_kernels_compile_for_sm90(symbol):
    for left, right in (("complex64", "float32"), ("complex128", 2j), (1.5, "complex64"), ("int16", 1j)):
        spec = _gpukit._operator_spec(symbol, left, right)
        assert nvrtc_compile(spec.source("vectorized"), arch="sm_90", no_extern_c=True, cache_dir=False)


def test_reduction_types_follow_numpy():
    for t in KERNEL_DTYPES:
        name = np.dtype(t).name
        assert _gpukit._reduction_type("sum", name) == np.ones(2, t).sum().dtype.name
        assert _gpukit._reduction_type("max", name) == name
        assert _gpukit._reduction_type("dot", name, "float32") == np.promote_types(t, np.float32).name


# ---- GPU

gpu = pytest.mark.gpu


def random(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) * 10 + 1j * rng.standard_normal(shape) * 10).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


@gpu
@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
@pytest.mark.parametrize("n", [1, 7, 1000, 1 << 16 | 5])
def test_round_trip_and_scalar_arithmetic(pool_ctx, dtype, n):
    host = random(n, dtype)
    a = gpuarray.to_gpu(host)
    np.testing.assert_array_equal(a.get(), host)
    if np.dtype(dtype).kind != "b":
        np.testing.assert_allclose((2 * a).get(), 2 * host, rtol=1e-6)
        np.testing.assert_allclose((a + 3).get(), host + 3, rtol=1e-6)
        assert (2 * a).dtype == (2 * host).dtype
    np.testing.assert_allclose((a * 1.5).get(), host * 1.5, rtol=1e-6)
    assert (a * 1.5).dtype == (host * 1.5).dtype


@gpu
@pytest.mark.parametrize("a_t", [np.int8, np.uint16, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("b_t", [np.int8, np.uint32, np.int64, np.float32, np.float64])
def test_mixed_array_arithmetic(pool_ctx, a_t, b_t):
    x, y = random(1001, a_t, 1), random(1001, b_t, 2)
    y[y == 0] = 1
    gx, gy = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    for op in ("__add__", "__sub__", "__mul__", "__truediv__", "__lt__", "__ge__", "__eq__"):
        expected = getattr(x, op)(y)
        result = getattr(gx, op)(gy)
        assert result.dtype == expected.dtype, op
        np.testing.assert_allclose(result.get(), expected, rtol=1e-5, err_msg=op)


@gpu
def test_strided_views_and_in_place(pool_ctx):
    host = random((6, 10), np.float32)
    a = gpuarray.to_gpu(host)
    view = a[::2, ::-3].T
    np.testing.assert_array_equal(view.get(), host[::2, ::-3].T)
    np.testing.assert_allclose((view * 2 + view).get(), host[::2, ::-3].T * 3, rtol=1e-6)
    a[1:3] += 1
    host[1:3] += 1
    np.testing.assert_array_equal(a.get(), host)
    a[:, 4] = 7
    host[:, 4] = 7
    np.testing.assert_array_equal(a.get(), host)
    np.testing.assert_array_equal(a.reshape(10, 6).get(), host.reshape(10, 6))
    np.testing.assert_array_equal(a.T.ravel().get(), host.T.ravel())  # needs a copy
    np.testing.assert_array_equal(abs(-a).get(), np.abs(host))
    np.testing.assert_allclose((a**2).get(), host**2, rtol=1e-6)
    assert a.squeeze().shape == (6, 10) and a[None].shape == (1, 6, 10) and len(a) == 6


@gpu
def test_constructors(pool_ctx):
    np.testing.assert_array_equal(gpuarray.zeros((3, 5), np.int16).get(), np.zeros((3, 5), np.int16))
    np.testing.assert_array_equal(gpuarray.ones(9, np.uint8).get(), np.ones(9, np.uint8))
    np.testing.assert_array_equal(
        gpuarray.arange(3, 100, 7, dtype=np.int32).get(), np.arange(3, 100, 7, dtype=np.int32)
    )
    np.testing.assert_allclose(gpuarray.arange(0.5, 10.0, 0.25).get(), np.arange(0.5, 10.0, 0.25))
    a = gpuarray.to_gpu(random((4, 3), np.float64))
    assert gpuarray.empty_like(a).shape == (4, 3)
    np.testing.assert_array_equal(a.astype(np.int32).get(), a.get().astype(np.int32))
    pool = _gpukit.DeviceMemoryPool()
    b = gpuarray.empty(100, np.float32, allocator=pool.allocate)
    assert pool.active_blocks == 1 and isinstance(b.gpudata, _gpukit.PooledDeviceAllocation)


@gpu
@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
@pytest.mark.parametrize("n", [1, 5, 4097, (1 << 20) + 3])
def test_reductions(pool_ctx, dtype, n):
    host, other = random(n, dtype, 3), random(n + 1, dtype, 4)[1:]
    a, b = gpuarray.to_gpu(host), gpuarray.to_gpu(other)  # b is not 16-byte aligned
    floating = np.dtype(dtype).kind == "f"
    tol = dict(rtol=1e-5) if floating else {}
    # Floating results are compared with float64 references: the GPU accumulates in double.
    ref = host.astype(np.float64) if floating else host
    s = gpuarray.sum(a)
    assert s.shape == () and s.dtype == host.sum().dtype
    np.testing.assert_allclose(s.get(), ref.sum(), **tol)
    assert gpuarray.min(a).get() == host.min() and gpuarray.max(a).get() == host.max()
    d = gpuarray.dot(a, b)
    assert d.dtype == np.dot(host, other).dtype
    np.testing.assert_allclose(d.get(), np.dot(ref, other.astype(np.float64) if floating else other), **tol)
    np.testing.assert_allclose(gpuarray.sum(gpuarray.to_gpu(host)[::3]).get(), ref[::3].sum(), **tol)


@gpu
def test_reductions_of_unaligned_views_and_mixed_orders(pool_ctx):
    host = random(4099, np.float32, 5)
    a = gpuarray.to_gpu(host)
    view, ref = a[1:], host[1:].astype(np.float64)  # contiguous, not 16-byte aligned
    np.testing.assert_allclose(gpuarray.sum(view).get(), ref.sum(), rtol=1e-5)
    assert gpuarray.min(view).get() == host[1:].min() and gpuarray.max(view).get() == host[1:].max()
    np.testing.assert_allclose(gpuarray.dot(view, a[:-1]).get(), np.dot(ref, host[:-1]), rtol=1e-5)
    # C order with Fortran order: element i in memory is not element i of both.
    c_host, f_host = random((30, 40), np.float32, 6), random((40, 30), np.float32, 7).T
    c, f = gpuarray.to_gpu(c_host), gpuarray.to_gpu(f_host.T).T
    expected = np.sum(c_host.astype(np.float64) * f_host)
    np.testing.assert_allclose(gpuarray.dot(c, f).get(), expected, rtol=1e-5)
    np.testing.assert_allclose(gpuarray.dot(f, c).get(), expected, rtol=1e-5)


@gpu
def test_nan_propagates_and_errors(pool_ctx):
    a = gpuarray.to_gpu(np.array([1.0, np.nan, -3.0], np.float32))
    assert np.isnan(gpuarray.min(a).get()) and np.isnan(gpuarray.max(a).get())
    with pytest.raises(ValueError, match="shapes"):
        a + gpuarray.zeros(4, np.float32)
    with pytest.raises(ValueError, match="zero-size"):
        gpuarray.min(gpuarray.empty(0, np.float32))
    with pytest.raises(TypeError, match="no GPU kernels"):
        gpuarray.zeros(3, np.float16) + 1
    with pytest.raises(TypeError, match="cast"):
        b = gpuarray.zeros(3, np.int32)
        b += 1.5
    with pytest.raises(OverflowError):
        gpuarray.zeros(3, np.int8) + 1000


@gpu
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("n", [1, 1001, 1 << 16 | 3])
def test_complex_arithmetic_matches_numpy(pool_ctx, dtype, n):
    x, y = random(n, dtype, 1), random(n, dtype, 2)
    r = random(n, np.float32, 3)
    gx, gy, gr = gpuarray.to_gpu(x), gpuarray.to_gpu(y), gpuarray.to_gpu(r)
    rtol = 1e-5 if dtype == np.complex64 else 1e-12
    cases = [
        (gx + gy, x + y),
        (gx - gy, x - y),
        (gx * gy, x * y),
        (gx / gy, x / y),
        (gx * gr, x * r),
        (gr / gx, r / x),
        (2.5j - gx, 2.5j - x),
        (gx * (1 - 2j), x * (1 - 2j)),
        (-gx, -x),
        (abs(gx), np.abs(x)),
        (gx[::2] * gy[::2], x[::2] * y[::2]),
        (gx * gy + gx / 3, x * y + x / 3),  # fused
    ]
    for got, expected in cases:
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got.get(), expected, rtol=rtol, atol=rtol)
    np.testing.assert_array_equal((gx == gx.copy()).get(), np.ones(n, bool))
    np.testing.assert_array_equal((gx != gy).get(), x != y)
    with pytest.warns(np.exceptions.ComplexWarning):
        np.testing.assert_array_equal(gx.astype(np.float64).get(), x.real.astype(np.float64))
    np.testing.assert_array_equal(gr.astype(dtype).get(), r.astype(dtype))
    gx += gy
    np.testing.assert_allclose(gx.get(), x + y, rtol=rtol)
    gz = gpuarray.zeros(n, dtype)
    gz.fill(3 - 4j)
    np.testing.assert_array_equal(gz.get(), np.full(n, 3 - 4j, dtype))


@gpu
def test_complex_division_by_zero(pool_ctx):
    x = gpuarray.to_gpu(np.array([1 + 1j, 0j, 2 - 1j], np.complex128))
    with np.errstate(all="ignore"):
        expected = np.array([1 + 1j, 0j, 2 - 1j]) / np.array([0j, 0j, 1e300 + 1e300j])
    got = (x / gpuarray.to_gpu(np.array([0j, 0j, 1e300 + 1e300j]))).get()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))
    np.testing.assert_allclose(got[2], expected[2], rtol=1e-12)  # no overflow in |b|^2


@gpu
def test_elementwise_kernel_and_streams(pool_ctx):
    import gpukit.driver as drv

    stream = drv.Stream()
    x, y = random(10007, np.float32, 5), random(10007, np.float32, 6)
    gx = gpuarray.to_gpu(x, stream=stream)
    gy, gz = gpuarray.to_gpu(y), gpuarray.empty(10007, np.float32)
    lin = gpuarray.ElementwiseKernel(
        "float a, const float *x, float b, const float *y, float *z", "z[i] = a*x[i] + b*y[i]", "lin_comb"
    )
    lin(5, gx, 6, gy, gz, stream=stream)
    stream.synchronize()
    # The GPU contracts a*x + b*y into a fused multiply-add: compare with float32 rounding of
    # terms of magnitude ~30, not relative to a result that may cancel to near zero.
    np.testing.assert_allclose(gz.get(), 5 * x + 6 * y, rtol=1e-5, atol=1e-5)
    assert gx.__cuda_array_interface__["stream"] == stream.handle
    assert gpuarray.asarray(gx).ptr == gx.ptr
    assert (2 * gx).get(stream=stream).shape == (10007,)


@pytest.mark.compile_sweep
@pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC is not installed")
@pytest.mark.parametrize("symbol", ["+", "-", "*", "/", "**", "==", "!=", "<", "<=", ">", ">="])
def test_every_operator_kernel_compiles_for_sm90(symbol):
    # The kernels the operators generate for a sample of operand pairs that covers every
    # kind of type and scalar: same types, mixed kinds and sizes, Python scalars on either side.
    pairs = [
        ("int16", "int16"),
        ("uint64", 3),
        ("int8", "uint32"),
        ("float32", "float64"),
        ("float64", 2.5),
        ("bool", "bool"),
        ("int32", 1.5),
        (2, "uint8"),
        ("bool", True),
        ("int32", "uint64"),
        ("uint64", "int8"),
    ]
    sources = set()
    for left, right in pairs:
        try:
            spec = _gpukit._operator_spec(symbol, left, right)
        except (TypeError, ValueError):
            continue  # numpy refuses it too (bool - bool)
        sources.add(spec.source("strided", 2))
    assert len(sources) >= 6
    for source in sources:
        assert nvrtc_compile(source, arch="sm_90", no_extern_c=True, options=["--std=c++17"], cache_dir=False)


@gpu
def test_get_and_set_honour_pagelocked_and_async(pool_ctx):
    import gpukit.driver as drv

    host = random((37, 5), np.float32, 11)
    a = gpuarray.to_gpu(host)
    pinned = a.get(pagelocked=True)
    np.testing.assert_array_equal(pinned, host)
    assert isinstance(pinned.base, drv.PagelockedHostAllocation)
    stream = drv.Stream()
    target = drv.pagelocked_empty(host.shape, host.dtype)
    assert a.get(ary=target, async_=True, stream=stream) is target
    stream.synchronize()
    np.testing.assert_array_equal(target, host)
    np.testing.assert_array_equal(a.get_async(stream=stream), host)  # pageable target: done on return
    b = gpuarray.empty((37, 5), np.float32)
    b.set_async(2 * host, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(b.get(), 2 * host)
    c = gpuarray.to_gpu_async(3 * host, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(c.get(), 3 * host)
    # A Fortran-ordered target has no gaps: it is filled through a device array laid out as it.
    fortran = np.empty((5, 37), np.float32).T
    assert a.get(ary=fortran, async_=True, stream=stream) is fortran
    stream.synchronize()
    np.testing.assert_array_equal(fortran, host)
    # A target with gaps is copied by one 3-D copy where its rows allow, else refused, never
    # copied wrongly.
    gapped = np.zeros((74, 10), np.float32)[::2, ::2]
    try:
        a.get(ary=gapped, async_=True, stream=stream)
    except ValueError as refusal:
        assert "without gaps" in str(refusal)
    else:
        stream.synchronize()
        np.testing.assert_array_equal(gapped, host)


def fake_array(shape, dtype):
    """A GPUArray over a made-up device address: enough for everything checked before a launch."""
    return gpuarray.GPUArray(shape, dtype, gpudata=1 << 20)


def test_operator_errors_come_before_any_launch():
    # No GPU is needed: each of these is refused before a kernel would run.
    x, y = fake_array((2, 3), np.float32), fake_array((4,), np.float32)
    with pytest.raises(ValueError, match=r"\(2,3\) \(4,\)"):
        x + y
    with pytest.raises(TypeError, match="copy the host array to the device"):
        x + np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match="copy the host array to the device"):
        np.ones((2, 3), np.float32) * x
    b = fake_array((3,), np.bool_)
    with pytest.raises(TypeError, match="boolean subtract"):
        b - b
    with pytest.raises(TypeError, match="boolean negative"):
        -b
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        fake_array((3,), np.uint8) + 1000
    with pytest.raises(TypeError, match="same_kind"):
        i = fake_array((3,), np.int32)
        i += 1.5
    with pytest.raises(ValueError, match="non-broadcastable output"):
        z = fake_array((3, 1), np.float32)
        z += fake_array((3, 4), np.float32)
    with pytest.raises(TypeError, match="no GPU kernels"):
        fake_array((3,), np.float16) + 1
    with pytest.raises(TypeError):
        x + "text"


def test_array_internals_refuse_bad_arguments():
    x = fake_array((4,), np.float32)
    with pytest.raises(ValueError, match="itemsize"):
        _gpukit._Array(_gpukit.Layout.contiguous((4,), 8), np.float32, None, None, 1 << 20, None)
    with pytest.raises(TypeError, match="stream"):
        gpuarray.GPUArray((4,), np.float32, gpudata=1 << 20, stream=7)
    with pytest.raises(TypeError, match="stream"):
        x.stream = "default"
    with pytest.raises(ValueError, match="a value of 17 bytes for 4-byte elements"):
        x._fill_bytes(bytes(17))
    with pytest.raises(ValueError, match="start and step"):
        x._arange(bytes(8), bytes(4))
    with pytest.raises(TypeError, match="GPUArray"):
        x._assign_from(np.ones(4, np.float32))
    with pytest.raises(ValueError, match="unknown operator"):
        _gpukit._operator_spec("%", "float32", "float32")
    with pytest.raises(TypeError, match="dtype name or a scalar"):
        _gpukit._operator_spec("+", "float32", object())
    with pytest.raises(TypeError, match="unexpected keyword|incompatible"):
        x.copy(strem=None)
    with pytest.raises(ValueError, match="order"):
        x.reshape(2, 2, order="K")
    assert x.reshape(2, 2).shape == (2, 2) and x.reshape((4, 1)).strides == (4, 4)
    assert x[::2].ptr == x.ptr and x[1:].ptr == x.ptr + 4 and x[::-1].ptr == x.ptr + 12
    assert x[1:].base is x and x[1:][1:].base is x
