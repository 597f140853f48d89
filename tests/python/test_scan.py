"""InclusiveScanKernel and ExclusiveScanKernel (PyCUDA's pycuda.scan) against numpy's
cumulative functions and explicit loops: sums, maxima and products of every numeric dtype,
non-commutative operators on vector and struct types (affine maps, 2x2 matrices), sizes from
0 to past one grid, in place, out of place, into new arrays, strided, reversed and misaligned
views; and what bad arguments get. The construction and argument checks need no GPU; the
generated kernels are compiled for sm_90 here too."""

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import compiler, tools
from gpukit._array import c_types as _c_types
from gpukit.scan import ExclusiveScanKernel, InclusiveScanKernel

KINDS = [InclusiveScanKernel, ExclusiveScanKernel]
SIZES = [0, 1, 31, 1000, 1025, 2**20 + 3]
NUMERIC = [np.int32, np.int64, np.uint32, np.float32, np.float64]

# A 2x2 matrix of uint32 (products wrap, as numpy's uint32 does): its product is associative
# and not commutative. Registered by the fixture `mat2` for the tests that use it.
MAT2 = np.dtype([(f, np.uint32) for f in "abcd"])
MAT2_PREAMBLE = """
struct scan_test_mat2 { unsigned a, b, c, d; };
__device__ scan_test_mat2 mat_mul(scan_test_mat2 p, scan_test_mat2 q) {
    return {p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d, p.c * q.a + p.d * q.c, p.c * q.b + p.d * q.d};
}
"""
# (x, y) as the affine map t -> x * t + y; "a then b" is the map b(a(t)): not commutative.
AFFINE_PREAMBLE = """
__device__ float2 then(float2 a, float2 b) { return make_float2(a.x * b.x, b.x * a.y + b.y); }
"""


@pytest.fixture
def mat2(monkeypatch):
    """MAT2 registered as scan_test_mat2 for the test, in a copy of the registry that is
    dropped after it (other tests list the registered names)."""
    monkeypatch.setattr(_c_types.CUDA_TYPES, "_name_to_dtype", dict(_c_types.CUDA_TYPES._name_to_dtype))
    monkeypatch.setattr(_c_types.CUDA_TYPES, "_dtype_to_name", dict(_c_types.CUDA_TYPES._dtype_to_name))
    return tools.get_or_register_dtype("scan_test_mat2", MAT2)


def reference(kind, host, accumulate, neutral):
    """numpy's inclusive scan `accumulate(host)`, shifted right by one with `neutral` first
    for an exclusive scan."""
    inclusive = accumulate(host)
    if kind is InclusiveScanKernel or host.size == 0:
        return inclusive
    return np.concatenate([np.array([neutral], host.dtype), inclusive[:-1]])


def cumsum(host):
    return np.cumsum(host, dtype=host.dtype)  # wrapping, as C does for integers


def random_values(dtype, n, rng):
    """Small integers (every partial sum is exact, whatever the order of the additions)."""
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, 10, n).astype(dtype)
    return rng.integers(-9, 10, n).astype(dtype)


# ---- without a GPU: construction, sources, argument checks


def test_signatures_are_pycudas():
    import inspect

    def names_and_defaults(cls):  # without the annotations, which PyCUDA does not have
        return [(p.name, p.default) for p in inspect.signature(cls).parameters.values()]

    no_default = inspect.Parameter.empty
    assert names_and_defaults(InclusiveScanKernel) == [
        ("dtype", no_default),
        ("scan_expr", no_default),
        ("neutral", None),
        ("name_prefix", "scan"),
        ("options", None),
        ("preamble", ""),
        ("devices", None),
    ]
    assert names_and_defaults(ExclusiveScanKernel) == [
        ("dtype", no_default),
        ("scan_expr", no_default),
        ("neutral", no_default),
        ("name_prefix", "scan"),
        ("options", None),
        ("preamble", ""),
        ("devices", None),
    ]
    call = InclusiveScanKernel(np.int32, "a+b").__call__
    assert "input_ary" in call.__doc__ and "queue" in call.__doc__


