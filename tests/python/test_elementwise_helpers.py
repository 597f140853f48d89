"""PyCUDA's kernel helpers of pycuda.elementwise (gpukit/_array/elementwise_helpers.py): every
helper's kernel compiles for several dtypes (NVRTC, no GPU needed), bad arguments are refused
before anything is compiled, and each kernel, launched as PyCUDA's gpuarray launches it
(prepared_call on x._grid and x._block, n last), computes what numpy computes."""

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import compiler, elementwise
from gpukit._array import elementwise_helpers as _elementwise_helpers
from gpukit._array.elementwise_helpers import _kernel_source

f32, f64, i32, i64, u8, c64, c128 = np.float32, np.float64, np.int32, np.int64, np.uint8, np.complex64, np.complex128
SIZES = [1, 1001, 2**16 + 3]


def source_of(name, *args):
    return _kernel_source(getattr(elementwise, name).spec(*args))


# ---- without a GPU: every helper's kernel compiles, parameter lists, refused arguments

# (helper, arguments) for every helper, over the dtypes PyCUDA's helper takes.
COMPILE_CASES = [
    ("get_take_kernel", (f32, i32)),
    ("get_take_kernel", (c64, i64, 3)),
    ("get_take_kernel", (f64, u8, 2)),
    ("get_take_put_kernel", (f32, i32, False)),
    ("get_take_put_kernel", (c128, i64, True, 2)),
    ("get_take_put_kernel", (i32, i32, True)),
    ("get_put_kernel", (f64, i32)),
    ("get_put_kernel", (c64, i64, 2)),
    ("get_copy_kernel", (f32, f64)),
    ("get_copy_kernel", (c64, f32)),
    ("get_copy_kernel", (c128, c64)),
    ("get_copy_kernel", (i32, f32)),
    ("get_linear_combination_kernel", (((True, f32, f32), (False, f32, f32)), f32)),
    ("get_linear_combination_kernel", (((False, f64, f32), (True, f64, f64), (True, i32, f64)), f64)),
    ("get_linear_combination_kernel", (((True, c64, c64), (False, f32, c64)), c64)),
    ("get_axpbyz_kernel", (f32, f32, f32)),
    ("get_axpbyz_kernel", (f64, i32, f64, True, False)),
    ("get_axpbyz_kernel", (f32, c64, c64)),
    ("get_axpbyz_kernel", (c128, c128, c128, False, True)),
    ("get_axpbz_kernel", (f32, f32)),
    ("get_axpbz_kernel", (i32, f64)),
    ("get_axpbz_kernel", (c64, c64)),
    ("get_binary_op_kernel", (f32, f32, f32, "+")),
    ("get_binary_op_kernel", (f64, i32, f64, "/", True, False)),
    ("get_binary_op_kernel", (i32, i32, i32, "%")),
    ("get_binary_op_kernel", (f32, c64, c64, "*")),
    ("get_binary_op_kernel", (c128, c128, np.bool_, "==")),
    ("get_binary_op_kernel", (f32, f64, np.bool_, "<")),
    ("get_rdivide_elwise_kernel", (f32, f32)),
    ("get_rdivide_elwise_kernel", (i32, f64)),
    ("get_rdivide_elwise_kernel", (c64, c64)),
    ("get_binary_func_kernel", ("fmaxf", f32, f32, f32)),
    ("get_binary_func_kernel", ("atan2", f64, f64, f64)),
    ("get_binary_func_kernel", ("pycuda::pow", c64, c64, c64)),
    ("get_binary_func_scalar_kernel", ("fminf", f32, f32, f32)),
    ("get_binary_func_scalar_kernel", ("max", i32, i32, i32)),
    ("get_binary_minmax_kernel", ("max", f32, f32, f32, False)),
    ("get_binary_minmax_kernel", ("min", f64, f32, f64, True)),
    ("get_binary_minmax_kernel", ("min", f32, f64, f64, False)),
    ("get_binary_minmax_kernel", ("max", i32, i32, i32, False)),
    ("get_binary_minmax_kernel", ("min", u8, u8, u8, True)),
    ("get_binary_minmax_kernel", ("max", i64, f32, f32, False)),
    ("get_fill_kernel", (f32,)),
    ("get_fill_kernel", (i64,)),
    ("get_fill_kernel", (c128,)),
    ("get_fill_kernel", (gpuarray.vec.float3,)),
    ("get_reverse_kernel", (f32,)),
    ("get_reverse_kernel", (i32,)),
    ("get_reverse_kernel", (c64,)),
    ("get_real_kernel", (c64, f32)),
    ("get_real_kernel", (c128, f64)),
    ("get_imag_kernel", (c64, f32)),
    ("get_imag_kernel", (c128, f64)),
    ("get_conj_kernel", (c64, c64)),
    ("get_conj_kernel", (c128, c128)),
    ("get_arange_kernel", (f32,)),
    ("get_arange_kernel", (f64,)),
    ("get_arange_kernel", (i32,)),
    ("get_arange_kernel", (c64,)),
    ("get_pow_array_kernel", (f32, f32, f32, True, True)),
    ("get_pow_array_kernel", (f64, f64, f64, True, False)),
    ("get_pow_array_kernel", (f64, f32, f64, False, True)),
    ("get_pow_array_kernel", (i32, i32, i32, True, True)),
    ("get_pow_array_kernel", (i32, f32, f64, True, True)),
    ("get_pow_array_kernel", (c64, c64, c64, True, True)),
    ("get_pow_array_kernel", (f32, c64, c64, False, True)),
    ("get_pow_array_kernel", (c128, f64, c128, True, False)),
    ("get_pow_array_kernel", (u8, i32, u8, True, False)),
    ("get_pow_array_kernel", (i64, i64, i64, False, True)),
    ("get_fmod_kernel", ()),
    ("get_modf_kernel", ()),
    ("get_frexp_kernel", ()),
    ("get_ldexp_kernel", ()),
    ("get_unary_func_kernel", ("sqrt", f64)),
    ("get_unary_func_kernel", ("sinf", f32)),
    ("get_unary_func_kernel", ("pycuda::abs", c64, f32)),
    ("get_unary_func_kernel", ("exp", c128)),
    ("get_if_positive_kernel", (f32, f32)),
    ("get_if_positive_kernel", (i32, c64)),
    ("get_where_kernel", (np.bool_, f64)),
    ("get_where_kernel", (i64, c128)),
    ("get_scalar_op_kernel", (f32, f32, f32, "*")),
    ("get_scalar_op_kernel", (i32, i32, np.bool_, ">")),
    ("get_scalar_op_kernel", (c64, c64, c64, "-")),
    ("get_logical_not_kernel", (f32, np.bool_)),
    ("get_logical_not_kernel", (i32, i32)),
    ("get_logical_not_kernel", (c64, np.bool_)),
]


