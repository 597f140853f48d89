"""ElementwiseKernel computes what PyCUDA's computes: array parameters are plain pointers
(x[j] is element j), with PyCUDA's loop, range/slice forms, loop_prep/after_loop and
preamble, scalars of every type including structs, checked against numpy."""

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import compiler, tools
from gpukit.elementwise import ElementwiseKernel, _scalar_bytes
from gpukit.tools import ScalarArg, VectorArg

SIZES = [1, 7, 1000, 100003]


def compiles(kernel, use_range=False):
    compiles_source(kernel.get_source(use_range))


def compiles_source(source):
    compiler.compile(
        source, arch="sm_90", no_extern_c=True, cache_dir=False, include_dirs=[compiler.DEVICE_INCLUDE_DIR]
    )


# ---- without a GPU: the generated source, argument checks, scalar conversion


@pytest.mark.parametrize(
    "arguments, operation",
    [
        ("float *x, float *y, int n", "y[i] = x[n-1-i]"),
        ("const float *__restrict__ x, double *y", "y[i] = x[i]"),
        ("pycuda::complex<float> *z, pycuda::complex<double> a", "z[i] = z[i] * pycuda::complex<float>(a)"),
        ("float3 *v, float3 a", "v[i] = a"),
        ("unsigned char *c, long long k, size_t s, unsigned short u", "c[i] = (unsigned char)(k + s + u)"),
    ],
)
def test_generated_kernels_compile_in_both_forms(arguments, operation):
    kernel = ElementwiseKernel(arguments, operation, "k", loop_prep="volatile int count = 0", after_loop="count = 1")
    compiles(kernel)
    compiles(kernel, use_range=True)


def test_argument_objects_are_accepted():
    kernel = ElementwiseKernel([VectorArg(np.float32, "x"), ScalarArg(np.float64, "a")], "x[i] = a", "fill")
    assert "float *x, double a" in kernel.get_source()
    compiles(kernel)


def test_declarations_are_kept_as_written():
    source = ElementwiseKernel("const float *__restrict__ x, float *y", "y[i] = x[i]").get_source()
    assert "const float *__restrict__ x, float *y, unsigned long n" in source


def test_a_declared_n_is_the_loop_bound():
    source = ElementwiseKernel("float *x, float *y, int n", "y[i] = x[n-1-i]").get_source()
    assert "int n)" in source and "unsigned long n" not in source


def test_unknown_keywords_are_a_type_error():
    with pytest.raises(TypeError):
        ElementwiseKernel("float *x", "x[i] = 0", "k", bogus=1)


@pytest.mark.parametrize(
    "arguments, operation, message",
    [
        ("float a", "a = 0", "array"),
        ("float *x, float *x", "x[i] = 0", "twice"),
        ("float *x, int i", "x[i] = 0", "clashes"),
        ("float *x, float *n", "x[i] = 0", "integer scalar"),
    ],
)
def test_bad_specs_are_refused(arguments, operation, message):
    with pytest.raises((ValueError, drv.LogicError), match=message):
        ElementwiseKernel(arguments, operation, "k")


def test_a_bad_name_is_refused():
    with pytest.raises(drv.LogicError, match="identifier"):
        ElementwiseKernel("float *x", "x[i] = 0", "not a name")


