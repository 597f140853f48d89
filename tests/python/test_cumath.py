"""gpukit.cumath (PyCUDA's pycuda.cumath): CPU checks of result types, signatures and what is
refused; GPU checks of every function against numpy, measured in ulp.

Accuracy is measured against the exact result rounded to the dtype: numpy computing in the
next wider type (float64 for float32 and complex64, long double for float64 and complex128
where long double is wider), since numpy's own float32 functions may be a few ulp off.
"""

import inspect
import math
import warnings

import numpy as np
import pytest

import gpukit.cumath as cumath
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from conftest import run_in_fresh_process
from gpukit import _gpukit

UNARY = [
    "fabs",
    "ceil",
    "floor",
    "exp",
    "log",
    "log10",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
]
NUMPY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan"}
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
COMPLEX_DTYPES = [np.complex64, np.complex128]
NO_COMPLEX = {"fabs", "ceil", "floor"}


def numpy_function(name):
    return getattr(np, NUMPY_NAMES.get(name, name))


def without_float16(dtype):
    """numpy's result dtype as gpukit gives it: float32 where numpy gives float16."""
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)


def function_code(name):
    return getattr(_gpukit._MathFunction, name)


# ---- CPU


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", REAL_DTYPES + COMPLEX_DTYPES)
def test_result_types_are_numpys(name, dtype):
    if np.dtype(dtype).kind == "c" and name in NO_COMPLEX:
        with pytest.raises(TypeError, match=f"{name} is not supported for {np.dtype(dtype).name}"):
            _gpukit._cumath_types(function_code(name), np.dtype(dtype).name)
        return
    with np.errstate(all="ignore"):
        expected = without_float16(numpy_function(name)(np.ones(2, dtype)).dtype)
    assert _gpukit._cumath_types(function_code(name), np.dtype(dtype).name) == [expected.name]


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_two_result_and_two_operand_types_are_numpys(dtype):
    name = np.dtype(dtype).name
    for function in ("frexp", "modf"):
        significand = without_float16(np.modf(np.ones(2, dtype))[0].dtype).name
        # PyCUDA gives frexp's exponents in the significands' dtype (numpy: int32).
        assert _gpukit._cumath_types(function_code(function), name) == [significand, significand]
    with np.errstate(all="ignore"):
        for other in REAL_DTYPES:
            expected = np.fmod(np.ones(2, dtype), np.ones(2, other)).dtype
            assert _gpukit._cumath_types(function_code("fmod"), name, np.dtype(other).name) == [
                without_float16(expected).name
            ], other
        expected = without_float16(np.ldexp(np.ones(2, dtype), np.ones(2, np.int32)).dtype).name
        for exponent in REAL_DTYPES:  # integers as numpy, floats as PyCUDA (truncated)
            assert _gpukit._cumath_types(function_code("ldexp"), name, np.dtype(exponent).name) == [expected]


def test_complex_operands_numpy_lacks_are_type_errors():
    for function in ("frexp", "modf"):
        with pytest.raises(TypeError, match=f"{function} is not supported for complex64"):
            _gpukit._cumath_types(function_code(function), "complex64")
    for x, y in (("complex64", "float32"), ("float64", "complex128")):
        with pytest.raises(TypeError, match="fmod is not supported"):
            _gpukit._cumath_types(function_code("fmod"), x, y)
        with pytest.raises(TypeError, match="ldexp is not supported"):
            _gpukit._cumath_types(function_code("ldexp"), x, y)


def test_signatures_are_pycudas():
    for name in UNARY:
        parameters = inspect.signature(getattr(cumath, name)).parameters
        assert list(parameters) == ["array", "stream_or_out", "out", "stream"], name
        assert parameters["out"].kind is inspect.Parameter.KEYWORD_ONLY
        assert getattr(cumath, name).__name__ == name and name in cumath.__all__
    assert list(inspect.signature(cumath.fmod).parameters) == ["arg", "mod", "stream"]
    assert list(inspect.signature(cumath.ldexp).parameters) == ["significand", "exponent", "stream"]
    assert list(inspect.signature(cumath.frexp).parameters) == ["arg", "stream"]
    assert list(inspect.signature(cumath.modf).parameters) == ["arg", "stream"]


