"""Reductions: gpuarray's sum, min, max, dot, any, all and the subset forms, PyCUDA's
ReductionKernel and its get_*_kernel helpers. Without a GPU: every generated kernel compiles
for sm_90 and bad arguments are refused before the driver is touched. With a GPU: every
result against numpy, for every dtype, odd sizes, strided and reversed views, complex
values, subsets with repeated, reversed and negative indices, range=/slice=/out=, and
PyCUDA's own examples (sum of squares, dot, max of abs, a struct and a vector accumulator)."""

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import _gpukit, compiler, reduction, tools
from gpukit.reduction import ReductionKernel
from gpukit.tools import ScalarArg, VectorArg

REAL_DTYPES = [
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
ALL_DTYPES = REAL_DTYPES + [np.complex64, np.complex128]
INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
ADDRESS = 1 << 20  # a device address given as an integer: nothing is allocated

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC is not installed")


def fake(shape, dtype, strides=None):
    """A GPUArray over no memory (for checks made before anything runs)."""
    return gpuarray.GPUArray(shape, dtype, gpudata=ADDRESS, strides=strides)


def compiles(kernel):
    return compiler.compile(
        kernel.get_source(), arch="sm_90", no_extern_c=True, cache_dir=False, include_dirs=[compiler.DEVICE_INCLUDE_DIR]
    )


# PyCUDA's test_struct_reduce, its struct renamed (PyCUDA's register_dtype refuses a dtype
# registered twice, and PyCUDA's own test registers its struct's dtype).
MINMAX_PAIR = """
struct minmax_pair {
    float lo;
    float hi;
    __device__ minmax_pair() { }
    __device__ minmax_pair(float cmin, float cmax) : lo(cmin), hi(cmax) { }
    __device__ minmax_pair(minmax_pair const &src) : lo(src.lo), hi(src.hi) { }
    __device__ minmax_pair(minmax_pair const volatile &src) : lo(src.lo), hi(src.hi) { }
    __device__ minmax_pair volatile &operator=(minmax_pair const &src) volatile {
        lo = src.lo;
        hi = src.hi;
        return *this;
    }
};
__device__ minmax_pair agg_mmp(minmax_pair a, minmax_pair b) {
    return minmax_pair(fminf(a.lo, b.lo), fmaxf(a.hi, b.hi));
}
"""
MINMAX_PAIR_DTYPE = np.dtype([("lo", np.float32), ("hi", np.float32)])


def summing(dtype, map_expr, arguments):
    """A ReductionKernel adding up map_expr from 0, as most of PyCUDA's examples do."""
    return ReductionKernel(dtype, neutral="0", reduce_expr="a+b", map_expr=map_expr, arguments=arguments)


def sum_of_squares():
    return summing(np.float32, "x[i]*x[i]", "float *x")


def docs_dot():
    return summing(np.float32, "x[i]*y[i]", "float *x, float *y")


def max_of_abs():
    return ReductionKernel(
        np.float32, neutral="0", reduce_expr="fmaxf(a,b)", map_expr="fabsf(x[i])", arguments="const float *x"
    )


def struct_minmax():
    dtype = tools.get_or_register_dtype("minmax_pair", MINMAX_PAIR_DTYPE)
    return ReductionKernel(
        dtype,
        neutral="minmax_pair(10000, -10000)",
        reduce_expr="agg_mmp(a, b)",
        map_expr="minmax_pair(x[i], x[i])",
        arguments="float *x",
        preamble=MINMAX_PAIR,
    )


def vector_sum():
    return ReductionKernel(
        gpuarray.vec.float3,
        neutral="make_float3(0, 0, 0)",
        reduce_expr="make_float3(a.x + b.x, a.y + b.y, a.z + b.z)",
        map_expr="make_float3(x[i], x[i] * x[i], w * i)",
        arguments="const float *x, float w",
    )


def complex_sum():
    return summing(np.complex64, "z[i] * scale", "const pycuda::complex<float> *z, float scale")


def reversed_sum():
    # `n` is the number of indices reduced, as in PyCUDA's kernels.
    return summing(np.float64, "(i + 1) * x[n - 1 - i]", "const double *x")


USER_KERNELS = [sum_of_squares, docs_dot, max_of_abs, struct_minmax, vector_sum, complex_sum, reversed_sum]


# ---- without a GPU: sources and checks


@needs_nvrtc
@pytest.mark.parametrize("make", USER_KERNELS)
def test_user_kernels_compile(make):
    assert compiles(make())


@needs_nvrtc
def test_pycudas_helper_kernels_compile():
    kernels = [
        reduction.get_sum_kernel(None, np.float32),
        reduction.get_sum_kernel(np.float64, np.int8),
        reduction.get_subset_sum_kernel(np.float32, np.int32, np.float32),
        reduction.get_dot_kernel(np.float32, np.float32, np.float32),
        reduction.get_dot_kernel(np.complex64, np.complex64, np.complex64),
        reduction.get_subset_dot_kernel(np.float64, np.uint32, np.float64, np.float32),
        reduction.get_any_kernel(np.bool_, np.float32),
        reduction.get_all_kernel(np.bool_, np.int16),
    ]
    for what in ("min", "max"):
        for dtype in (np.float32, np.float64, np.int32, np.uint8, np.int64):
            kernels.append(reduction.get_minmax_kernel(what, np.dtype(dtype)))
            kernels.append(reduction.get_subset_minmax_kernel(what, np.dtype(dtype), np.dtype(np.int32)))
    for kernel in kernels:
        assert compiles(kernel)


@needs_nvrtc
@pytest.mark.parametrize("make", USER_KERNELS)
def test_pycudas_two_passes_compile(make):
    # pycbc drives stage1_func/stage2_func itself; they are PyCUDA's two passes.
    kernel = make()
    two_pass = kernel._two_pass
    for stage in (1, 2):
        compiler.compile(two_pass.source(stage), arch="sm_90", code="sm_90", no_extern_c=True, cache_dir=False)
    types = [a.struct_char for a in kernel.arguments]
    assert kernel.stage1_arg_types == types and kernel.stage2_arg_types == ["P", *types]
    assert kernel.block_size == 512


def test_helpers_build_kernels_as_pycuda_does():
    k = reduction.get_sum_kernel(None, np.int8)
    assert k.dtype_out == np.int8 and k is reduction.get_sum_kernel(None, np.int8)  # made once
    assert [a.name for a in k.arguments] == ["in"]
    assert reduction.get_dot_kernel(np.float64, np.float32).dtype_out == np.float64
    dot = reduction.get_dot_kernel(None, np.float32)
    assert dot.dtype_out == np.float32 and [a.dtype for a in dot.arguments] == [np.float32, np.float32]
    subset = reduction.get_subset_minmax_kernel("min", np.float32, np.uint32)
    assert [(a.name, a.dtype) for a in subset.arguments] == [("lookup_tbl", np.uint32), ("in", np.float32)]
    assert reduction.get_minmax_neutral("min", np.float32) == "MY_INFINITY"
    assert reduction.get_minmax_neutral("max", np.int16) == "-32768"
    assert reduction.get_any_kernel(np.bool_, np.int32).dtype_out == np.bool_
    with pytest.raises(ValueError):
        reduction.get_minmax_neutral("median", np.float32)
    with pytest.raises(TypeError):
        reduction.get_minmax_kernel("min", np.complex64)


def test_defaults_are_pycudas():
    k = ReductionKernel(np.float64, "0", "a+b")
    assert [(a.name, a.dtype) for a in k.arguments] == [("in", np.float64)]
    assert "const double *in" in k.get_source() and "return (in[i]);" in k.get_source()
    assert "reduce_kernel_stage1(" in k.get_source() and "reduce_kernel_stage2(" in k.get_source()
    named = ReductionKernel(
        np.float32, 0, "a+b", "x[i]", [VectorArg(np.float32, "x"), ScalarArg(np.int32, "k")], name="mine"
    )
    assert "mine_stage1(float *x, int k, " in named.get_source()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: ReductionKernel(np.float32, "0", "a+b", "s", "float s"), "array"),
        (lambda: ReductionKernel(np.float32, "0", "a+b", "x[i]", "float *x, float *x"), "twice"),
        (lambda: ReductionKernel(np.float32, "0", "a+b", "x[i]", "float *x, int i"), "i or starts with gk_"),
        (lambda: ReductionKernel(np.float32, "0", "a+b", "x[i]", "float *gk_x"), "gk_"),
        (lambda: ReductionKernel(np.float32, "0", "a+b", "x[i]", "float *x", name="two words"), "identifier"),
        (lambda: ReductionKernel(np.float32, "", "a+b", "x[i]", "float *x"), "must not be empty"),
        (
            lambda: ReductionKernel(np.dtype([("p", np.int8), ("q", np.int64)]), "0", "a+b", "x[i]", "float *x"),
            "register",
        ),
        (lambda: ReductionKernel(np.float32, "0", "a+b", "x[i]", "quux *x"), "unknown C type"),
    ],
)
def test_bad_kernels_are_refused(make, message):
    with pytest.raises((ValueError, drv.LogicError), match=message):
        make()


