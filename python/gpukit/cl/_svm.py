"""PyOpenCL's Python-level SVM: arrays over SVM (svm_empty, csvm_empty, fsvm_empty and their
*_like forms, whose ``.base`` is the SVMAllocation), the SVM wrapper's owner lookup, mapping
for host access (``map``, ``map_ro``, ``map_rw`` of SVM and SVMAllocation, giving an SVMMap),
and ``as_buffer``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np

from gpukit._gpukit import cl as _cl
from gpukit.cl._host_views import _layout, array_over

if TYPE_CHECKING:
    from numpy.typing import DTypeLike, NDArray

    # svm_empty's arguments after flags: ctx, shape, dtype, order, alignment.
    _EmptyFunction = Callable[[_cl.Context, tuple[int, ...], np.dtype[Any], str, SupportsIndex | None], NDArray[Any]]


def svm_empty(
    ctx: _cl.Context,
    flags: int,
    shape: SupportsIndex | Sequence[SupportsIndex],
    dtype: DTypeLike,
    order: str = "C",
    alignment: SupportsIndex | None = None,
    queue: _cl.CommandQueue | None = None,
) -> NDArray[Any]:
    """A numpy array of `shape` and `dtype` over new SVM of `ctx` (svm_mem_flags `flags`),
    as PyOpenCL's; ``.base`` is the SVMAllocation. Coarse-grained SVM may be read and written
    on the host only while mapped (``SVM(ary).map_rw(queue)``)."""
    dtype, layout = _layout(shape, dtype, order, None, "svm_empty")
    alignment = dtype.itemsize if alignment is None else alignment
    allocation = _cl.tools.SVMAllocation(ctx, layout.nbytes, alignment, flags, queue)
    return array_over(allocation, allocation.svm_ptr, dtype, layout)


def csvm_empty(
    ctx: _cl.Context,
    shape: SupportsIndex | Sequence[SupportsIndex],
    dtype: DTypeLike,
    order: str = "C",
    alignment: SupportsIndex | None = None,
    queue: _cl.CommandQueue | None = None,
) -> NDArray[Any]:
    """svm_empty of coarse-grained READ_WRITE SVM."""
    return svm_empty(ctx, _cl.svm_mem_flags.READ_WRITE, shape, dtype, order, alignment, queue)


def fsvm_empty(
    ctx: _cl.Context,
    shape: SupportsIndex | Sequence[SupportsIndex],
    dtype: DTypeLike,
    order: str = "C",
    alignment: SupportsIndex | None = None,
    queue: _cl.CommandQueue | None = None,
) -> NDArray[Any]:
    """svm_empty of fine-grained READ_WRITE SVM, which the host may use at any time."""
    flags = _cl.svm_mem_flags.READ_WRITE | _cl.svm_mem_flags.SVM_FINE_GRAIN_BUFFER
    return svm_empty(ctx, flags, shape, dtype, order, alignment, queue)


def _like(
    function: _EmptyFunction, ctx: _cl.Context, ary: NDArray[Any], alignment: SupportsIndex | None
) -> NDArray[Any]:
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    return function(ctx, ary.shape, ary.dtype, order, alignment)


def svm_empty_like(
    ctx: _cl.Context, flags: int, ary: NDArray[Any], alignment: SupportsIndex | None = None
) -> NDArray[Any]:
    """svm_empty of `ary`'s shape, dtype and order."""
    return _like(lambda c, *rest: svm_empty(c, flags, *rest), ctx, ary, alignment)


def csvm_empty_like(ctx: _cl.Context, ary: NDArray[Any], alignment: SupportsIndex | None = None) -> NDArray[Any]:
    return _like(csvm_empty, ctx, ary, alignment)


def fsvm_empty_like(ctx: _cl.Context, ary: NDArray[Any], alignment: SupportsIndex | None = None) -> NDArray[Any]:
    return _like(fsvm_empty, ctx, ary, alignment)


