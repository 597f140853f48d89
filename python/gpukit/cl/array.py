"""PyOpenCL's device arrays on gpukit's array engine: ``gpukit.cl.array`` (``pyopencl.array``
through ``gpukit.pyopencl_compat``).

An :class:`Array` is memory of a context (its ``base_data`` Buffer and a byte ``offset``), a
shape, strides and a dtype, with a default queue (``queue``) its operations run on and an
``allocator`` its results take memory from, as PyOpenCL's. The arithmetic, comparisons,
conversions, reductions and math functions are gpukit's array engine in C++ (the same engine
the CUDA arrays and C++ programs use), generating OpenCL C for the array's types and layout:
any strided view, numpy's broadcasting. Results follow numpy's type rules except where PyOpenCL
differs on purpose, and then follow PyOpenCL: comparisons and logical operations give int8
arrays (0 or 1), ``sum`` keeps the array's dtype unless ``dtype=`` says otherwise.

Operations are queued in order on the array's queue and return without waiting; ``get()``
waits. ``events`` holds the completion of each operation that wrote the array, as PyOpenCL's.
An event given to ``add_event`` (a command of another queue, a UserEvent), and an array's events
when it is used on another queue, are waited for by the queue (a barrier) before the operation,
without blocking the host; ``with_queue`` finishes the old queue before an array moves to another.

What is not there yet is listed in docs/opencl.md (each a clear error).
"""

from __future__ import annotations

import builtins
import math
import numbers
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from gpukit import cl
from gpukit._gpukit import Layout, LogicError, _ElementwiseSpec
from gpukit._gpukit.cl import _ArrayEngine
from gpukit._warnings import warn as _warn

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from types import EllipsisType
    from typing import NoReturn, SupportsIndex, TypeAlias, TypeGuard

    import numpy.typing as npt
    from numpy._globals import _NoValueType

    from gpukit._gpukit.cl import Buffer, CommandQueue, Context, Event, SVMPointer
    from gpukit._gpukit.cl.tools import AllocatorBase

    #: An allocator (``allocator=``), as PyOpenCL's: called with a size in bytes, it gives the
    #: memory (a MemoryPool, an SVMAllocator or SVMPool, a function; DeferredAllocator and
    #: ImmediateAllocator, AllocatorBase, whose stub says only `object`, give a Buffer).
    _Allocator: TypeAlias = Callable[[int], Buffer | SVMPointer] | AllocatorBase
    #: An integer: a Python int or a numpy integer.
    _Int: TypeAlias = int | np.integer[Any]
    #: A shape: a dimension, or an iterable of them.
    _ShapeLike: TypeAlias = _Int | Iterable[_Int]
    #: A scalar operand: a Python number (bool, int, float, complex) or a numpy scalar.
    _Scalar: TypeAlias = complex | np.generic[Any]
    #: What fill() and the scalar forms take: a scalar, or a 0-d numpy array (a cltypes value).
    _ScalarLike: TypeAlias = _Scalar | npt.NDArray[Any]
    #: PyOpenCL's wait_for: the events a command waits for.
    _WaitList: TypeAlias = Sequence[Event] | None
    _IndexItem: TypeAlias = SupportsIndex | slice | EllipsisType | None
    #: What indexes an Array: basic indexing (integers, slices, ..., None), or an integer Array.
    _Index: TypeAlias = _IndexItem | tuple[_IndexItem, ...] | "Array"
else:
    _NoValueType = type(np._NoValue)

__all__ = [
    "Array",
    "ArrayHasOffsetError",
    "InconsistentOpenCLQueueWarning",
    "to_device",
    "empty",
    "zeros",
    "empty_like",
    "zeros_like",
    "arange",
    "as_strided",
    "concatenate",
    "stack",
    "hstack",
    "diff",
    "transpose",
    "reshape",
    "if_positive",
    "where",
    "maximum",
    "minimum",
    "logical_and",
    "logical_or",
    "logical_not",
    "sum",
    "dot",
    "vdot",
    "min",
    "max",
    "any",
    "all",
    "subset_dot",
    "subset_min",
    "subset_max",
    "take",
    "multi_take",
    "multi_put",
    "multi_take_put",
    "cumsum",
]

_BOOL_DTYPE = np.dtype(np.int8)  # PyOpenCL's type of comparisons and logical results
_NO_QUEUE = "the array has no queue: pass queue= or use with_queue()"


class ArrayHasOffsetError(ValueError):
    """Raised by ``Array.data`` for an array that starts inside its Buffer (use base_data)."""

    def __init__(
        self,
        val: str = "The operation you are attempting does not yet support arrays "
        "that start at an offset from the beginning of their buffer.",
    ) -> None:
        super().__init__(val)


class InconsistentOpenCLQueueWarning(UserWarning):
    """An Array's queue is not the queue its SVM is bound to (freed on): the memory may be freed
    while the array's queue still uses it."""


def _check_svm_queue(data: Buffer | SVMPointer, queue: CommandQueue | None) -> None:
    if queue is not None and isinstance(data, cl.SVMPointer):
        bound = getattr(data, "_queue", None)
        if bound is not None and bound != queue:
            _warn(
                "Array has different queue from backing SVM memory. This may lead to the array getting "
                "deallocated sooner than expected, potentially leading to crashes.",
                InconsistentOpenCLQueueWarning,
            )


class _copy_queue:  # noqa: N801 (PyOpenCL's name): copy()'s default, the array's own queue
    pass


class _same_as_transfer:  # noqa: N801 (PyOpenCL's name): to_device's default array_queue
    pass


def _engine(queue: CommandQueue | None, allocator: _Allocator | None) -> _ArrayEngine:
    """The engine of `queue` and `allocator`, made once and kept on the queue."""
    if queue is None:
        raise ValueError(_NO_QUEUE)
    engines: dict[object, _ArrayEngine] = queue.__dict__.setdefault("_gpukit_array_engines", {})
    key = allocator if allocator is None or _hashable(allocator) else id(allocator)
    engine = engines.get(key)
    if engine is None:
        engine = engines[key] = _ArrayEngine(queue, allocator)
    return engine


def _wait_for_events(queue: CommandQueue | None, operands: Iterable[object]) -> None:
    """Make `queue` wait (a barrier; the host does not wait) for the events of the Arrays among
    `operands` that it does not run after already: events added by add_event (another queue's
    commands, a UserEvent) and events of operations queued on another queue. The events an
    operation on an array's own queue left need no barrier: the queue runs in order."""
    events: list[Event] | None = None
    for a in operands:
        if isinstance(a, Array) and a.events and (a._foreign or a.queue is not queue):
            events = (events or []) + a.events
            if a.queue is queue:
                a._foreign = False
    if events:
        if queue is None:
            raise ValueError(_NO_QUEUE)
        cl.enqueue_barrier(queue, wait_for=events)


# (name, params, operation, preamble) -> _ElementwiseSpec: each made once per process
_SPECS: dict[tuple[str, tuple[tuple[str, str, str], ...], str, str], _ElementwiseSpec] = {}


def _spec(
    name: str, params: Iterable[tuple[str, npt.DTypeLike, str]], operation: str, preamble: str = ""
) -> _ElementwiseSpec:
    """The engine's elementwise kernel `name` of `params` ((name, dtype, "in"/"out"/"inout"/
    "scalar") each) running the OpenCL C `operation` on element i after `preamble`, made once
    and cached."""
    named = tuple((n, np.dtype(t).name, kind) for n, t, kind in params)
    key = (name, named, operation, preamble)
    spec = _SPECS.get(key)
    if spec is None:
        spec = _SPECS[key] = _ElementwiseSpec(name, list(named), operation, preamble)
    return spec