# Each went into the C source as text (str(None) is "None") or failed in Python's own
# machinery before issue 29: refused where the kernel is made, naming the argument.
@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: ReductionKernel(np.float32, None, "a+b"), TypeError, "neutral must be a C expression .* got NoneType"),
        (lambda: ReductionKernel(np.float32, [], "a+b"), TypeError, "neutral must be a C expression .* got list"),
        (lambda: ReductionKernel(np.float32, float("nan"), "a+b"), ValueError, "neutral nan has no C spelling"),
        (lambda: ReductionKernel(np.float64, -np.inf, "a+b"), ValueError, "neutral -inf has no C spelling"),
        (lambda: ReductionKernel(np.float32, 1e300, "a+b"), ValueError, "neutral 1e.300 does not fit .* float32"),
        (lambda: ReductionKernel(np.int32, 2**31, "a+b"), ValueError, "neutral 2147483648 does not fit .* int32"),
        (lambda: ReductionKernel(np.uint8, -1, "a+b"), ValueError, "neutral -1 does not fit .* uint8"),
        (lambda: ReductionKernel(np.int32, 1.5, "a+b"), ValueError, "neutral 1.5 is not an integer"),
        (lambda: ReductionKernel(np.int32, True, "a+b"), TypeError, "neutral True is a bool"),
        (lambda: ReductionKernel(np.complex64, 1j, "a+b"), TypeError, "neutral must be a C expression .* got complex"),
        (lambda: ReductionKernel(tools.get_or_register_dtype("float3"), 0, "a+b"), TypeError, "a number is no value"),
        (lambda: ReductionKernel(np.float32, " ", "a+b"), drv.LogicError, "must not be empty"),
        (lambda: ReductionKernel(None, "0", "a+b"), TypeError, "dtype_out: expected a numpy dtype, got None"),
        (lambda: ReductionKernel("quux", "0", "a+b"), TypeError, "dtype_out: expected a numpy dtype"),
        (lambda: ReductionKernel(np.float32, "0", "a+b", "x[i]", None), TypeError, None),  # None: the default
        (lambda: ReductionKernel(np.float32, "0", "a+b", "x[i]", 5), TypeError, "arguments must be a C declaration"),
        (
            lambda: ReductionKernel(np.float32, "0", "a+b", "x[i]", "float *x, float if"),
            ValueError,
            "argument name 'if' is a keyword of C",
        ),
        (
            lambda: ReductionKernel(np.float32, "0", "a+b", options="-O3"),
            TypeError,
            "options must be a list of str, got str '-O3'",
        ),
        (lambda: ReductionKernel(np.float32, "0", "a+b", include_dirs="/usr"), TypeError, "include_dirs"),
        (lambda: ReductionKernel(np.float32, "0", "a+b", options=["-DX\0"]), ValueError, "compile option"),
        (lambda: ReductionKernel(np.float32, "0\0 + 1", "a+b"), ValueError, "NUL character"),
        (lambda: reduction.get_sum_kernel("quux", np.float32), TypeError, "dtype_out: expected a numpy dtype"),
        (lambda: reduction.get_sum_kernel(None, None), TypeError, "dtype_in: expected a numpy dtype, got None"),
        (lambda: reduction.get_dot_kernel(np.float32, "quux"), TypeError, "dtype_a: expected a numpy dtype"),
        (lambda: reduction.get_minmax_kernel([1], np.float32), ValueError, "what must be 'min' or 'max'"),
        (lambda: reduction.get_subset_minmax_kernel("max", np.float32, None), TypeError, "dtype_subset"),
    ],
)
def test_mistakes_are_refused_when_the_kernel_is_made(make, error, message):
    if message is None:  # arguments=None is the default: accepted
        assert "const float *in" in make().get_source()
        return
    with pytest.raises(error, match=message):
        make()


