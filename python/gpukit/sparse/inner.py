"""Small results of the GPU read back without waiting for them (PyCUDA's
``pycuda.sparse.inner``): a copy into page-locked memory, queued on the default stream behind
the work that computes the result, whose end the host polls through an event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from gpukit import driver as drv
from gpukit import gpuarray

#: Page-locked host memory: allocator(shape, dtype) -> a numpy array (drv.pagelocked_empty,
#: tools.PageLockedMemoryPool().allocate).
PagelockedAllocator: TypeAlias = Callable[[tuple[int, ...], np.dtype[Any]], npt.NDArray[Any]]


def pagelocked_allocator_or_default(allocator: object, what: str) -> PagelockedAllocator:
    """`allocator`, or drv.pagelocked_empty when None."""
    if allocator is None:
        return drv.pagelocked_empty
    if not callable(allocator):
        raise TypeError(
            f"{what}: expected a callable (shape, dtype) -> page-locked numpy array, such as "
            f"PageLockedMemoryPool().allocate, or None, got {type(allocator).__name__}"
        )
    checked: PagelockedAllocator = allocator
    return checked


class AsyncCopy:
    """A copy of the device array `source` into the host array `dest` (page-locked, so that
    it does not wait), queued now; ready() says whether it has arrived, wait() waits for it."""

    def __init__(self, source: gpuarray.GPUArray, dest: npt.NDArray[Any]) -> None:
        drv.memcpy_dtoh_async(dest, source.gpudata)
        self._arrived = drv.Event()
        self._arrived.record()
        self.host = dest

    def ready(self) -> bool:
        return self._arrived.query()

    def wait(self) -> npt.NDArray[Any]:
        """The copy, once it has arrived."""
        self._arrived.synchronize()
        return self.host


class AsyncInnerProduct:
    """gpuarray.dot(a, b), queued now; ``gpu_result`` is the 0-d GPUArray, and
    get_host_result() returns its value once it has reached the host, None before (it never
    waits). `pagelocked_allocator` (default drv.pagelocked_empty) makes the host copy."""

    def __init__(
        self, a: gpuarray.GPUArray, b: gpuarray.GPUArray, pagelocked_allocator: PagelockedAllocator | None = None
    ) -> None:
        allocate = pagelocked_allocator_or_default(pagelocked_allocator, "AsyncInnerProduct(pagelocked_allocator)")
        self.gpu_result = gpuarray.dot(a, b)
        self._copy = AsyncCopy(self.gpu_result, allocate((), self.gpu_result.dtype))

    def get_host_result(self) -> Any:
        """The inner product (a numpy scalar) once it is on the host, else None."""
        return self._copy.host[()] if self._copy.ready() else None