def _barrier(queue: CommandQueue | None, wait_for: _WaitList) -> None:
    """The queue's next commands wait for the events of `wait_for` (the host does not)."""
    if wait_for:
        if queue is None:
            raise ValueError(_NO_QUEUE)
        cl.enqueue_barrier(queue, wait_for=list(wait_for))


def _hashable(x: object) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _shape_tuple(shape: _ShapeLike) -> tuple[int, ...]:
    # (int, an Integral, is named for the type checker)
    dims: tuple[object, ...] = (shape,) if isinstance(shape, (int, numbers.Integral, np.integer)) else tuple(shape)
    ints: list[int] = []
    for s in dims:
        if not isinstance(s, (int, numbers.Integral, np.integer)):
            raise ValueError(f"an array's dimensions are integers, got {s!r} ({type(s).__name__})")
        ints.append(int(s))
    result = tuple(ints)
    if builtins.any(s < 0 for s in result):
        raise ValueError(f"negative dimensions are not allowed: {result}")
    return result


def _contiguous_strides(shape: Sequence[int], itemsize: int, order: str) -> tuple[int, ...]:
    strides = [0] * len(shape)
    step = itemsize
    axes = range(len(shape) - 1, -1, -1) if order in ("C", "c") else range(len(shape))
    for axis in axes:
        strides[axis] = step
        step *= builtins.max(shape[axis], 1)
    return tuple(strides)


def _is_scalar(x: object) -> TypeGuard[_ScalarLike]:
    return isinstance(x, (numbers.Number, np.generic)) or (isinstance(x, np.ndarray) and x.ndim == 0)