def test_the_compile_cases_cover_every_helper():
    assert {name for name, _ in COMPILE_CASES} == set(_elementwise_helpers.__all__)
    assert set(_elementwise_helpers.__all__) <= set(elementwise.__all__)


@pytest.mark.parametrize("name, args", COMPILE_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(COMPILE_CASES)])
def test_every_helper_kernel_compiles(name, args):
    compiler.compile(
        source_of(name, *args),
        arch="sm_90",
        no_extern_c=True,
        cache_dir=False,
        include_dirs=[compiler.DEVICE_INCLUDE_DIR],
    )


@pytest.mark.parametrize(
    "name, args, parameters",
    [
        # Texture references became const pointers (docs/arrays.md lists these).
        (
            "get_take_kernel",
            (f32, i32, 2),
            "int *idx, float *dest0, float *dest1, const float *src0, const float *src1, unsigned long n",
        ),
        (
            "get_take_put_kernel",
            (f64, i64, False),
            "long *gmem_dest_idx, long *gmem_src_idx, double *dest0, const double *src0, unsigned long n",
        ),
        (
            "get_take_put_kernel",
            (f32, i32, True, 2),
            "int *gmem_dest_idx, int *gmem_src_idx, float *dest0, float *dest1, const float *src0, const float *src1, "
            "int offset0, int offset1, unsigned long n",
        ),
        (
            "get_linear_combination_kernel",
            (((True, f32, f32), (False, f64, f32)), f32),
            "const float *gpu_a0, float *x0, double a1, float *x1, float *z, unsigned long n",
        ),
        # PyCUDA's own lists.
        (
            "get_put_kernel",
            (f32, i32, 2),
            "int *gmem_dest_idx, float *dest0, float *dest1, float *src0, float *src1, unsigned long n",
        ),
        ("get_axpbyz_kernel", (f32, f64, f64), "float a, float *x, double b, double *y, double *z, unsigned long n"),
        ("get_axpbz_kernel", (i32, f32), "float a, int *x, float b, float *z, unsigned long n"),
        ("get_rdivide_elwise_kernel", (f32, f64), "float *x, double y, double *z, unsigned long n"),
        ("get_arange_kernel", (i32,), "int *z, int start, int step, unsigned long n"),
        ("get_pow_array_kernel", (f32, f64, f64, False, True), "float x, double *y, double *z, unsigned long n"),
        ("get_pow_array_kernel", (f32, f64, f64, True, False), "float *x, double y, double *z, unsigned long n"),
        ("get_scalar_op_kernel", (f32, f64, f32, "+"), "float *x, double a, float *y, unsigned long n"),
        ("get_if_positive_kernel", (i32, f32), "int *crit, float *then_, float *else_, float *result, unsigned long n"),
        ("get_fill_kernel", (c64,), "pycuda::complex<float> a, pycuda::complex<float> *z, unsigned long n"),
    ],
)
def test_parameter_lists(name, args, parameters):
    assert f"({parameters})" in source_of(name, *args)


