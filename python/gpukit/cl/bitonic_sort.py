"""PyOpenCL's BitonicSort on gpukit's array engine: ``gpukit.cl.bitonic_sort``
(``pyopencl.bitonic_sort`` through ``gpukit.pyopencl_compat``)::

    sorter = BitonicSort(ctx)
    x, evt = sorter(x, axis=1)               # each line of x along axis 1, in place
    x, evt = sorter(x, idx=order)            # order (an Array of x's shape) moved alongside

The engine's sort (C++: gpukit/array/sort.hpp): a bitonic network, ascending with NaNs last,
not stable. Unlike PyOpenCL's, any length sorts (PyOpenCL's needs a power of two), and the
arrays may be any views.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpukit import cl
from gpukit.cl.array import _NO_QUEUE, Array, _engine, _wait_for_events

if TYPE_CHECKING:
    from typing import SupportsIndex

    from gpukit._gpukit.cl import CommandQueue, Context, Event
    from gpukit.cl.array import _WaitList

__all__ = ["BitonicSort"]


class BitonicSort:
    """BitonicSort(context): ``sorter(arr, idx=None, queue=None, wait_for=None, axis=0)``
    sorts arr in place and returns (arr, event)."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def __call__(
        self,
        arr: Array,
        idx: Array | None = None,
        queue: CommandQueue | None = None,
        wait_for: _WaitList = None,
        axis: SupportsIndex = 0,
    ) -> tuple[Array, Event]:
        if not isinstance(arr, Array):
            raise TypeError(f"BitonicSort: arr must be an Array, got {type(arr).__name__}")
        if idx is not None:
            if not isinstance(idx, Array):
                raise TypeError(f"BitonicSort: idx must be an Array, got {type(idx).__name__}")
            if idx.shape != arr.shape:
                raise ValueError(f"BitonicSort: idx has the shape {idx.shape}, arr {arr.shape}")
        queue = queue or arr.queue
        if queue is None:
            raise ValueError(_NO_QUEUE)
        if wait_for:
            cl.enqueue_barrier(queue, wait_for=list(wait_for))
        _wait_for_events(queue, [arr] if idx is None else [arr, idx])
        if arr.size:
            # The engine's results are `object` in its stubs: the last kernel's Event here.
            return arr, _engine(queue, arr.allocator).sort(arr, idx, int(axis))  # type: ignore[return-value]
        return arr, cl.enqueue_marker(queue)
