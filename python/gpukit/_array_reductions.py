"""Whole-array reductions of GPUArrays: sum, min, max and dot (``gpuarray.sum`` etc.), one
call into C++ each (python/bindings/array_reductions.cpp), run by the generic reduction
kernels of ``gpukit::array`` (array/reduction.hpp)."""
from gpukit import _gpukit


def sum(a, dtype=None, stream=None):
    """The sum of all elements as a 0-d GPUArray (numpy's sum type: integers widen to 64 bits)."""
    result = _gpukit._reduce_arrays("sum", a, None, stream)
    return result if dtype is None else result.astype(dtype)


def min(a, stream=None):
    return _gpukit._reduce_arrays("min", a, None, stream)


def max(a, stream=None):
    return _gpukit._reduce_arrays("max", a, None, stream)


def dot(a, b, dtype=None, stream=None):
    """sum(a * b) of two arrays of one shape, as a 0-d GPUArray of their promoted dtype."""
    result = _gpukit._reduce_arrays("dot", a, b, stream)
    return result if dtype is None else result.astype(dtype)