class Array:
    """A PyOpenCL array: ``Array(cq, shape, dtype, order="C", allocator=None, data=None,
    offset=0, strides=None, events=None)``. `cq` is a CommandQueue (the default queue of the
    operations) or a Context (then pass a queue to operations or use with_queue)."""

    __array_priority__ = 100

    queue: CommandQueue | None
    context: Context
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    strides: tuple[int, ...]
    allocator: _Allocator | None
    base_data: Buffer | SVMPointer
    offset: int
    size: int
    events: list[Event]

    def __init__(
        self,
        cq: CommandQueue | Context,
        shape: _ShapeLike,
        dtype: npt.DTypeLike,
        order: str = "C",
        allocator: _Allocator | None = None,
        data: Buffer | SVMPointer | None = None,
        offset: SupportsIndex = 0,
        strides: Iterable[SupportsIndex] | None = None,
        events: Iterable[Event] | None = None,
        _flags: object = None,
        _fast: bool = False,
        _size: int | None = None,
        _context: Context | None = None,
        _queue: CommandQueue | None = None,
    ) -> None:
        if _fast:
            # PyOpenCL's private constructor of views and results, with its fields as they are
            # (subclasses' constructors forward these arguments; _fast_array makes them so).
            _set_fields(self, _queue, _context, shape, dtype, strides, allocator, data, offset, _size, events)  # type: ignore[arg-type]
            return
        queue: CommandQueue | None
        if isinstance(cq, cl.CommandQueue):
            queue, context = cq, cq.context
        elif isinstance(cq, cl.Context):
            queue, context = None, cq
        else:
            raise TypeError(f"Array: cq must be a CommandQueue or a Context, got {type(cq).__name__}")
        if order not in ("C", "F", "c", "f"):
            raise ValueError(f"Array: order must be 'C' or 'F', got {order!r}")
        self.queue, self.context, self.allocator = queue, context, allocator
        self.dtype = np.dtype(dtype)
        self.shape = _shape_tuple(shape)
        self.size = math.prod(self.shape)
        if strides is None:
            self.strides = _contiguous_strides(self.shape, self.dtype.itemsize, order)
        else:
            self.strides = tuple(int(s) for s in strides)
            if len(self.strides) != len(self.shape):
                raise ValueError(f"Array: {len(self.strides)} strides for {len(self.shape)} dimensions")
        self.offset = int(offset)
        if data is None:
            nbytes = self.size * self.dtype.itemsize
            if allocator is not None:
                # AllocatorBase's stub says its __call__ gives an object: a Buffer (None for 0 bytes only).
                made: Buffer | SVMPointer = allocator(builtins.max(nbytes, 1))  # type: ignore[assignment]
                data = made
            else:
                data = cl.Buffer(context, cl.mem_flags.READ_WRITE, builtins.max(nbytes, 1))
        self.base_data = data
        self.events = list(events) if events else []
        _check_svm_queue(data, queue)

    # ---- what it is

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def data(self) -> Buffer | SVMPointer:
        if self.offset:
            raise ArrayHasOffsetError()
        return self.base_data

    @property
    def flags(self) -> _Flags:
        return _Flags(self)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __hash__(self) -> NoReturn:
        raise TypeError("pyopencl arrays are not hashable.")

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(
                "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
            )
        return bool(self.get().item())

    def __str__(self) -> str:
        if self.queue is None:  # nothing to read it with: say so, as PyOpenCL does
            return f"<cl.{type(self).__name__} {self.shape} of {self.dtype} without queue, call with_queue()>"
        return str(self.get())

    def __repr__(self) -> str:
        name = type(self).__name__
        if self.queue is None:
            return f"<cl.{name} {self.shape} of {self.dtype} at {id(self):x} without queue, call with_queue()>"
        return repr(self.get()).replace("array(", f"cl.{name}(", 1)

    # ---- making arrays like this one

    def _engine(self, queue: CommandQueue | None = None, *operands: object) -> _ArrayEngine:
        """The engine of the queue, after the events of this array and the other operands:
        the queue waits for them (a barrier, the host does not wait)."""
        queue = queue or self.queue
        _wait_for_events(queue, (self,) + operands)
        return _engine(queue, self.allocator)

    def _wrap(
        self, made: tuple[Any, ...], queue: CommandQueue | None = None, dtype: np.dtype[Any] | None = None
    ) -> Array:
        """The Array of an engine result (base_data, offset, shape, strides, dtype, the event of
        the kernel that wrote it), on `queue` (default: this array's), which the operation ran on."""
        base, offset, shape, strides, result_dtype, event = made
        return _fast_array(
            type(self),
            queue or self.queue,
            self.context,
            shape,
            dtype or result_dtype,
            strides,
            self.allocator,
            base,
            offset,
            int(math.prod(shape)),
            None if event is None else [event],
        )

    def _new_with_changes(
        self,
        data: Buffer | SVMPointer | None = None,
        offset: int | None = None,
        shape: Iterable[int] | None = None,
        dtype: npt.DTypeLike | None = None,
        strides: Iterable[int] | None = None,
        queue: CommandQueue | None = None,
        allocator: _Allocator | None = None,
    ) -> Array:
        new_shape = self.shape if shape is None else tuple(shape)
        # A view shares the array's events (PyOpenCL's views do): the same list.
        view = _fast_array(
            type(self),
            self.queue if queue is None else queue,
            self.context,
            new_shape,
            self.dtype if dtype is None else np.dtype(dtype),
            self.strides if strides is None else tuple(strides),
            self.allocator if allocator is None else allocator,
            self.base_data if data is None else data,
            self.offset if offset is None else offset,
            int(math.prod(new_shape)),
            self.events,
        )
        if self._foreign:
            view._foreign = True
        return view

    def _new_like_me(self, dtype: npt.DTypeLike | None = None, queue: CommandQueue | None = None) -> Array:
        return type(self)(
            queue or self.queue or self.context,
            self.shape,
            self.dtype if dtype is None else dtype,
            allocator=self.allocator,
        )

    def with_queue(self, queue: CommandQueue | None) -> Array:
        """This array (the same memory) with `queue` as its default queue (None: none); the old
        queue's work is finished first, so the new queue sees its results."""
        if queue is not None and queue.context != self.context:
            raise ValueError("with_queue: the queue belongs to another context")
        if self.queue is not None and queue is not self.queue:
            self.queue.finish()
        view = self._new_with_changes(queue=queue)
        view.queue = queue  # None too: as in PyOpenCL, the view then has no default queue
        return view

    def finish(self) -> None:
        """Wait for the array's events and its queue's work; the events are then forgotten."""
        if self.events:
            cl.wait_for_events(self.events)
            del self.events[:]
            self._foreign = False
        if self.queue is not None:
            self.queue.finish()

    # Whether `events` holds an event the array's queue does not run after by itself (one
    # add_event gave, or one of an operation on another queue).
    _foreign = False

    def add_event(self, evt: Event) -> None:
        """Make the array's next operations wait for `evt` (a command writing it on another
        queue, a UserEvent). As PyOpenCL's, past twelve events the oldest four are waited for
        and forgotten."""
        self._foreign = True
        self._keep(evt)

    def _record(self, event: object, queue: CommandQueue | None = None) -> None:
        """Keep the event of an operation (on `queue`, default the array's) that wrote the array:
        an Event, or None where no kernel ran."""
        if event is not None:
            if queue is not None and queue is not self.queue:
                self._foreign = True
            # The engine's results are `object` in its stubs: an Event here.
            self._keep(event)  # type: ignore[arg-type]

    def _keep(self, event: Event) -> None:
        events = self.events
        if len(events) > 12:
            cl.wait_for_events(events[:4])
            del events[:4]
        events.append(event)

    # ---- host transfers

    def set(self, ary: npt.ArrayLike, queue: CommandQueue | None = None, async_: bool = False) -> None:
        """Copy the host array `ary` (this array's shape and dtype) into this array. `async_`
        allows PyOpenCL to return before the copy is done; gpukit always finishes it first,
        so `ary` may be changed at once either way."""
        ary = np.asarray(ary)
        if ary.shape != self.shape:
            raise ValueError(f"set: the host array's shape {ary.shape} differs from the array's {self.shape}")
        if ary.dtype != self.dtype:
            raise TypeError(f"set: the host array's dtype {ary.dtype} differs from the array's {self.dtype}")
        queue = queue or self.queue
        if self.flags.forc and not isinstance(self.base_data, cl.SVMPointer):  # any dtype, records too
            host = np.asfortranarray(ary) if not self.flags.c_contiguous else np.ascontiguousarray(ary)
            if self.size:
                if queue is None:
                    raise ValueError(_NO_QUEUE)
                _wait_for_events(queue, (self,))
                cl.enqueue_copy(queue, self.base_data, host, dst_offset=self.offset, is_blocking=True)
            return
        self._engine(queue).write(self, np.ascontiguousarray(ary))

    def get(self, queue: CommandQueue | None = None, ary: npt.NDArray[Any] | None = None) -> npt.NDArray[Any]:
        """The elements as a numpy array (into `ary` when given), after the work queued before
        (get_async returns without waiting)."""
        if ary is not None:
            if ary.shape != self.shape or ary.dtype != self.dtype:
                raise TypeError("get: ary must have the array's shape and dtype")
        queue = queue or self.queue
        fortran = self.flags.f_contiguous and not self.flags.c_contiguous
        host = np.empty(self.shape, self.dtype, order="F" if fortran else "C")
        if self.size and (self.flags.c_contiguous or fortran) and not isinstance(self.base_data, cl.SVMPointer):
            if queue is None:
                raise ValueError(_NO_QUEUE)
            _wait_for_events(queue, (self,))
            cl.enqueue_copy(queue, host, self.base_data, src_offset=self.offset, is_blocking=True)
        elif self.size:
            self._engine(queue).read(self, host)
        if ary is not None:
            ary[...] = host
            return ary
        return host

    def get_async(
        self, queue: CommandQueue | None = None, ary: npt.NDArray[Any] | None = None
    ) -> tuple[npt.NDArray[Any], Event]:
        """(host array, event): the copy is queued after the array's events and work, and the
        host array holds the elements once the event completes."""
        queue = queue or self.queue
        if queue is None:
            raise ValueError(_NO_QUEUE)
        # enqueue_copy takes SVM from its start only
        in_place = self.flags.c_contiguous and not (self.offset and isinstance(self.base_data, cl.SVMPointer))
        source = self if in_place else self.copy(queue)
        host = np.empty(self.shape, self.dtype) if ary is None else ary
        if ary is not None and (ary.shape != self.shape or ary.dtype != self.dtype or not ary.flags.c_contiguous):
            raise TypeError("get_async: ary must be C-contiguous, of the array's shape and dtype")
        if not self.size:
            return host, cl.enqueue_marker(queue)
        evt = cl.enqueue_copy(
            queue, host, source.base_data, src_offset=source.offset, wait_for=source.events, is_blocking=False
        )
        return host, evt

    def map_to_host(
        self,
        queue: CommandQueue | None = None,
        flags: int | None = None,
        is_blocking: bool = True,
        wait_for: _WaitList = None,
    ) -> npt.NDArray[Any]:
        """A numpy array over the array's memory mapped into the host (contiguous arrays)."""
        if not (self.flags.c_contiguous or self.flags.f_contiguous):
            raise ValueError("map_to_host: the array must be contiguous")
        if flags is None:
            flags = cl.map_flags.READ | cl.map_flags.WRITE
        map_queue = queue or self.queue
        if map_queue is None:
            raise ValueError(_NO_QUEUE)
        if isinstance(self.base_data, cl.SVMPointer):
            raise TypeError("map_to_host takes arrays over a Buffer only (map SVM with SVM.map_rw)")
        ary, _evt = cl.enqueue_map_buffer(
            map_queue,
            self.base_data,
            flags,
            self.offset,
            self.shape,
            self.dtype,
            strides=self.strides,
            wait_for=wait_for,
            is_blocking=is_blocking,
        )
        return ary

    # ---- copies and conversions

    def copy(self, queue: CommandQueue | None | type[_copy_queue] = _copy_queue) -> Array:
        """A new array holding the same elements (C-contiguous where this one is not), whose
        queue is `queue` (default: this array's; None: no queue)."""
        if isinstance(queue, type):  # _copy_queue, the default (`is` would not narrow the type)
            queue = self.queue
        result = self._wrap(self._engine(queue).copy(self), queue)
        result.queue = queue
        return result

    def astype(self, dtype: npt.DTypeLike, queue: CommandQueue | None = None) -> Array:
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self.copy(queue or self.queue)
        return self._wrap(self._engine(queue).astype(self, dtype), queue)

    def _zero_fill(self, queue: CommandQueue | None = None, wait_for: _WaitList = None) -> None:
        """Every byte of the (contiguous) array set to zero, whatever its dtype."""
        if isinstance(self.base_data, cl.SVMPointer):  # enqueue_fill_buffer takes Buffers only
            _barrier(queue or self.queue, wait_for)
            self._record(self._engine(queue).assign(self, 0), queue)
        elif self.nbytes:
            fill_queue = queue or self.queue
            if fill_queue is None:
                raise ValueError(_NO_QUEUE)
            self._record(
                cl.enqueue_fill_buffer(
                    fill_queue, self.base_data, np.uint8(0), self.offset, self.nbytes, wait_for=wait_for
                ),
                queue,
            )

    def fill(self, value: _ScalarLike, queue: CommandQueue | None = None, wait_for: _WaitList = None) -> Array:
        """Every element set to `value`, after the events of `wait_for`; returns the array.
        Records and vector types (no kernels) are filled from the host, contiguous arrays only."""
        _barrier(queue or self.queue, wait_for)
        if self.dtype.fields is not None or self.dtype.subdtype is not None:
            if not self.flags.forc:
                raise NotImplementedError(f"fill of a non-contiguous array of {self.dtype} (make a copy first)")
            self.set(np.full(self.shape, value, dtype=self.dtype), queue=queue)
            return self
        self._record(self._engine(queue).assign(self, value), queue)
        return self

    # ---- views

    def reshape(self, *shape: _ShapeLike, order: str = "C", **kwargs: object) -> Array:
        if kwargs:
            raise TypeError(f"reshape() got unexpected keyword arguments {sorted(kwargs)}")
        # One shape, or the dimensions as arguments (int, an Integral, is named for the type checker).
        if len(shape) == 1 and not isinstance(shape[0], (int, numbers.Integral, np.integer)):
            dims: Iterable[_Int] = shape[0]
        else:
            dims = shape  # type: ignore[assignment]  # reshape(*shape): the dimensions, each an integer
        new_shape = tuple(int(s) for s in dims)
        if new_shape.count(-1) > 1:
            raise ValueError("can only specify one unknown dimension")
        if -1 in new_shape:
            known = int(math.prod(s for s in new_shape if s != -1))
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape array of size {self.size} into shape {new_shape}")
            new_shape = tuple(self.size // known if s == -1 else s for s in new_shape)
        if int(math.prod(new_shape)) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {new_shape}")
        if new_shape == self.shape:
            return self._new_with_changes()
        if order not in ("C", "c", "F", "f"):
            raise ValueError(f"reshape(order=): 'C' or 'F', got {order!r}")
        contiguous = self.flags.c_contiguous if order in ("C", "c") else self.flags.f_contiguous
        if contiguous:
            return self._new_with_changes(
                shape=new_shape, strides=_contiguous_strides(new_shape, self.dtype.itemsize, order)
            )
        # A strided array: numpy's view where one exists (splitting or merging axes whose
        # elements are evenly spaced), else, as numpy, a copy.
        try:
            strides = Layout(self.shape, self.strides, self.dtype.itemsize, 0).reshape(new_shape, order.upper()).strides
        except LogicError:
            copied = self.copy() if order in ("C", "c") else self.T.copy().T  # contiguous in `order`
            return copied.reshape(new_shape, order=order)
        return self._new_with_changes(shape=new_shape, strides=tuple(strides))

    def ravel(self, order: str = "C") -> Array:
        return self.reshape(self.size, order=order)

    def view(self, dtype: npt.DTypeLike | None = None) -> Array:
        """The same memory seen as `dtype` (the last axis rescaled, as numpy's view)."""
        if dtype is None:
            return self._new_with_changes()
        dtype = np.dtype(dtype)
        old, new = self.dtype.itemsize, dtype.itemsize
        if old == new:
            return self._new_with_changes(dtype=dtype)
        if not self.flags.c_contiguous or not self.shape or (self.shape[-1] * old) % new:
            raise ValueError("view: the array must be C-contiguous and its last axis a multiple of the new size")
        shape = self.shape[:-1] + (self.shape[-1] * old // new,)
        return self._new_with_changes(shape=shape, dtype=dtype, strides=_contiguous_strides(shape, new, "C"))

    def squeeze(self) -> Array:
        keep = [k for k, s in enumerate(self.shape) if s != 1]
        return self._new_with_changes(shape=[self.shape[k] for k in keep], strides=[self.strides[k] for k in keep])

    def transpose(self, axes: Iterable[SupportsIndex] | None = None) -> Array:
        if axes is None:
            axes = range(self.ndim - 1, -1, -1)
        order = [int(a) for a in axes]
        if sorted(order) != list(range(self.ndim)):
            raise ValueError(f"transpose: {order} is not a permutation of the axes")
        return self._new_with_changes(shape=[self.shape[a] for a in order], strides=[self.strides[a] for a in order])

    @property
    def T(self) -> Array:  # noqa: N802 (numpy's name)
        return self.transpose()

    def _index_array(self, index: Array, what: str) -> Array:
        """The Array of integer indices `index` (PyOpenCL's fancy indexing of 1-d Arrays)."""
        if index.dtype.kind not in "iu":
            raise TypeError(f"{what}: an index Array must hold integers, got {index.dtype}")
        if self.ndim != 1:
            raise NotImplementedError(f"{what}: an index Array indexes 1-d Arrays only (as in PyOpenCL)")
        return index

    def __getitem__(self, index: _Index) -> Array:
        if isinstance(index, Array):
            return take(self, self._index_array(index, "indexing"))
        if not isinstance(index, tuple):
            index = (index,)
        for item in index:
            if isinstance(item, (Array, np.ndarray, list)) and not _is_scalar(item):
                raise NotImplementedError(
                    "fancy indexing (an array of indices) is not supported yet by gpukit.cl.array; see docs/opencl.md"
                )
        if not builtins.any(item is Ellipsis for item in index):
            index = index + (Ellipsis,)  # a view even where every axis is indexed, not a scalar
        # numpy works out the view: over a stand-in whose address moves as the view's would.
        probe = np.lib.stride_tricks.as_strided(np.empty(1, np.uint8), self.shape, self.strides)
        view = probe[index]
        moved = view.__array_interface__["data"][0] - probe.__array_interface__["data"][0]
        return self._new_with_changes(offset=self.offset + moved, shape=view.shape, strides=view.strides)

    def setitem(
        self,
        subscript: _Index,
        value: Array | npt.ArrayLike,
        queue: CommandQueue | None = None,
        wait_for: _WaitList = None,
    ) -> None:
        """self[subscript] = value (an Array, a scalar or a host array, broadcast and
        converted), after the events of `wait_for`. An integer Array subscript scatters:
        self[subscript[i]] = value[i] (or value)."""
        if isinstance(subscript, Array):
            subscript = self._index_array(subscript, "setitem")
            if not isinstance(value, Array):
                if _is_scalar(value):
                    value = full_scalar(self, value)
                elif self.queue is None:
                    raise ValueError(_NO_QUEUE)
                else:
                    value = to_device(self.queue, np.asarray(value))
            if value.size == 1 and subscript.size != 1:
                if self.queue is None:
                    raise ValueError(_NO_QUEUE)
                filled = Array(self.queue, subscript.shape, self.dtype, allocator=self.allocator)
                filled.fill(value.get().item())
                value = filled
            if value.dtype != self.dtype:
                value = value.astype(self.dtype)
            multi_put([value.ravel()], subscript, out=[self], queue=queue, wait_for=wait_for)
            return
        target = self[subscript]
        _barrier(queue or self.queue, wait_for)
        if isinstance(value, Array) or _is_scalar(value):
            target._record(target._engine(queue, value).assign(target, value), queue)
            return
        host = np.broadcast_to(np.asarray(value, dtype=self.dtype), target.shape)
        target._engine(queue).write(target, np.ascontiguousarray(host))

    def __setitem__(self, subscript: _Index, value: Array | npt.ArrayLike) -> None:
        self.setitem(subscript, value)

    # ---- arithmetic

    def _binary(self, name: str, x: object, y: object, dtype: np.dtype[Any] | None = None) -> Array:
        if not (isinstance(x, Array) or _is_scalar(x)) or not (isinstance(y, Array) or _is_scalar(y)):
            return NotImplemented  # type: ignore[no-any-return]  # the operators' answer (typeshed types it Any)
        return self._wrap(self._engine(None, x, y).binary(name, x, y), dtype=dtype)

    def _update(self, name: str, other: object) -> Array:
        if not (isinstance(other, Array) or _is_scalar(other)):
            return NotImplemented  # type: ignore[no-any-return]  # the operators' answer (typeshed types it Any)
        self._record(self._engine(None, other).update(name, self, other))
        return self

    def __add__(self, other: Array | _Scalar) -> Array:
        return self._binary("add", self, other)

    def __radd__(self, other: Array | _Scalar) -> Array:
        return self._binary("add", other, self)

    def __sub__(self, other: Array | _Scalar) -> Array:
        return self._binary("subtract", self, other)

    def __rsub__(self, other: Array | _Scalar) -> Array:
        return self._binary("subtract", other, self)

    def __mul__(self, other: Array | _Scalar) -> Array:
        return self._binary("multiply", self, other)

    def __rmul__(self, other: Array | _Scalar) -> Array:
        return self._binary("multiply", other, self)

    def __truediv__(self, other: Array | _Scalar) -> Array:
        return self._binary("divide", self, other)

    def __rtruediv__(self, other: Array | _Scalar) -> Array:
        return self._binary("divide", other, self)

    def __pow__(self, other: Array | _Scalar) -> Array:
        return self._binary("power", self, other)

    def __rpow__(self, other: Array | _Scalar) -> Array:
        return self._binary("power", other, self)

    def __iadd__(self, other: Array | _Scalar) -> Array:
        return self._update("add", other)

    def __isub__(self, other: Array | _Scalar) -> Array:
        return self._update("subtract", other)

    def __imul__(self, other: Array | _Scalar) -> Array:
        return self._update("multiply", other)

    def __itruediv__(self, other: Array | _Scalar) -> Array:
        return self._update("divide", other)

    def __ipow__(self, other: Array | _Scalar) -> Array:
        return self._update("power", other)

    def __and__(self, other: Array | _Scalar) -> Array:
        return self._binary("bitwise_and", self, other)

    def __rand__(self, other: Array | _Scalar) -> Array:
        return self._binary("bitwise_and", other, self)

    def __or__(self, other: Array | _Scalar) -> Array:
        return self._binary("bitwise_or", self, other)

    def __ror__(self, other: Array | _Scalar) -> Array:
        return self._binary("bitwise_or", other, self)

    def __xor__(self, other: Array | _Scalar) -> Array:
        return self._binary("bitwise_xor", self, other)

    def __rxor__(self, other: Array | _Scalar) -> Array:
        return self._binary("bitwise_xor", other, self)

    def __iand__(self, other: Array | _Scalar) -> Array:
        return self._update("bitwise_and", other)

    def __ior__(self, other: Array | _Scalar) -> Array:
        return self._update("bitwise_or", other)

    def __ixor__(self, other: Array | _Scalar) -> Array:
        return self._update("bitwise_xor", other)

    def __eq__(self, other: object) -> Array:  # type: ignore[override]  # elementwise, as numpy's
        return self._binary("equal", self, other, _BOOL_DTYPE)

    def __ne__(self, other: object) -> Array:  # type: ignore[override]  # elementwise, as numpy's
        return self._binary("not_equal", self, other, _BOOL_DTYPE)

    def __lt__(self, other: Array | _Scalar) -> Array:
        return self._binary("less", self, other, _BOOL_DTYPE)

    def __le__(self, other: Array | _Scalar) -> Array:
        return self._binary("less_equal", self, other, _BOOL_DTYPE)

    def __gt__(self, other: Array | _Scalar) -> Array:
        return self._binary("greater", self, other, _BOOL_DTYPE)

    def __ge__(self, other: Array | _Scalar) -> Array:
        return self._binary("greater_equal", self, other, _BOOL_DTYPE)

    def __neg__(self) -> Array:
        return self._wrap(self._engine().unary("negative", self))

    def __pos__(self) -> Array:
        return self

    def __abs__(self) -> Array:
        return self._wrap(self._engine().unary("absolute", self))

    def __invert__(self) -> Array:
        return self._wrap(self._engine().unary("invert", self))

    def mul_add(self, selffac: _Scalar, other: Array, otherfac: _Scalar, queue: CommandQueue | None = None) -> Array:
        """selffac * self + otherfac * other."""
        return self._wrap(self._engine(queue).binary("add", selffac * self, otherfac * other), queue)

    def reverse(self, queue: CommandQueue | None = None) -> Array:
        """A copy with the elements of this 1-d array in reverse order."""
        if self.ndim != 1:
            raise ValueError("reverse: a 1-d array")
        return self[::-1].copy(queue or self.queue)

    @property
    def real(self) -> Array:
        if self.dtype.kind != "c":
            return self
        return self._wrap(self._engine().unary("real", self))

    @property
    def imag(self) -> Array:
        if self.dtype.kind != "c":
            return zeros_like(self)
        return self._wrap(self._engine().unary("imag", self))

    def conj(self) -> Array:
        if self.dtype.kind != "c":
            return self
        return self._wrap(self._engine().unary("conjugate", self))

    conjugate = conj

    def any(self, queue: CommandQueue | None = None, wait_for: _WaitList = None) -> Array:
        _barrier(queue or self.queue, wait_for)
        return _reduce("max", self != 0, queue, _BOOL_DTYPE)

    def all(self, queue: CommandQueue | None = None, wait_for: _WaitList = None) -> Array:
        _barrier(queue or self.queue, wait_for)
        return _reduce("min", self != 0, queue, _BOOL_DTYPE)


def _fast_array(
    cls: type[Array],
    queue: CommandQueue | None,
    context: Context,
    shape: tuple[int, ...],
    dtype: np.dtype[Any],
    strides: tuple[int, ...],
    allocator: _Allocator | None,
    data: Buffer | SVMPointer,
    offset: int,
    size: int,
    events: list[Event] | None,
) -> Array:
    """An Array of class `cls` (the class of the array it is a view or result of, as in
    PyOpenCL) of these fields as they are, unchecked (the engine's results, views): the memory
    is `data`'s, and `events` the list the Array keeps (a view shares its array's). A subclass
    is made through its constructor, with PyOpenCL's private fast-path arguments."""
    if cls is not Array:
        return cls(
            None,  # type: ignore[arg-type]  # (PyOpenCL's fast path passes no queue here)
            shape,
            dtype,
            allocator=allocator,
            data=data,
            offset=offset,
            strides=strides,
            events=events,
            _fast=True,
            _size=size,
            _context=context,
            _queue=queue,
        )
    a = Array.__new__(Array)
    _set_fields(a, queue, context, shape, dtype, strides, allocator, data, offset, size, events)
    return a


def _set_fields(
    a: Array,
    queue: CommandQueue | None,
    context: Context,
    shape: tuple[int, ...],
    dtype: np.dtype[Any],
    strides: tuple[int, ...],
    allocator: _Allocator | None,
    data: Buffer | SVMPointer,
    offset: int,
    size: int,
    events: list[Event] | None,
) -> None:
    a.queue, a.context = queue, context
    a.shape, a.dtype, a.strides = shape, dtype, strides
    a.allocator, a.base_data, a.offset = allocator, data, offset
    a.size = size
    a.events = [] if events is None else events
    if data.__class__ is not cl.Buffer:
        _check_svm_queue(data, queue)


class _Flags:
    """The contiguity of an Array, as numpy's flags say it."""

    def __init__(self, a: Array) -> None:
        itemsize = a.dtype.itemsize
        self.c_contiguous = _contiguous(a.shape, a.strides, itemsize, reversed(range(a.ndim)))
        self.f_contiguous = _contiguous(a.shape, a.strides, itemsize, range(a.ndim))
        self.forc = self.c_contiguous or self.f_contiguous


def _contiguous(shape: Sequence[int], strides: Sequence[int], itemsize: int, axes: Iterable[int]) -> bool:
    if builtins.any(s == 0 for s in shape):
        return True
    step = itemsize
    for axis in axes:
        if shape[axis] != 1 and strides[axis] != step:
            return False
        step *= shape[axis]
    return True


# ---- making arrays


def to_device(
    queue: CommandQueue,
    ary: npt.ArrayLike,
    allocator: _Allocator | None = None,
    async_: bool = False,
    array_queue: CommandQueue | None | type[_same_as_transfer] = _same_as_transfer,
) -> Array:
    """A new Array on `queue`'s context holding the host array `ary` (its shape, dtype, and
    Fortran order where ary has it). The copy is done when it returns (`async_` only allows
    returning earlier, as Array.set says)."""
    ary = np.asarray(ary)
    if ary.dtype == object:
        raise RuntimeError("to_device does not work on object arrays.")
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    result = Array(queue, ary.shape, ary.dtype, order=order, allocator=allocator)
    result.set(ary)
    if not isinstance(array_queue, type):  # not _same_as_transfer (`is` would not narrow the type)
        result = result.with_queue(array_queue)
    return result


def empty(
    queue: CommandQueue | Context,
    shape: _ShapeLike,
    dtype: npt.DTypeLike,
    order: str = "C",
    allocator: _Allocator | None = None,
    data: Buffer | SVMPointer | None = None,
) -> Array:
    return Array(queue, shape, dtype, order=order, allocator=allocator, data=data)


def zeros(
    queue: CommandQueue, shape: _ShapeLike, dtype: npt.DTypeLike, order: str = "C", allocator: _Allocator | None = None
) -> Array:
    """A new array of zero bytes (of any dtype, records and vector types included)."""
    result = Array(queue, shape, dtype, order=order, allocator=allocator)
    result._zero_fill()
    return result


def empty_like(
    ary: Array, queue: CommandQueue | None | type[_copy_queue] = _copy_queue, allocator: _Allocator | None = None
) -> Array:
    if isinstance(queue, type):  # _copy_queue, the default (`is` would not narrow the type)
        queue = ary.queue
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    return Array(queue or ary.context, ary.shape, ary.dtype, order=order, allocator=allocator or ary.allocator)


def zeros_like(ary: Array) -> Array:
    result = empty_like(ary)
    result._zero_fill()
    return result


def arange(
    queue: CommandQueue,
    *args: float | np.integer[Any] | np.floating[Any],
    dtype: npt.DTypeLike | None = None,
    allocator: _Allocator | None = None,
    **kwargs: float | np.integer[Any] | np.floating[Any],
) -> Array:
    """numpy.arange on the device: arange(queue, [start,] stop [, step], dtype=..., allocator=...)."""
    for name in ("start", "stop", "step"):
        if name in kwargs:
            args = args + (kwargs.pop(name),)
    if kwargs:
        raise TypeError(f"arange() got unexpected keyword arguments {sorted(kwargs)}")
    host = np.arange(*args, dtype=dtype)
    return to_device(queue, host, allocator=allocator)


def as_strided(ary: Array, shape: Iterable[int] | None = None, strides: Iterable[int] | None = None) -> Array:
    """A view of `ary`'s memory with another shape and strides (no check, as numpy's)."""
    return ary._new_with_changes(
        shape=ary.shape if shape is None else tuple(shape), strides=ary.strides if strides is None else tuple(strides)
    )


def transpose(a: Array, axes: Iterable[SupportsIndex] | None = None) -> Array:
    return a.transpose(axes)


def reshape(a: Array, shape: _ShapeLike) -> Array:
    return a.reshape(shape)


def concatenate(
    arrays: Iterable[Array],
    axis: int = 0,
    queue: CommandQueue | None = None,
    allocator: _Allocator | None = None,
) -> Array:
    """The arrays joined along `axis`, into a new array."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    first = arrays[0]
    axis = axis + first.ndim if axis < 0 else axis
    shape = list(first.shape)
    shape[axis] = builtins.sum(a.shape[axis] for a in arrays)
    dtype = np.result_type(*(a.dtype for a in arrays))
    target = queue or first.queue
    if target is None:
        raise ValueError(_NO_QUEUE)
    result = Array(target, tuple(shape), dtype, allocator=allocator or first.allocator)
    start = 0
    for a in arrays:
        where = [slice(None)] * len(shape)
        where[axis] = slice(start, start + a.shape[axis])
        result.setitem(tuple(where), a)
        start += a.shape[axis]
    return result


def stack(arrays: Iterable[Array], axis: int = 0, queue: CommandQueue | None = None) -> Array:
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = axis + arrays[0].ndim + 1 if axis < 0 else axis
    expanded = []
    for a in arrays:
        shape = a.shape[:axis] + (1,) + a.shape[axis:]
        strides = a.strides[:axis] + (a.dtype.itemsize,) + a.strides[axis:]
        expanded.append(a._new_with_changes(shape=shape, strides=strides))
    return concatenate(expanded, axis=axis, queue=queue)


def hstack(arrays: Iterable[Array], queue: CommandQueue | None = None) -> Array:
    arrays = list(arrays)
    return concatenate(arrays, axis=0 if arrays[0].ndim == 1 else 1, queue=queue)


def diff(array: Array, queue: CommandQueue | None = None, allocator: _Allocator | None = None) -> Array:
    """array[1:] - array[:-1] of a 1-d array."""
    if array.ndim != 1:
        raise ValueError("diff: a 1-d array")
    later = array[1:].with_queue(queue or array.queue)
    if allocator is not None:
        later.allocator = allocator
    return later._binary("subtract", later, array[:-1])


# ---- elementwise functions


def _first_array(*xs: object) -> Array:
    for x in xs:
        if isinstance(x, Array):
            return x
    raise TypeError("at least one argument must be an Array")


def _into(result: Array, out: Array | None) -> Array:
    if out is None:
        return result
    out._record(out._engine(None, result).assign(out, result))
    return out


def _get_common_dtype(
    obj1: npt.ArrayLike | npt.DTypeLike, obj2: npt.ArrayLike | npt.DTypeLike, queue: CommandQueue | None
) -> np.dtype[Any]:
    """PyOpenCL's private helper: the result dtype of an operation of obj1 and obj2 (arrays,
    or anything with a dtype, or scalars), as numpy's result_type gives it."""
    return np.result_type(obj1, obj2)


def _binary_function(
    name: str,
    a: Array | npt.ArrayLike,
    b: Array | npt.ArrayLike,
    out: Array | None,
    queue: CommandQueue | None,
    dtype: np.dtype[Any] | None = None,
) -> Array | Any:
    if not isinstance(a, Array) and not isinstance(b, Array):  # PyOpenCL: numpy's answer
        return getattr(np, name)(a, b)
    first = _first_array(a, b)
    if queue is not None:
        first = first.with_queue(queue)
    return _into(first._wrap(first._engine(None, a, b).binary(name, a, b), dtype=dtype), out)


def maximum(
    a: Array | npt.ArrayLike, b: Array | npt.ArrayLike, out: Array | None = None, queue: CommandQueue | None = None
) -> Array | Any:
    """numpy's maximum of arrays and scalars, broadcast (of scalars alone, numpy's result)."""
    return _binary_function("maximum", a, b, out, queue)


def minimum(
    a: Array | npt.ArrayLike, b: Array | npt.ArrayLike, out: Array | None = None, queue: CommandQueue | None = None
) -> Array | Any:
    """numpy's minimum of arrays and scalars, broadcast (of scalars alone, numpy's result)."""
    return _binary_function("minimum", a, b, out, queue)


def logical_and(
    x1: Array | npt.ArrayLike,
    x2: Array | npt.ArrayLike,
    /,
    out: Array | None = None,
    queue: CommandQueue | None = None,
) -> Array | Any:
    """numpy's logical_and as an int8 array (of scalars alone, numpy's result)."""
    return _binary_function("logical_and", x1, x2, out, queue, _BOOL_DTYPE)


def logical_or(
    x1: Array | npt.ArrayLike,
    x2: Array | npt.ArrayLike,
    /,
    out: Array | None = None,
    queue: CommandQueue | None = None,
) -> Array | Any:
    """numpy's logical_or as an int8 array (of scalars alone, numpy's result)."""
    return _binary_function("logical_or", x1, x2, out, queue, _BOOL_DTYPE)


def logical_not(
    x: Array | npt.ArrayLike, /, out: Array | None = None, queue: CommandQueue | None = None
) -> Array | Any:
    """numpy's logical_not as an int8 array (of a scalar, numpy's result)."""
    if not isinstance(x, Array):
        return np.logical_not(x)
    return _into(x._wrap(x._engine(queue).unary("logical_not", x), dtype=_BOOL_DTYPE), out)


def where(
    criterion: Array,
    then_: Array | _Scalar,
    else_: Array | _Scalar,
    out: Array | None = None,
    queue: CommandQueue | None = None,
) -> Array:
    """``then_`` where ``criterion`` is non-zero, else ``else_`` (arrays or scalars, broadcast
    together)."""
    if not isinstance(criterion, Array):
        raise TypeError("where: the criterion must be an Array")
    engine = criterion._engine(queue, then_, else_)
    return _into(criterion._wrap(engine.where(criterion, then_, else_)), out)


@overload
def if_positive(
    criterion: Array,
    then_: Array | _Scalar,
    else_: Array | _Scalar,
    out: Array | None = None,
    queue: CommandQueue | None = None,
) -> Array: ...


@overload
def if_positive(
    criterion: _Scalar,
    then_: _Scalar,
    else_: _Scalar,
    out: Array | None = None,
    queue: CommandQueue | None = None,
) -> npt.NDArray[Any]: ...


def if_positive(
    criterion: Array | _Scalar,
    then_: Array | _Scalar,
    else_: Array | _Scalar,
    out: Array | None = None,
    queue: CommandQueue | None = None,
) -> Array | npt.NDArray[Any]:
    """``then_`` where ``criterion`` > 0, else ``else_`` (PyOpenCL's if_positive)."""
    if not isinstance(criterion, Array):
        if isinstance(then_, Array) or isinstance(else_, Array):
            raise TypeError("if_positive: the criterion must be an Array when a choice is one")
        return np.where(np.asarray(criterion) > 0, then_, else_)  # PyOpenCL: numpy's answer for scalars
    return where(criterion > 0, then_, else_, out=out, queue=queue)


# ---- gathers and scatters


def _single_dtype(arrays: Iterable[Array], what: str) -> np.dtype[Any]:
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) != 1:
        raise TypeError(f"{what}: the arrays must have one dtype, got {sorted(map(str, dtypes))}")
    return dtypes.pop()