@pytest.mark.parametrize(
    "dtype, neutral, text",
    [
        (np.int32, 0, "0"),
        (np.int32, -7, "-7"),
        (np.int64, np.int64(2**40), "1099511627776"),
        (np.uint8, 255, "255"),
        (np.int32, 3.0, "3"),
        (np.float32, 0, "0.0"),
        (np.float64, 1.5, "1.5"),
        (np.float32, np.float32(0.25), "0.25"),
        (np.float64, 2**70, "1.1805916207174113e+21"),
        (np.complex64, 1, "1.0"),
        (np.bool_, True, "true"),
        (np.bool_, 0, "0"),
        (np.float32, "-MY_INF", "-MY_INF"),
    ],
)
def test_a_number_is_spelled_in_c_for_the_output_dtype(dtype, neutral, text):
    # Python spellings such as 2**70 (too big for C's integer constants) are written as C reads them.
    kernel = ReductionKernel(dtype, neutral, "a+b", preamble="#define MY_INF (1./0)")
    assert kernel._two_pass.neutral == text
    assert f"({text})" in kernel.get_source()


def test_unknown_keywords_are_a_type_error():
    with pytest.raises(TypeError):
        ReductionKernel(np.float32, "0", "a+b", bogus=1)
    with pytest.raises(TypeError):
        sum_of_squares()(fake(4, np.float32), bogus=1)
    with pytest.raises(TypeError):
        gpuarray.sum(fake(4, np.float32), bogus=1)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda k, x: k(), TypeError, r"takes 2 arguments \(x, y\), got 0"),
        (lambda k, x: k(x, x, x), TypeError, "takes 2 arguments"),
        (lambda k, x: k(x, np.zeros(4, np.float32)), TypeError, "__cuda_array_interface__"),
        (lambda k, x: k(x, 3.0), TypeError, "GPUArray"),
        (lambda k, x: k(x, fake(4, np.float64)), TypeError, "would not be element j"),
        (lambda k, x: k(x, x, range=slice(4), slice=slice(4)), TypeError, "both range and slice"),
        (lambda k, x: k(x, x, range=(0, 4)), TypeError, "slice object"),
        (lambda k, x: k(x, x, slice=4), TypeError, "slice object"),
        (lambda k, x: k(x, x, range=slice(0, 4, 0)), ValueError, "step must not be zero"),
        (lambda k, x: k(x, x, slice=slice(0, 4, 0)), ValueError, "cannot be zero"),
        (lambda k, x: k(x, x, range=slice(2, None)), TypeError, "needs a stop"),
        (lambda k, x: k(x, x, range=slice(0.5, 4)), TypeError, "range.start"),
        (lambda k, x: k(x, x, out=np.zeros((), np.float32)), TypeError, "out= must be a GPUArray"),
        (lambda k, x: k(x, x, out=fake((), np.float64)), ValueError, "one element of dtype float32"),
        (lambda k, x: k(x, x, out=fake(2, np.float32)), ValueError, "one element"),
        (lambda k, x: k(x, x, stream=7), TypeError, "stream must be"),
    ],
)
def test_bad_calls_are_refused_before_anything_runs(call, error, message):
    with pytest.raises(error, match=message):
        call(docs_dot(), fake(4, np.float32))


