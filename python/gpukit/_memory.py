"""The numpy side of gpukit.driver's memory functions: arrays over host, page-locked,
aligned, prefaulted, registered and managed memory (their ``.base`` is the allocation
object), copies to and from numpy arrays, and PointerHolderBase. The allocations themselves
are C++."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, SupportsIndex, cast

import numpy as np
import numpy.typing as npt

from gpukit import _gpukit
from gpukit._gpukit import Layout, mem_alloc, memcpy_dtoh, memcpy_htod, mem_attach_flags

if TYPE_CHECKING:
    from typing_extensions import Buffer

    from gpukit._gpukit import DeviceAllocation
    from gpukit._typing import DevicePointer, HostShape, Order, SupportsNbytes


def _plain_dtype(dtype: npt.DTypeLike, what: str) -> np.dtype[Any]:
    """np.dtype(dtype); TypeError naming `what` for a dtype holding Python objects: the memory
    gpukit allocates is raw bytes, uninitialised or written by devices, never references."""
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError(
            f"{what}: dtype {dtype} holds Python objects, but this memory holds raw bytes; expected a "
            "numeric or other plain-data dtype"
        )
    return dtype


def _shape_and_nbytes(shape: HostShape, dtype: npt.DTypeLike, what: str) -> tuple[tuple[int, ...], int]:
    """The shape of a new host array as a tuple, and its bytes. The layout checks the shape
    as numpy does: TypeError for 2.5, ValueError for negative extents and for sizes beyond
    64 bits; the dtype is checked by _plain_dtype."""
    layout = Layout.contiguous(shape, _plain_dtype(dtype, what).itemsize)
    return tuple(layout.shape), layout.nbytes


def _order_of(array: npt.NDArray[Any]) -> Order:
    """The order that reproduces `array`'s layout: "F" only for Fortran-only arrays."""
    return "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"


def _array_over(
    allocation: _gpukit.PrefaultedHostMemory
    | _gpukit.PagelockedHostAllocation
    | _gpukit.AlignedHostAllocation
    | _gpukit.ManagedAllocation,
    shape: tuple[int, ...],
    dtype: npt.DTypeLike,
    order: Order,
) -> npt.NDArray[Any]:
    # numpy.ndarray(buffer=...) keeps the buffer object itself as .base. The allocations have
    # the buffer protocol, which numpy's stubs do not accept beyond their own list of types.
    return np.ndarray(shape, dtype, buffer=allocation, order=order)  # type: ignore[arg-type]


# ---- device memory and numpy arrays


def to_device(buffer: Buffer | npt.NDArray[Any]) -> DeviceAllocation:
    """Allocate device memory for `buffer` (anything with the buffer protocol), copy it
    there, and return the DeviceAllocation."""
    # numpy declares its buffer protocol (__buffer__) to type checkers for Python 3.12 on only.
    nbytes = memoryview(buffer).nbytes  # type: ignore[arg-type, unused-ignore]
    allocation = mem_alloc(nbytes)
    memcpy_htod(allocation, buffer)
    return allocation


def mem_alloc_like(ary: SupportsNbytes) -> DeviceAllocation:
    """Device memory of ``ary.nbytes`` bytes (anything with ``nbytes``: numpy arrays,
    GPUArrays), uninitialised."""
    return mem_alloc(ary.nbytes)


def from_device(devptr: DevicePointer, shape: HostShape, dtype: npt.DTypeLike, order: Order = "C") -> npt.NDArray[Any]:
    """A new numpy array of `shape`, `dtype` and `order`, filled from device memory `devptr`."""
    result = prefaulted_empty(shape, dtype, order)
    memcpy_dtoh(result, devptr)
    return result