def _outputs(
    arrays: Sequence[Array], out: Sequence[Array] | None, shape: _ShapeLike | None, queue: CommandQueue, what: str
) -> list[Array]:
    """The output arrays of a multi_* function: new ones of `shape` (out None), or `out`,
    checked against the arrays' one dtype and count."""
    dtype = _single_dtype(arrays, what)
    if out is None:
        if shape is None:
            raise TypeError(f"{what}: dest_shape is needed when out is not given")
        return [Array(queue, shape, dtype, allocator=arrays[0].allocator) for _ in arrays]
    if _single_dtype(out, what) != dtype:
        raise TypeError("arrays and out must have the same dtype")
    if len(out) != len(arrays):
        raise ValueError("out and arrays must have the same length")
    return list(out)


def _as_words(array: Array) -> tuple[Array, int]:
    """A contiguous array seen as unsigned words of the widest size dividing its item size:
    (the 1-d view, words per element)."""
    for width in (8, 4, 2):
        if array.dtype.itemsize % width == 0:
            return array.ravel().view(np.dtype(f"uint{8 * width}")), array.dtype.itemsize // width
    return array.ravel().view(np.dtype("uint8")), array.dtype.itemsize


def _word_indices(queue: CommandQueue, indices: Array | None, words: int) -> Array | None:
    """Element indices as the indices of their words: i -> i * words + (0 .. words - 1). A
    negative i still counts from the end, and one beyond the end stays beyond it."""
    if indices is None or words == 1:
        return indices
    first = indices.with_queue(queue).astype(np.int64) * words
    return (first.reshape(-1, 1) + arange(queue, words, dtype=np.int64)).ravel()


