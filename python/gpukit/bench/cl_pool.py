"""Sides of the cl_pool_alloc case: host seconds per allocate + release of 4096 bytes on the
first OpenCL device (PoCL's CPU device in CI), and of the cl_pool_new case: a new
MemoryPool(ImmediateAllocator(queue)) and its first allocation, each time."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from gpukit.bench.harness import Unavailable, seconds_per_call

if TYPE_CHECKING:
    from types import ModuleType

    import gpukit.cl
    from gpukit.bench.harness import Settings


class _PyOpenCLQueue(Protocol):
    """What the sides use of a PyOpenCL command queue (PyOpenCL has no type information)."""

    @property
    def context(self) -> object: ...


SIZE = 4096


def _pairs_per_repeat(settings: Settings) -> int:
    return 2000 if settings["quick"] else 20000


def _time_pairs(allocate_and_release: Callable[[], object], settings: Settings) -> list[float]:
    n = _pairs_per_repeat(settings)
    for _ in range(n // 4):  # warm-up: the pool holds its block from here on
        allocate_and_release()
    return seconds_per_call(allocate_and_release, n, settings)


def _gpukit_queue() -> gpukit.cl.CommandQueue:
    import gpukit.cl as cl

    if not cl.available() or not any(p.get_devices() for p in cl.get_platforms()):
        raise Unavailable("no OpenCL device")
    device = cl.select_devices("")[0]
    return cl.CommandQueue(cl.Context([device]))


def gpukit_pool(settings: Settings) -> list[float]:
    from gpukit.cl.tools import ImmediateAllocator, MemoryPool

    pool = MemoryPool(ImmediateAllocator(_gpukit_queue()))
    return _time_pairs(lambda: pool.allocate(SIZE).release(), settings)


def _pyopencl_queue() -> _PyOpenCLQueue:
    try:
        import pyopencl  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, and has no type information
        import pyopencl.tools  # type: ignore[import-not-found, import-untyped, unused-ignore]  # noqa: F401  (the sides use it; as above)
    except ImportError:
        raise Unavailable("PyOpenCL is not installed")
    device = [d for p in pyopencl.get_platforms() for d in p.get_devices()][0]
    queue: _PyOpenCLQueue = pyopencl.CommandQueue(pyopencl.Context([device]))
    return queue


def pyopencl_pool(settings: Settings) -> list[float]:
    queue = _pyopencl_queue()  # first: it says when PyOpenCL is not installed
    import pyopencl.tools

    pool = pyopencl.tools.MemoryPool(pyopencl.tools.ImmediateAllocator(queue))
    return _time_pairs(lambda: pool.allocate(SIZE).release(), settings)


def _new_pool_and_allocation(tools: ModuleType, queue: object) -> Callable[[], None]:
    def once() -> None:
        pool = tools.MemoryPool(tools.ImmediateAllocator(queue))
        pool.allocate(SIZE).release()

    return once


def gpukit_new_pool(settings: Settings) -> list[float]:
    import gpukit.cl.tools

    return _time_pairs(_new_pool_and_allocation(gpukit.cl.tools, _gpukit_queue()), settings)


def pyopencl_new_pool(settings: Settings) -> list[float]:
    queue = _pyopencl_queue()  # first: it says when PyOpenCL is not installed
    import pyopencl.tools

    return _time_pairs(_new_pool_and_allocation(pyopencl.tools, queue), settings)


def gpukit_buffer(settings: Settings) -> list[float]:
    import gpukit.cl as cl

    queue = _gpukit_queue()
    context = cl.Context([queue.device])
    flags = cl.mem_flags.READ_WRITE
    # Dropping the Buffer releases its cl_mem at once (reference counting).
    return _time_pairs(lambda: cl.Buffer(context, flags, SIZE), settings)


def pyopencl_buffer(settings: Settings) -> list[float]:
    context = _pyopencl_queue().context
    import pyopencl

    flags = pyopencl.mem_flags.READ_WRITE
    return _time_pairs(lambda: pyopencl.Buffer(context, flags, SIZE).release(), settings)


def gpukit_immediate_allocator(settings: Settings) -> list[float]:
    # What the pool saves: the same allocator, called for every block (memory made resident
    # at allocation, as the pool's blocks are).
    from gpukit.cl.tools import ImmediateAllocator

    allocate = ImmediateAllocator(_gpukit_queue())
    return _time_pairs(lambda: allocate(SIZE), settings)


def device_name() -> str:
    try:
        import gpukit.cl as cl

        return cl.select_devices("")[0].name
    except Exception as e:  # the description must never stop a benchmark run
        return f"no OpenCL device ({e})"
