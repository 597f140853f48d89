"""Where GPUArrays take their memory: each context's default DeviceMemoryPool."""

from __future__ import annotations

from collections.abc import Callable
from typing import SupportsIndex

from gpukit import _gpukit


def default_allocator() -> Callable[[SupportsIndex], _gpukit.PooledDeviceAllocation]:
    """The allocator of arrays made without ``allocator=``: the current context's default
    DeviceMemoryPool, so temporaries such as ``2 * x`` reuse freed blocks instead of calling
    cuMemAlloc (and cuMemFree, which synchronizes) each time. The pool belongs to the
    context and never keeps it alive. (Arrays made without an allocator take their memory
    from the pool in C++ directly; this is the same pool, as a callable.)"""
    return _gpukit._default_pool_allocate


def release_default_pools() -> None:
    """Free the blocks the default pools of all contexts hold (blocks still used by arrays
    go back when those arrays are gone)."""
    _gpukit._release_default_pools()