def _indexed_copy(
    queue: CommandQueue,
    sources: list[Array],
    outs: list[Array],
    source_indices: Array | None,
    dest_indices: Array | None,
    offsets: Sequence[SupportsIndex] = (),
    wait_for: _WaitList = None,
) -> None:
    """outs[k][dest[i]] = sources[k][source[i] + offsets[k]] on queue (the engine's indexed_copy)."""
    sources = [a if a.flags.forc else a.copy() for a in sources]
    if builtins.any(a.dtype.kind == "V" for a in (*sources, *outs)):
        # Records (and vector types) have no kernels: each pair is copied as words.
        for k, (source, out) in enumerate(zip(sources, outs)):
            source_words, words = _as_words(source if source.flags.c_contiguous else source.copy())
            out_words, _ = _as_words(out)
            _indexed_copy(
                queue,
                [source_words],
                [out_words],
                _word_indices(queue, source_indices, words),
                _word_indices(queue, dest_indices, words),
                [int(offsets[k]) * words] if offsets else (),
                wait_for,
            )
        return
    operands = [*sources, *outs, *(x for x in (source_indices, dest_indices) if x is not None)]
    _barrier(queue, wait_for)
    _wait_for_events(queue, operands)
    first = outs[0] if outs else sources[0]
    event = _engine(queue, first.allocator).indexed_copy(
        sources, outs, source_indices, dest_indices, [int(o) for o in offsets]
    )
    for out in outs:
        out._record(event, queue)