def test_scalars_convert_as_elementwise_kernels_do():
    k = ReductionKernel(np.float32, "0", "a+b", "x[i] * s + k", "float *x, float s, unsigned char k")
    x = fake(4, np.float32)
    with pytest.raises(TypeError, match="real number"):
        k(x, "2", 1)
    with pytest.raises(TypeError, match="integer"):
        k(x, 2.0, 1.5)
    with pytest.raises(OverflowError):
        k(x, 2.0, 256)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: gpuarray.sum(np.zeros(3)), TypeError, "must be a GPUArray"),
        (lambda: gpuarray.dot(fake(3, np.float32), fake(4, np.float32)), ValueError, "shapes"),
        (lambda: gpuarray.subset_sum(fake(3, np.float32), fake(4, np.float32)), TypeError, "integers"),
        (
            lambda: gpuarray.subset_dot(fake(3, np.int32), fake(4, np.float32), fake(5, np.float32)),
            ValueError,
            "shapes",
        ),
        (lambda: gpuarray.subset_sum(fake(3, np.int32), fake(0, np.float32)), IndexError, "empty"),
        (lambda: gpuarray.sum(fake(3, np.float16)), TypeError, "no GPU kernels"),
        (lambda: gpuarray.sum(fake(3, np.float32), dtype=np.float16), TypeError, "no GPU kernels"),
        (lambda: gpuarray.min(fake(0, np.float32)), ValueError, "zero-size array to reduction operation min"),
        (lambda: gpuarray.max(fake((3, 0), np.int8)), ValueError, "zero-size array to reduction operation max"),
        (lambda: gpuarray.subset_min(fake(0, np.int32), fake(4, np.float32)), ValueError, "zero-size"),
        (lambda: fake(3, np.float32).any(allocator=1, bogus=2), TypeError, "bogus"),
    ],
)
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
            assert (
                _gpukit._reduction_type("dot", name, np.dtype(other).name)
                == np.dot(np.ones(2, t), np.ones(2, other)).dtype.name
            )


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
    expect(
        gpuarray.subset_sum(gpuarray.to_gpu(np.array([3, 1], np.uint8)), view.T), np.take(host[:, ::-2].T, [3, 1]).sum()
    )


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
    allocate = pool.allocate  # nanobind's bound methods compare by identity: keep one
    a = gpuarray.arange(1000, dtype=np.int32)
    assert gpuarray.sum(a).allocator is a.allocator
    result = gpuarray.sum(a, allocator=allocate)
    assert result.allocator is allocate and result.get() == 999 * 1000 // 2
    assert gpuarray.dot(a, a, allocator=allocate).allocator is allocate
    assert gpuarray.any(a, allocator=allocate).allocator is allocate
    stream = drv.Stream()
    queued = gpuarray.max(a, stream=stream)
    stream.synchronize()
    assert queued.get() == 999


