"""OpenCL C's math functions of arrays: ``gpukit.cl.clmath`` (``pyopencl.clmath`` through
``gpukit.pyopencl_compat``), with PyOpenCL's names and results.

Each function runs OpenCL C's built-in of the same name over every element, any view (strided,
reversed, offset) included, through gpukit's array engine; the result is a new array of the
argument's dtype, as PyOpenCL makes it (frexp's exponents are int32). The arguments are float32
or float64 arrays (float64 where the device has double precision). exp, log, log10, sqrt, sin,
cos, tan, asin, acos, atan, sinh, cosh and tanh also take complex64 and complex128 arrays
(numpy's results, computed in double: on devices with double precision). PyOpenCL's Bessel and
Hankel functions bessel_jn, bessel_yn and hankel_01 are there for integer orders, computed in
double (gpukit/opencl_bessel.h says how).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from gpukit.cl.array import _NO_QUEUE, Array, _engine, _wait_for_events
from gpukit.cl.array import _spec as _cached_spec

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import numpy.typing as npt

    from gpukit._gpukit import _ElementwiseSpec
    from gpukit._gpukit.cl import CommandQueue

_UNARY = (
    "acos acosh acospi asin asinh asinpi atan atanh atanpi cbrt ceil cos cosh cospi erfc erf exp exp2 "
    "exp10 expm1 fabs floor ilogb lgamma log log2 log10 log1p logb rint round sin sinh sinpi sqrt tan "
    "tanh tanpi tgamma trunc"
).split()

__all__ = _UNARY + ["atan2", "atan2pi", "fmod", "frexp", "ldexp", "modf", "nan", "bessel_jn", "bessel_yn", "hankel_01"]

_C_TYPES: dict[np.dtype[Any], str] = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}


def _spec(
    name: str, params: Iterable[tuple[str, npt.DTypeLike, str]], operation: str, preamble: str = ""
) -> _ElementwiseSpec:
    return _cached_spec(f"gk_clmath_{name}", params, operation, preamble)


# The functions of complex arrays: the engine's, with numpy's results.
_COMPLEX = frozenset("exp log log10 sqrt sin cos tan asin acos atan sinh cosh tanh".split())


def _floating(function: str, *arrays: object) -> None:
    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError(f"clmath.{function}: expected an Array, got {type(a).__name__}")
        if a.dtype.kind == "c":
            raise TypeError(
                f"clmath.{function} has no complex form (numpy has none); complex arrays "
                f"take {', '.join(sorted(_COMPLEX))}"
            )
        if a.dtype not in _C_TYPES:
            raise TypeError(f"clmath.{function}: float32 or float64 arrays, got {a.dtype}")


def _complex(function: str, array: Array, queue: CommandQueue | None) -> Array:
    """function of a complex array: complex_math's, computed in double (rounded once)."""
    queue = queue or array.queue
    if queue is None:
        raise ValueError(_NO_QUEUE)
    if not queue.device.double_fp_config:
        raise TypeError(
            f"clmath.{function} of complex arrays computes in double precision, which {queue.device.name} lacks"
        )
    return array._wrap(array._engine(queue).math(function, array), queue=queue)


def _same_shape(function: str, a: Array, b: Array) -> None:
    if a.shape != b.shape:
        raise ValueError(f"clmath.{function}: the arrays' shapes differ: {a.shape} and {b.shape}")


def _run(
    spec: _ElementwiseSpec, inputs: Sequence[Array | bytes], outputs: Sequence[Array], queue: CommandQueue | None
) -> None:
    """Runs `spec` over `inputs` (Arrays, and scalars as bytes) then `outputs`, the arrays it
    writes (which keep its event)."""
    args = [*inputs, *outputs]
    first = next(a for a in args if isinstance(a, Array))
    queue = queue or first.queue
    _wait_for_events(queue, args)
    event = _engine(queue, first.allocator).run(spec, args)
    for out in outputs:
        out._record(event, queue)


class _Unary(Protocol):
    """A function of one array: f(array, queue=None)."""

    __name__: str

    def __call__(self, array: Array, queue: CommandQueue | None = None) -> Array: ...


def _make_unary(name: str) -> _Unary:
    def f(array: Array, queue: CommandQueue | None = None) -> Array:
        if name in _COMPLEX and isinstance(array, Array) and array.dtype.kind == "c":
            return _complex(name, array, queue)
        _floating(name, array)
        result = array._new_like_me(queue=queue)
        spec = _spec(name, [("x", array.dtype, "in"), ("z", result.dtype, "out")], f"z[i] = {name}(x[i])")
        _run(spec, (array,), (result,), queue)
        return result

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"OpenCL C's {name} of every element of `array`, in a new array of its dtype."
    return f


