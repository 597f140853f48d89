"""numba.cuda's memory API (``to_device``, ``device_array``, ``DeviceNDArray``, pinned and
mapped host memory) on gpukit's arrays.

A DeviceNDArray is a GPUArray: the same layout engine, pool allocator, views and
``__cuda_array_interface__``, with numba's method names on top. ``stream`` arguments take
0 (the default stream; copies are synchronous) or a ``gpukit.driver.Stream`` (copies are
queued on it; a copy to or from pageable host memory still returns only when the host
side is done, as CUDA does for pageable memory).
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, SupportsInt, TypeVar, cast

import numpy as np
import numpy.typing as npt

from gpukit import _gpukit, _typing, gpuarray
from gpukit._memory import PointerHolderBase, _plain_dtype
from gpukit._gpukit import Layout, host_alloc_flags, mem_host_register_flags
from gpukit.gpuarray import GPUArray, ShapeLike
from gpukit._warnings import warn

if TYPE_CHECKING:
    from typing_extensions import TypeIs

    from gpukit._typing import SupportsCudaArrayInterface

#: A stream as numba takes it: 0 (the default stream) or a gpukit.driver.Stream (or another
#: library's stream, with __cuda_stream__; None is the default stream too).
StreamLike = int | _typing.StreamLike | None

_HostArray = TypeVar("_HostArray", bound="np.ndarray[Any, Any]")

__all__ = [
    "to_device",
    "device_array",
    "device_array_like",
    "pinned_array",
    "mapped_array",
    "pinned",
    "mapped",
    "as_cuda_array",
    "is_cuda_array",
    "DeviceNDArray",
    "DeviceRecord",
    "MappedNDArray",
]


def _stream(stream: StreamLike) -> _typing.StreamLike | None:
    """numba spells the default stream 0; gpukit spells it None."""
    if stream is None or (isinstance(stream, numbers.Integral) and stream == 0):
        return None
    if isinstance(stream, _gpukit.Stream) or hasattr(stream, "__cuda_stream__"):
        return stream
    raise TypeError(f"stream must be 0, a gpukit.driver.Stream or an object with __cuda_stream__, got {stream!r}")


def _layout(shape: ShapeLike, strides: Sequence[int] | None, itemsize: int, order: str) -> Layout:
    """The layout of a new array; shape and strides are checked as numpy checks them."""
    if strides is None:
        return Layout.contiguous(shape, itemsize, order)
    return Layout(shape, strides, itemsize, 0)


class DeviceNDArray(GPUArray):
    """An array in device memory with numba.cuda's interface."""

    #: The host array to_host() copies into (arrays made other ways have none).
    _writeback: npt.NDArray[Any] | None = None

    if TYPE_CHECKING:
        # The extension's _view makes an array of self's class (or of `cls`).
        def _view(self, layout: Layout, dtype: object | None = None, cls: object | None = None) -> DeviceNDArray: ...

    def __init__(
        self,
        shape: ShapeLike,
        strides: Sequence[int] | None,
        dtype: npt.DTypeLike,
        stream: StreamLike = 0,
        writeback: npt.NDArray[Any] | None = None,
        gpu_data: Any = None,
    ) -> None:
        super().__init__(shape, dtype, gpudata=gpu_data, strides=strides, stream=_stream(stream))
        if writeback is not None:
            if not isinstance(writeback, np.ndarray):
                raise TypeError(f"writeback must be a numpy.ndarray, got {type(writeback).__name__}")
            self._writeback = writeback

    @property
    def gpu_data(self) -> Any:
        """numba's gpu_data: the device memory of the array's data, as an object whose int()
        is the address of element 0 and which keeps the memory alive (the allocation itself
        when the array starts where its memory does)."""
        memory = cast("SupportsInt | None", self.gpudata)  # an allocation or an address (the stub says object)
        if self.size and self.ptr != int(memory if memory is not None else 0):
            return _ArrayData(self)
        return self.gpudata

    # ---- layout queries

    def is_c_contiguous(self) -> bool:
        """Whether the elements lie in C order without gaps."""
        return self._layout.is_c_contiguous

    def is_f_contiguous(self) -> bool:
        """Whether the elements lie in Fortran order without gaps."""
        return self._layout.is_f_contiguous

    # ---- copies

    def copy_to_device(self, ary: Any, stream: StreamLike = 0) -> None:
        """Copy `ary` (a host array, or another device array) into this array; shapes and
        dtypes must match."""
        stream = _stream(stream) or self.stream
        if is_cuda_array(ary):
            source = as_cuda_array(ary)
            self._check_same(source.shape, source.dtype, "copy_to_device")
            if self.size == 0:
                return
            if self._same_contiguous_layout(source):
                if stream is None:
                    _gpukit.memcpy_dtod(self.ptr, source.ptr, self.nbytes)
                else:
                    _gpukit.memcpy_dtod_async(self.ptr, source.ptr, self.nbytes, stream)
            else:
                self._assign(source, stream)
            return
        host = np.asarray(ary)
        self._check_same(host.shape, host.dtype, "copy_to_device")
        if self.is_c_contiguous() or self.is_f_contiguous():
            self.set(host, stream=stream)
        else:
            # Upload contiguously, then a kernel scatters into the strided layout.
            self._assign(gpuarray.to_gpu(np.ascontiguousarray(host), stream=stream), stream)

    def copy_to_host(self, ary: npt.NDArray[Any] | None = None, stream: StreamLike = 0) -> npt.NDArray[Any]:
        """The contents as a numpy array: `ary` (a contiguous array of the same shape and
        dtype) when given, else a new one. With a stream the copy is queued on it; the
        array is complete once the stream is synchronized."""
        if ary is not None:
            if not isinstance(ary, np.ndarray):
                raise TypeError(f"copy_to_host(ary): ary must be a numpy.ndarray, got {type(ary).__name__}")
            self._check_same(ary.shape, ary.dtype, "copy_to_host")
            if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
                raise ValueError(f"copy_to_host(ary): ary must be contiguous (its strides are {ary.strides})")
            if not ary.flags.writeable:
                raise ValueError("copy_to_host(ary): ary is read-only")
        return self.get(ary=ary, stream=_stream(stream) or self.stream)

    def to_host(self, stream: StreamLike = 0) -> None:
        """Copy the contents into the host array this one was made from (the `writeback`
        array; to_device() sets it). Deprecated in numba as here: use copy_to_host(ary)."""
        warn("to_host() is deprecated; use copy_to_host(ary)", DeprecationWarning)
        if self._writeback is None:
            raise ValueError("no associated writeback array")
        self.copy_to_host(self._writeback, stream)

    def _check_same(self, shape: Sequence[int], dtype: npt.DTypeLike, what: str) -> None:
        if tuple(shape) != self.shape:
            raise ValueError(f"{what}: shape {tuple(shape)} differs from the device array's {self.shape}")
        if np.dtype(dtype) != self.dtype:
            raise TypeError(f"{what}: dtype {dtype} differs from the device array's {self.dtype}")

    def _same_contiguous_layout(self, other: GPUArray) -> bool:
        return (self.is_c_contiguous() and other._layout.is_c_contiguous) or (
            self.is_f_contiguous() and other._layout.is_f_contiguous
        )

    def _assign(self, source: GPUArray, stream: _typing.StreamLike | None) -> None:
        # GPUArray's __setitem__ launches on the array's own stream; this copy's may differ.
        saved, self.stream = self.stream, stream
        try:
            GPUArray.__setitem__(self, Ellipsis, source)
        finally:
            self.stream = saved

    # ---- views

    def reshape(self, *newshape: ShapeLike, order: str = "C") -> DeviceNDArray:
        """A view with another shape; numba refuses reshapes that would need a copy, so
        does this (gpuarray.GPUArray.reshape copies instead)."""
        # reshape(2, 3) or reshape((2, 3)): several arguments are extents, which the signature
        # GPUArray.reshape gives (each a ShapeLike) cannot say.
        shape: ShapeLike = newshape[0] if len(newshape) == 1 else newshape  # type: ignore[assignment]
        try:
            layout = self._layout.reshape(shape, order)
        except _gpukit.LogicError as e:
            raise ValueError(f"reshape: {e} (a device array is only reshaped as a view)") from None
        return self._view(layout)

    def ravel(self, order: str = "C", stream: StreamLike = 0) -> DeviceNDArray:
        """A 1-d view (numba refuses a ravel that would need a copy, as reshape does)."""
        return self.reshape(-1, order=order)

    def split(self, section: int, stream: StreamLike = 0) -> list[Any]:
        """Views of `section` elements each of a 1-d array; the last may be shorter."""
        if self.ndim != 1:
            raise ValueError(f"split: only 1-d arrays can be split, this one has {self.ndim} dimensions")
        if section <= 0:
            raise ValueError(f"split: section must be positive, got {section}")
        return [self[start : start + section] for start in range(0, len(self), section)]

    def __getitem__(self, index: object) -> Any:
        """A view; a record (0-d structured) element as a DeviceRecord, any other single
        element as a numpy scalar on the host, as in numba."""
        view = GPUArray.__getitem__(self, index)
        if view.ndim > 0:
            return view
        if view.dtype.names is not None:
            return self._view(view._layout, cls=DeviceRecord)
        # A single element comes back to the host as a numpy scalar, as in numba.
        return view.get()[()]

    def __setitem__(self, index: object, value: _gpukit._Array | npt.ArrayLike | SupportsCudaArrayInterface) -> None:
        if is_cuda_array(value) and not isinstance(value, GPUArray):
            value = as_cuda_array(value)
        GPUArray.__setitem__(self, index, value)

    def __repr__(self) -> str:
        return f"<gpukit.cuda.DeviceNDArray shape={self.shape} dtype={self.dtype} strides={self.strides}>"


