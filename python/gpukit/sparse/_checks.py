"""Argument checks shared by gpukit.sparse: each returns the checked value or raises the
TypeError / ValueError saying what was wrong and what was expected."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import numpy.typing as npt

from gpukit import gpuarray

#: The element types of matrices and vectors.
VALUE_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def scipy_sparse(what: str) -> types.ModuleType:
    """The scipy.sparse module, or ImportError saying that `what` needs scipy."""
    try:
        import scipy.sparse  # type: ignore[import-untyped, import-not-found, unused-ignore]  # optional, untyped here
    except ImportError as error:
        raise ImportError(f"{what} needs scipy (pip install scipy), which is not installed: {error}") from None
    module: types.ModuleType = scipy.sparse
    return module


def value_dtype(dtype: npt.DTypeLike, what: str) -> np.dtype[Any]:
    """`dtype` as one of VALUE_DTYPES."""
    try:
        result = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{what}: expected a dtype, got {dtype!r}") from None
    if result not in VALUE_DTYPES:
        raise TypeError(f"{what}: unsupported dtype {result}; expected one of {', '.join(map(str, VALUE_DTYPES))}")
    return result


def check_vector(operand: object, n: int, dtype: np.dtype[Any] | None, what: str) -> gpuarray.GPUArray:
    """`operand` as a contiguous GPUArray of shape (n,) and of `dtype` (any when None)."""
    if not isinstance(operand, gpuarray.GPUArray):
        raise TypeError(f"{what}: expected a GPUArray, got {type(operand).__name__}")
    if operand.shape != (n,):
        raise ValueError(f"{what}: expected shape ({n},), got {operand.shape}")
    if dtype is not None and operand.dtype != dtype:
        raise TypeError(f"{what}: expected dtype {dtype}, got {operand.dtype}")
    if not operand.flags.c_contiguous:
        raise ValueError(f"{what}: expected a contiguous array, got one with strides {operand.strides}")
    return operand


def check_flag(value: object, what: str) -> bool:
    """`value` as a bool (None, PyCUDA's default of an unset command-line flag, is False)."""
    if value is None:
        return False
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what}: expected a bool, got {type(value).__name__} {value!r}")
    return bool(value)