def test_minmax_picks_cuda_functions_by_dtype():
    # PyCUDA named "maxf" here, which does not exist.
    source = source_of("get_binary_minmax_kernel", "max", i32, i32, i32, False)
    assert "(int *x, int *y, int *z, unsigned long n)" in source and "z[i] = max(x[i], y[i])" in source
    source = source_of("get_binary_minmax_kernel", "min", f32, f32, f32, True)
    assert "(float *x, float y, float *z, unsigned long n)" in source
    assert "z[i] = fminf((float) x[i], (float) y)" in source
    source = source_of("get_binary_minmax_kernel", "max", f64, f32, f64, False)
    assert "z[i] = fmax((double) x[i], (double) y[i])" in source


def test_a_comparison_into_bool_compares_the_operands_themselves():
    # PyCUDA cast both operands to z's type (bool) before comparing them.
    assert "z[i] = (bool) (x[i] < y[i])" in source_of("get_binary_op_kernel", f32, f64, np.bool_, "<")
    assert "z[i] = (float) ((float) x[0] - (float) y[i])" in source_of("get_binary_op_kernel", f32, f32, f32, "-", True)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda h: h.get_binary_op_kernel(f32, f32, f32, "**"), ValueError, "binary operators"),
        (lambda h: h.get_scalar_op_kernel(f32, f32, f32, "max"), ValueError, "binary operators"),
        (lambda h: h.get_fill_kernel(np.dtype("U4")), ValueError, "dtype: unable to map dtype <U4"),
        (lambda h: h.get_copy_kernel(f32, object), ValueError, "dtype_src: unable to map dtype object"),
        (lambda h: h.get_reverse_kernel("not a dtype"), TypeError, "dtype: expected a numpy dtype"),
        (lambda h: h.get_fill_kernel(None), TypeError, "dtype: expected a numpy dtype, got None"),
        (lambda h: h.get_take_kernel(f32, i32, 0), ValueError, "vec_count: expected at least 1"),
        (lambda h: h.get_put_kernel(f32, i32, 1.5), TypeError, "vec_count: expected an integer"),
        (lambda h: h.get_take_put_kernel(f32, i32, False, -2), ValueError, "vec_count"),
        (lambda h: h.get_take_kernel(f32, f32), TypeError, "idx_dtype: expected an integer dtype"),
        (lambda h: h.get_real_kernel(f32, f32), TypeError, "dtype: expected a complex dtype"),
        (lambda h: h.get_imag_kernel(i32, i32), TypeError, "dtype: expected a complex dtype"),
        (lambda h: h.get_conj_kernel(c64, f32), TypeError, "conj_dtype: expected a complex dtype"),
        (lambda h: h.get_copy_kernel(f32, c64), TypeError, "get_real_kernel"),
        (lambda h: h.get_binary_minmax_kernel("maximum", f32, f32, f32, False), ValueError, "'max' or 'min'"),
        (lambda h: h.get_binary_minmax_kernel("max", c64, c64, c64, False), TypeError, "integer or floating"),
        (lambda h: h.get_binary_minmax_kernel("min", i32, i64, i64, True), TypeError, "one dtype"),
        (lambda h: h.get_pow_array_kernel(f32, f32, f32, False, False), ValueError, "must be arrays"),
        (lambda h: h.get_linear_combination_kernel((), f32), ValueError, "one or more"),
        (lambda h: h.get_linear_combination_kernel(((True, f32),), f32), ValueError, "is_gpu_scalar, scalar_dtype"),
        (lambda h: h.get_linear_combination_kernel(5, f32), TypeError, "summand_descriptors"),
        (lambda h: h.get_linear_combination_kernel(((False, f32, "bogus"),), f32), TypeError, "summand 0 vector_dtype"),
        (lambda h: h.get_unary_func_kernel(np.sqrt, f32), TypeError, "func_name: expected the name of a C function"),
        (lambda h: h.get_binary_func_kernel("", f32, f32, f32), TypeError, "func: expected the name"),
        (lambda h: h.get_fill_kernel(f32, stream=None), TypeError, "stream"),
    ],
)
def test_bad_arguments_are_refused_before_compiling(call, error, message):
    # No context needed: the arguments are checked before the per-context cache is consulted.
    with pytest.raises(error, match=message):
        call(elementwise)


# ---- on the GPU, against numpy


@pytest.fixture
def helper_ctx(pool_ctx):
    """pool_ctx (conftest.py): the helpers' per-context cache lives as long as its context."""
    return pool_ctx


def rng(seed=0):
    return np.random.default_rng(seed)