class DeviceRecord(DeviceNDArray):
    """One structured (record) value in device memory: a 0-d DeviceNDArray whose
    copy_to_host() gives a numpy record."""

    def __init__(self, dtype: npt.DTypeLike, stream: StreamLike = 0, gpu_data: Any = None) -> None:
        super().__init__((), None, dtype, stream, gpu_data=gpu_data)

    def copy_to_host(self, ary: npt.NDArray[Any] | None = None, stream: StreamLike = 0) -> Any:
        """The record as a numpy record (numpy.void), or copied into `ary` when given."""
        host = super().copy_to_host(ary, stream)
        return host if ary is not None else host[()]

    def __repr__(self) -> str:
        return f"<gpukit.cuda.DeviceRecord dtype={self.dtype}>"


# numba's arrays make their views and results as gpukit's GPUArray does (not through
# _new_like_me, as PyCUDA does for subclasses): numba's constructor takes other arguments.
_gpukit._register_own_array_class(DeviceNDArray)
_gpukit._register_own_array_class(DeviceRecord)


class _ArrayData(PointerHolderBase):
    """The memory of a view that starts inside its allocation (numba's MemoryPointer.view):
    its address is the view's element 0, and it keeps the view's memory alive."""

    def __init__(self, array: GPUArray) -> None:
        self._array = array

    def get_pointer(self) -> int:
        return self._array.ptr


