"""Host views of OpenCL memory as numpy arrays, as PyOpenCL gives them:
``enqueue_map_buffer``'s arrays, whose ``.base`` is the MemoryMap that unmaps them, and
``Buffer.get_host_array`` over a USE_HOST_PTR buffer's host memory, whose ``.base`` is the
Buffer; and SVM's arrays (gpukit.cl._svm). numpy makes each array from an
``__array_interface__`` set on that base object, so the array keeps it (and through it the
memory) alive."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex, cast

import numpy as np

from gpukit._gpukit import Layout
from gpukit._gpukit import cl as _cl
from gpukit._memory import _plain_dtype

if TYPE_CHECKING:
    from typing import TypeAlias

    import typing_extensions
    from numpy.typing import DTypeLike, NDArray

    # Host memory the C++ core reads through the buffer protocol: numpy arrays and scalars
    # (which mypy counts as buffers only for Python 3.12 and later), bytes, memoryview, ...
    HostBuffer: TypeAlias = typing_extensions.Buffer | NDArray[Any] | np.generic

# array_over sets the interface on the owner only while numpy reads it.
_interface_lock = threading.Lock()


def _layout(
    shape: SupportsIndex | Sequence[SupportsIndex],
    dtype: DTypeLike,
    order: str,
    strides: Sequence[SupportsIndex] | None,
    what: str,
) -> tuple[np.dtype[Any], Layout]:
    """(dtype, Layout) of a host view: contiguous in `order`, or with `strides` (bytes)."""
    dtype = _plain_dtype(dtype, what)
    if strides is None:
        if order not in ("C", "F"):
            raise ValueError(f"{what}: order must be 'C' or 'F', got {order!r}")
        return dtype, Layout.contiguous(shape, dtype.itemsize, order)
    layout = Layout(shape, strides, dtype.itemsize, 0)
    if layout.byte_extent()[0] < 0:
        raise ValueError(
            f"{what}: strides {tuple(layout.strides)} reach before the first element; expected "
            "strides that keep every element at or after the start of the mapped bytes"
        )
    return dtype, layout


def _interface(address: int, dtype: np.dtype[Any], layout: Layout, readonly: bool) -> dict[str, Any]:
    return {
        "version": 3,
        "shape": tuple(layout.shape),
        "strides": tuple(layout.strides),
        "typestr": dtype.str,
        "descr": dtype.descr,
        "data": (address, readonly),
    }


def array_over(
    owner: object, address: int, dtype: np.dtype[Any], layout: Layout, readonly: bool = False
) -> NDArray[Any]:
    """A numpy array of `dtype` and `layout` over the memory at `address`, whose ``.base`` is
    `owner` (a gpukit object with a __dict__, which keeps the memory alive)."""
    with _interface_lock:
        # setattr and delattr: `owner` is any object with a __dict__, not one with the attribute.
        setattr(owner, "__array_interface__", _interface(address, dtype, layout, readonly))
        try:
            return np.asarray(owner)
        finally:
            delattr(owner, "__array_interface__")


def enqueue_map_buffer(
    queue: _cl.CommandQueue,
    buf: _cl.Buffer,
    flags: int,
    offset: SupportsIndex,
    shape: SupportsIndex | Sequence[SupportsIndex],
    dtype: DTypeLike,
    order: str = "C",
    strides: Sequence[SupportsIndex] | None = None,
    wait_for: Iterable[_cl.Event] | None = None,
    is_blocking: bool = True,
) -> tuple[NDArray[Any], _cl.Event]:
    """Map bytes of `buf` from byte `offset` into host memory as a numpy array of `shape` and
    `dtype` (contiguous in `order`, or with byte `strides`), for `flags` (map_flags READ and/or
    WRITE, or WRITE_INVALIDATE_REGION); returns (array, Event), as PyOpenCL's. Without
    is_blocking, use the array only after the Event has completed. ``array.base`` is the
    MemoryMap: ``release()`` it (or leave ``with array.base:``) to unmap, after which the array
    must not be used. A map for READ alone gives a read-only array."""
    dtype, layout = _layout(shape, dtype, order, strides, "enqueue_map_buffer")
    mapped, event = _cl._enqueue_map_buffer(queue, buf, flags, offset, layout.byte_extent()[1], is_blocking, wait_for)
    readonly = not int(flags) & int(_cl.map_flags.WRITE | _cl.map_flags.WRITE_INVALIDATE_REGION)
    return array_over(mapped, mapped._address, dtype, layout, readonly), event


def get_host_array(
    self: _cl.Buffer, shape: SupportsIndex | Sequence[SupportsIndex], dtype: DTypeLike, order: str = "C"
) -> NDArray[Any]:
    """Buffer.get_host_array (bound in C++, which calls this). The host memory of this
    USE_HOST_PTR buffer as a numpy array of `shape` and `dtype` (contiguous in `order`), as
    PyOpenCL's; ``.base`` is the buffer. LogicError for a buffer made without USE_HOST_PTR and
    for an array larger than the buffer."""
    if not self.flags & _cl.mem_flags.USE_HOST_PTR:
        raise _cl.LogicError(
            "Buffer.get_host_array: only a buffer made with mem_flags.USE_HOST_PTR has host "
            f"memory of the program's to view; this one has flags {self.flags!r}"
        )
    dtype, layout = _layout(shape, dtype, order, None, "Buffer.get_host_array")
    if layout.nbytes > self.size:
        raise _cl.LogicError(
            f"Buffer.get_host_array: shape {tuple(layout.shape)} of {dtype} needs {layout.nbytes} "
            f"bytes, more than the buffer's {self.size}"
        )
    # HOST_PTR's value is an int (the stub types get_info's values as object).
    host_ptr = cast(int, self.get_info(dict(_cl._info_parameters["mem_info"])["HOST_PTR"]))
    return array_over(self, host_ptr, dtype, layout)