@gpu
def test_fused_operands_are_computed_first(pool_ctx):
    x, y = random(4097, np.float32, 13), random(4097, np.float32, 14)
    gx, gy = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    expect(gpuarray.sum(2 * gx + gy), np.sum(2 * x.astype(np.float64) + y).astype(np.float32))


# ---- GPU: ReductionKernel


@gpu
@pytest.mark.parametrize("n", SIZES + [(1 << 22) + 1])
def test_sum_of_squares_and_dot(pool_ctx, n):
    x, y = random(n, np.float32, 15), random(n, np.float32, 16)
    gx, gy = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    expect(sum_of_squares()(gx), np.float32(np.sum(x.astype(np.float64) ** 2)))
    expect(docs_dot()(gx, gy), np.float32(np.dot(x.astype(np.float64), y)))
    if n:
        expect(max_of_abs()(gx), np.max(np.abs(x)))


@gpu
def test_pycudas_documentation_example(pool_ctx):
    a = gpuarray.arange(400, dtype=np.float32)
    b = gpuarray.arange(400, dtype=np.float32)
    np.testing.assert_allclose(docs_dot()(a, b).get(), np.dot(np.arange(400.0), np.arange(400.0)), rtol=1e-6)


@gpu
def test_struct_accumulator(pool_ctx):
    host = random(20000, np.float32, 17)
    result = struct_minmax()(gpuarray.to_gpu(host)).get()
    assert result.dtype == MINMAX_PAIR_DTYPE
    assert result["lo"] == np.min(host) and result["hi"] == np.max(host)


