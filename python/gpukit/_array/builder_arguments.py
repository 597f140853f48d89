"""Checks of what the kernel builders are given (ElementwiseKernel, ReductionKernel, the scan
kernels, PyCUDA's kernel factories): each error names the argument and what it expects, and
comes where the builder is called, not from numpy or from the compiler at the first launch."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import numpy.typing as npt

from gpukit import _gpukit

#: A neutral element as the builders take it: C code, or a real number (numpy's scalars
#: included) that neutral_text() spells in C.
NeutralLike = str | float | np.integer[Any] | np.floating[Any] | np.bool_


def text(value: object, what: str) -> str:
    """`value`, a str; TypeError naming `what` otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__} {value!r}")
    return value


def argument_name(name: object, language: str) -> str:
    """`name`, when it can name a parameter of a kernel in `language` ("cuda" or "opencl"):
    TypeError for a non-str, ValueError for a name that is not a C identifier or is a keyword
    or type name of the language (a kernel's source would fail to compile)."""
    if not isinstance(name, str):
        raise TypeError(f"argument name must be a str, got {type(name).__name__} {name!r}")
    problem = _gpukit._kernel_name_problem(name, language)
    if problem:
        raise ValueError(f"argument name {problem}")
    return name


def dtype(value: npt.DTypeLike | None, what: str) -> np.dtype[Any]:
    """`value` as a numpy dtype; TypeError naming `what` for None (which numpy reads as
    float64) and for what numpy cannot read."""
    if value is None:
        raise TypeError(f"{what}: expected a numpy dtype, got None")
    try:
        return np.dtype(value)
    except TypeError as e:
        raise TypeError(f"{what}: expected a numpy dtype, got {value!r} ({e})") from None


def neutral_text(neutral: NeutralLike, dtype_: np.dtype[Any], what: str = "neutral") -> str:
    """The neutral element as C code for elements of `dtype_`: a str as written (blank ones are
    refused where the kernel is made), a number spelled in C when `dtype_` holds it (a bool
    only for bool elements). TypeError for other types, ValueError for a number that does
    not fit or has no C spelling (NaN, infinities: write those as C expressions)."""
    if isinstance(neutral, str):
        return neutral
    if isinstance(neutral, (bool, np.bool_)):
        if dtype_.kind != "b":
            raise TypeError(
                f"{what} {neutral!r} is a bool, but the elements are {dtype_}; give a number or a C expression (a str)"
            )
        return "true" if neutral else "false"
    if not isinstance(neutral, numbers.Real):
        raise TypeError(
            f"{what} must be a C expression (a str) or a real number, got {type(neutral).__name__} {neutral!r}"
        )
    if dtype_.kind not in "biufc":
        raise TypeError(
            f"{what} {neutral!r}: a number is no value of {dtype_}; write the neutral {dtype_} as a "
            f"C expression (a str)"
        )
    if not isinstance(neutral, numbers.Integral) and not np.isfinite(float(neutral)):
        raise ValueError(f"{what} {neutral!r} has no C spelling; write it as a C expression (a str)")
    if dtype_.kind in "biu":
        return _integer_text(neutral, dtype_, what)
    return _floating_text(neutral, dtype_, what)


def _integer_text(neutral: float | np.integer[Any] | np.floating[Any], dtype_: np.dtype[Any], what: str) -> str:
    if not isinstance(neutral, numbers.Integral) and not float(neutral).is_integer():
        raise ValueError(f"{what} {neutral!r} is not an integer, but the elements are {dtype_}")
    number = int(neutral)
    low, high = (0, 1) if dtype_.kind == "b" else (int(np.iinfo(dtype_).min), int(np.iinfo(dtype_).max))
    if not low <= number <= high:
        raise ValueError(f"{what} {number} does not fit the elements' dtype {dtype_} (from {low} to {high})")
    return str(number)


def _floating_text(neutral: float | np.integer[Any] | np.floating[Any], dtype_: np.dtype[Any], what: str) -> str:
    real = np.empty(0, dtype_).real.dtype  # a complex dtype's parts
    try:
        value = float(neutral)
    except OverflowError:  # an int beyond any float
        value = float("inf")
    with np.errstate(over="ignore"):
        fits = np.isfinite(np.array(value, real))
    if not fits:
        raise ValueError(f"{what} {neutral!r} does not fit the elements' dtype {dtype_}")
    return repr(value)