def _device_class(dtype: npt.DTypeLike, shape: ShapeLike) -> type[DeviceNDArray]:
    return DeviceRecord if shape == () and np.dtype(dtype).names is not None else DeviceNDArray


def _new_device_array(
    shape: ShapeLike, strides: Sequence[int] | None, dtype: npt.DTypeLike, stream: StreamLike
) -> DeviceNDArray:
    cls = _device_class(dtype, shape)
    result = cls.__new__(cls)
    DeviceNDArray.__init__(result, shape, strides, dtype, stream)
    return result


# ---- device memory


def device_array(
    shape: ShapeLike,
    dtype: npt.DTypeLike = np.float64,
    strides: Sequence[int] | None = None,
    order: str = "C",
    stream: StreamLike = 0,
) -> DeviceNDArray:
    """An uninitialised device array, like numpy.empty."""
    layout = _layout(shape, strides, np.dtype(dtype).itemsize, order)
    return _new_device_array(tuple(layout.shape), layout.strides, dtype, stream)


def device_array_like(ary: Any, stream: StreamLike = 0) -> DeviceNDArray:
    """An uninitialised device array of `ary`'s shape and dtype, its elements in memory in
    `ary`'s order, as numba's: C or Fortran order for contiguous arrays, the order of a
    strided array's axes (by the size of their strides) otherwise."""
    if is_cuda_array(ary):
        ary = as_cuda_array(ary)
        layout = ary._layout
    else:
        ary = np.asarray(ary)
        layout = Layout(ary.shape, ary.strides, ary.dtype.itemsize, 0)
    new = layout.contiguous_like(ary.dtype.itemsize)
    return _new_device_array(tuple(new.shape), new.strides, ary.dtype, stream)


