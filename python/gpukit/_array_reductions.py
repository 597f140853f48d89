"""Whole-array reductions of GPUArrays (``gpuarray.sum`` etc.): PyCUDA's names and
signatures, numpy's result types. Each is one call into C++
(python/bindings/array_reductions.cpp) running one of numpy's reduction specs of
``gpukit::array`` (array/reduction.hpp); strided views are read in place.

The subset forms reduce ``a[subset[i]]`` over the subset's elements (``a`` taken flat in C
order, as ``numpy.take`` without an axis); an index outside the array wraps around, modulo
its size, as CuPy's ``take`` does, so no index reads outside it.
"""
from gpukit import _gpukit


def sum(a, dtype=None, stream=None, allocator=None):
    """The sum of all elements as a 0-d GPUArray: numpy's type (integers widen to 64 bits)
    unless `dtype` is given."""
    return _gpukit._reduce("sum", a, None, None, dtype, stream, allocator)


def subset_sum(subset, a, dtype=None, stream=None, allocator=None):
    """sum(a.ravel()[subset]), without the gather."""
    return _gpukit._reduce("sum", a, None, subset, dtype, stream, allocator)


def dot(a, b, dtype=None, stream=None, allocator=None):
    """sum(a * b) of two arrays of one shape (no conjugation, as numpy.dot), as a 0-d GPUArray
    of their promoted dtype unless `dtype` is given."""
    return _gpukit._reduce("dot", a, b, None, dtype, stream, allocator)


def subset_dot(subset, a, b, dtype=None, stream=None, allocator=None):
    """dot(a.ravel()[subset], b.ravel()[subset]), without the gathers."""
    return _gpukit._reduce("dot", a, b, subset, dtype, stream, allocator)


def min(a, stream=None):
    """The smallest element (NaN if any is NaN; complex values by real, then imaginary part);
    ValueError for an empty array."""
    return _gpukit._reduce("min", a, None, None, None, stream, None)


def max(a, stream=None):
    """The largest element, as min() orders them."""
    return _gpukit._reduce("max", a, None, None, None, stream, None)


def subset_min(subset, a, stream=None):
    return _gpukit._reduce("min", a, None, subset, None, stream, None)


def subset_max(subset, a, stream=None):
    return _gpukit._reduce("max", a, None, subset, None, stream, None)


def any(a, stream=None, allocator=None):
    """Whether any element is non-zero (NaN counts), as a 0-d bool GPUArray."""
    return _gpukit._reduce("any", a, None, None, None, stream, allocator)


def all(a, stream=None, allocator=None):
    """Whether every element is non-zero (True for an empty array), as a 0-d bool GPUArray."""
    return _gpukit._reduce("all", a, None, None, None, stream, allocator)