def test_bad_arguments_are_refused_before_any_device_work():
    with pytest.raises(TypeError, match="unexpected keyword argument 'order'"):
        cumath.sin(None, order="C")
    with pytest.raises(TypeError, match=r"cumath.sin\(x\): expected a GPUArray, got numpy.ndarray"):
        cumath.sin(np.ones(3))
    with pytest.raises(TypeError, match=r"cumath.fmod\(x, y\): expected a GPUArray, got float"):
        cumath.fmod(1.5, 2.0)
    with pytest.raises(TypeError):
        cumath.frexp(np.ones(3), out=None)


def test_pycuda_cumath_is_gpukit_cumath():
    out = run_in_fresh_process("""
        import gpukit.pycuda_compat
        import pycuda.cumath
        from pycuda import cumath
        import gpukit.cumath
        assert pycuda.cumath is cumath is gpukit.cumath
        print("ok")
    """)
    assert out.strip() == "ok"


def test_bench_cases_compare_gpukit_with_cupy_and_pycuda():
    from gpukit.bench import cases, cumath as bench

    by_name = {case.name: case for case in cases.ALL}
    assert bench.BIG_COUNT == 1 << 26 and bench.BIG_BYTES == 2 * 4 * (1 << 26)
    for name in ("sin", "exp"):
        big, few = by_name[f"cumath_{name}"], by_name[f"cumath_{name}_small"]
        assert big.higher_is_better and big.unit == "GB/s"
        assert [side.name for side in big.sides] == [
            "raw cuMemcpyDtoD, same bytes (C++)",
            f"gpukit cumath.{name}",
            f"CuPy cp.{name}",
            f"PyCUDA cumath.{name}",
        ]
        assert not few.higher_is_better and few.unit == "µs per operation" and "1000 float32" in few.description
        assert [side.name for side in few.sides] == ["CuPy", "gpukit", "PyCUDA"]


# ---- GPU

gpu = pytest.mark.gpu


@gpu
def test_bench_sides_measure():
    out = run_in_fresh_process("""
        from gpukit.bench import cumath
        settings = {"repeats": 2, "quick": True}
        for samples in (cumath.big_side("gpukit", "sin")(settings), cumath.small_side("gpukit", "exp")(settings),
                        cumath.raw_dtod(settings)):
            assert len(samples) == 2 and all(sample > 0 for sample in samples), samples
        print("measured")
    """)
    assert "measured" in out


LONG_DOUBLE_IS_WIDER = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant


def exact(name, x):
    """numpy's `name` of x computed in a wider type and rounded to the result's dtype."""
    function = numpy_function(name)
    kind = np.dtype(x.dtype).kind
    with np.errstate(all="ignore"):
        if kind == "c":
            wide = np.clongdouble if x.dtype == np.complex128 and LONG_DOUBLE_IS_WIDER else np.complex128
            return function(x.astype(wide)).astype(x.dtype)
        result_dtype = without_float16(function(np.ones(1, x.dtype)).dtype)
        if name in ("ceil", "floor") and kind in "biu":
            return x.copy()
        wide = np.longdouble if result_dtype == np.float64 and LONG_DOUBLE_IS_WIDER else np.float64
        return function(x.astype(wide)).astype(result_dtype)


