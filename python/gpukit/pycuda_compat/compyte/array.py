"""PyCUDA's ``pycuda.compyte.array``: stride helpers, contiguity flags and the common dtype of
two arrays, for any object with shape, strides and dtype (GPUArrays, numpy arrays)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, SupportsInt, cast

import numpy as np

from gpukit.gpuarray import (
    _as_strided as as_strided,  # noqa: F401
    _c_contiguous_strides as c_contiguous_strides,  # noqa: F401
    _f_contiguous_strides as f_contiguous_strides,
    _get_common_dtype,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from gpukit.gpuarray import GPUArray, ScalarLike


def equal_strides(strides1: Sequence[int], strides2: Sequence[int], shape: Sequence[int]) -> bool:
    """Whether two stride tuples walk an array of `shape` alike (axes of extent 1 aside)."""
    if tuple(strides1) == tuple(strides2):
        return True
    if len(strides1) != len(strides2) or len(strides2) != len(shape):
        return False
    return all(extent == 1 or a == b for extent, a, b in zip(shape, strides1, strides2))


def is_f_contiguous_strides(strides: Sequence[int], itemsize: int, shape: Sequence[int]) -> bool:
    return equal_strides(strides, f_contiguous_strides(itemsize, shape), shape) or math.prod(shape) == 0


def is_c_contiguous_strides(strides: Sequence[int], itemsize: int, shape: Sequence[int]) -> bool:
    return equal_strides(strides, c_contiguous_strides(itemsize, shape), shape) or math.prod(shape) == 0


class ArrayFlags:
    """c_contiguous, f_contiguous and forc (either) of an array."""

    def __init__(self, ary: GPUArray | NDArray[Any]) -> None:
        self.f_contiguous = is_f_contiguous_strides(ary.strides, ary.dtype.itemsize, ary.shape)
        self.c_contiguous = is_c_contiguous_strides(ary.strides, ary.dtype.itemsize, ary.shape)
        self.forc = self.f_contiguous or self.c_contiguous


def get_common_dtype(
    obj1: GPUArray | NDArray[Any], obj2: GPUArray | NDArray[Any] | ScalarLike, allow_double: bool
) -> np.dtype[Any]:
    """The dtype of obj1 + obj2; float32/complex64 in place of float64/complex128 without
    `allow_double`."""
    result = _get_common_dtype(obj1, obj2)
    if not allow_double:
        result = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.complex64)}.get(
            result, result
        )
    return result


def bound(a: GPUArray | NDArray[Any]) -> tuple[int, int]:
    """(lowest, highest + 1) address `a`'s elements occupy."""
    # gpudata: an allocation or an address, which int() reads (its stub says object).
    low = high = int(cast(SupportsInt, a.gpudata)) if hasattr(a, "gpudata") else a.__array_interface__["data"][0]
    for extent, stride in zip(a.shape, a.strides):
        if extent == 0:
            return low, low
        reach = (extent - 1) * stride
        low, high = (low + reach, high) if stride < 0 else (low, high + reach)
    return low, high + a.dtype.itemsize


def may_share_memory(a: GPUArray | NDArray[Any], b: GPUArray | NDArray[Any]) -> bool:
    """Whether the memory ranges of `a` and `b` overlap."""
    a_low, a_high = bound(a)
    b_low, b_high = bound(b)
    return a_low < b_high and b_low < a_high
