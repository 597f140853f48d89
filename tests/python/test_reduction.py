"""Reductions: gpuarray's sum, min, max, dot, any, all and the subset forms. Without a GPU:
bad arguments are refused before the driver is touched (the kernels' compile tests are C++,
tests/cpp/array/test_reduction_source.cpp). With a GPU: every result against numpy, for every
dtype, odd sizes, strided and reversed views, complex values, subsets with repeated,
reversed and negative indices."""
import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import _gpukit, tools

REAL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
               np.float32, np.float64]
ALL_DTYPES = REAL_DTYPES + [np.complex64, np.complex128]
INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
ADDRESS = 1 << 20  # a device address given as an integer: nothing is allocated


def fake(shape, dtype, strides=None):
    """A GPUArray over no memory (for checks made before anything runs)."""
    return gpuarray.GPUArray(shape, dtype, gpudata=ADDRESS, strides=strides)


# ---- without a GPU: checks

def test_unknown_keywords_are_a_type_error():
    with pytest.raises(TypeError):
        gpuarray.sum(fake(4, np.float32), bogus=1)


@pytest.mark.parametrize("call, error, message", [
    (lambda: gpuarray.sum(np.zeros(3)), TypeError, "must be a GPUArray"),
    (lambda: gpuarray.dot(fake(3, np.float32), fake(4, np.float32)), ValueError, "shapes"),
    (lambda: gpuarray.subset_sum(fake(3, np.float32), fake(4, np.float32)), TypeError, "integers"),
    (lambda: gpuarray.subset_dot(fake(3, np.int32), fake(4, np.float32), fake(5, np.float32)), ValueError, "shapes"),
    (lambda: gpuarray.subset_sum(fake(3, np.int32), fake(0, np.float32)), IndexError, "empty"),
    (lambda: gpuarray.sum(fake(3, np.float16)), TypeError, "no GPU kernels"),
    (lambda: gpuarray.sum(fake(3, np.float32), dtype=np.float16), TypeError, "no GPU kernels"),
    (lambda: gpuarray.min(fake(0, np.float32)), ValueError, "zero-size array to reduction operation min"),
    (lambda: gpuarray.max(fake((3, 0), np.int8)), ValueError, "zero-size array to reduction operation max"),
    (lambda: gpuarray.subset_min(fake(0, np.int32), fake(4, np.float32)), ValueError, "zero-size"),
    (lambda: fake(3, np.float32).any(allocator=1, bogus=2), TypeError, "bogus"),
])
def test_bad_reduction_arguments_are_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_reduction_types_follow_numpy():
    for t in ALL_DTYPES:
        name = np.dtype(t).name
        assert _gpukit._reduction_type("sum", name) == np.ones(2, t).sum().dtype.name
        assert _gpukit._reduction_type("min", name) == name
        assert _gpukit._reduction_type("any", name) == "bool"
        for other in ALL_DTYPES:
            assert _gpukit._reduction_type("dot", name, np.dtype(other).name) == \
                np.dot(np.ones(2, t), np.ones(2, other)).dtype.name


# ---- GPU

gpu = pytest.mark.gpu


def random(shape, dtype, seed=0):
    """Values no sum or dot product of a few million overflows in its numpy type, whose
    float64 sums are exact enough: integers in [-100, 100] ([0, 200] unsigned), floats in
    [-2, 3), complex values with both parts so, bools half true."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low = 0 if dtype.kind == "u" else -100
        return rng.integers(max(info.min, low), min(info.max, low + 200), shape, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(-2, 3, shape) + 1j * rng.uniform(-2, 3, shape)).astype(dtype)
    return rng.uniform(-2, 3, shape).astype(dtype)


def expect(got, expected, exact_dtype=True):
    """A 0-d GPUArray against numpy's result: its dtype, and its value (exact for integers
    and bools; floating sums from the GPU accumulate in double, so they are closer to the
    float64 result than numpy's own)."""
    assert isinstance(got, gpuarray.GPUArray) and got.shape == ()
    expected = np.asarray(expected)
    if exact_dtype:
        assert got.dtype == expected.dtype
    value = got.get()
    if expected.dtype.kind in "fc":
        rtol = 1e-5 if expected.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(value, expected, rtol=rtol, atol=rtol)
    else:
        assert value == expected


def reference(host):
    """The float64 (complex128) version of floating data, for references without numpy's
    single-precision rounding."""
    return host.astype(np.complex128 if host.dtype.kind == "c" else np.float64) if host.dtype.kind in "fc" else host