def svm_owner_and_range(mem: object) -> tuple[_cl.SVMPointer, int, int]:
    """(owner, address, bytes) that SVM(mem) stands for: `mem` itself when it is SVM, else the
    SVM (SVMAllocation, PooledSVM) a contiguous numpy array `mem` is a view of."""
    if isinstance(mem, _cl.SVMPointer):
        return mem, mem.svm_ptr, mem.size
    if not isinstance(mem, np.ndarray):
        raise TypeError(
            f"SVM(mem): mem must be SVM (an SVMAllocation or PooledSVM) or a numpy array over one, "
            f"got {type(mem).__name__}"
        )
    if not (mem.flags.c_contiguous or mem.flags.f_contiguous):
        raise ValueError("SVM(mem): the array must be contiguous")
    base: object = mem.base
    while base is not None and not isinstance(base, _cl.SVMPointer):
        base = getattr(base, "base", None)
    if base is None:
        raise TypeError(
            "SVM(mem): the array is not over SVM (make it with svm_empty, csvm_empty or fsvm_empty); "
            "fine-grained system SVM over ordinary host memory is not supported"
        )
    return base, mem.__array_interface__["data"][0], mem.nbytes


class SVMMap:
    """SVM mapped for host access: ``array`` is the host's view; ``release()`` (or leaving the
    ``with`` block) unmaps it, after which the host must not touch coarse-grained SVM."""

    array: NDArray[Any]
    event: _cl.Event
    _svm: _cl.SVMPointer | None
    _queue: _cl.CommandQueue

    def __init__(self, svm: _cl.SVMPointer, array: NDArray[Any], queue: _cl.CommandQueue, event: _cl.Event) -> None:
        self._svm, self.array, self._queue, self.event = svm, array, queue, event

    def __enter__(self) -> NDArray[Any]:
        return self.array

    def __exit__(self, *exc: object) -> None:
        self.release()

    def release(self, queue: _cl.CommandQueue | None = None, wait_for: Iterable[_cl.Event] | None = None) -> _cl.Event:
        """Unmap on `queue` (the mapping queue when None) after `wait_for`; an Event."""
        if self._svm is None:
            raise _cl.LogicError("SVMMap.release: already released")
        event = _cl._enqueue_svm_unmap(queue if queue is not None else self._queue, self._svm, wait_for)
        self._svm = None
        return event


def _bytes_of(svm: _cl.SVMPointer) -> NDArray[np.uint8]:
    """The bytes of an SVMAllocation or PooledSVM as a uint8 array whose base it is."""
    return array_over(svm, svm.svm_ptr, *_layout(svm.size, np.uint8, "C", None, "SVM"))


def _host_array(svm: _cl.SVMPointer) -> NDArray[Any]:
    """What a map of `svm` shows the host: an SVM's array, or the bytes of an SVMAllocation or
    PooledSVM (also one that an SVM wraps, which PyOpenCL's SVM refuses)."""
    # SVM's `mem` is an instance attribute (set in bind_cl_mapping.cpp) that its stub cannot declare.
    mem = svm.mem if isinstance(svm, _cl.SVM) else svm  # type: ignore[attr-defined]
    return mem if isinstance(mem, np.ndarray) else _bytes_of(mem)


def svm_map(
    self: _cl.SVMPointer,
    queue: _cl.CommandQueue,
    flags: int,
    is_blocking: bool = True,
    wait_for: Iterable[_cl.Event] | None = None,
) -> SVMMap:
    """Map this SVM for host access with map_flags `flags`: an SVMMap whose ``array`` is the
    SVM's array (for an SVMAllocation or PooledSVM, its bytes as uint8)."""
    event = _cl._enqueue_svm_map(queue, is_blocking, flags, self, wait_for)
    return SVMMap(self, _host_array(self), queue, event)


def svm_as_buffer(self: _cl.SVMPointer, ctx: _cl.Context, flags: int | None = None) -> _cl.Buffer:
    """A Buffer over this SVM's memory (OpenCL's USE_HOST_PTR of an SVM pointer)."""
    flags = _cl.mem_flags.READ_WRITE if flags is None else flags
    return _cl.Buffer(ctx, flags | _cl.mem_flags.USE_HOST_PTR, hostbuf=_host_array(self))