# Each was accepted until the first launch (or failed in Python's iteration) before issue 29:
# refused where the kernel is made, naming what was wrong.
@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: ElementwiseKernel(None, "x[i] = 1"), TypeError, "arguments must be a C declaration string"),
        (lambda: ElementwiseKernel(3, "x[i] = 1"), TypeError, "arguments must be a C declaration string"),
        (lambda: ElementwiseKernel("float *if", "x[i] = 1"), ValueError, "argument name 'if' is a keyword of C"),
        (lambda: ElementwiseKernel("float *x, float class", "x[i] = 1"), ValueError, "'class' is a keyword of C\\+\\+"),
        (lambda: ElementwiseKernel("float *threadIdx", "x[i] = 1"), ValueError, "variable CUDA defines"),
        (
            lambda: ElementwiseKernel([VectorArg(np.float32, "x"), ScalarArg(np.int32, "for")], "x[i] = 1"),
            ValueError,
            "'for' is a keyword",
        ),
        (lambda: ElementwiseKernel("float *x", "x[i] = 0", "if"), drv.LogicError, "'if' is a keyword of C"),
        (
            lambda: ElementwiseKernel("float *x", "x[i] = 0", options="-O3"),
            TypeError,
            "options must be a list of str, got str '-O3'",
        ),
        (
            lambda: ElementwiseKernel("float *x", "x[i] = 0", include_dirs="/usr"),
            TypeError,
            "include_dirs must be a list of directories",
        ),
        (
            lambda: ElementwiseKernel("float *x", "x[i] = 0", options=["-DX=1\0junk"]),
            ValueError,
            "compile option '-DX=1\\\\0junk'",
        ),
        (lambda: ElementwiseKernel("float *x", "x[i] = 0\0junk"), ValueError, "NUL character"),
        (lambda: ElementwiseKernel("float *x", "x[i] = 0", preamble="// a\0b"), ValueError, "NUL character"),
    ],
)
def test_mistakes_are_refused_when_the_kernel_is_made(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_unknown_types_are_refused():
    with pytest.raises(ValueError, match="unknown C type"):
        ElementwiseKernel("float16_t *x", "x[i] = 0")


def test_range_parameters_clash_only_in_the_range_form():
    kernel = ElementwiseKernel("float *x, int start", "x[i] = start")
    compiles(kernel)
    with pytest.raises(drv.LogicError, match="range"):
        kernel.get_source(use_range=True)


def test_wrong_argument_count_is_a_type_error():
    kernel = ElementwiseKernel("float *x, float a", "x[i] = a")
    with pytest.raises(TypeError, match="takes 2 arguments"):
        kernel(1.0)


def test_scalars_convert_like_prepared_calls():
    assert _scalar_bytes(3, ScalarArg(np.int16, "k")) == np.int16(3).tobytes()
    assert _scalar_bytes(np.int64(-5), ScalarArg(np.int8, "k")) == np.int8(-5).tobytes()
    assert _scalar_bytes(2, ScalarArg(np.float32, "a")) == np.float32(2).tobytes()
    assert _scalar_bytes(np.float64(0.1), ScalarArg(np.float32, "a")) == np.float32(0.1).tobytes()
    assert _scalar_bytes(1 + 2j, ScalarArg(np.complex64, "z")) == np.complex64(1 + 2j).tobytes()
    assert _scalar_bytes(True, ScalarArg(np.bool_, "b")) == np.bool_(True).tobytes()
    with pytest.raises(TypeError, match="integer"):
        _scalar_bytes(2.5, ScalarArg(np.int32, "k"))
    with pytest.raises(OverflowError):
        _scalar_bytes(300, ScalarArg(np.uint8, "k"))
    with pytest.raises(OverflowError):
        _scalar_bytes(-1, ScalarArg(np.uint32, "k"))
    with pytest.raises(OverflowError):
        _scalar_bytes(1e300, ScalarArg(np.float32, "a"))
    with pytest.raises(TypeError, match="real"):
        _scalar_bytes(1j, ScalarArg(np.float64, "a"))
    with pytest.raises(TypeError, match="real"):
        _scalar_bytes("1.0", ScalarArg(np.float64, "a"))


def test_struct_scalars_are_records_of_their_dtype():
    float3 = gpuarray.vec.float3
    value = gpuarray.vec.make_float3(1, 2, 3)
    assert _scalar_bytes(value, ScalarArg(float3, "v")) == np.array([1, 2, 3], np.float32).tobytes()
    assert _scalar_bytes((4, 5, 6), ScalarArg(float3, "v")) == np.array([4, 5, 6], np.float32).tobytes()
    with pytest.raises(TypeError, match="scalar"):
        _scalar_bytes(np.zeros(2, float3), ScalarArg(float3, "v"))


# ---- on the GPU, against numpy


def rand(n, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(n).astype(dtype)


def check_reversal(n, arguments, name, *n_argument):
    """Reverses n random floats with the kernel y[i] = x[n-1-i] declared with `arguments`,
    passing `n_argument` after x and y; checks the result and returns (kernel, x, x on the GPU)."""
    x = rand(n)
    reverse = ElementwiseKernel(arguments, "y[i] = x[n-1-i]", name)
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.empty(n, np.float32)
    reverse(x_gpu, y_gpu, *n_argument)
    np.testing.assert_array_equal(y_gpu.get(), x[::-1])
    return reverse, x, x_gpu


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_reversal_reads_other_elements(pool_ctx, n):
    check_reversal(n, "float *x, float *y", "reverse")


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
def test_reversal_with_a_declared_n(pool_ctx, n):
    reverse, x, x_gpu = check_reversal(n, "float *x, float *y, int n", "reverse_n", np.int32(n))
    # Only the first half: the declared n bounds the loop.
    half = gpuarray.zeros(n, np.float32)
    reverse(x_gpu, half, n // 2)
    expected = np.zeros(n, np.float32)
    expected[: n // 2] = x[: n // 2][::-1]
    np.testing.assert_array_equal(half.get(), expected)


@pytest.mark.gpu
def test_gather_from_a_larger_table(pool_ctx):
    table = rand(5000)
    idx = np.random.default_rng(1).integers(0, 5000, 777).astype(np.int32)
    gather = ElementwiseKernel("float *out, const float *table, const int *idx", "out[i] = table[idx[i]]")
    out = gpuarray.empty(777, np.float32)
    gather(out, gpuarray.to_gpu(table), gpuarray.to_gpu(idx))  # n is the first array's size
    np.testing.assert_array_equal(out.get(), table[idx])


@pytest.mark.gpu
@pytest.mark.parametrize("n", [3, 1000, 65537])
def test_neighbour_stencil(pool_ctx, n):
    x = rand(n, np.float64)
    stencil = ElementwiseKernel(
        "double *x, double *y", "y[i] = (i > 0 && i < n - 1) ? x[i-1] - 2 * x[i] + x[i+1] : x[i]", "laplace"
    )
    y = gpuarray.empty(n, np.float64)
    stencil(gpuarray.to_gpu(x), y)
    expected = x.copy()
    expected[1:-1] = x[:-2] - 2 * x[1:-1] + x[2:]
    np.testing.assert_allclose(y.get(), expected, rtol=1e-15, atol=1e-15)


@pytest.mark.gpu
@pytest.mark.parametrize("bounds", [(5, 100, 3), (0, 1000, 1), (99, 5, -4), (999, -1, -1), (10, 10, 1), (7, 3, 1)])
def test_range_runs_python_range_indices(pool_ctx, bounds):
    mark = ElementwiseKernel("int *x", "x[i] = i + 1", "mark")
    x = gpuarray.zeros(1000, np.int32)
    mark(x, range=slice(*bounds))
    expected = np.zeros(1000, np.int32)
    for i in range(*bounds):
        expected[i] = i + 1
    np.testing.assert_array_equal(x.get(), expected)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "key", [slice(-10, None), slice(None, None, 2), slice(None, None, -3), slice(3, -3, 5), slice(-1, -1000, -7)]
)
def test_slice_is_truncated_to_the_array_like_numpy(pool_ctx, key):
    mark = ElementwiseKernel("int *x", "x[i] = 1", "mark_slice")
    x = gpuarray.zeros(101, np.int32)
    mark(x, slice=key)
    expected = np.zeros(101, np.int32)
    expected[key] = 1
    np.testing.assert_array_equal(x.get(), expected)


@pytest.mark.gpu
def test_range_and_slice_together_are_refused(pool_ctx):
    mark = ElementwiseKernel("int *x", "x[i] = 1", "mark_both")
    x = gpuarray.zeros(10, np.int32)
    with pytest.raises(TypeError):
        mark(x, range=slice(0, 5), slice=slice(0, 5))
    with pytest.raises(ValueError):
        mark(x, range=slice(0, 5, 0))
    with pytest.raises(TypeError):
        mark(x, range=(0, 5))


@pytest.mark.gpu
def test_loop_prep_after_loop_and_preamble(pool_ctx):
    n = 4096
    x = rand(n)
    kernel = ElementwiseKernel(
        "float *x, float *y, float a, int *threads_done",
        "y[i] = scaled(x[i], twice)",
        "prep",
        preamble="__device__ float scaled(float v, float s) { return v * s; }",
        loop_prep="const float twice = 2 * a",
        after_loop="atomicAdd(threads_done, 1)",
    )
    y, done = gpuarray.empty(n, np.float32), gpuarray.zeros(1, np.int32)
    kernel(gpuarray.to_gpu(x), y, np.float32(1.5), done)
    np.testing.assert_array_equal(y.get(), x * np.float32(3.0))
    assert done.get()[0] >= 1  # every thread of the launch ran after_loop once


@pytest.mark.gpu
def test_an_empty_array_still_runs_loop_prep_and_after_loop(pool_ctx):
    kernel = ElementwiseKernel(
        "float *x, int *flag", "x[i] = 1", "empty_run", after_loop="if (cta_start + tid == 0) flag[0] = 7"
    )
    flag = gpuarray.zeros(1, np.int32)
    kernel(gpuarray.empty(0, np.float32), flag)
    assert flag.get()[0] == 7


@pytest.mark.gpu
@pytest.mark.parametrize(
    "dtype",
    [
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    ],
)
def test_scalars_of_every_type(pool_ctx, dtype):
    ctype = tools.dtype_to_ctype(dtype)
    fill = ElementwiseKernel(f"{ctype} *x, {ctype} v", "x[i] = v", "fill_" + np.dtype(dtype).name)
    value = np.array(1 + 2j if np.dtype(dtype).kind == "c" else (True if dtype is np.bool_ else 100), dtype)[()]
    if np.dtype(dtype).kind in "iu" and np.dtype(dtype).itemsize == 8:
        value = dtype(np.iinfo(dtype).max - 3)  # beyond 32 bits
    x = gpuarray.zeros(33, dtype)
    fill(x, value)
    np.testing.assert_array_equal(x.get(), np.full(33, value, dtype))


@pytest.mark.gpu
def test_vector_and_struct_types(pool_ctx):
    vec = gpuarray.vec
    set_them = ElementwiseKernel("float3 *v, float3 a, float s", "v[i] = make_float3(a.x * s, a.y + i, a.z)", "v3")
    v = gpuarray.empty(100, vec.float3)
    set_them(v, vec.make_float3(1, 2, 3), 2.0)
    got = v.get()
    np.testing.assert_array_equal(got["x"], 2.0)
    np.testing.assert_array_equal(got["y"], 2.0 + np.arange(100))
    np.testing.assert_array_equal(got["z"], 3.0)

    pair = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    tools.get_or_register_dtype("pair_t", pair)
    scale = ElementwiseKernel(
        "pair_t *p, pair_t by",
        "p[i].a = p[i].a * by.a; p[i].b = p[i].b * by.b",
        "pairs",
        preamble="struct pair_t { int a; double b; };",
    )
    host = np.zeros(50, pair)
    host["a"], host["b"] = np.arange(50), np.linspace(0, 1, 50)
    p = gpuarray.to_gpu(host)
    by = np.zeros((), pair)
    by["a"], by["b"] = 3, -2.5
    scale(p, by[()])
    result = p.get()
    np.testing.assert_array_equal(result["a"], 3 * host["a"])
    np.testing.assert_array_equal(result["b"], -2.5 * host["b"])


@pytest.mark.gpu
def test_complex_arithmetic_through_pycuda_complex(pool_ctx):
    z = (rand(500) + 1j * rand(500, seed=1)).astype(np.complex64)
    kernel = ElementwiseKernel(
        "pycuda::complex<float> *z, pycuda::complex<float> *w, float a", "w[i] = z[i] * z[i] + a", "csq"
    )
    w = gpuarray.empty(500, np.complex64)
    kernel(gpuarray.to_gpu(z), w, 0.5)
    np.testing.assert_allclose(w.get(), z * z + np.float32(0.5), rtol=1e-5)


@pytest.mark.gpu
def test_stream_argument(pool_ctx):
    stream = drv.Stream()
    kernel = ElementwiseKernel("float *x", "x[i] = 2 * x[i]", "on_stream")
    x = rand(10000)
    x_gpu = gpuarray.to_gpu(x)
    kernel(x_gpu, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(x_gpu.get(), 2 * x)


@pytest.mark.gpu
def test_options_and_include_directories(pool_ctx, tmp_path):
    (tmp_path / "scale.h").write_text("#define SCALE 3\n")
    kernel = ElementwiseKernel(
        "float *x",
        "x[i] = OFFSET + SCALE * x[i]",
        "opts",
        preamble='#include "scale.h"',
        options=["-DOFFSET=1", "-I" + str(tmp_path)],
    )
    x = rand(100)
    x_gpu = gpuarray.to_gpu(x)
    kernel(x_gpu)
    np.testing.assert_allclose(x_gpu.get(), 1 + 3 * x, rtol=1e-6)


@pytest.mark.gpu
def test_keep_prints_where_the_files_are(pool_ctx, capsys):
    kernel = ElementwiseKernel("float *x", "x[i] = 1", "kept", keep=True)
    kernel(gpuarray.zeros(4, np.float32))
    assert "*** compiler output in" in capsys.readouterr().out


@pytest.mark.gpu
def test_non_contiguous_and_mismatched_arrays_are_refused(pool_ctx):
    kernel = ElementwiseKernel("float *x", "x[i] = 1", "refuse")
    with pytest.raises(RuntimeError, match="contiguous"):
        kernel(gpuarray.zeros(10, np.float32)[::2])
    with pytest.raises(TypeError, match="itemsize"):
        kernel(gpuarray.zeros(10, np.float64))
    with pytest.raises(TypeError, match="pointer"):
        kernel(1.0)
    # Fortran-ordered arrays are contiguous: fine, element j is the j-th in memory.
    f = gpuarray.zeros((3, 4), np.float32, order="F")
    kernel(f)
    np.testing.assert_array_equal(f.get(), np.ones((3, 4)))
    # The refusal's remedy works for a permuted 3-axis view, whose copy() keeps its order.
    permuted = gpuarray.to_gpu(np.arange(24, dtype=np.float32).reshape(2, 3, 4)).transpose(1, 0, 2)
    with pytest.raises(RuntimeError, match=r"x\.ravel\(\)\.reshape\(x\.shape\)"):
        kernel(permuted)
    remedy = permuted.ravel().reshape(permuted.shape)
    assert remedy.flags.c_contiguous
    kernel(remedy)
    np.testing.assert_array_equal(remedy.get(), np.ones((3, 2, 4)))


@pytest.mark.gpu
def test_foreign_arrays_through_the_array_interface(pool_ctx):
    from gpukit import cuda

    x = rand(300)
    device_array = cuda.to_device(x)
    kernel = ElementwiseKernel("float *x", "x[i] = -x[i]", "negate_foreign")
    kernel(device_array)
    np.testing.assert_array_equal(device_array.copy_to_host(), -x)


@pytest.mark.gpu
def test_one_kernel_serves_several_contexts():
    from conftest import drain_context_stack

    kernel = ElementwiseKernel("float *x", "x[i] = 5", "two_contexts")
    drain_context_stack()
    for _ in range(2):
        context = drv.Device(0).make_context()
        try:
            x = gpuarray.zeros(10, np.float32)
            kernel(x)
            np.testing.assert_array_equal(x.get(), 5)
            del x
        finally:
            drv.Context.pop()
            context.detach()


# ---- PyCUDA's lower-level helpers


def test_get_elwise_kernel_and_types_appends_the_loop_arguments():
    from gpukit import elementwise

    source = elementwise._gpukit._elementwise_kernel_source(
        "k", [("float *x", "x", True), ("unsigned long n", "n", False)], "x[i] = 0", "", "", "", False
    )
    assert source.count("unsigned long n") == 1


def test_get_elwise_kernel_compiles_declarations_as_written():
    from gpukit.elementwise import _elwise_kernel_source

    source = _elwise_kernel_source("const float *__restrict__ x, float *y", "y[i] = x[i]", "k")
    assert "(const float *__restrict__ x, float *y, unsigned long n)" in source
    compiles_source(source)
    source = _elwise_kernel_source("const int *x, int *y", "y[i] = x[i]", "k", use_range=True)
    assert "(const int *x, int *y, long start, long stop, long step)" in source
    compiles_source(source)


@pytest.mark.gpu
def test_get_elwise_kernel_is_a_prepared_function(pool_ctx):
    from gpukit.elementwise import get_elwise_kernel, get_elwise_kernel_and_types, get_elwise_module

    x = gpuarray.to_gpu(np.arange(100, dtype=np.float32))
    _, function, arguments = get_elwise_kernel_and_types("float *x, float a", "x[i] = a * x[i]", "scale")
    assert [a.name for a in arguments] == ["x", "a", "n"]
    function.prepared_call((1, 1), (128, 1, 1), x.gpudata, np.float32(2), x.size)
    np.testing.assert_array_equal(x.get(), 2 * np.arange(100))

    _, ranged, arguments = get_elwise_kernel_and_types("int *y", "y[i] = 1", "ones_range", use_range=True)
    assert [a.name for a in arguments] == ["y", "start", "stop", "step"]
    y = gpuarray.zeros(20, np.int32)
    ranged.prepared_call((1, 1), (32, 1, 1), y.gpudata, 2, 20, 3)
    expected = np.zeros(20, np.int32)
    expected[2:20:3] = 1
    np.testing.assert_array_equal(y.get(), expected)

    negate = get_elwise_kernel("float *x", "x[i] = -x[i]", "negate")
    negate.prepared_call((1, 1), (128, 1, 1), x.gpudata, x.size)
    np.testing.assert_array_equal(x.get(), -2 * np.arange(100))
    module = get_elwise_module([VectorArg(np.float32, "x"), ScalarArg(np.uintp, "n")], "x[i] = 7", "sevens")
    module.get_function("sevens")(x, np.uint64(x.size), block=(128, 1, 1))
    np.testing.assert_array_equal(x.get(), 7)