SIZES = [0, 1, 1000, 1025, (1 << 20) + 3]


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_every_reduction_of_every_dtype(pool_ctx, dtype, n):
    host, other = random(n, dtype, 1), random(n + 1, dtype, 2)[1:]
    a, b = gpuarray.to_gpu(host), gpuarray.to_gpu(random(n + 1, dtype, 2))[1:]  # b is not 16-byte aligned
    ref, ref_other = reference(host), reference(other)
    expect(gpuarray.sum(a), np.sum(ref).astype(np.sum(host).dtype))
    expect(a.sum(), np.sum(ref).astype(np.sum(host).dtype))
    expect(gpuarray.dot(a, b), np.dot(ref, ref_other).astype(np.dot(host, other).dtype))
    expect(a.dot(b), np.dot(ref, ref_other).astype(np.dot(host, other).dtype))
    expect(gpuarray.any(a), np.any(host))
    expect(a.all(), np.all(host))
    if n:
        expect(gpuarray.min(a), np.min(host))
        expect(a.max(), np.max(host))
    else:
        for empty_extremum in (gpuarray.min, gpuarray.max):
            with pytest.raises(ValueError, match="zero-size"):
                empty_extremum(a)


@gpu
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128])
def test_more_than_one_grid(pool_ctx, dtype):
    n = (1 << 24) + 5  # more than every block of the device covers in one sweep, 16 int8 per load
    host = random(n, dtype, 3)
    a = gpuarray.to_gpu(host)
    expect(gpuarray.sum(a), np.sum(reference(host)).astype(np.sum(host).dtype))
    expect(gpuarray.max(a), np.max(host))
    expected_dot = np.dot(reference(host)[1:], reference(host)[:-1]).astype(np.dot(host[:2], host[:2]).dtype)
    expect(gpuarray.dot(a[1:], a[:-1]), expected_dot)


@gpu
@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64, np.complex64])
def test_strided_and_reversed_views(pool_ctx, dtype):
    host = random((37, 53), dtype, 4)
    other = random((53, 37), dtype, 5).T  # Fortran order
    a, b = gpuarray.to_gpu(host), gpuarray.to_gpu(np.ascontiguousarray(other.T)).T
    for view in (np.s_[::2, 1::3], np.s_[::-1, ::-1], np.s_[5], np.s_[:, 7], np.s_[::-3, 2:40:5]):
        h, g = host[view], a[view]
        expect(gpuarray.sum(g), np.sum(reference(h)).astype(np.sum(h).dtype))
        expect(gpuarray.min(g), np.min(h))
        expect(gpuarray.max(g), np.max(h))
        expect(gpuarray.any(g), np.any(h))
        expect(gpuarray.all(g), np.all(h))
        expect(gpuarray.dot(g, b[view]), np.sum(reference(h) * reference(other[view])).astype(h.dtype))
    flat = a.reshape(-1)
    expect(gpuarray.sum(flat[::-1]), np.sum(reference(host)).astype(np.sum(host).dtype))
    expect(gpuarray.sum(flat[::2]), np.sum(reference(host).reshape(-1)[::2]).astype(np.sum(host).dtype))
    expect(gpuarray.dot(a, b), np.sum(reference(host) * reference(other)).astype(host.dtype))  # C with F order
    expect(gpuarray.sum(b), np.sum(reference(other)).astype(np.sum(other).dtype))


@gpu
def test_complex_values(pool_ctx):
    x = np.array([1 + 2j, 1 + 1j, -3 + 5j, 1 - 4j], np.complex64)
    g = gpuarray.to_gpu(x)
    expect(gpuarray.sum(g), np.sum(x))
    expect(gpuarray.dot(g, g), np.dot(x, x))  # no conjugation
    expect(gpuarray.min(g), np.min(x))  # by real part, then imaginary part
    expect(gpuarray.max(g), np.max(x))
    with_nan = gpuarray.to_gpu(np.array([1 + 1j, complex(0, np.nan), 5j], np.complex128))
    assert np.isnan(gpuarray.min(with_nan).get()) and np.isnan(gpuarray.max(with_nan).get())
    expect(gpuarray.any(gpuarray.to_gpu(np.array([0, 1j], np.complex64))), True)
    expect(gpuarray.all(gpuarray.to_gpu(np.array([0, 1j], np.complex64))), False)


@gpu
def test_nan_and_empty_arrays(pool_ctx):
    for dtype in (np.float32, np.float64):
        for at in (0, 500, 1024):
            host = random(1025, dtype, 6)
            host[at] = np.nan
            g = gpuarray.to_gpu(host)
            assert np.isnan(gpuarray.min(g).get()) and np.isnan(gpuarray.max(g).get())
            assert np.isnan(gpuarray.sum(g).get())
            expect(gpuarray.any(g), True)
    empty = gpuarray.empty((0, 3), np.float32)
    expect(gpuarray.sum(empty), np.float32(0))
    expect(gpuarray.dot(empty, empty), np.float32(0))
    expect(gpuarray.any(empty), False)
    expect(gpuarray.all(empty), True)


