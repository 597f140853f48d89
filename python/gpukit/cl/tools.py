"""OpenCL memory allocators and pools, test parametrization, kernel argument types and C types
(records as structs too: ``match_dtype_to_c_struct``), under PyOpenCL's ``pyopencl.tools`` names.

The pools are gpukit's one C++ memory pool (docs/memory-pool.md): thread-safe, binned by the
leading bits of the size, releasing held blocks and retrying when an allocator runs out.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

from gpukit._array.c_types import CTypeRegistry
from gpukit._gpukit import _c_type_names
from gpukit._gpukit.cl import Context as _Context
from gpukit._gpukit.cl import tools as _tools
from gpukit.cl._structs import match_dtype_to_c_struct
from gpukit.cl.argtypes import DtypedArgument, ScalarArg, VectorArg
from gpukit.cl.testing import pytest_generate_tests_for_opencl, pytest_generate_tests_for_pyopencl

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy as np
    from numpy.typing import DTypeLike

    from gpukit._array.c_types import CNames

    # A context_dependent_memoize cache: per context, the results by (args, sorted kwargs).
    _ContextCache: TypeAlias = weakref.WeakKeyDictionary[
        _Context, dict[tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]], Any]
    ]

_P = ParamSpec("_P")
_R = TypeVar("_R")
_R_co = TypeVar("_R_co", covariant=True)

AllocatorBase = _tools.AllocatorBase
DeferredAllocator = _tools.DeferredAllocator
ImmediateAllocator = _tools.ImmediateAllocator
PooledBuffer = _tools.PooledBuffer
SVMAllocator = _tools.SVMAllocator
SVMAllocation = _tools.SVMAllocation
SVMPool = _tools.SVMPool
PooledSVM = _tools.PooledSVM

__all__ = [
    "AllocatorBase",
    "DeferredAllocator",
    "DtypedArgument",
    "ImmediateAllocator",
    "MemoryPool",
    "PooledBuffer",
    "PooledSVM",
    "SVMAllocation",
    "SVMAllocator",
    "SVMPool",
    "ScalarArg",
    "VectorArg",
    "clear_first_arg_caches",
    "context_dependent_memoize",
    "dtype_to_ctype",
    "get_or_register_dtype",
    "match_dtype_to_c_struct",
    "register_dtype",
    "pytest_generate_tests_for_opencl",
    "pytest_generate_tests_for_pyopencl",
]

# ---- C types of OpenCL C kernels

# OpenCL C's registry (pyopencl.tools'): the C++ core's table (gpukit/array/dtype.hpp), whose
# first name of each type is the one dtype_to_ctype() gives ("char", "uchar", "long", ...).
OPENCL_TYPES = CTypeRegistry("OpenCL C", _c_type_names(opencl=True))


def get_or_register_dtype(c_names: CNames, dtype: DTypeLike | None = None) -> np.dtype[Any]:
    """The numpy dtype of the OpenCL C type name(s) `c_names`; with `dtype`, registers them
    to it (CTypeRegistry.get_or_register_dtype)."""
    return OPENCL_TYPES.get_or_register_dtype(c_names, dtype)


def register_dtype(dtype: DTypeLike, c_names: CNames, alias_ok: bool = False) -> None:
    """Deprecated in PyOpenCL: get_or_register_dtype(c_names, dtype)."""
    OPENCL_TYPES.register_dtype(dtype, c_names, alias_ok)


def dtype_to_ctype(dtype: DTypeLike) -> str:
    """The OpenCL C type name of a numpy dtype (``uint8`` -> ``"uchar"``); ValueError for a
    dtype nobody registered."""
    return OPENCL_TYPES.dtype_to_ctype(dtype)


# ---- caches per context

# Every cache made by context_dependent_memoize, so clear_first_arg_caches() can empty them.
_first_arg_caches: list[_ContextCache] = []


class ContextMemoized(Protocol[_P, _R_co]):
    """What context_dependent_memoize returns: the function, cached per context (its first
    argument), with ``clear_cache()`` emptying its cache."""

    def __call__(self, context: _Context, /, *args: _P.args, **kwargs: _P.kwargs) -> _R_co: ...

    clear_cache: Callable[[], None]


def context_dependent_memoize(func: Callable[Concatenate[_Context, _P], _R]) -> ContextMemoized[_P, _R]:
    """Cache ``func(context, *args)`` per Context (e.g. programs built for it): the first
    argument must be a Context; the rest are the key. A context's entries go with it (the
    cache holds it weakly) or with clear_first_arg_caches()."""
    if not callable(func):
        raise TypeError(f"context_dependent_memoize: expected a function, got {type(func).__name__}")
    cache: _ContextCache = weakref.WeakKeyDictionary()
    _first_arg_caches.append(cache)

    @functools.wraps(func)
    def wrapper(context: _Context, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not isinstance(context, _Context):
            raise TypeError(
                f"{func.__name__}: context_dependent_memoize needs a gpukit.cl.Context as the first "
                f"argument, got {type(context).__name__}"
            )
        key = (args, tuple(sorted(kwargs.items())))
        per_context = cache.setdefault(context, {})
        try:
            hit: _R = per_context[key]
            return hit
        except KeyError:
            result = per_context[key] = func(context, *args, **kwargs)
            return result

    memoized = cast("ContextMemoized[_P, _R]", wrapper)  # given clear_cache here
    memoized.clear_cache = cache.clear
    return memoized


def clear_first_arg_caches() -> None:
    """Empty every context_dependent_memoize cache."""
    for cache in _first_arg_caches:
        cache.clear()


# The pool's DeferredAllocator warning comes from C++: a Python __init__ here would cost a
# microsecond of every pool's making.
MemoryPool = _tools.MemoryPool