def test_a_kernel_knows_its_dtype_and_source():
    knl = ExclusiveScanKernel(np.float64, "a+b", "0", name_prefix="running_total", preamble="// mine")
    assert knl.dtype == np.float64
    source = knl.get_source()
    assert "typedef double scan_type;" in source and "// mine" in source and "running_total_tiles(" in source
    assert "GK_SCAN_VECTORIZED 0" in knl.get_source(vectorized=False)


@pytest.mark.compile_sweep
@pytest.mark.parametrize(
    "make",
    [
        lambda kind: kind(np.int32, "a+b", "0"),
        lambda kind: kind(np.uint8, "(a+b) & 0b11111111", "0"),
        lambda kind: kind(np.float64, "a > b ? a : b", "-INFINITY"),
        lambda kind: kind(np.complex64, "a*b", "1"),
        lambda kind: kind(gpuarray.vec.float2, "then(a, b)", "make_float2(1, 0)", preamble=AFFINE_PREAMBLE),
        lambda kind: kind(gpuarray.vec.float3, "make_float3(a.x+b.x, a.y+b.y, a.z+b.z)", "make_float3(0, 0, 0)"),
        lambda kind: kind(MAT2, "mat_mul(a, b)", "scan_test_mat2{1, 0, 0, 1}", preamble=MAT2_PREAMBLE),
    ],
)
@pytest.mark.parametrize("kind", KINDS)
def test_generated_kernels_compile_for_sm90(mat2, kind, make):
    knl = make(kind)
    for vectorized in (True, False):
        compiler.compile(knl.get_source(vectorized), arch="sm_90", no_extern_c=True, cache_dir=False)


def test_neutral_may_be_a_number():
    assert "return (0);" in ExclusiveScanKernel(np.int32, "a+b", 0).get_source()
    assert "return (1.5);" in ExclusiveScanKernel(np.float32, "a*b", 1.5).get_source()
    assert "return (-7);" in InclusiveScanKernel(np.int64, "a+b", np.int64(-7)).get_source()
    # Spelled for the dtype: a float's integer as a double literal, an integral float as an int.
    assert "return (1.1805916207174113e+21);" in ExclusiveScanKernel(np.float64, "a+b", 2**70).get_source()
    assert "return (4);" in ExclusiveScanKernel(np.uint8, "a+b", 4.0).get_source()


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: ExclusiveScanKernel(np.int32, "a+b"), TypeError, "neutral"),
        (lambda: ExclusiveScanKernel(np.int32, "a+b", None), ValueError, "neutral"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", bogus=1), TypeError, "bogus"),
        (lambda: InclusiveScanKernel(np.int32, 3), TypeError, "scan_expr"),
        (lambda: InclusiveScanKernel(np.int32, ""), drv.LogicError, "scan expression"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", ""), drv.LogicError, "neutral"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", [0]), TypeError, "neutral"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", True), TypeError, "neutral"),
        (lambda: InclusiveScanKernel(np.float32, "a+b", float("inf")), ValueError, "C spelling"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", name_prefix="my scan"), drv.LogicError, "identifier"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", name_prefix=None), TypeError, "name_prefix"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", preamble=None), TypeError, "preamble"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", options="-O3"), TypeError, "options"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", options=[3]), TypeError, "options"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", devices=[0]), TypeError, "Device"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", devices=[]), ValueError, "at least one"),
        (lambda: InclusiveScanKernel(np.dtype([("x", np.int8), ("y", np.float64)]), "a"), ValueError, "register"),
        (lambda: InclusiveScanKernel(object, "a+b"), ValueError, "C type"),
        # issue 29: numpy's isfinite error, a Python spelling C cannot read, iteration errors, NULs
        (
            lambda: ExclusiveScanKernel(np.int32, "a+b", 2**70),
            ValueError,
            "neutral 1180591620717411303424 does not fit",
        ),
        (lambda: ExclusiveScanKernel(np.int32, "a+b", 1.5), ValueError, "neutral 1.5 is not an integer"),
        (lambda: ExclusiveScanKernel(np.float32, "a+b", 1e300), ValueError, "does not fit the elements' dtype float32"),
        (lambda: ExclusiveScanKernel(np.float32, "a+b", float("nan")), ValueError, "C spelling"),
        (lambda: ExclusiveScanKernel(None, "a+b", 0), TypeError, "dtype: expected a numpy dtype, got None"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", " "), drv.LogicError, "neutral"),
        (lambda: InclusiveScanKernel(np.int32, " \n"), drv.LogicError, "scan expression"),
        (lambda: InclusiveScanKernel(np.int32, "a+b\0junk"), ValueError, "scan_expr"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", preamble="//\0"), ValueError, "preamble"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", options=["-DX=1\0junk"]), ValueError, "compile option"),
        (lambda: InclusiveScanKernel(np.int32, "a+b", devices=5), TypeError, "devices must be a list"),
    ],
)
def test_bad_construction_is_refused(call, error, match):
    with pytest.raises(error, match=match):
        call()