def take(
    a: Array, indices: Array, out: Array | None = None, queue: CommandQueue | None = None, wait_for: _WaitList = None
) -> Array:
    """[a[indices[0]], ..., a[indices[n - 1]]] (a's elements in C order)."""
    queue = queue or a.queue
    if queue is None:
        raise ValueError(_NO_QUEUE)
    if out is None:
        out = Array(queue, indices.shape, a.dtype, allocator=a.allocator)
    elif not out.flags.c_contiguous or out.shape != indices.shape or out.dtype != a.dtype:
        raise ValueError(f"take: out must be a C-contiguous Array of shape {indices.shape} and dtype {a.dtype}")
    _indexed_copy(
        queue,
        [a.ravel() if a.flags.c_contiguous else a.copy().ravel()],
        [out.ravel()],
        indices.ravel(),
        None,
        wait_for=wait_for,
    )
    return out


def multi_take(
    arrays: Sequence[Array], indices: Array, out: Sequence[Array] | None = None, queue: CommandQueue | None = None
) -> list[Array]:
    """[take(a, indices) for a in arrays], into `out` when given."""
    if not len(arrays):
        return []
    queue = queue or indices.queue
    if queue is None:
        raise ValueError(_NO_QUEUE)
    out = _outputs(arrays, out, indices.shape, queue, "multi_take")
    _indexed_copy(queue, list(arrays), out, indices, None)
    return out


