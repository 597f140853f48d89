"""Whole-array reductions of GPUArrays (``gpuarray.sum`` etc.): PyCUDA's names and
signatures, numpy's result types. Each is one call into C++
(python/bindings/array/array_reductions.cpp) running one of numpy's reduction specs of
``gpukit::array`` (array/reduction.hpp); strided views are read in place.

The subset forms reduce ``a[subset[i]]`` over the subset's elements (``a`` taken flat in C
order, as ``numpy.take`` without an axis); an index outside the array wraps around, modulo
its size, as CuPy's ``take`` does, so no index reads outside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy.typing as npt

from gpukit import _gpukit

if TYPE_CHECKING:  # gpukit.gpuarray imports this module
    from gpukit._typing import StreamLike
    from gpukit.gpuarray import Allocator, GPUArray

# (Each result is the 0-d GPUArray the C++ reduction makes; _reduce's stub says object.)


def sum(
    a: GPUArray,
    dtype: npt.DTypeLike | None = None,
    stream: StreamLike | None = None,
    allocator: Allocator | None = None,
) -> GPUArray:
    """The sum of all elements as a 0-d GPUArray: numpy's type (integers widen to 64 bits)
    unless `dtype` is given."""
    return _gpukit._reduce("sum", a, None, None, dtype, stream, allocator)  # type: ignore[return-value]


def subset_sum(
    subset: GPUArray,
    a: GPUArray,
    dtype: npt.DTypeLike | None = None,
    stream: StreamLike | None = None,
    allocator: Allocator | None = None,
) -> GPUArray:
    """sum(a.ravel()[subset]), without the gather."""
    return _gpukit._reduce("sum", a, None, subset, dtype, stream, allocator)  # type: ignore[return-value]


def dot(
    a: GPUArray,
    b: GPUArray,
    dtype: npt.DTypeLike | None = None,
    stream: StreamLike | None = None,
    allocator: Allocator | None = None,
) -> GPUArray:
    """sum(a * b) of two arrays of one shape (no conjugation, as numpy.dot), as a 0-d GPUArray
    of their promoted dtype unless `dtype` is given."""
    return _gpukit._reduce("dot", a, b, None, dtype, stream, allocator)  # type: ignore[return-value]


def subset_dot(
    subset: GPUArray,
    a: GPUArray,
    b: GPUArray,
    dtype: npt.DTypeLike | None = None,
    stream: StreamLike | None = None,
    allocator: Allocator | None = None,
) -> GPUArray:
    """dot(a.ravel()[subset], b.ravel()[subset]), without the gathers."""
    return _gpukit._reduce("dot", a, b, subset, dtype, stream, allocator)  # type: ignore[return-value]


def min(a: GPUArray, stream: StreamLike | None = None) -> GPUArray:
    """The smallest element (NaN if any is NaN; complex values by real, then imaginary part);
    ValueError for an empty array."""
    return _gpukit._reduce("min", a, None, None, None, stream, None)  # type: ignore[return-value]


def max(a: GPUArray, stream: StreamLike | None = None) -> GPUArray:
    """The largest element, as min() orders them."""
    return _gpukit._reduce("max", a, None, None, None, stream, None)  # type: ignore[return-value]


def subset_min(subset: GPUArray, a: GPUArray, stream: StreamLike | None = None) -> GPUArray:
    """min(a.ravel()[subset]), without the gather."""
    return _gpukit._reduce("min", a, None, subset, None, stream, None)  # type: ignore[return-value]


def subset_max(subset: GPUArray, a: GPUArray, stream: StreamLike | None = None) -> GPUArray:
    """max(a.ravel()[subset]), without the gather."""
    return _gpukit._reduce("max", a, None, subset, None, stream, None)  # type: ignore[return-value]


def any(a: GPUArray, stream: StreamLike | None = None, allocator: Allocator | None = None) -> GPUArray:
    """Whether any element is non-zero (NaN counts), as a 0-d bool GPUArray."""
    return _gpukit._reduce("any", a, None, None, None, stream, allocator)  # type: ignore[return-value]


def all(a: GPUArray, stream: StreamLike | None = None, allocator: Allocator | None = None) -> GPUArray:
    """Whether every element is non-zero (True for an empty array), as a 0-d bool GPUArray."""
    return _gpukit._reduce("all", a, None, None, None, stream, allocator)  # type: ignore[return-value]