def fake_array(shape, dtype, address=0x10000):
    """A GPUArray over an address nothing reads: for checks made before any launch."""
    return gpuarray.GPUArray(shape, dtype, gpudata=address)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda k, a: k(np.zeros(10, np.int32)), TypeError, "input_ary must be a GPUArray"),
        (lambda k, a: k(fake_array(10, np.int64)), TypeError, "dtype int64, but the kernel scans int32"),
        (lambda k, a: k(a, fake_array(10, np.float32, 0x20000)), TypeError, "output_ary has dtype float32"),
        (lambda k, a: k(fake_array((2, 5), np.int32)), ValueError, r"one-dimensional, got shape \(2, 5\)"),
        (lambda k, a: k(a, fake_array(9, np.int32, 0x20000)), ValueError, r"same shape, got \(10,\) and \(9,\)"),
        (lambda k, a: k(a, "old"), ValueError, "new"),
        (lambda k, a: k(a, 3), TypeError, "output_ary must be a GPUArray"),
        (lambda k, a: k(a, allocator=3), TypeError, "allocator must be callable"),
        (lambda k, a: k(fake_array(10, np.int32, 0x10002)), drv.LogicError, "aligned"),
        (lambda k, a: k(a, queue=3), TypeError, "Stream"),
        (lambda k, a: k(a, stream=None), TypeError, "got an unexpected keyword argument .stream."),
    ],
)
def test_bad_calls_are_refused_before_anything_runs(call, error, match):
    with pytest.raises(error, match=match):
        call(InclusiveScanKernel(np.int32, "a+b"), fake_array(10, np.int32))


def test_an_empty_array_is_returned_as_it_is():
    knl = ExclusiveScanKernel(np.int32, "a+b", "0")
    empty = fake_array(0, np.int32)
    assert knl(empty) is empty
    target = fake_array(0, np.int32, 0x20000)
    assert knl(empty, target) is target


# ---- on the GPU


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("kind", KINDS)
def test_sums_match_numpy_in_place_and_out_of_place(pool_ctx, kind, dtype, n):
    rng = np.random.default_rng(n)
    host = random_values(dtype, n, rng)
    expected = reference(kind, host, cumsum, 0)
    knl = kind(dtype, "a+b", "0")
    x = gpuarray.to_gpu(host)
    result = knl(x, "new")
    assert result is not x and result.dtype == dtype and result.shape == (n,)
    np.testing.assert_array_equal(result.get(), expected)
    np.testing.assert_array_equal(x.get(), host)  # untouched
    target = gpuarray.empty_like(x)
    assert knl(x, target) is target
    np.testing.assert_array_equal(target.get(), expected)
    assert knl(x) is x  # in place
    np.testing.assert_array_equal(x.get(), expected)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", KINDS)