# Each by name, so that type checkers see them too.
acos = _make_unary("acos")
acosh = _make_unary("acosh")
acospi = _make_unary("acospi")
asin = _make_unary("asin")
asinh = _make_unary("asinh")
asinpi = _make_unary("asinpi")
atan = _make_unary("atan")
atanh = _make_unary("atanh")
atanpi = _make_unary("atanpi")
cbrt = _make_unary("cbrt")
ceil = _make_unary("ceil")
cos = _make_unary("cos")
cosh = _make_unary("cosh")
cospi = _make_unary("cospi")
erfc = _make_unary("erfc")
erf = _make_unary("erf")
exp = _make_unary("exp")
exp2 = _make_unary("exp2")
exp10 = _make_unary("exp10")
expm1 = _make_unary("expm1")
fabs = _make_unary("fabs")
floor = _make_unary("floor")
ilogb = _make_unary("ilogb")
lgamma = _make_unary("lgamma")
log = _make_unary("log")
log2 = _make_unary("log2")
log10 = _make_unary("log10")
log1p = _make_unary("log1p")
logb = _make_unary("logb")
rint = _make_unary("rint")
round = _make_unary("round")
sin = _make_unary("sin")
sinh = _make_unary("sinh")
sinpi = _make_unary("sinpi")
sqrt = _make_unary("sqrt")
tan = _make_unary("tan")
tanh = _make_unary("tanh")
tanpi = _make_unary("tanpi")
tgamma = _make_unary("tgamma")
trunc = _make_unary("trunc")


def _binary(name: str, operation: str, y: Array, x: Array, queue: CommandQueue | None) -> Array:
    _floating(name, y, x)
    _same_shape(name, y, x)
    result = y._new_like_me(queue=queue)
    spec = _spec(name, [("y", y.dtype, "in"), ("x", x.dtype, "in"), ("z", result.dtype, "out")], operation)
    _run(spec, (y, x), (result,), queue)
    return result


def atan2(y: Array, x: Array, queue: CommandQueue | None = None) -> Array:
    """atan2(y, x) of every pair of elements."""
    return _binary("atan2", "z[i] = atan2(y[i], x[i])", y, x, queue)


def atan2pi(y: Array, x: Array, queue: CommandQueue | None = None) -> Array:
    """atan2pi(y, x) of every pair of elements."""
    return _binary("atan2pi", "z[i] = atan2pi(y[i], x[i])", y, x, queue)


def fmod(arg: Array, mod: Array, queue: CommandQueue | None = None) -> Array:
    """The remainder of arg / mod, elementwise (the sign of arg), as C's fmod."""
    return _binary("fmod", "z[i] = fmod(y[i], x[i])", arg, mod, queue)


def ldexp(significand: Array, exponent: Array, queue: CommandQueue | None = None) -> Array:
    """significand * 2 ** exponent, elementwise (exponent converted to int)."""
    _floating("ldexp", significand)
    if not isinstance(exponent, Array) or exponent.dtype.kind not in "iuf":
        raise TypeError("clmath.ldexp: the exponent must be a real Array")
    _same_shape("ldexp", significand, exponent)
    result = significand._new_like_me(queue=queue)
    spec = _spec(
        "ldexp",
        [("s", significand.dtype, "in"), ("e", exponent.dtype, "in"), ("z", result.dtype, "out")],
        "z[i] = ldexp(s[i], (int) e[i])",
    )
    _run(spec, (significand, exponent), (result,), queue)
    return result


def frexp(arg: Array, queue: CommandQueue | None = None) -> tuple[Array, Array]:
    """(significand, exponent) with arg = significand * 2 ** exponent, exponent int32."""
    _floating("frexp", arg)
    significand = arg._new_like_me(queue=queue)
    exponent = arg._new_like_me(queue=queue, dtype=np.int32)
    spec = _spec(
        "frexp",
        [("x", arg.dtype, "in"), ("s", arg.dtype, "out"), ("e", np.int32, "out")],
        "int exponent; s[i] = frexp(x[i], &exponent); e[i] = exponent",
    )
    _run(spec, (arg,), (significand, exponent), queue)
    return significand, exponent


def modf(arg: Array, queue: CommandQueue | None = None) -> tuple[Array, Array]:
    """(fractional part, integral part) of every element, both with arg's sign."""
    _floating("modf", arg)
    fracpart = arg._new_like_me(queue=queue)
    intpart = arg._new_like_me(queue=queue)
    c_type = _C_TYPES[arg.dtype]
    spec = _spec(
        "modf",
        [("x", arg.dtype, "in"), ("f", arg.dtype, "out"), ("w", arg.dtype, "out")],
        f"{c_type} whole; f[i] = modf(x[i], &whole); w[i] = whole",
    )
    _run(spec, (arg,), (fracpart, intpart), queue)
    return fracpart, intpart