def from_device_like(devptr: DevicePointer, other_ary: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A new numpy array shaped like `other_ary`, filled from device memory `devptr`."""
    result = prefaulted_empty(other_ary.shape, other_ary.dtype, _order_of(other_ary))
    memcpy_dtoh(result, devptr)
    return result


class PointerHolderBase:
    """Base class for objects that own device memory allocated outside gpukit. Subclasses
    implement get_pointer(); instances are then accepted wherever a device pointer is."""

    def get_pointer(self) -> int:
        """The device address of the memory; subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_pointer() and return the device address")

    def __int__(self) -> int:
        return int(self.get_pointer())

    def __index__(self) -> int:
        return int(self.get_pointer())

    def as_buffer(self, size: SupportsIndex, offset: SupportsIndex = 0) -> memoryview:
        """A memoryview of `size` bytes from `offset`; only for memory the CPU can address
        (managed or mapped), otherwise LogicError."""
        # The binding returns a memoryview; its stub says object.
        return cast(memoryview, _gpukit._host_memoryview(self, size, offset))


# ---- prefaulted host memory (no GPU needed)


def prefaulted_empty(shape: HostShape, dtype: npt.DTypeLike, order: Order = "C") -> npt.NDArray[Any]:
    """An uninitialised numpy array, like numpy.empty, to be filled at once by a large copy
    (get(), from_device): from _gpukit._prefaulted_min_bytes on, its pages are faulted in
    by background threads ahead of the copy instead of one by one inside it, and its .base
    is the PrefaultedHostMemory; smaller arrays are numpy.empty's."""
    if order not in ("C", "F"):
        raise ValueError(f"prefaulted_empty: order must be 'C' or 'F', got {order!r}")
    shape, nbytes = _shape_and_nbytes(shape, dtype, "prefaulted_empty(dtype)")
    if nbytes < _gpukit._prefaulted_min_bytes:
        return np.empty(shape, dtype, order=order)
    return _array_over(_gpukit._prefaulted_alloc(nbytes), shape, dtype, order)


# ---- page-locked host memory


def pagelocked_empty(
    shape: HostShape, dtype: npt.DTypeLike, order: Order = "C", mem_flags: SupportsIndex = 0
) -> npt.NDArray[Any]:
    """An uninitialised page-locked numpy array; `mem_flags` combines host_alloc_flags."""
    shape, nbytes = _shape_and_nbytes(shape, dtype, "pagelocked_empty(dtype)")
    return _array_over(_gpukit._pagelocked_alloc(nbytes, mem_flags), shape, dtype, order)


def pagelocked_zeros(
    shape: HostShape, dtype: npt.DTypeLike, order: Order = "C", mem_flags: SupportsIndex = 0
) -> npt.NDArray[Any]:
    """pagelocked_empty() filled with zeros."""
    result = pagelocked_empty(shape, dtype, order, mem_flags)
    result.fill(0)
    return result


def pagelocked_empty_like(array: npt.NDArray[Any], mem_flags: SupportsIndex = 0) -> npt.NDArray[Any]:
    """pagelocked_empty() of `array`'s shape and dtype, in its order (C unless only F-contiguous)."""
    return pagelocked_empty(array.shape, array.dtype, _order_of(array), mem_flags)


def pagelocked_zeros_like(array: npt.NDArray[Any], mem_flags: SupportsIndex = 0) -> npt.NDArray[Any]:
    """pagelocked_empty_like() filled with zeros."""
    return pagelocked_zeros(array.shape, array.dtype, _order_of(array), mem_flags)


# ---- aligned host memory (no GPU needed)


def aligned_empty(
    shape: HostShape, dtype: npt.DTypeLike, order: Order = "C", alignment: SupportsIndex = 4096
) -> npt.NDArray[Any]:
    """An uninitialised numpy array whose data starts at a multiple of `alignment` (a power
    of two). Its memory is a whole number of alignment units, so with the default page
    alignment an array of whole pages can be given to register_host_memory()."""
    shape, nbytes = _shape_and_nbytes(shape, dtype, "aligned_empty(dtype)")
    return _array_over(_gpukit._aligned_alloc(nbytes, alignment), shape, dtype, order)


def aligned_zeros(
    shape: HostShape, dtype: npt.DTypeLike, order: Order = "C", alignment: SupportsIndex = 4096
) -> npt.NDArray[Any]:
    """aligned_empty() filled with zeros."""
    result = aligned_empty(shape, dtype, order, alignment)
    result.fill(0)
    return result


def aligned_empty_like(array: npt.NDArray[Any], alignment: SupportsIndex = 4096) -> npt.NDArray[Any]:
    """aligned_empty() of `array`'s shape and dtype, in its order (C unless only F-contiguous)."""
    return aligned_empty(array.shape, array.dtype, _order_of(array), alignment)


def aligned_zeros_like(array: npt.NDArray[Any], alignment: SupportsIndex = 4096) -> npt.NDArray[Any]:
    """aligned_empty_like() filled with zeros."""
    return aligned_zeros(array.shape, array.dtype, _order_of(array), alignment)


# ---- page-locking existing memory


def register_host_memory(ary: npt.NDArray[Any], flags: SupportsIndex = 0) -> npt.NDArray[Any]:
    """Page-lock the memory of the numpy array `ary` (address and size page-aligned, e.g.
    from aligned_empty()) while the returned array lives. The result shares `ary`'s memory;
    its .base is a RegisteredHostMemory whose .base is `ary`."""
    if not isinstance(ary, np.ndarray):
        raise TypeError(f"register_host_memory(ary): expected a numpy.ndarray, got {type(ary).__name__}")
    registered = _gpukit._register_host_memory(ary, flags)
    # RegisteredHostMemory has the buffer protocol, which numpy's stubs do not accept beyond their own types.
    return np.ndarray(ary.shape, ary.dtype, buffer=registered, strides=ary.strides)  # type: ignore[arg-type]


# ---- managed memory


def managed_empty(
    shape: HostShape, dtype: npt.DTypeLike, order: Order = "C", mem_flags: SupportsIndex = mem_attach_flags.GLOBAL
) -> npt.NDArray[Any]:
    """An uninitialised managed numpy array, usable on host and device. `mem_flags` is
    mem_attach_flags.GLOBAL or HOST. More than mem_get_info() reports free is refused with
    gpukit.driver.MemoryError."""
    shape, nbytes = _shape_and_nbytes(shape, dtype, "managed_empty(dtype)")
    return _array_over(_gpukit._managed_alloc(nbytes, mem_flags), shape, dtype, order)


def managed_zeros(
    shape: HostShape, dtype: npt.DTypeLike, order: Order = "C", mem_flags: SupportsIndex = mem_attach_flags.GLOBAL
) -> npt.NDArray[Any]:
    """managed_empty() filled with zeros."""
    result = managed_empty(shape, dtype, order, mem_flags)
    result.fill(0)
    return result


def managed_empty_like(array: npt.NDArray[Any], mem_flags: SupportsIndex = mem_attach_flags.GLOBAL) -> npt.NDArray[Any]:
    """managed_empty() of `array`'s shape and dtype, in its order (C unless only F-contiguous)."""
    return managed_empty(array.shape, array.dtype, _order_of(array), mem_flags)


def managed_zeros_like(array: npt.NDArray[Any], mem_flags: SupportsIndex = mem_attach_flags.GLOBAL) -> npt.NDArray[Any]:
    """managed_empty_like() filled with zeros."""
    return managed_zeros(array.shape, array.dtype, _order_of(array), mem_flags)