def test_sums_of_random_reals_are_close_to_numpy(pool_ctx, kind, dtype):
    host = np.random.default_rng(5).random(2**20 + 3).astype(dtype)
    expected = reference(kind, host.astype(np.float64), np.cumsum, 0)
    result = kind(dtype, "a+b", "0")(gpuarray.to_gpu(host), "new").get()
    np.testing.assert_allclose(result, expected, rtol=1e-4 if dtype == np.float32 else 1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 1000, 1025, 2**20 + 3])
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("kind", KINDS)
def test_maxima_match_numpy(pool_ctx, kind, dtype, n):
    host = np.random.default_rng(n).permutation(n).astype(dtype)  # the maximum changes all the time
    lowest = np.iinfo(dtype).min if np.dtype(dtype).kind in "iu" else -np.inf
    neutral = f"({lowest})" if np.dtype(dtype).kind in "iu" else "-INFINITY"
    if np.dtype(dtype) == np.int64:
        neutral = "(-9223372036854775807LL - 1)"
    expected = reference(kind, host, np.maximum.accumulate, lowest)
    result = kind(dtype, "a > b ? a : b", neutral)(gpuarray.to_gpu(host), "new")
    np.testing.assert_array_equal(result.get(), expected)


@pytest.mark.gpu
@pytest.mark.parametrize("kind", KINDS)
def test_products_wrap_as_numpys(pool_ctx, kind):
    host = np.random.default_rng(9).choice(np.array([1, 3, 5, 7, 0xFFFFFFFF], np.uint32), 100003)
    expected = reference(kind, host, lambda h: np.multiply.accumulate(h, dtype=np.uint32), 1)
    result = kind(np.uint32, "a*b", "1")(gpuarray.to_gpu(host), "new")
    np.testing.assert_array_equal(result.get(), expected)


def affine_reference(kind, host):
    """(x, y) maps composed in order, in float64 (exact: x is +-1, y small integers)."""
    out = np.empty_like(host)
    scale, shift = 1.0, 0.0
    for i, (x, y) in enumerate(zip(host["x"].astype(np.float64), host["y"].astype(np.float64))):
        if kind is ExclusiveScanKernel:
            out[i] = (scale, shift)
        scale, shift = scale * x, x * shift + y
        if kind is InclusiveScanKernel:
            out[i] = (scale, shift)
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 31, 1025, 100003])
@pytest.mark.parametrize("kind", KINDS)
def test_affine_maps_on_a_vector_type_compose_in_order(pool_ctx, kind, n):
    rng = np.random.default_rng(n)
    host = np.empty(n, gpuarray.vec.float2)
    host["x"] = rng.choice([1.0, -1.0], n)
    host["y"] = rng.integers(-3, 4, n)
    knl = kind(gpuarray.vec.float2, "then(a, b)", "make_float2(1, 0)", preamble=AFFINE_PREAMBLE)
    result = knl(gpuarray.to_gpu(host), "new").get()
    expected = affine_reference(kind, host)
    np.testing.assert_array_equal(result["x"], expected["x"])
    np.testing.assert_array_equal(result["y"], expected["y"])


def mat2_reference(kind, host):
    """Products of 2x2 uint32 matrices in order, wrapping at 2**32 as C does."""
    mask = 0xFFFFFFFF
    out = np.empty_like(host)
    a, b, c, d = 1, 0, 0, 1
    for i, (p, q, r, s) in enumerate(host.tolist()):
        if kind is ExclusiveScanKernel:
            out[i] = (a, b, c, d)
        a, b, c, d = (a * p + b * r) & mask, (a * q + b * s) & mask, (c * p + d * r) & mask, (c * q + d * s) & mask
        if kind is InclusiveScanKernel:
            out[i] = (a, b, c, d)
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 1000, 1025, 100003])
@pytest.mark.parametrize("kind", KINDS)
def test_matrix_products_on_a_struct_type_combine_in_order(pool_ctx, mat2, kind, n):
    # Matrices of determinant +-1: their products never become 0 mod 2**32 (random ones soon
    # would, and every later output would be 0 whatever the order).
    unimodular = np.array([(1, 1, 0, 1), (1, 0, 1, 1), (0, 1, 1, 0)], MAT2)
    host = unimodular[np.random.default_rng(n).integers(0, 3, n)]
    knl = kind(MAT2, "mat_mul(a, b)", "scan_test_mat2{1, 0, 0, 1}", preamble=MAT2_PREAMBLE)
    x = gpuarray.to_gpu(host)
    knl(x)
    np.testing.assert_array_equal(x.get(), mat2_reference(kind, host))


