"""Elementwise maths on GPUArrays (PyCUDA's ``pycuda.cumath``).

Each function is one call into C++ and one kernel (src/array/math_functions.cpp): results
have numpy's dtypes (float32 stays float32, int32 gives float64, complex stays complex;
bool and 8-bit integers give float32 where numpy gives float16), come from the input's
allocator or the context's memory pool, and are queued on ``stream`` (default: the input's
stream). Inputs may be any GPUArray, non-contiguous views included. Real results are within
2 ulp of the exact ones; see docs/arrays.md, "cumath", for complex accuracy and the special
values (C99's, as numpy's).

The functions of one array take ``out=`` (a GPUArray of the result's dtype and shape, also
the input itself) and ``stream=`` as keywords; PyCUDA's older positional second argument
(a Stream or an out array) still works and warns, as PyCUDA does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from gpukit import _gpukit
from gpukit._gpukit import _MathFunction
from gpukit._warnings import warn

if TYPE_CHECKING:
    from gpukit._gpukit import Stream
    from gpukit._typing import StreamLike
    from gpukit.gpuarray import GPUArray

__all__ = [
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
    "fmod",
    "frexp",
    "ldexp",
    "modf",
]

_cumath = _gpukit._cumath

_DESCRIPTIONS = {
    "fabs": "The absolute value of each element, as a float (numpy.fabs; complex arrays are refused).",
    "ceil": "The smallest integer not below each element (numpy.ceil; integers are returned as they are).",
    "floor": "The largest integer not above each element (numpy.floor; integers are returned as they are).",
    "exp": "e to the power of each element (numpy.exp).",
    "log": "The natural logarithm of each element (numpy.log; the principal branch for complex numbers).",
    "log10": "The base-10 logarithm of each element (numpy.log10).",
    "sqrt": "The square root of each element (numpy.sqrt; NaN for negative reals, the principal root for "
    "complex numbers).",
    "sin": "The sine of each element (numpy.sin).",
    "cos": "The cosine of each element (numpy.cos).",
    "tan": "The tangent of each element (numpy.tan).",
    "asin": "The inverse sine of each element (numpy.arcsin).",
    "acos": "The inverse cosine of each element (numpy.arccos).",
    "atan": "The inverse tangent of each element (numpy.arctan).",
    "sinh": "The hyperbolic sine of each element (numpy.sinh).",
    "cosh": "The hyperbolic cosine of each element (numpy.cosh).",
    "tanh": "The hyperbolic tangent of each element (numpy.tanh).",
}


class _OneArrayFunction(Protocol):
    """cumath's functions of one array, as _one_array_function makes them."""

    def __call__(
        self,
        array: GPUArray,
        stream_or_out: Stream | GPUArray | None = None,
        *,
        out: GPUArray | None = None,
        stream: StreamLike | None = None,
    ) -> GPUArray: ...


# (The functions' results are the GPUArrays, or tuples of them, that _cumath makes; its stub
# says object.)


def _one_array_function(name: str) -> _OneArrayFunction:
    function: _MathFunction = getattr(_MathFunction, name)

    def f(
        array: GPUArray,
        stream_or_out: Stream | GPUArray | None = None,
        *,
        out: GPUArray | None = None,
        stream: StreamLike | None = None,
    ) -> GPUArray:
        if stream_or_out is not None:
            # PyCUDA's positional form: a Stream, or the output array.
            warn("please use 'out' or 'stream' keyword arguments", DeprecationWarning)
            keyword = "stream" if isinstance(stream_or_out, _gpukit.Stream) else "out"
            if (stream if keyword == "stream" else out) is not None:
                raise TypeError(f"{name}(): {keyword} given both by position and by keyword")
            if keyword == "stream":
                stream = stream_or_out  # type: ignore[assignment]  # (a Stream: isinstance above)
            else:
                out = stream_or_out  # type: ignore[assignment]  # (not a Stream, so the out array)
        return _cumath(function, array, None, out, stream)  # type: ignore[return-value]

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        f"{name}(array, *, out=None, stream=None)\n\n{_DESCRIPTIONS[name]}\n\n"
        "Returns a new GPUArray, or `out` filled with the results."
    )
    return f


fabs = _one_array_function("fabs")
ceil = _one_array_function("ceil")
floor = _one_array_function("floor")
exp = _one_array_function("exp")
log = _one_array_function("log")
log10 = _one_array_function("log10")
sqrt = _one_array_function("sqrt")
sin = _one_array_function("sin")
cos = _one_array_function("cos")
tan = _one_array_function("tan")
asin = _one_array_function("asin")
acos = _one_array_function("acos")
atan = _one_array_function("atan")
sinh = _one_array_function("sinh")
cosh = _one_array_function("cosh")
tanh = _one_array_function("tanh")


def fmod(arg: GPUArray, mod: GPUArray, stream: StreamLike | None = None) -> GPUArray:
    """The remainder of ``arg / mod`` for each pair of elements, with arg's sign (numpy.fmod;
    the arrays broadcast, integers give 0 where mod is 0)."""
    return _cumath(_MathFunction.fmod, arg, mod, None, stream)  # type: ignore[return-value]


def frexp(arg: GPUArray, stream: StreamLike | None = None) -> tuple[GPUArray, GPUArray]:
    """A tuple ``(significands, exponents)`` with ``arg == significand * 2**exponent`` and
    ``0.5 <= |significand| < 1`` (numpy.frexp); the exponents are in arg's floating dtype, as in
    PyCUDA (numpy's are int32)."""
    return _cumath(_MathFunction.frexp, arg, None, None, stream)  # type: ignore[return-value]


def ldexp(significand: GPUArray, exponent: GPUArray, stream: StreamLike | None = None) -> GPUArray:
    """``significand * 2**exponent`` for each pair of elements (numpy.ldexp); the exponents may
    be integers or, as in PyCUDA, floats (truncated toward zero)."""
    return _cumath(_MathFunction.ldexp, significand, exponent, None, stream)  # type: ignore[return-value]


def modf(arg: GPUArray, stream: StreamLike | None = None) -> tuple[GPUArray, GPUArray]:
    """A tuple ``(fracpart, intpart)``: the fractional and integral parts of each element,
    both with its sign (numpy.modf)."""
    return _cumath(_MathFunction.modf, arg, None, None, stream)  # type: ignore[return-value]
