"""PyOpenCL's ReductionKernel on gpukit's array engine: ``gpukit.cl.reduction``
(``pyopencl.reduction`` through ``gpukit.pyopencl_compat``)::

    dot = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]*y[i]", arguments="__global const float *x, __global const float *y")
    dot(x, y).get()                       # a 0-d Array; return_event=True adds the event
    ReductionKernel(ctx, np.int32, "0", "a+b", map_expr="i", arguments=[])(range=slice(n), queue=queue)

The expressions are OpenCL C; arrays are pointers to their (contiguous) elements, so the map
may index them freely. The reduction accumulates in dtype_out, in the engine's two-stage
reduction (C++: gpukit/array/reduction.hpp).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from gpukit import cl
from gpukit._gpukit import _dtype_supported, _ReductionSpec
from gpukit.cl.array import Array, _engine, _wait_for_events
from gpukit.cl.elementwise import _defines, _parse_arguments, _pointer_values

if TYPE_CHECKING:
    import numpy.typing as npt

    from gpukit._gpukit.cl import CommandQueue, Context, Event
    from gpukit.cl.array import _Allocator, _Scalar, _WaitList
    from gpukit.cl.elementwise import _Arguments, _Options

__all__ = ["ReductionKernel"]


class ReductionKernel:
    """ReductionKernel(ctx, dtype_out, neutral, reduce_expr, map_expr=None, arguments=None,
    name="reduce_kernel", options=None, preamble="")."""

    dtype_out: np.dtype[Any]

    def __init__(
        self,
        ctx: Context,
        dtype_out: npt.DTypeLike,
        neutral: str,
        reduce_expr: str,
        map_expr: str | None = None,
        arguments: _Arguments | None = None,
        name: str = "reduce_kernel",
        options: _Options = None,
        preamble: str = "",
    ) -> None:
        dtype_out = np.dtype(dtype_out)
        value_type: tuple[str, int] | str
        if dtype_out.fields:
            # A struct, by the name it was registered under (get_or_register_dtype), which the
            # preamble declares (match_dtype_to_c_struct gives the declaration).
            from gpukit.cl.tools import dtype_to_ctype

            value_type = (dtype_to_ctype(dtype_out), dtype_out.itemsize)
        elif _dtype_supported(dtype_out.name):
            value_type = dtype_out.name
        else:
            raise TypeError(
                f"ReductionKernel: gpukit.cl reduces into numeric dtypes and registered structs, not {dtype_out}"
            )
        self.context = ctx
        self.dtype_out = dtype_out
        self.name = name
        self.parsed_args = _parse_arguments(
            arguments if arguments is not None else [], "ReductionKernel", arrays_needed=False
        )
        self._spec = _ReductionSpec(
            name,
            [(n, t.name, "scalar" if kind == "scalar" else "pointer") for n, t, kind in self.parsed_args],
            value_type,
            value_type,
            str(neutral),
            "in[i]" if map_expr is None else map_expr,
            reduce_expr,
            _defines(options, "ReductionKernel") + preamble,
        )

    @overload
    def __call__(
        self,
        *args: Array | _Scalar,
        return_event: Literal[False] = False,
        queue: CommandQueue | None = None,
        allocator: _Allocator | None = None,
        wait_for: _WaitList = None,
        out: Array | None = None,
        range: slice | None = None,
        slice: slice | None = None,
        **kwargs: object,
    ) -> Array: ...

    @overload
    def __call__(
        self,
        *args: Array | _Scalar,
        return_event: Literal[True],
        queue: CommandQueue | None = None,
        allocator: _Allocator | None = None,
        wait_for: _WaitList = None,
        out: Array | None = None,
        range: slice | None = None,
        slice: slice | None = None,
        **kwargs: object,
    ) -> tuple[Array, Event]: ...

    def __call__(
        self,
        *args: Array | _Scalar,
        return_event: bool = False,
        queue: CommandQueue | None = None,
        allocator: _Allocator | None = None,
        wait_for: _WaitList = None,
        out: Array | None = None,
        range: slice | None = None,
        slice: slice | None = None,
        **kwargs: object,
    ) -> Array | tuple[Array, Event]:
        if kwargs:
            raise TypeError(f"ReductionKernel call got unexpected keyword arguments {sorted(kwargs)}")
        if range is not None and slice is not None:
            raise TypeError("may not specify both range and slice")
        values, arrays = _pointer_values(self.parsed_args, args, self.name)
        if range is not None:
            start, step = range.start or 0, range.step or 1
            if range.stop is None:
                raise ValueError("range= needs a stop")
            count = len(builtins.range(start, range.stop, step))
        elif arrays:
            size = arrays[0].size
            start, stop, step = (slice or builtins.slice(None)).indices(size)
            count = len(builtins.range(start, stop, step))
        else:
            raise TypeError(f"{self.name}: without array arguments, range= says which indices to reduce")
        queue = queue or (arrays[0].queue if arrays else None)
        if queue is None:
            raise TypeError(f"{self.name}: without array arguments, queue= says where to run")
        allocator = allocator or (arrays[0].allocator if arrays else None)
        if wait_for:
            cl.enqueue_barrier(queue, wait_for=list(wait_for))
        _wait_for_events(queue, arrays)
        made = _engine(queue, allocator).reduce_range(self._spec, values, start, step, count)
        result = Array(
            queue,
            (),
            self.dtype_out,
            allocator=allocator,
            data=made[0],
            offset=made[1],
            events=None if made[5] is None else [made[5]],
        )
        if out is not None:
            if not isinstance(out, Array) or out.dtype != self.dtype_out or out.size != 1:
                raise TypeError(f"{self.name}: out must be an Array of one {self.dtype_out}")
            out.setitem(Ellipsis, result, queue=queue)
            result = out
        return (result, cl.enqueue_marker(queue)) if return_event else result