@gpu
def test_vector_accumulator_and_scalar(pool_ctx):
    host = random(1025, np.float32, 18)
    result = vector_sum()(gpuarray.to_gpu(host), np.float32(0.5)).get()
    assert result.dtype == gpuarray.vec.float3
    np.testing.assert_allclose(
        [result["x"], result["y"], result["z"]],
        [host.sum(dtype=np.float64), (host.astype(np.float64) ** 2).sum(), 0.5 * np.arange(1025).sum()],
        rtol=1e-4,
    )


@gpu
def test_complex_accumulator(pool_ctx):
    host = random(3001, np.complex64, 19)
    expect(complex_sum()(gpuarray.to_gpu(host), 2.0), np.complex64(2 * np.sum(host.astype(np.complex128))))


@gpu
def test_range_and_slice(pool_ctx):
    host = random(1000, np.float64, 20)
    g = gpuarray.to_gpu(host)
    k = ReductionKernel(np.float64, "0", "a+b", "x[i]", "const double *x")
    for window in (slice(3, 700, 7), slice(999, 0, -4), slice(10, 11), slice(20, 10), slice(0, 1000)):
        expect(k(g, range=window), np.sum(host[window]))
        expect(k(g, slice=window), np.sum(host[window]))
    for window in (slice(None), slice(-10, None), slice(None, None, -1), slice(-1, -1000, -3), slice(5, 10**9)):
        expect(k(g, slice=window), np.sum(host[window]))
    expect(k(g, range=slice(5)), np.sum(host[:5]))  # start 0 and step 1 by default
    expect(reversed_sum()(g), np.sum(np.arange(1, 1001) * host[::-1]))


@gpu
def test_out_allocator_and_stream(pool_ctx):
    host = random((10, 200), np.float32, 21)
    a = gpuarray.to_gpu(host)
    red = ReductionKernel(np.float32, neutral=0, reduce_expr="max(a,b)", arguments="float *in")
    maxima = gpuarray.empty(10, dtype=np.float32)
    for i in range(10):
        row_max = maxima[i]
        assert red(a[i], out=row_max) is row_max
    np.testing.assert_array_equal(maxima.get(), host.max(axis=1))  # PyCUDA's test_reduce_out
    pool = tools.DeviceMemoryPool()
    allocate = pool.allocate  # nanobind's bound methods compare by identity: keep one
    assert red(a, allocator=allocate).allocator is allocate
    by_kernel = ReductionKernel(np.float32, 0, "a+b", arguments="float *in", allocator=allocate)
    assert by_kernel(a).allocator is allocate
    stream = drv.Stream()
    queued = red(a, stream=stream)
    stream.synchronize()
    assert queued.get() == host.max()


