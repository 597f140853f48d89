"""OpenCL memory allocators and pools, test parametrization and kernel argument types, under
PyOpenCL's ``pyopencl.tools`` names.

The pools are gpukit's one C++ memory pool (docs/memory-pool.md): thread-safe, binned by the
leading bits of the size, releasing held blocks and retrying when an allocator runs out.
"""
import warnings

from gpukit._gpukit.cl import tools as _tools
from gpukit.cl.argtypes import DtypedArgument, ScalarArg, VectorArg
from gpukit.cl.testing import pytest_generate_tests_for_opencl, pytest_generate_tests_for_pyopencl

AllocatorBase = _tools.AllocatorBase
DeferredAllocator = _tools.DeferredAllocator
ImmediateAllocator = _tools.ImmediateAllocator
PooledBuffer = _tools.PooledBuffer
SVMAllocator = _tools.SVMAllocator
SVMAllocation = _tools.SVMAllocation
SVMPool = _tools.SVMPool
PooledSVM = _tools.PooledSVM

__all__ = [
    "AllocatorBase", "DeferredAllocator", "DtypedArgument", "ImmediateAllocator", "MemoryPool", "PooledBuffer",
    "PooledSVM", "SVMAllocation", "SVMAllocator", "SVMPool", "ScalarArg", "VectorArg",
    "pytest_generate_tests_for_opencl", "pytest_generate_tests_for_pyopencl",
]


class MemoryPool(_tools.MemoryPool):
    """A binned pool of Buffers: ``pool.allocate(size)`` gives a PooledBuffer that returns to
    the pool when dropped or on ``release()``. Give it an ImmediateAllocator: a pool recovers
    from running out of memory only when the allocator reports the shortage at allocation."""

    def __init__(self, allocator, leading_bits_in_bin_id=4):
        if isinstance(allocator, DeferredAllocator):
            warnings.warn(
                "MemoryPool got a DeferredAllocator: OpenCL may postpone the real allocation of its buffers "
                "until a command uses them, so running out of memory shows up later as a failed command, "
                "where the pool cannot free its held blocks and retry. Use ImmediateAllocator(queue) to have "
                "shortages reported at allocation.",
                UserWarning, stacklevel=2)
        super().__init__(allocator, leading_bits_in_bin_id=leading_bits_in_bin_id)