def nan(array: Array, queue: CommandQueue | None = None) -> Array:
    """OpenCL C's nan(code) of every element (an unsigned integer array: the NaN's payload)."""
    if not isinstance(array, Array) or array.dtype.kind != "u" or array.dtype.itemsize not in (4, 8):
        raise TypeError("clmath.nan: a uint32 array (float32 NaNs) or a uint64 array (float64 NaNs)")
    result = array._new_like_me(queue=queue, dtype=np.float32 if array.dtype.itemsize == 4 else np.float64)
    spec = _spec("nan", [("x", array.dtype, "in"), ("z", result.dtype, "out")], "z[i] = nan(x[i])")
    _run(spec, (array,), (result,), queue)
    return result


# The Bessel functions: gpukit/opencl_bessel.h (which says how they are computed), in double.
_BESSEL = "#include <gpukit/opencl_bessel.h>\n"


def _order(function: str, n: int | np.integer[Any]) -> np.int32:
    """n as a C int: Bessel functions of integer order only."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(
            f"clmath.{function}: the order n must be an integer (gpukit computes integer orders "
            f"only), got {type(n).__name__}"
        )
    if not -(2**31) < int(n) < 2**31:
        raise ValueError(f"clmath.{function}: the order {n} is out of the range of a C int")
    return np.int32(n)


def _needs_double(function: str, array: Array, queue: CommandQueue | None) -> None:
    if not isinstance(array, Array):
        raise TypeError(f"clmath.{function}: expected an Array, got {type(array).__name__}")
    device_queue = queue or array.queue
    if device_queue is None:
        raise ValueError(_NO_QUEUE)
    device = device_queue.device
    if not device.double_fp_config:
        raise TypeError(f"clmath.{function} computes in double precision, which {device.name} lacks")


def bessel_jn(n: int | np.integer[Any], x: Array, queue: CommandQueue | None = None) -> Array:
    """J_n(x), the Bessel function of the first kind of integer order n, of every element of a
    real (float32, float64) or complex (complex64, complex128) array, computed in double; the
    result has x's dtype."""
    order = _order("bessel_jn", n)
    _needs_double("bessel_jn", x, queue)
    result = x._new_like_me(queue=queue)
    if x.dtype.kind == "c":
        c = "cfloat_t" if x.dtype == np.complex64 else "cdouble_t"
        operation = (
            f"const cdouble_t v = gk_bessel_jn_complex(order, gk_cdouble_new(x[i].real, x[i].imag)); "
            f"{c} r; r.real = v.real; r.imag = v.imag; z[i] = r"
        )
    else:
        _floating("bessel_jn", x)
        operation = "z[i] = gk_bessel_jn(order, x[i])"
    spec = _spec(
        "bessel_jn",
        [("order", np.int32, "scalar"), ("x", x.dtype, "in"), ("z", result.dtype, "out")],
        operation,
        _BESSEL,
    )
    _run(spec, (order.tobytes(), x), (result,), queue)
    return result


def bessel_yn(n: int | np.integer[Any], x: Array, queue: CommandQueue | None = None) -> Array:
    """Y_n(x), the Bessel function of the second kind of integer order n, of every element of a
    float32 or float64 array (NaN below 0, -inf at 0), computed in double."""
    order = _order("bessel_yn", n)
    _needs_double("bessel_yn", x, queue)
    if x.dtype.kind == "c":
        raise TypeError(
            "clmath.bessel_yn takes real arrays (as PyOpenCL's: no complex Y_n); complex arguments "
            "take hankel_01 (H = J + iY) or bessel_jn"
        )
    _floating("bessel_yn", x)
    result = x._new_like_me(queue=queue)
    spec = _spec(
        "bessel_yn",
        [("order", np.int32, "scalar"), ("x", x.dtype, "in"), ("z", result.dtype, "out")],
        "z[i] = gk_bessel_yn(order, x[i])",
        _BESSEL,
    )
    _run(spec, (order.tobytes(), x), (result,), queue)
    return result


def hankel_01(x: Array, queue: CommandQueue | None = None) -> tuple[Array, Array]:
    """(H0, H1): the Hankel functions of the first kind H^(1)_0 and H^(1)_1 of every element of
    a complex64 or complex128 array (principal branch), each a new array of x's dtype."""
    _needs_double("hankel_01", x, queue)
    if x.dtype.kind != "c":
        raise TypeError(f"clmath.hankel_01 takes complex arrays (complex64, complex128), got {x.dtype}")
    h0 = x._new_like_me(queue=queue)
    h1 = x._new_like_me(queue=queue)
    c = "cfloat_t" if x.dtype == np.complex64 else "cdouble_t"
    operation = (
        f"cdouble_t a, b; gk_hankel_01(gk_cdouble_new(x[i].real, x[i].imag), &a, &b); "
        f"{c} r; r.real = a.real; r.imag = a.imag; h0[i] = r; r.real = b.real; r.imag = b.imag; h1[i] = r"
    )
    spec = _spec(
        "hankel_01", [("x", x.dtype, "in"), ("h0", x.dtype, "out"), ("h1", x.dtype, "out")], operation, _BESSEL
    )
    _run(spec, (x,), (h0, h1), queue)
    return h0, h1