def multi_take_put(
    arrays: Sequence[Array],
    dest_indices: Array,
    src_indices: Array,
    dest_shape: _ShapeLike | None = None,
    out: Sequence[Array] | None = None,
    queue: CommandQueue | None = None,
    src_offsets: Sequence[SupportsIndex] | None = None,
) -> list[Array]:
    """out[k][dest_indices[i]] = arrays[k][src_indices[i] + src_offsets[k]]."""
    if not len(arrays):
        return []
    queue = queue or src_indices.queue
    if queue is None:
        raise ValueError(_NO_QUEUE)
    out = _outputs(arrays, out, dest_shape, queue, "multi_take_put")
    if src_indices.dtype != dest_indices.dtype:
        raise TypeError("src_indices and dest_indices must have the same dtype")
    if len(src_indices.shape) != 1:
        raise ValueError("src_indices must be 1D")
    if src_indices.shape != dest_indices.shape:
        raise ValueError("src_indices and dest_indices must have the same shape")
    if src_offsets is not None and len(src_offsets) != len(arrays):
        raise ValueError("src_indices and src_offsets must have the same length")
    _indexed_copy(queue, list(arrays), out, src_indices, dest_indices, src_offsets or ())
    return out


def multi_put(
    arrays: Sequence[Array],
    dest_indices: Array,
    dest_shape: _ShapeLike | None = None,
    out: Sequence[Array] | None = None,
    queue: CommandQueue | None = None,
    wait_for: _WaitList = None,
) -> list[Array]:
    """out[k][dest_indices[i]] = arrays[k][i]."""
    if not len(arrays):
        return []
    queue = queue or dest_indices.queue
    if queue is None:
        raise ValueError(_NO_QUEUE)
    out = _outputs(arrays, out, dest_shape, queue, "multi_put")
    if len(dest_indices.shape) != 1:
        raise ValueError("dest_indices must be 1D")
    _indexed_copy(queue, list(arrays), out, None, dest_indices, wait_for=wait_for)
    return out