def random(n, dtype, seed=0):
    generator = rng(seed)
    values = generator.standard_normal(n)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * generator.standard_normal(n)
    return values.astype(dtype)


def launch(function, like, *args):
    """As PyCUDA's gpuarray: like's launch shape, and its size as the trailing n."""
    function.prepared_call(like._grid, like._block, *args, like.size)


def real_dtype(dtype):
    return np.empty(0, dtype).real.dtype


@pytest.mark.gpu
def test_helpers_are_memoized_per_context(helper_ctx):
    fill = elementwise.get_fill_kernel(f32)
    assert elementwise.get_fill_kernel(f32) is fill
    assert elementwise.get_fill_kernel(np.dtype(np.float32)) is fill  # the same kernel, however the dtype is given
    first, texrefs = elementwise.get_take_kernel(f32, i32)
    second, more_texrefs = elementwise.get_take_kernel(f32, i32)
    assert first is second and texrefs == [] and more_texrefs == [] and texrefs is not more_texrefs


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype, idx_dtype", [(f32, i32), (c64, i64), (f64, np.uint32)])
def test_take_gathers_with_reversed_and_repeated_indices(helper_ctx, n, dtype, idx_dtype):
    table_size = 777
    sources = [random(table_size, dtype, seed) for seed in (1, 2)]
    repeated = rng(3).integers(0, table_size, n).astype(idx_dtype)
    reversed_ = (np.arange(n) % table_size)[::-1].astype(idx_dtype)
    for vec_count in (1, 2):
        take, texrefs = elementwise.get_take_kernel(dtype, idx_dtype, vec_count)
        assert texrefs == []
        for idx in (repeated, reversed_):
            idx_gpu = gpuarray.to_gpu(idx)
            dests = [gpuarray.empty(n, dtype) for _ in range(vec_count)]
            srcs = [gpuarray.to_gpu(s) for s in sources[:vec_count]]
            launch(take, idx_gpu, idx_gpu.gpudata, *[d.gpudata for d in dests], *[s.gpudata for s in srcs])
            for dest, source in zip(dests, sources):
                np.testing.assert_array_equal(dest.get(), source[idx])


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("with_offsets", [False, True])
@pytest.mark.parametrize("vec_count", [1, 2])
def test_take_put_moves_between_index_lists(helper_ctx, n, with_offsets, vec_count):
    dtype, idx_dtype = f64, i32
    source_size, dest_size = n + 50, n + 9
    sources = [random(source_size, dtype, seed) for seed in range(vec_count)]
    dest_idx = rng(5).permutation(dest_size)[:n].astype(idx_dtype)  # distinct: no two writes to one element
    src_idx = rng(6).integers(0, n, n).astype(idx_dtype)  # repeated
    offsets = [7 * j + 3 for j in range(vec_count)] if with_offsets else []
    take_put, texrefs = elementwise.get_take_put_kernel(dtype, idx_dtype, with_offsets, vec_count)
    assert texrefs == []
    initial = [random(dest_size, dtype, 10 + j) for j in range(vec_count)]
    dests = [gpuarray.to_gpu(d) for d in initial]
    srcs = [gpuarray.to_gpu(s) for s in sources]
    dest_idx_gpu, src_idx_gpu = gpuarray.to_gpu(dest_idx), gpuarray.to_gpu(src_idx)
    launch(
        take_put,
        dest_idx_gpu,
        dest_idx_gpu.gpudata,
        src_idx_gpu.gpudata,
        *[d.gpudata for d in dests],
        *[s.gpudata for s in srcs],
        *[np.int32(o) for o in offsets],
    )
    for j in range(vec_count):
        expected = initial[j].copy()
        expected[dest_idx] = sources[j][src_idx + (offsets[j] if with_offsets else 0)]
        np.testing.assert_array_equal(dests[j].get(), expected)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("vec_count", [1, 3])