def to_device(obj: Any, stream: StreamLike = 0, copy: bool = True, to: DeviceNDArray | None = None) -> DeviceNDArray:
    """A device array with the contents of `obj` (a numpy array, anything numpy converts,
    or a numpy record, which gives a DeviceRecord); the host array is its `writeback` array
    (to_host() copies back into it). A device array is returned as it is. With `to`, copies
    into that device array instead; with copy=False only allocates."""
    if to is not None:
        to.copy_to_device(obj, stream)
        return to
    if is_cuda_array(obj):
        return as_cuda_array(obj)
    host = np.asarray(obj)
    result = device_array_like(host, stream)
    result._writeback = host
    if copy:
        result.copy_to_device(host, stream)
    return result


def is_cuda_array(obj: object) -> TypeIs[SupportsCudaArrayInterface]:
    """Whether `obj` exports __cuda_array_interface__."""
    return hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj: Any) -> DeviceNDArray:
    """A DeviceNDArray over the device memory of `obj` (anything exporting
    __cuda_array_interface__ or a CUDA __dlpack__), without copying; `obj` stays alive
    as the array's base."""
    if isinstance(obj, DeviceNDArray):
        return obj
    return gpuarray.wrap(DeviceNDArray, obj)


# ---- page-locked and mapped host memory


def _host_array(
    shape: ShapeLike,
    dtype: npt.DTypeLike,
    strides: Sequence[int] | None,
    order: str,
    flags: int,
    what: str,
    cls: type[_HostArray],
) -> tuple[_HostArray, _gpukit.PagelockedHostAllocation, int]:
    dtype = _plain_dtype(dtype, what)
    layout = _layout(shape, strides, dtype.itemsize, order)
    # Strides may leave gaps: the memory runs to the end of the last element.
    low, nbytes = layout.byte_extent() if layout.size else (0, 0)
    if low < 0:
        raise ValueError(f"negative strides {tuple(layout.strides)} are not supported for new arrays")
    # The driver refuses empty allocations; an empty array gets one unused byte.
    allocation = _gpukit._pagelocked_alloc(max(nbytes, 1), flags)
    # The allocation has the buffer protocol, which numpy's stubs do not accept beyond their own types.
    array = np.ndarray.__new__(
        cls,
        tuple(layout.shape),
        dtype,
        buffer=allocation,  # type: ignore[arg-type]
        strides=tuple(layout.strides),
    )
    return array, allocation, nbytes


def pinned_array(
    shape: ShapeLike, dtype: npt.DTypeLike = np.float64, strides: Sequence[int] | None = None, order: str = "C"
) -> npt.NDArray[Any]:
    """An uninitialised numpy array in page-locked host memory, like numpy.empty."""
    return _host_array(shape, dtype, strides, order, 0, "pinned_array(dtype)", np.ndarray)[0]


def mapped_array(
    shape: ShapeLike,
    dtype: npt.DTypeLike = np.float64,
    strides: Sequence[int] | None = None,
    order: str = "C",
    stream: StreamLike = 0,
    portable: bool = False,
    wc: bool = False,
) -> MappedNDArray:
    """An uninitialised MappedNDArray: page-locked host memory that kernels also address.
    `portable`: usable from every context; `wc`: write-combined (fast host writes and
    device reads, very slow host reads)."""
    flags = host_alloc_flags.DEVICEMAP
    if portable:
        flags |= host_alloc_flags.PORTABLE
    if wc:
        flags |= host_alloc_flags.WRITECOMBINED
    array, allocation, nbytes = _host_array(shape, dtype, strides, order, flags, "mapped_array(dtype)", MappedNDArray)
    host = np.frombuffer(allocation, np.uint8).ctypes.data  # type: ignore[call-overload]  # (a buffer numpy's stubs do not list)
    array._mapping = _Mapping(host, allocation.get_device_pointer(), nbytes)
    array._stream = _stream(stream)
    return array


class _Mapping:
    """Where a block of mapped host memory lies in the host's and the device's address spaces."""

    def __init__(self, host: int, device: int, nbytes: int) -> None:
        self.host, self.device, self.nbytes = host, device, nbytes