@pytest.mark.gpu
@pytest.mark.parametrize("kind", KINDS)
def test_vector_and_complex_sums(pool_ctx, kind):
    rng = np.random.default_rng(4)
    n = 50001
    v = np.empty(n, gpuarray.vec.float3)
    for field in "xyz":
        v[field] = rng.integers(-5, 6, n)
    knl = kind(gpuarray.vec.float3, "make_float3(a.x+b.x, a.y+b.y, a.z+b.z)", "make_float3(0, 0, 0)")
    result = knl(gpuarray.to_gpu(v), "new").get()
    for field in "xyz":
        np.testing.assert_array_equal(result[field], reference(kind, v[field], cumsum, 0))
    z = (rng.integers(-5, 6, n) + 1j * rng.integers(-5, 6, n)).astype(np.complex64)
    result = kind(np.complex64, "a+b", "0")(gpuarray.to_gpu(z), "new").get()
    np.testing.assert_array_equal(result, reference(kind, z, cumsum, 0))


@pytest.mark.gpu
@pytest.mark.parametrize("kind", KINDS)
def test_strided_reversed_and_misaligned_views(pool_ctx, kind):
    host = random_values(np.int32, 300007, np.random.default_rng(2))
    knl = kind(np.int32, "a+b", "0")
    x = gpuarray.to_gpu(host)
    for view, host_view in ((x[::-1], host[::-1]), (x[::3], host[::3]), (x[1:], host[1:]), (x[-5::-7], host[-5::-7])):
        np.testing.assert_array_equal(knl(view, "new").get(), reference(kind, host_view, cumsum, 0))
    # Into a strided output, and in place in a reversed view.
    target = gpuarray.zeros(2 * host.size, np.int32)
    knl(x, target[::2])
    np.testing.assert_array_equal(target.get()[::2], reference(kind, host, cumsum, 0))
    np.testing.assert_array_equal(target.get()[1::2], 0)
    knl(x[::-1])
    np.testing.assert_array_equal(x.get()[::-1], reference(kind, host[::-1], cumsum, 0))