@gpu
def test_dtype_argument(pool_ctx):
    host = random(1001, np.int8, 7)
    g = gpuarray.to_gpu(host)
    expect(gpuarray.sum(g, dtype=np.int8), np.sum(host, dtype=np.int8))  # wraps, as numpy
    expect(gpuarray.sum(g, dtype=np.float32), np.sum(host, dtype=np.float32))
    expect(g.sum(dtype=np.complex128), np.sum(host, dtype=np.complex128))
    f = gpuarray.to_gpu(random(1001, np.float64, 8))
    expect(gpuarray.sum(f, dtype=np.int64), np.sum(f.get().astype(np.int64)))  # each element truncated first
    expect(gpuarray.dot(g, g, dtype=np.float64), np.dot(host.astype(np.float64), host))


@gpu
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_subsets(pool_ctx, index_dtype):
    n = 100
    host, other = random(n, np.float64, 9), random(n, np.float64, 10)
    a, b = gpuarray.to_gpu(host), gpuarray.to_gpu(other)
    subset = np.array([5, 5, 99, 0, 42, 42, 42, 17] + list(range(n - 1, -1, -3)), index_dtype)  # repeats, reversed
    s = gpuarray.to_gpu(subset)
    expect(gpuarray.subset_sum(s, a), np.sum(host[subset]))
    expect(gpuarray.subset_min(s, a), np.min(host[subset]))
    expect(gpuarray.subset_max(s, a), np.max(host[subset]))
    expect(gpuarray.subset_dot(s, a, b), np.dot(host[subset], other[subset]))
    expect(gpuarray.subset_sum(s[::-2], a), np.sum(host[subset[::-2]]))  # a strided subset
    expect(gpuarray.subset_sum(s, a, dtype=np.float32), np.sum(host[subset]).astype(np.float32))
    expect(gpuarray.subset_sum(gpuarray.empty(0, index_dtype), a), np.float64(0))


@gpu
def test_subsets_wrap_and_gather_from_views(pool_ctx):
    host = random((10, 30), np.int32, 11)
    a = gpuarray.to_gpu(host)
    subset = np.array([-1, -300, 299, 300, 301, 7], np.int64)  # Python's modulo of the flat size
    wrapped = subset % host.size
    s = gpuarray.to_gpu(subset)
    expect(gpuarray.subset_sum(s, a), np.sum(host.ravel()[wrapped]))
    # A non-contiguous array is gathered from in C order, as numpy.take.
    view = a[:, ::-2]
    expect(gpuarray.subset_max(gpuarray.to_gpu(np.arange(view.size)), view), np.max(host[:, ::-2]))
    expect(gpuarray.subset_sum(gpuarray.to_gpu(np.array([3, 1], np.uint8)), view.T),
           np.take(host[:, ::-2].T, [3, 1]).sum())


@gpu
def test_pycudas_subset_minmax(pool_ctx):
    length, gran = 200000, 5
    for dtype in (np.float64, np.float32, np.int32):
        host = random(length, dtype, 12)
        a = gpuarray.to_gpu(host)
        meaningful = np.array([i for i in range(length) if i % gran], np.int32)
        expect(gpuarray.subset_min(gpuarray.to_gpu(meaningful), a), np.min(host[meaningful]))


@gpu
def test_allocator_and_stream(pool_ctx):
    pool = tools.DeviceMemoryPool()
    a = gpuarray.arange(1000, dtype=np.int32)
    assert gpuarray.sum(a).allocator is a.allocator
    result = gpuarray.sum(a, allocator=pool.allocate)
    assert result.allocator == pool.allocate and result.get() == 999 * 1000 // 2
    assert gpuarray.dot(a, a, allocator=pool.allocate).allocator == pool.allocate
    assert gpuarray.any(a, allocator=pool.allocate).allocator == pool.allocate
    stream = drv.Stream()
    queued = gpuarray.max(a, stream=stream)
    stream.synchronize()
    assert queued.get() == 999


@gpu
def test_fused_operands_are_computed_first(pool_ctx):
    x, y = random(4097, np.float32, 13), random(4097, np.float32, 14)
    gx, gy = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    expect(gpuarray.sum(2 * gx + gy), np.sum(2 * x.astype(np.float64) + y).astype(np.float32))