class MappedNDArray(np.ndarray):
    """A numpy array in mapped page-locked memory that is also a device array: kernels
    and other libraries reach it through __cuda_array_interface__, and it has the
    DeviceNDArray copy methods. numpy views of it (slices) stay mapped."""

    _mapping: _Mapping | None
    _stream: _typing.StreamLike | None

    def __array_finalize__(self, obj: object) -> None:
        self._mapping = getattr(obj, "_mapping", None)
        self._stream = getattr(obj, "_stream", None)

    def _device_view(self) -> DeviceNDArray:
        """A DeviceNDArray over this array's memory, as the device addresses it."""
        mapping = self._mapping
        host = self.__array_interface__["data"][0]
        if mapping is None or not (self.size == 0 or mapping.host <= host < mapping.host + mapping.nbytes):
            # numpy results computed from a mapped array (a + 1) are ordinary memory.
            raise ValueError(
                "this MappedNDArray's memory is not mapped page-locked memory (it is a numpy result "
                "computed from one); copy it into a mapped_array() first"
            )
        view = DeviceNDArray.__new__(DeviceNDArray)
        layout = Layout(list(self.shape), list(self.strides), self.dtype.itemsize, 0)
        _gpukit._Array.__init__(
            view, layout, self.dtype, None, self, mapping.device + (host - mapping.host), self._stream
        )
        return view

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return self._device_view().__cuda_array_interface__

    def copy_to_host(self, ary: npt.NDArray[Any] | None = None, stream: StreamLike = 0) -> npt.NDArray[Any]:
        """DeviceNDArray.copy_to_host of this memory."""
        return self._device_view().copy_to_host(ary, stream)

    def copy_to_device(self, ary: Any, stream: StreamLike = 0) -> None:
        """DeviceNDArray.copy_to_device into this memory."""
        self._device_view().copy_to_device(ary, stream)

    def is_c_contiguous(self) -> bool:
        """Whether the elements lie in C order without gaps."""
        return self.flags.c_contiguous

    def is_f_contiguous(self) -> bool:
        """Whether the elements lie in Fortran order without gaps."""
        return self.flags.f_contiguous

    def split(self, section: int, stream: StreamLike = 0) -> list[Any]:
        """Views of `section` elements each; the last may be shorter."""
        return [self[start : start + section] for start in range(0, len(self), section)]


def _is_page_locked(ary: object) -> bool:
    """Whether `ary`'s memory already belongs to a page-locked allocation (pinned_array,
    pagelocked_empty, register_host_memory, managed memory)."""
    locked = (_gpukit.PagelockedHostAllocation, _gpukit.RegisteredHostMemory, _gpukit.ManagedAllocation)
    base = ary
    while base is not None:
        if isinstance(base, locked):
            return True
        base = getattr(base, "base", None)
    return False


def _check_host_arrays(arrays: Iterable[object], what: str) -> None:
    for ary in arrays:
        if not isinstance(ary, np.ndarray):
            raise TypeError(f"{what}: expected numpy arrays, got {type(ary).__name__}")


@contextlib.contextmanager
def pinned(*arrays: npt.NDArray[Any]) -> Iterator[None]:
    """Page-lock the memory of numpy `arrays` for the block, as numba's pinned(): the whole
    pages each array spans, whatever its alignment or strides (arrays sharing a page are
    locked together). Arrays whose memory is page-locked already are left as they are."""
    _check_host_arrays(arrays, "pinned(*arrays)")
    pages = _gpukit._register_host_pages([ary for ary in arrays if not _is_page_locked(ary)], 0)
    try:
        yield
    finally:
        pages.unregister()


@contextlib.contextmanager
def mapped(*arrays: npt.NDArray[Any], stream: StreamLike = 0) -> Iterator[Any]:
    """Map the numpy `arrays` into the device's address space for the block, as numba's
    mapped(): the whole pages each spans are page-locked and mapped, whatever its alignment
    or strides. Yields a DeviceNDArray over each (one array: the DeviceNDArray itself, else a
    list), with the host array's shape and strides."""
    _check_host_arrays(arrays, "mapped(*arrays)")
    pages = _gpukit._register_host_pages(list(arrays), int(mem_host_register_flags.DEVICEMAP))
    try:
        views: list[DeviceNDArray] = []
        for ary in arrays:
            view = DeviceNDArray.__new__(DeviceNDArray)
            layout = Layout(list(ary.shape), list(ary.strides), ary.dtype.itemsize, 0)
            _gpukit._Array.__init__(view, layout, ary.dtype, None, pages, pages.device_pointer(ary), _stream(stream))
            views.append(view)
        yield views[0] if len(views) == 1 else views
    finally:
        pages.unregister()