def test_put_scatters_to_reversed_indices(helper_ctx, n, vec_count):
    dtype = c128
    dest_idx = np.arange(n, dtype=i64)[::-1].copy()
    sources = [random(n, dtype, seed) for seed in range(vec_count)]
    dests = [gpuarray.zeros(n, dtype) for _ in range(vec_count)]
    dest_idx_gpu = gpuarray.to_gpu(dest_idx)
    put = elementwise.get_put_kernel(dtype, i64, vec_count)
    launch(
        put,
        dest_idx_gpu,
        dest_idx_gpu.gpudata,
        *[d.gpudata for d in dests],
        *[gpuarray.to_gpu(s).gpudata for s in sources],
    )
    for dest, source in zip(dests, sources):
        np.testing.assert_array_equal(dest.get(), source[::-1])


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype_dest, dtype_src", [(f32, f64), (f64, i32), (c64, f32), (c64, c128), (i32, f32)])
def test_copy_converts(helper_ctx, n, dtype_dest, dtype_src):
    source = (random(n, dtype_src) * 100) if np.dtype(dtype_src).kind != "i" else rng().integers(-1000, 1000, n)
    source = np.asarray(source).astype(dtype_src)
    src, dest = gpuarray.to_gpu(source), gpuarray.empty(n, dtype_dest)
    launch(elementwise.get_copy_kernel(dtype_dest, dtype_src), dest, dest.gpudata, src.gpudata)
    np.testing.assert_array_equal(dest.get(), source.astype(dtype_dest))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_linear_combination_with_gpu_and_host_scalars(helper_ctx, n):
    x, y, w = random(n, f32, 1), random(n, f32, 2), random(n, f32, 3)
    x_gpu, y_gpu, w_gpu = gpuarray.to_gpu(x), gpuarray.to_gpu(y), gpuarray.to_gpu(w)
    a_gpu, c_gpu = gpuarray.to_gpu(np.array([5], f32)), gpuarray.to_gpu(np.array([-0.25], f32))
    z = gpuarray.empty(n, f32)
    # PyCUDA's example gpu-scalar-mult.py: two GPU scalars; then a host scalar between them.
    lc, texrefs = elementwise.get_linear_combination_kernel(((True, f32, f32), (True, f32, f32)), f32)
    assert texrefs == []
    launch(lc, x_gpu, a_gpu.gpudata, x_gpu.gpudata, c_gpu.gpudata, y_gpu.gpudata, z.gpudata)
    np.testing.assert_allclose(z.get(), 5 * x - 0.25 * y, rtol=1e-6, atol=1e-6)
    lc, _ = elementwise.get_linear_combination_kernel(((True, f32, f32), (False, f64, f32), (True, f32, f32)), f32)
    launch(lc, x_gpu, a_gpu.gpudata, x_gpu.gpudata, 1.5, y_gpu.gpudata, c_gpu.gpudata, w_gpu.gpudata, z.gpudata)
    np.testing.assert_allclose(z.get(), 5 * x + 1.5 * y - 0.25 * w, rtol=1e-6, atol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_linear_combination_of_complex_vectors(helper_ctx, n):
    x, y = random(n, c64, 1), random(n, c64, 2)
    x_gpu, y_gpu, z = gpuarray.to_gpu(x), gpuarray.to_gpu(y), gpuarray.empty(n, c64)
    a_gpu = gpuarray.to_gpu(np.array([2 - 1j], c64))
    lc, _ = elementwise.get_linear_combination_kernel(((True, c64, c64), (False, f32, c64)), c64)
    launch(lc, x_gpu, a_gpu.gpudata, x_gpu.gpudata, np.float32(3), y_gpu.gpudata, z.gpudata)
    np.testing.assert_allclose(z.get(), (2 - 1j) * x + 3 * y, rtol=1e-5, atol=1e-5)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_axpbyz_and_axpbz(helper_ctx, n):
    x, y = random(n, f32, 1), random(n, f32, 2)
    x_gpu, y_gpu, z = gpuarray.to_gpu(x), gpuarray.to_gpu(y), gpuarray.empty(n, f32)
    launch(
        elementwise.get_axpbyz_kernel(np.dtype(f32), np.dtype(f32), np.dtype(f32)),
        z,
        2.0,
        x_gpu.gpudata,
        -3.0,
        y_gpu.gpudata,
        z.gpudata,
    )
    np.testing.assert_allclose(z.get(), 2 * x - 3 * y, rtol=1e-6, atol=1e-6)
    # x a one-element array (PyCUDA's 0-d operand): x[0] for every i.
    launch(
        elementwise.get_axpbyz_kernel(f32, f32, f32, True, False), z, 2.0, x_gpu.gpudata, -3.0, y_gpu.gpudata, z.gpudata
    )
    np.testing.assert_allclose(z.get(), 2 * x[0] - 3 * y, rtol=1e-6, atol=1e-6)
    # A real x in a complex result.
    w = random(n, c64, 3)
    w_gpu, zc = gpuarray.to_gpu(w), gpuarray.empty(n, c64)
    launch(elementwise.get_axpbyz_kernel(f32, c64, c64), zc, 0.5, x_gpu.gpudata, 1 + 2j, w_gpu.gpudata, zc.gpudata)
    np.testing.assert_allclose(zc.get(), 0.5 * x + (1 + 2j) * w, rtol=1e-5, atol=1e-5)
    z64 = gpuarray.empty(n, f64)
    launch(elementwise.get_axpbz_kernel(f32, f64), z64, 4.0, x_gpu.gpudata, 0.125, z64.gpudata)
    np.testing.assert_allclose(z64.get(), 4 * x.astype(f64) + 0.125, rtol=1e-15)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "<", "=="])