@pytest.mark.gpu
@pytest.mark.parametrize("kind", KINDS)
def test_an_output_overlapping_the_input_sees_the_input_as_it_was(pool_ctx, kind):
    host = random_values(np.int64, 100001, np.random.default_rng(6))
    x = gpuarray.to_gpu(host)
    knl = kind(np.int64, "a+b", "0")
    assert knl(x[:-1], x[1:]) is not None  # scan and shift by one
    np.testing.assert_array_equal(x.get()[1:], reference(kind, host[:-1], cumsum, 0))
    y = gpuarray.to_gpu(host)
    knl(y[::-1], y)
    np.testing.assert_array_equal(y.get(), reference(kind, host[::-1], cumsum, 0))
    z = gpuarray.to_gpu(host)
    knl(z[::2], z[: (host.size + 1) // 2])
    np.testing.assert_array_equal(z.get()[: (host.size + 1) // 2], reference(kind, host[::2], cumsum, 0))


@pytest.mark.gpu
def test_pycudas_own_scan_test(pool_ctx):
    # PyCUDA's test_gpuarray.py test_scan: the neutral element passed to both classes.
    for cls in KINDS:
        scan_kern = cls(np.int32, "a+b", "0")
        for n in [10, 2**10 - 5, 2**10, 2**20 - 2**18, 2**20 - 2**18 + 5, 2**10 + 5, 2**20 + 5, 2**20, 2**24]:
            host_data = np.random.randint(0, 10, n).astype(np.int32)
            gpu_data = gpuarray.to_gpu(host_data)
            scan_kern(gpu_data)
            desired_result = np.cumsum(host_data, axis=0)
            if cls is ExclusiveScanKernel:
                desired_result -= host_data
            assert (gpu_data.get() == desired_result).all()


@pytest.mark.gpu
@pytest.mark.parametrize("kind", KINDS)
def test_large_arrays(pool_ctx, kind):
    rng = np.random.default_rng(26)
    host = (rng.random(2**26 + 5) < 0.125).astype(np.float32)  # sums below 2**24: exact
    x = gpuarray.to_gpu(host)
    kind(np.float32, "a+b", "0")(x)
    np.testing.assert_array_equal(x.get(), reference(kind, host, cumsum, 0))
    ints = random_values(np.int32, 2**26 + 5, rng)
    y = gpuarray.to_gpu(ints)
    kind(np.int32, "a+b", "0")(y)
    np.testing.assert_array_equal(y.get(), reference(kind, ints, cumsum, 0))


@pytest.mark.gpu
def test_bytes_past_two_to_the_28(pool_ctx):
    # PyCUDA's big-array test at 2**28 + 7 elements (8193 tiles of 32768 bytes).
    n = 2**28 + 7
    x = gpuarray.zeros(n, np.uint8)
    x.fill(1)
    InclusiveScanKernel(np.uint8, "(a+b) & 0b11111111")(x)
    expected = np.tile(np.roll(np.arange(256, dtype=np.uint8), -1), n // 256 + 1)[:n]  # 1, 2, ..., 255, 0, 1, ...
    assert np.array_equal(x.get(), expected)


@pytest.mark.gpu
def test_new_output_comes_from_the_allocator(pool_ctx):
    calls = []

    def allocator(nbytes):
        calls.append(nbytes)
        return drv.mem_alloc(nbytes)

    x = gpuarray.to_gpu(np.arange(1000, dtype=np.int64))
    result = InclusiveScanKernel(np.int64, "a+b")(x, "new", allocator=allocator)
    assert calls == [8000] and result.allocator is allocator
    np.testing.assert_array_equal(result.get(), np.cumsum(np.arange(1000)))


@pytest.mark.gpu
def test_queue_is_the_stream_it_runs_on(pool_ctx):
    stream = drv.Stream()
    host = random_values(np.int32, 2**20 + 3, np.random.default_rng(8))
    x = gpuarray.to_gpu(host)
    knl = InclusiveScanKernel(np.int32, "a+b")
    for _ in range(3):  # alternate between streams: each scan waits for the one before
        knl(x, queue=stream)
        knl(x)
    stream.synchronize()
    drv.Context.synchronize()
    expected = host
    for _ in range(6):
        expected = cumsum(expected)
    np.testing.assert_array_equal(x.get(), expected)


@pytest.mark.gpu
def test_devices_limit_where_a_kernel_runs(pool_ctx):
    x = gpuarray.to_gpu(np.ones(100, np.int32))
    InclusiveScanKernel(np.int32, "a+b", devices=[drv.Device(0)])(x)
    np.testing.assert_array_equal(x.get(), np.arange(1, 101))
    if drv.Device.count() > 1:
        with pytest.raises(drv.LogicError, match="device 0"):
            InclusiveScanKernel(np.int32, "a+b", devices=[drv.Device(1)])(x)


@pytest.mark.gpu
def test_a_wrong_expression_is_a_compile_error_at_the_first_call(pool_ctx):
    knl = InclusiveScanKernel(np.int32, "a + no_such_thing")
    with pytest.raises(drv.CompileError):
        knl(gpuarray.to_gpu(np.ones(10, np.int32)))