# ---- scans


@overload
def cumsum(
    a: Array,
    output_dtype: npt.DTypeLike | None = None,
    queue: CommandQueue | None = None,
    wait_for: _WaitList = None,
    return_event: Literal[False] = False,
) -> Array: ...


@overload
def cumsum(
    a: Array,
    output_dtype: npt.DTypeLike | None = None,
    queue: CommandQueue | None = None,
    wait_for: _WaitList = None,
    *,
    return_event: Literal[True],
) -> tuple[Array, Event]: ...


@overload
def cumsum(
    a: Array,
    output_dtype: npt.DTypeLike,
    queue: CommandQueue | None,
    wait_for: _WaitList,
    return_event: Literal[True],
) -> tuple[Array, Event]: ...


def cumsum(
    a: Array,
    output_dtype: npt.DTypeLike | None = None,
    queue: CommandQueue | None = None,
    wait_for: _WaitList = None,
    return_event: bool = False,
) -> Array | tuple[Array, Event]:
    """The running sums of the 1-d array `a` in output_dtype (default a's), as PyOpenCL's
    (an InclusiveScanKernel; output_dtype of 4 or 8 bytes)."""
    from gpukit.cl.scan import GenericScanKernel
    from gpukit.cl.tools import dtype_to_ctype

    output_dtype = a.dtype if output_dtype is None else np.dtype(output_dtype)
    # Made on each call; the spec, and so the built program, is kept by gpukit.cl.scan.
    knl = GenericScanKernel(
        a.context,
        output_dtype,
        f"__global const {dtype_to_ctype(a.dtype)} *input, __global {dtype_to_ctype(output_dtype)} *output",
        "input[i]",
        "a+b",
        "0",
        "output[i] = item;",
    )
    result = a._new_like_me(output_dtype)
    evt = knl(a, result, queue=queue, wait_for=wait_for)
    return (result, evt) if return_event else result


# ---- reductions


def _reduce(
    name: str, a: Array, queue: CommandQueue | None, dtype: np.dtype[Any] | None = None, b: Array | None = None
) -> Array:
    result = a._wrap(a._engine(queue, b).reduce(name, a, b))
    if dtype is not None and result.dtype != dtype:
        result = result.astype(dtype)
    return result


def sum(
    a: Array,
    dtype: npt.DTypeLike | None = None,
    queue: CommandQueue | None = None,
    slice: slice | None = None,
    initial: _Scalar | _NoValueType = np._NoValue,
) -> Array:
    """The sum of the elements as a 0-d Array of `dtype` (default: a's dtype, as PyOpenCL's)."""
    if slice is not None:
        a = a[slice]
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    source = a if a.dtype == dtype else a.astype(dtype)
    result = _reduce("sum", source, queue, dtype)
    if initial is not np._NoValue:
        result += a.dtype.type(initial)
    return result


def dot(
    a: Array,
    b: Array,
    dtype: npt.DTypeLike | None = None,
    queue: CommandQueue | None = None,
    slice: slice | None = None,
) -> Array:
    if slice is not None:
        a, b = a[slice], b[slice]
    return _reduce("dot", a, queue, None if dtype is None else np.dtype(dtype), b)


def _subset_reduce(
    name: str,
    subset: Array,
    a: Array,
    b: Array | None = None,
    queue: CommandQueue | None = None,
    slice: slice | None = None,
) -> Array:
    """numpy's reduction `name` over a[subset[k]] (and b[subset[k]]) for k in the (sliced) subset."""
    if slice is not None:
        subset = subset[slice]
    operands = (subset,) if b is None else (subset, b)
    return a._wrap(a._engine(queue, *operands).subset_reduce(name, subset, a, b))


def subset_dot(
    subset: Array,
    a: Array,
    b: Array,
    dtype: npt.DTypeLike | None = None,
    queue: CommandQueue | None = None,
    slice: slice | None = None,
) -> Array:
    result = _subset_reduce("dot", subset, a, b, queue, slice)
    return result if dtype is None or result.dtype == np.dtype(dtype) else result.astype(dtype)


def subset_min(subset: Array, a: Array, queue: CommandQueue | None = None, slice: slice | None = None) -> Array:
    return _subset_reduce("min", subset, a, None, queue, slice)


def subset_max(subset: Array, a: Array, queue: CommandQueue | None = None, slice: slice | None = None) -> Array:
    return _subset_reduce("max", subset, a, None, queue, slice)


def vdot(
    a: Array,
    b: Array,
    dtype: npt.DTypeLike | None = None,
    queue: CommandQueue | None = None,
    slice: slice | None = None,
) -> Array:
    return dot(a.conj() if a.dtype.kind == "c" else a, b, dtype, queue, slice)


def min(a: Array, queue: CommandQueue | None = None, initial: _Scalar | _NoValueType = np._NoValue) -> Array:
    return _extremum("min", minimum, a, queue, initial)


def max(a: Array, queue: CommandQueue | None = None, initial: _Scalar | _NoValueType = np._NoValue) -> Array:
    return _extremum("max", maximum, a, queue, initial)


def _extremum(
    op: str,
    with_initial: Callable[[Array, _Scalar], Array],
    a: Array,
    queue: CommandQueue | None,
    initial: _Scalar | _NoValueType,
) -> Array:
    """min or max (`op`) of `a`, and of `initial` where one is given (numpy's rules)."""
    # (isinstance: `initial is np._NoValue` would not narrow the type)
    if isinstance(initial, _NoValueType):
        if a.size == 0:
            name = "minimum" if op == "min" else "maximum"
            raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
        return _reduce(op, a, queue)
    if not a.size:
        return full_scalar(a, initial)
    return with_initial(_reduce(op, a, queue), initial)


def full_scalar(like: Array, value: _ScalarLike) -> Array:
    """A 0-d Array of like's dtype holding `value`."""
    if like.queue is None:
        raise ValueError(_NO_QUEUE)
    result = Array(like.queue, (), like.dtype, allocator=like.allocator)
    result.fill(value)
    return result


def any(a: Array, queue: CommandQueue | None = None, wait_for: _WaitList = None) -> Array | np.int8:
    if a.size == 0:
        return _BOOL_DTYPE.type(False)
    return a.any(queue=queue, wait_for=wait_for)


def all(a: Array, queue: CommandQueue | None = None, wait_for: _WaitList = None) -> Array | np.int8:
    if a.size == 0:
        return _BOOL_DTYPE.type(True)
    return a.all(queue=queue, wait_for=wait_for)