def test_binary_op(helper_ctx, n, op):
    x, y = random(n, f64, 1), random(n, f64, 2)
    y[::3] = x[::3]  # some equal pairs for ==
    dtype_z = np.bool_ if op in ("<", "==") else f64
    x_gpu, y_gpu, z = gpuarray.to_gpu(x), gpuarray.to_gpu(y), gpuarray.empty(n, dtype_z)
    numpy_op = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "<": np.less, "==": np.equal}[op]
    launch(elementwise.get_binary_op_kernel(f64, f64, dtype_z, op), z, x_gpu.gpudata, y_gpu.gpudata, z.gpudata)
    np.testing.assert_array_equal(z.get(), numpy_op(x, y))
    launch(
        elementwise.get_binary_op_kernel(f64, f64, dtype_z, op, False, True), z, x_gpu.gpudata, y_gpu.gpudata, z.gpudata
    )
    np.testing.assert_array_equal(z.get(), numpy_op(x, y[0]))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_binary_op_of_int32_and_complex(helper_ctx, n):
    x = rng(1).integers(-100, 100, n).astype(i32)
    y = random(n, c64, 2)
    x_gpu, y_gpu, z = gpuarray.to_gpu(x), gpuarray.to_gpu(y), gpuarray.empty(n, c64)
    launch(elementwise.get_binary_op_kernel(i32, c64, c64, "*"), z, x_gpu.gpudata, y_gpu.gpudata, z.gpudata)
    np.testing.assert_allclose(z.get(), x * y, rtol=1e-6)
    q = gpuarray.empty(n, i32)
    d = rng(3).integers(1, 17, n).astype(i32)
    launch(
        elementwise.get_binary_op_kernel(i32, i32, i32, "%"), q, x_gpu.gpudata, gpuarray.to_gpu(d).gpudata, q.gpudata
    )
    np.testing.assert_array_equal(q.get(), np.fmod(x, d))  # C's %: the sign of the dividend


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_rdivide_and_scalar_op(helper_ctx, n):
    x = random(n, f32, 1) + np.float32(10)
    x_gpu, z = gpuarray.to_gpu(x), gpuarray.empty(n, f32)
    launch(elementwise.get_rdivide_elwise_kernel(f32, f32), z, x_gpu.gpudata, 3.0, z.gpudata)
    np.testing.assert_allclose(z.get(), np.float32(3) / x, rtol=1e-6)
    launch(elementwise.get_scalar_op_kernel(f32, f32, f32, "-"), z, x_gpu.gpudata, 2.5, z.gpudata)
    np.testing.assert_array_equal(z.get(), x - np.float32(2.5))
    flags = gpuarray.empty(n, np.bool_)
    launch(elementwise.get_scalar_op_kernel(f32, f32, np.bool_, ">"), flags, x_gpu.gpudata, 10.0, flags.gpudata)
    np.testing.assert_array_equal(flags.get(), x > 10)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [f32, f64, i32, u8])