@gpu
def test_non_contiguous_and_foreign_arrays(pool_ctx):
    host = random((40, 30), np.float32, 22)
    a = gpuarray.to_gpu(host)
    k = sum_of_squares()
    expect(k(a[::2, ::-3]), np.float32(np.sum(host[::2, ::-3].astype(np.float64) ** 2)))  # read through a copy
    expect(k(a.T), np.float32(np.sum(host.astype(np.float64) ** 2)))  # Fortran order: memory order

    class Exported:
        __cuda_array_interface__ = a.__cuda_array_interface__

    expect(k(Exported()), np.float32(np.sum(host.astype(np.float64) ** 2)))


@gpu
def test_pycudas_helpers_compute_as_pycuda(pool_ctx):
    host = random(5001, np.int32, 23)
    g = gpuarray.to_gpu(host)
    expect(reduction.get_sum_kernel(None, np.int32)(g), np.sum(host, dtype=np.int32))
    expect(reduction.get_sum_kernel(np.float64, np.int32)(g), np.sum(host, dtype=np.float64))
    expect(reduction.get_dot_kernel(np.int64, np.int32, np.int32)(g, g), np.dot(host.astype(np.int64), host))
    expect(reduction.get_minmax_kernel("min", np.dtype(np.int32))(g), np.min(host))
    expect(reduction.get_minmax_kernel("max", np.dtype(np.int32))(g), np.max(host))
    subset = np.array([4, 4, 0, 5000, 17], np.uint32)
    gs = gpuarray.to_gpu(subset)
    expect(reduction.get_subset_sum_kernel(None, np.uint32, np.int32)(gs, g), np.sum(host[subset], dtype=np.int32))
    expect(
        reduction.get_subset_minmax_kernel("max", np.dtype(np.int32), np.dtype(np.uint32))(gs, g), np.max(host[subset])
    )
    expect(
        reduction.get_subset_dot_kernel(np.int64, np.uint32, np.int32, np.int32)(gs, g, g),
        np.dot(host[subset].astype(np.int64), host[subset]),
    )
    f = gpuarray.to_gpu(random(999, np.float32, 24))
    expect(reduction.get_minmax_kernel("max", np.dtype(np.float32))(f), np.max(f.get()))
    expect(reduction.get_any_kernel(np.bool_, np.float32)(f), np.any(f.get()))
    expect(reduction.get_all_kernel(np.bool_, np.float32)(f), np.all(f.get()))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 1000, 512 * 4 * 1024 + 17])
def test_a_subclass_driving_pycudas_two_passes(pool_ctx, n):
    # pycbc's LowerLatencyReductionKernel: its own block counts, stage1_func then stage2_func.
    class LowerLatency(ReductionKernel):
        def __init__(self):
            ReductionKernel.__init__(
                self, np.float64, "0", "a+b", "x[i]*x[i]", "const float *x", "sumsq", False, None, ""
            )
            self.shared_size = self.block_size * self.dtype_out.itemsize

        def __call__(self, x):
            seq_count, blocks = 4, min(1024, (x.size + self.block_size * 4 - 1) // (self.block_size * 4))
            seq_count = (x.size + blocks * self.block_size - 1) // (blocks * self.block_size)
            partial = gpuarray.empty((blocks,), self.dtype_out)
            self.stage1_func(
                (blocks, 1),
                (self.block_size, 1, 1),
                None,
                partial.gpudata,
                x.gpudata,
                np.uint32(seq_count),
                np.uintp(x.size),
                shared_size=self.shared_size,
            )
            result = gpuarray.empty((), self.dtype_out)
            self.stage2_func(
                (1, 1),
                (self.block_size, 1, 1),
                None,
                result.gpudata,
                partial.gpudata,
                x.gpudata,
                np.uint32((blocks + self.block_size - 1) // self.block_size),
                np.uintp(blocks),
                shared_size=self.shared_size,
            )
            return result

    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    # x[i]*x[i] is a float product (rounded to float32) that the kernel adds up in double.
    np.testing.assert_allclose(LowerLatency()(gpuarray.to_gpu(x)).get(), np.sum((x * x).astype(np.float64)), rtol=1e-12)