def ulp_distance(a, b):
    """How many representable numbers apart a and b are (0 between +0 and -0 and between two
    NaNs; the largest integer between a NaN and a number)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.dtype.kind == "f", (a.dtype, b.dtype)
    bits = a.dtype.itemsize * 8 - 1
    unsigned = np.uint32 if a.dtype == np.float32 else np.uint64
    ia, ib = a.view(unsigned).astype(np.uint64), b.view(unsigned).astype(np.uint64)
    magnitude = np.uint64((1 << bits) - 1)
    ma, mb = ia & magnitude, ib & magnitude
    same_sign = (ia >> np.uint64(bits)) == (ib >> np.uint64(bits))
    distance = np.where(same_sign, np.where(ma > mb, ma - mb, mb - ma), ma + mb)
    distance = np.where(np.isnan(a) & np.isnan(b), 0, distance)
    return np.where(np.isnan(a) != np.isnan(b), np.iinfo(np.uint64).max, distance)


def assert_within_ulp(result, expected, tolerance, what):
    distance = ulp_distance(result, expected)
    worst = int(np.argmax(distance)) if distance.size else 0
    assert distance.size == 0 or distance.max() <= tolerance, (
        f"{what}: {distance.max()} ulp at {worst}: {result.ravel()[worst]!r}, exact {expected.ravel()[worst]!r}"
    )
    # Zeros keep the exact result's sign (sin(-0) = -0, ceil(-0.5) = -0, fabs(-0) = +0).
    zeros = expected == 0
    np.testing.assert_array_equal(np.signbit(result[zeros]), np.signbit(expected[zeros]), err_msg=what)


# The largest error of complex128 results, in ulp of the result's larger part: the formulas
# multiply two or more of CUDA's double functions (each up to 1-2 ulp off). numpy's own
# complex128 functions (the C library's) are as far off: up to 5 ulp for tan and tanh.
COMPLEX128_TOLERANCE = {"exp": 3.5, "log": 3.5, "log10": 3.5, "sqrt": 3, "tan": 7, "tanh": 7}


def assert_complex_within_ulp(result, expected, tolerance, what):
    """Each part within `tolerance` ulp of the exact result's larger part (the normwise error
    of complex functions); infinities and NaNs where the exact result has them."""
    part = np.float32 if result.dtype == np.complex64 else np.float64
    larger = np.maximum(abs(expected.real), abs(expected.imag)).astype(part)
    finite = np.isfinite(larger) & (larger > 0)
    ulp = np.spacing(np.where(finite, larger, 1).astype(part)).astype(np.float64)
    for get in (np.real, np.imag):
        r, e = get(result), get(expected)
        np.testing.assert_array_equal(np.isnan(r), np.isnan(e), err_msg=what)
        np.testing.assert_array_equal(np.isinf(r) & (r > 0), np.isinf(e) & (e > 0), err_msg=what)
        error = np.where(finite & np.isfinite(e), abs(r.astype(np.float64) - e.astype(np.float64)), 0) / ulp
        worst = int(np.argmax(error)) if error.size else 0
        assert error.size == 0 or error.max() <= tolerance, (
            f"{what}: {error.max():.2f} ulp at {worst}: {result.ravel()[worst]!r}, exact {expected.ravel()[worst]!r}"
        )


def real_inputs(name, dtype, n, seed):
    """Random numbers where the function is interesting, plus its edge values."""
    rng = np.random.default_rng(seed)
    big = 1e30 if np.dtype(dtype) == np.float32 else 1e200
    sign = rng.choice([-1.0, 1.0], n)
    values = {
        "exp": rng.uniform(-120, 120, n),
        "log": 10.0 ** rng.uniform(-30, 30, n),
        "log10": 10.0 ** rng.uniform(-30, 30, n),
        "sqrt": 10.0 ** rng.uniform(-30, 30, n),
        "sin": np.where(rng.random(n) < 0.8, rng.uniform(-10, 10, n), sign * 10.0 ** rng.uniform(0, 30, n)),
        "asin": rng.uniform(-1, 1, n),
        "acos": rng.uniform(-1, 1, n),
        "atan": sign * 10.0 ** rng.uniform(-10, 10, n),
        "sinh": rng.uniform(-100, 100, n),
        "cosh": rng.uniform(-100, 100, n),
        "tanh": rng.uniform(-20, 20, n),
    }
    values["cos"] = values["tan"] = values["sin"]
    x = values.get(name, rng.uniform(-1e5, 1e5, n) * rng.choice([1, 1e-5], n))
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e-40, -1e-40, big, -big, np.inf, -np.inf, np.nan]
    return np.concatenate([x, edges]).astype(dtype)


@gpu
@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_real_functions_are_within_2_ulp(pool_ctx, name, dtype):
    host = real_inputs(name, dtype, 4096, UNARY.index(name))
    result = getattr(cumath, name)(gpuarray.to_gpu(host))
    assert result.dtype == dtype and result.shape == host.shape
    assert_within_ulp(result.get(), exact(name, host), 2, f"{name} {np.dtype(dtype).name}")


@gpu
@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [t for t in REAL_DTYPES if np.dtype(t).kind != "f"])
def test_integer_and_bool_inputs(pool_ctx, name, dtype):
    signed = np.dtype(dtype).kind == "i"
    if name in ("asin", "acos"):  # their domain: -1, 0, 1
        low, high = (-1 if signed else 0), 1
    else:
        low, high = (
            (0, 1) if np.dtype(dtype).kind == "b" else (max(np.iinfo(dtype).min, -1000), min(np.iinfo(dtype).max, 1000))
        )
    host = np.random.default_rng(5).integers(low, high, 1003, endpoint=True).astype(dtype)
    result = getattr(cumath, name)(gpuarray.to_gpu(host))
    expected = exact(name, host)
    assert result.dtype == expected.dtype
    if expected.dtype.kind == "f":
        assert_within_ulp(result.get(), expected, 2, f"{name} {np.dtype(dtype).name}")
    else:
        np.testing.assert_array_equal(result.get(), expected)


def complex_inputs(dtype, n, seed):
    rng = np.random.default_rng(seed)
    parts = []
    for scale in (1e-3, 1, 3, 30):
        parts.append(rng.uniform(-scale, scale, n) + 1j * rng.uniform(-scale, scale, n))
    t = rng.uniform(0, 2 * np.pi, n)
    parts.append((1 + rng.uniform(-1e-6, 1e-6, n)) * np.exp(1j * t))  # |z| near 1
    parts.append(rng.choice([-1, 1], n) * (1 + rng.uniform(-1e-4, 1e-4, n)) + 1j * rng.uniform(-1e-4, 1e-4, n))
    parts.append(rng.uniform(-1e-3, 1e-3, n) + 1j * (np.pi / 2 + rng.uniform(-1e-3, 1e-3, n)))  # tanh's pole
    return np.concatenate(parts).astype(dtype)


@gpu
@pytest.mark.parametrize("name", [n for n in UNARY if n not in NO_COMPLEX])
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_complex_functions(pool_ctx, name, dtype):
    host = complex_inputs(dtype, 1024, UNARY.index(name))
    result = getattr(cumath, name)(gpuarray.to_gpu(host))
    assert result.dtype == dtype
    # complex64 is computed in complex128 and rounded once.
    tolerance = 2 if dtype == np.complex64 else COMPLEX128_TOLERANCE.get(name, 4.5)
    assert_complex_within_ulp(result.get(), exact(name, host), tolerance, f"{name} {np.dtype(dtype).name}")


def special_parts(dtype):
    big, tiny = (1e30, 1e-40) if dtype == np.complex64 else (1e300, 5e-324)
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, tiny, big, -big, np.inf, -np.inf, np.nan, 3.0, np.pi / 2]


@gpu
@pytest.mark.parametrize("name", [n for n in UNARY if n not in NO_COMPLEX])
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_complex_special_values_are_numpys(pool_ctx, name, dtype):
    parts = special_parts(dtype)
    host = np.array([complex(a, b) for a in parts for b in parts], dtype)
    result = getattr(cumath, name)(gpuarray.to_gpu(host)).get()
    with np.errstate(all="ignore"):
        expected = numpy_function(name)(host.astype(np.complex128)).astype(dtype)
    part = np.float32 if dtype == np.complex64 else np.float64
    for get in (np.real, np.imag):
        r, e = get(result).astype(part), get(expected).astype(part)
        tiny = (abs(r) < np.finfo(part).tiny) & (abs(e) < np.finfo(part).tiny) & ((r != 0) | (e != 0))
        # Subnormal results may differ in their last places (the C library flushes some);
        # the accuracy of finite ones is test_complex_functions' business.
        close = tiny | (np.isfinite(r) & np.isfinite(e) & (r != 0) & (e != 0) & (ulp_distance(r, e) <= 16))
        same = (np.isnan(r) & np.isnan(e)) | ((r == e) & (np.signbit(r) == np.signbit(e))) | close
        bad = np.flatnonzero(~same)
        assert bad.size == 0, [(host[k], result[k], expected[k]) for k in bad[:10]]


@gpu
@pytest.mark.parametrize("n", [0, 1, 1000, 1025, (1 << 20) + 3])
def test_sizes(pool_ctx, n):
    host = np.random.default_rng(n).uniform(-4, 4, n).astype(np.float32)
    for name in ("sin", "exp", "floor"):
        assert_within_ulp(getattr(cumath, name)(gpuarray.to_gpu(host)).get(), exact(name, host), 2, f"{name} {n}")


@gpu
def test_non_contiguous_inputs_and_result_order(pool_ctx):
    host = np.random.default_rng(1).uniform(-3, 3, (37, 41))
    a = gpuarray.to_gpu(host)
    for view, host_view in ((a[::-3, 1::2], host[::-3, 1::2]), (a.T, host.T), (a[5], host[5]), (a[:, 7], host[:, 7])):
        for name in ("exp", "atan", "fabs", "cosh"):
            assert_within_ulp(getattr(cumath, name)(view).get(), exact(name, host_view), 2, name)
    fortran = gpuarray.to_gpu(np.asfortranarray(host))
    result = cumath.sqrt(fortran)
    assert result.flags.f_contiguous and not result.flags.c_contiguous  # numpy keeps the order
    np.testing.assert_array_equal(result.get(), np.sqrt(host))
    assert cumath.sqrt(a[::2]).flags.c_contiguous


@gpu
def test_out(pool_ctx):
    host = np.random.default_rng(2).uniform(-2, 2, 1001).astype(np.float32)
    a = gpuarray.to_gpu(host)
    out = gpuarray.empty_like(a)
    assert cumath.cos(a, out=out) is out
    assert_within_ulp(out.get(), exact("cos", host), 2, "cos out=")
    strided = gpuarray.empty(2002, np.float32)[::2]
    assert cumath.tanh(a, out=strided) is strided
    assert_within_ulp(strided.get(), exact("tanh", host), 2, "tanh strided out=")
    assert cumath.exp(a, out=a) is a  # in place
    assert_within_ulp(a.get(), exact("exp", host), 2, "exp in place")
    # An output overlapping the input in another order: the input is read before it is written.
    b = gpuarray.to_gpu(host)
    cumath.fabs(b[1:], out=b[:-1])
    np.testing.assert_array_equal(b.get()[:-1], np.fabs(host[1:]))
    c = gpuarray.to_gpu(host)
    cumath.floor(c, out=c[::-1])
    np.testing.assert_array_equal(c.get(), np.floor(host)[::-1])
    with pytest.raises(TypeError, match=r"out's dtype float64 differs from the result's float32"):
        cumath.sin(a, out=gpuarray.empty(1001, np.float64))
    with pytest.raises(ValueError, match="out's shape"):
        cumath.sin(a, out=gpuarray.empty(1000, np.float32))
    with pytest.raises(TypeError, match="expected a GPUArray"):
        cumath.sin(a, out=np.empty(1001, np.float32))
    i = gpuarray.to_gpu(np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="out's dtype int32 differs from the result's float64"):
        cumath.sin(i, out=i)


@gpu
def test_stream_and_pycudas_positional_argument(pool_ctx):
    host = np.random.default_rng(3).uniform(-2, 2, 4099)
    a = gpuarray.to_gpu(host)
    stream = drv.Stream()
    result = cumath.sin(a, stream=stream)
    stream.synchronize()
    assert_within_ulp(result.get(), exact("sin", host), 2, "sin stream=")
    out = gpuarray.empty_like(a)
    with pytest.warns(DeprecationWarning, match="use 'out' or 'stream' keyword"):
        assert cumath.sinh(a, out) is out
    assert_within_ulp(out.get(), exact("sinh", host), 2, "sinh positional out")
    with pytest.warns(DeprecationWarning):
        result = cumath.log(a, stream)
    stream.synchronize()
    assert_within_ulp(result.get(), exact("log", host), 2, "log positional stream")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="out given both by position and by keyword"):
            cumath.sin(a, out, out=out)
        with pytest.raises(TypeError, match="stream given both by position and by keyword"):
            cumath.sin(a, stream, stream=stream)
    result = cumath.frexp(a, stream)[0]
    stream.synchronize()
    np.testing.assert_array_equal(result.get(), np.frexp(host)[0])
    with pytest.raises(TypeError, match="stream must be a gpukit.driver.Stream"):
        cumath.exp(a, stream=3)


@gpu
def test_fabs_ceil_floor_of_complex_are_type_errors(pool_ctx):
    z = gpuarray.to_gpu(np.ones(3, np.complex64))
    for name in NO_COMPLEX:
        with pytest.raises(TypeError, match=f"{name} is not supported for complex64"):
            getattr(cumath, name)(z)
    with pytest.raises(TypeError, match="modf is not supported for complex64"):
        cumath.modf(z)


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fmod(pool_ctx, dtype):
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-100, 100, 1021), [5.0, -5.0, 0.0, -0.0, np.inf, np.nan, 1.0, 7.5]]).astype(dtype)
    y = np.concatenate([rng.uniform(-10, 10, 1021), [0.0, 3.0, 2.0, -2.0, 1.0, 1.0, np.inf, -2.0]]).astype(dtype)
    result = cumath.fmod(gpuarray.to_gpu(x), gpuarray.to_gpu(y))
    with np.errstate(all="ignore"):
        expected = np.fmod(x, y)
    assert result.dtype == dtype
    assert_within_ulp(result.get(), expected, 0, "fmod")  # exact, as C's fmod
    # PyCUDA's own check.
    a = gpuarray.arange(1000, dtype=np.float32) / 10
    b = gpuarray.arange(1000, dtype=np.float32) / 45.2 + 0.1
    got, ha, hb = cumath.fmod(a, b).get(), a.get(), b.get()
    assert all(math.fmod(ha[k], hb[k]) == got[k] for k in range(1000))


@gpu
def test_fmod_of_integers_and_broadcasting(pool_ctx):
    x = np.array([[7], [-7], [0], [np.iinfo(np.int32).min]], np.int32)
    y = np.array([[3, -3, 0, 1, -1, 5]], np.int32)
    with np.errstate(all="ignore"):
        expected = np.fmod(x, y)
    result = cumath.fmod(gpuarray.to_gpu(x), gpuarray.to_gpu(y))
    assert result.shape == (4, 6) and result.dtype == np.int32
    np.testing.assert_array_equal(result.get(), expected)
    u = np.array([7, 8, 255, 0], np.uint8)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(
            cumath.fmod(gpuarray.to_gpu(u), gpuarray.to_gpu(u[::-1])).get(), np.fmod(u, u[::-1])
        )
    mixed = cumath.fmod(gpuarray.to_gpu(x.ravel()), gpuarray.to_gpu(np.full(4, 2.5)))
    assert mixed.dtype == np.float64
    np.testing.assert_array_equal(mixed.get(), np.fmod(x.ravel(), 2.5))
    with pytest.raises(ValueError, match="could not be broadcast"):
        cumath.fmod(gpuarray.to_gpu(np.ones(3)), gpuarray.to_gpu(np.ones(4)))


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ldexp(pool_ctx, dtype):
    rng = np.random.default_rng(6)
    x = np.concatenate([rng.uniform(-10, 10, 1015), [0.0, -0.0, 1.0, 1.0, 1.0, np.inf, np.nan, 3.0]]).astype(dtype)
    e = np.concatenate([rng.integers(-160, 160, 1015), [5, 5, -1100, 1100, 100000, 3, 3, -(2**40)]])
    for exponent_dtype in (np.int32, np.int64, np.int8, np.uint16):
        exponents = np.clip(e, np.iinfo(exponent_dtype).min, np.iinfo(exponent_dtype).max).astype(exponent_dtype)
        result = cumath.ldexp(gpuarray.to_gpu(x), gpuarray.to_gpu(exponents))
        with np.errstate(all="ignore"):
            expected = np.ldexp(x, exponents.astype(np.int64).clip(-100000, 100000).astype(np.int32))
        assert result.dtype == dtype
        assert_within_ulp(result.get(), expected, 0, f"ldexp {np.dtype(exponent_dtype).name}")
    # PyCUDA's float exponents: truncated toward zero; NaN gives NaN.
    floats = np.array([1.9, -1.9, 0.5, 3.0, np.nan, 1e30, -1e30, 7.99], dtype)
    significands = np.full(8, 3.0, dtype)
    result = cumath.ldexp(gpuarray.to_gpu(significands), gpuarray.to_gpu(floats)).get()
    with np.errstate(all="ignore"):
        expected = np.ldexp(significands, np.trunc(np.nan_to_num(floats)).clip(-100000, 100000).astype(np.int32))
    expected[4] = np.nan
    assert_within_ulp(result, expected, 0, "ldexp float exponents")
    a = gpuarray.arange(1000, dtype=np.float32)
    b = gpuarray.arange(1000, dtype=np.float32) * 1e-3
    got, ha, hb = cumath.ldexp(a, b).get(), a.get(), b.get()
    assert all(math.ldexp(ha[k], int(hb[k])) == got[k] for k in range(1000))  # PyCUDA's own check


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_frexp_and_modf(pool_ctx, dtype):
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-1e6, 1e6, 1011), rng.uniform(-2, 2, 1011)]).astype(dtype)
    if np.dtype(dtype).kind == "f":
        tiny = np.finfo(dtype).smallest_subnormal
        x = np.concatenate([x, np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -1.0, tiny, 2.5], dtype)])
    g = gpuarray.to_gpu(x)[::-1]
    host = x[::-1]
    significands, exponents = cumath.frexp(g)
    fraction, whole = cumath.modf(g)
    floating = without_float16(np.modf(host)[0].dtype)
    assert significands.dtype == exponents.dtype == fraction.dtype == whole.dtype == floating
    with np.errstate(all="ignore"):
        expected_significands, expected_exponents = np.frexp(host.astype(floating))
        expected_fraction, expected_whole = np.modf(host.astype(floating))
    assert_within_ulp(significands.get(), expected_significands, 0, "frexp significands")
    np.testing.assert_array_equal(exponents.get(), expected_exponents.astype(floating))
    assert_within_ulp(fraction.get(), expected_fraction, 0, "modf fractions")
    assert_within_ulp(whole.get(), expected_whole, 0, "modf integral parts")