@pytest.mark.parametrize("func", ["max", "min"])
def test_binary_minmax(helper_ctx, n, dtype, func):
    if np.dtype(dtype).kind == "f":
        x, y = random(n, dtype, 1), random(n, dtype, 2)
    else:
        info = np.iinfo(dtype)
        x, y = (rng(seed).integers(info.min, info.max, n, endpoint=True).astype(dtype) for seed in (1, 2))
    x_gpu, y_gpu, z = gpuarray.to_gpu(x), gpuarray.to_gpu(y), gpuarray.empty(n, dtype)
    numpy_func = np.maximum if func == "max" else np.minimum
    launch(
        elementwise.get_binary_minmax_kernel(func, dtype, dtype, dtype, False),
        z,
        x_gpu.gpudata,
        y_gpu.gpudata,
        z.gpudata,
    )
    np.testing.assert_array_equal(z.get(), numpy_func(x, y))
    launch(elementwise.get_binary_minmax_kernel(func, dtype, dtype, dtype, True), z, x_gpu.gpudata, y[0], z.gpudata)
    np.testing.assert_array_equal(z.get(), numpy_func(x, y[0]))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_binary_func_and_unary_func(helper_ctx, n):
    x, y = random(n, f64, 1), random(n, f64, 2)
    x_gpu, y_gpu, z = gpuarray.to_gpu(x), gpuarray.to_gpu(y), gpuarray.empty(n, f64)
    launch(elementwise.get_binary_func_kernel("atan2", f64, f64, f64), z, x_gpu.gpudata, y_gpu.gpudata, z.gpudata)
    np.testing.assert_allclose(z.get(), np.arctan2(x, y), rtol=1e-15, atol=1e-15)
    launch(elementwise.get_binary_func_scalar_kernel("atan2", f64, f64, f64), z, x_gpu.gpudata, 0.5, z.gpudata)
    np.testing.assert_allclose(z.get(), np.arctan2(x, 0.5), rtol=1e-15, atol=1e-15)
    launch(elementwise.get_unary_func_kernel("fabs", f64), z, x_gpu.gpudata, z.gpudata)
    np.testing.assert_array_equal(z.get(), np.abs(x))
    w = random(n, c64, 3)
    magnitude = gpuarray.empty(n, f32)
    launch(
        elementwise.get_unary_func_kernel("pycuda::abs", c64, f32),
        magnitude,
        gpuarray.to_gpu(w).gpudata,
        magnitude.gpudata,
    )
    np.testing.assert_allclose(magnitude.get(), np.abs(w), rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype, value", [(f32, 1.5), (i32, -7), (c64, 1 - 2j), (f64, 1e300)])
def test_fill(helper_ctx, n, dtype, value):
    z = gpuarray.zeros(n, dtype)
    launch(elementwise.get_fill_kernel(dtype), z, value, z.gpudata)
    np.testing.assert_array_equal(z.get(), np.full(n, value, dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [f32, i64, c128])
def test_reverse(helper_ctx, n, dtype):
    y = random(n, dtype) if np.dtype(dtype).kind != "i" else np.arange(n, dtype=dtype)
    y_gpu, z = gpuarray.to_gpu(y), gpuarray.empty(n, dtype)
    launch(elementwise.get_reverse_kernel(dtype), z, y_gpu.gpudata, z.gpudata)
    np.testing.assert_array_equal(z.get(), y[::-1])


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [c64, c128])
def test_real_imag_conj(helper_ctx, n, dtype):
    y = random(n, dtype)
    y_gpu, parts, conjugate = gpuarray.to_gpu(y), gpuarray.empty(n, real_dtype(dtype)), gpuarray.empty(n, dtype)
    launch(elementwise.get_real_kernel(dtype, real_dtype(dtype)), y_gpu, y_gpu.gpudata, parts.gpudata)
    np.testing.assert_array_equal(parts.get(), y.real)
    launch(elementwise.get_imag_kernel(dtype, real_dtype(dtype)), y_gpu, y_gpu.gpudata, parts.gpudata)
    np.testing.assert_array_equal(parts.get(), y.imag)
    launch(elementwise.get_conj_kernel(dtype, dtype), y_gpu, y_gpu.gpudata, conjugate.gpudata)
    np.testing.assert_array_equal(conjugate.get(), np.conj(y))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_arange(helper_ctx, n):
    z = gpuarray.empty(n, i32)
    launch(elementwise.get_arange_kernel(i32), z, z.gpudata, 1000, -3)
    np.testing.assert_array_equal(z.get(), np.arange(n, dtype=i32) * -3 + 1000)
    z = gpuarray.empty(n, f64)
    launch(elementwise.get_arange_kernel(f64), z, z.gpudata, -2.5, 0.125)
    np.testing.assert_array_equal(z.get(), -2.5 + 0.125 * np.arange(n))  # exact: multiples of 2**-3
    z = gpuarray.empty(n, f32)
    launch(elementwise.get_arange_kernel(f32), z, z.gpudata, 0.5, 0.1)
    np.testing.assert_allclose(z.get(), np.float32(0.5) + np.arange(n) * np.float64(np.float32(0.1)), rtol=1e-6)


POW_CASES = [  # (dtype_x, dtype_y, dtype_z, rtol)
    (f32, f32, f32, 3e-6),
    (f64, f64, f64, 1e-14),
    (f32, f64, f64, 1e-14),
    (c64, c64, c64, 2e-5),
    (c128, f64, c128, 1e-12),
    (f64, c128, c128, 1e-12),
]


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype_x, dtype_y, dtype_z, rtol", POW_CASES)
@pytest.mark.parametrize("base_array, exp_array", [(True, True), (True, False), (False, True)])
def test_pow_with_array_and_scalar_operands(helper_ctx, n, dtype_x, dtype_y, dtype_z, rtol, base_array, exp_array):
    base = (rng(1).uniform(0.5, 2, n) * (1 + 0.5j if np.dtype(dtype_x).kind == "c" else 1)).astype(dtype_x)
    exponent = (rng(2).uniform(-3, 3, n) * (1 - 0.25j if np.dtype(dtype_y).kind == "c" else 1)).astype(dtype_y)
    x = gpuarray.to_gpu(base).gpudata if base_array else base[0].item()
    y = gpuarray.to_gpu(exponent).gpudata if exp_array else exponent[0].item()
    z = gpuarray.empty(n, dtype_z)
    launch(elementwise.get_pow_array_kernel(dtype_x, dtype_y, dtype_z, base_array, exp_array), z, x, y, z.gpudata)
    expected = np.power(
        (base if base_array else base[0]).astype(dtype_z), (exponent if exp_array else exponent[0]).astype(dtype_z)
    )
    np.testing.assert_allclose(z.get(), np.broadcast_to(expected, n), rtol=rtol)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_pow_of_integers(helper_ctx, n):
    base = rng(1).integers(-12, 13, n).astype(i32)
    exponent = rng(2).integers(0, 7, n).astype(i32)
    z = gpuarray.empty(n, i32)
    launch(
        elementwise.get_pow_array_kernel(i32, i32, i32, True, True),
        z,
        gpuarray.to_gpu(base).gpudata,
        gpuarray.to_gpu(exponent).gpudata,
        z.gpudata,
    )
    np.testing.assert_array_equal(z.get(), base**exponent)
    # Exact in the result's type, wrapping as numpy's does; a scalar exponent.
    small = rng(3).integers(0, 256, n).astype(u8)
    z8 = gpuarray.empty(n, u8)
    launch(
        elementwise.get_pow_array_kernel(u8, i32, u8, True, False),
        z8,
        gpuarray.to_gpu(small).gpudata,
        i32(7),
        z8.gpudata,
    )
    np.testing.assert_array_equal(z8.get(), small ** u8(7))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_fmod_modf_frexp_ldexp(helper_ctx, n):
    x = (random(n, f32, 1) * 1000).astype(f32)
    x[0] = -2.5
    m = np.where(rng(2).uniform(size=n) < 0.5, -1, 1) * rng(3).uniform(0.5, 30, n).astype(f32)
    m = m.astype(f32)
    x_gpu = gpuarray.to_gpu(x)
    out1, out2 = gpuarray.empty(n, f32), gpuarray.empty(n, f32)
    launch(elementwise.get_fmod_kernel(), x_gpu, x_gpu.gpudata, gpuarray.to_gpu(m).gpudata, out1.gpudata)
    np.testing.assert_array_equal(out1.get(), np.fmod(x, m))
    launch(elementwise.get_modf_kernel(), x_gpu, x_gpu.gpudata, out1.gpudata, out2.gpudata)
    fraction, integral = np.modf(x)
    np.testing.assert_array_equal(out1.get(), integral)
    np.testing.assert_array_equal(out2.get(), fraction)
    launch(elementwise.get_frexp_kernel(), x_gpu, x_gpu.gpudata, out1.gpudata, out2.gpudata)
    significand, exponent = np.frexp(x)
    np.testing.assert_array_equal(out1.get(), significand)
    np.testing.assert_array_equal(out2.get(), exponent.astype(f32))
    exponents = rng(4).integers(-20, 20, n).astype(f32)
    launch(elementwise.get_ldexp_kernel(), x_gpu, x_gpu.gpudata, gpuarray.to_gpu(exponents).gpudata, out1.gpudata)
    np.testing.assert_array_equal(out1.get(), np.ldexp(x, exponents.astype(i32)))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("crit_dtype, dtype", [(f32, f32), (i32, c64), (np.bool_, f64)])
def test_if_positive_and_where(helper_ctx, n, crit_dtype, dtype):
    crit = rng(1).integers(-2, 3, n).astype(crit_dtype)  # negative, zero and positive (bool: False, True)
    then_, else_ = random(n, dtype, 2), random(n, dtype, 3)
    arrays = [gpuarray.to_gpu(a) for a in (crit, then_, else_)]
    result = gpuarray.empty(n, dtype)
    launch(elementwise.get_if_positive_kernel(crit_dtype, dtype), result, *[a.gpudata for a in arrays], result.gpudata)
    np.testing.assert_array_equal(result.get(), np.where(crit > 0, then_, else_))
    launch(elementwise.get_where_kernel(crit_dtype, dtype), result, *[a.gpudata for a in arrays], result.gpudata)
    np.testing.assert_array_equal(result.get(), np.where(crit != 0, then_, else_))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [f32, i32, c64])
def test_logical_not(helper_ctx, n, dtype):
    x = random(n, dtype) if np.dtype(dtype).kind != "i" else rng().integers(-2, 3, n).astype(dtype)
    x[::4] = 0
    x_gpu, out = gpuarray.to_gpu(x), gpuarray.empty(n, np.bool_)
    launch(elementwise.get_logical_not_kernel(dtype, np.bool_), out, x_gpu.gpudata, out.gpudata)
    np.testing.assert_array_equal(out.get(), np.logical_not(x))


@pytest.mark.gpu
def test_prepared_async_call_on_a_stream(helper_ctx):
    n = 2**16 + 3
    stream = drv.Stream()
    z = gpuarray.empty(n, f32)
    fill = elementwise.get_fill_kernel(f32)
    fill.prepared_async_call(z._grid, z._block, stream, np.float32(3), z.gpudata, z.size)
    stream.synchronize()
    np.testing.assert_array_equal(z.get(), 3)
