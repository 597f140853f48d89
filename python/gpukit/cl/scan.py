"""PyOpenCL's scans on gpukit's array engine: ``gpukit.cl.scan`` (``pyopencl.scan`` through
``gpukit.pyopencl_compat``)::

    knl = GenericScanKernel(ctx, np.int32, arguments="__global int *ary",
                            input_expr="ary[i]", scan_expr="a+b", neutral="0",
                            output_statement="ary[i] = item;")
    knl(a)                              # a: gpukit.cl.array.Array; in place

    InclusiveScanKernel(ctx, np.float32, "a+b", "0")(x)          # cumulative sums of x
    ExclusiveScanKernel(ctx, np.float32, "a+b", "0")(x, "new")   # into a new array

The expressions are OpenCL C, as PyOpenCL's (``a``/``b``, ``across_seg_boundary``, ``item``,
``prev_item``, ``last_item``, ``i``, ``N``); the engine's generic scan (C++:
gpukit/array/generic_scan.hpp) runs them in three kernels. Array arguments must be contiguous;
``x[i]`` is then element i of the Array passed for x.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from gpukit import cl
from gpukit._gpukit import _GenericScanSpec
from gpukit.cl.array import _NO_QUEUE, Array, _engine, _wait_for_events
from gpukit.cl.elementwise import _defines, _parse_arguments, _pointer_values
from gpukit.cl.tools import dtype_to_ctype

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import SupportsIndex

    import numpy.typing as npt

    from gpukit._gpukit.cl import CommandQueue, Context, Device, Event
    from gpukit.cl.array import _Allocator, _Scalar, _WaitList
    from gpukit.cl.elementwise import _Arguments, _Options

__all__ = ["ExclusiveScanKernel", "GenericDebugScanKernel", "GenericScanKernel", "InclusiveScanKernel"]


@functools.lru_cache(maxsize=512)
def _scan_spec(
    name_prefix: str,
    scan_type: str,
    size: int,
    params: tuple[tuple[str, str, str], ...],
    input_expr: str,
    scan_expr: str,
    neutral: str,
    output: str,
    segments: str,
    fetches: tuple[tuple[str, str, int], ...],
    preamble: str,
) -> _GenericScanSpec:
    """The engine's spec of a scan: one per distinct description, so kernels made again with
    the same text (copy_if in a loop) find the programs built for the first."""
    return _GenericScanSpec(
        name_prefix,
        scan_type,
        size,
        list(params),
        input_expr,
        scan_expr,
        neutral,
        output,
        segments,
        list(fetches),
        preamble,
    )


class GenericScanKernel:
    """GenericScanKernel(ctx, dtype, arguments, input_expr, scan_expr, neutral, output_statement,
    is_segment_start_expr=None, input_fetch_exprs=None, index_dtype=None, name_prefix="scan",
    options=None, preamble="", devices=None)."""

    dtype: np.dtype[Any]
    index_dtype: np.dtype[Any]

    def __init__(
        self,
        ctx: Context,
        dtype: npt.DTypeLike,
        arguments: _Arguments,
        input_expr: str,
        scan_expr: str,
        neutral: str | None,
        output_statement: str,
        is_segment_start_expr: str | None = None,
        input_fetch_exprs: Iterable[tuple[str, str, SupportsIndex]] | None = None,
        index_dtype: npt.DTypeLike | None = None,
        name_prefix: str = "scan",
        options: _Options = None,
        preamble: str = "",
        devices: Sequence[Device] | None = None,
    ) -> None:
        if neutral is None:
            raise ValueError("must provide a 'neutral' element in scan")
        dtype = np.dtype(dtype)
        if dtype.itemsize % 4 != 0:
            raise TypeError("scan value type must have size divisible by 4 bytes")
        index_dtype = np.dtype(np.int32 if index_dtype is None else index_dtype)
        if index_dtype.kind != "i":
            raise TypeError("index_dtype must be signed")
        if devices is not None and list(devices) != list(ctx.devices):
            raise NotImplementedError(
                "GenericScanKernel: devices= other than the context's is not supported by gpukit.cl yet"
            )
        self.context = ctx
        self.dtype = dtype
        self.index_dtype = index_dtype
        self.name_prefix = name_prefix
        self.parsed_args = _parse_arguments(arguments, "GenericScanKernel")
        self.first_array_idx = next(k for k, (_, _, kind) in enumerate(self.parsed_args) if kind != "scalar")
        fetches = [(name, array, int(offset)) for name, array, offset in (input_fetch_exprs or [])]
        for _, _, offset in fetches:
            if offset not in (0, -1):
                raise RuntimeError("input_fetch_expr offsets must either be 0 or -1")
        self._spec = _scan_spec(
            name_prefix,
            dtype_to_ctype(dtype),
            dtype.itemsize,
            tuple((name, t.name, kind) for name, t, kind in self.parsed_args),
            input_expr,
            scan_expr,
            str(neutral),
            output_statement,
            is_segment_start_expr or "",
            tuple(fetches),
            _defines(options, "GenericScanKernel") + preamble,
        )

    def __call__(
        self,
        *args: Array | _Scalar,
        queue: CommandQueue | None = None,
        allocator: _Allocator | None = None,
        size: SupportsIndex | None = None,
        wait_for: _WaitList = None,
        **kwargs: object,
    ) -> Event:
        if kwargs:
            raise TypeError(f"GenericScanKernel call got unexpected keyword arguments {sorted(kwargs)}")
        if len(args) != len(self.parsed_args):
            raise TypeError(f"expected {len(self.parsed_args)} arguments, got {len(args)}")
        first_array = args[self.first_array_idx]
        if not isinstance(first_array, Array):
            raise TypeError(
                f"the argument {self.parsed_args[self.first_array_idx][0]} must be an Array, "
                f"got {type(first_array).__name__}"
            )
        queue = queue or first_array.queue
        allocator = allocator or first_array.allocator
        n = first_array.size if size is None else int(size)
        if n < 0:
            raise ValueError(f"the scan's size must not be negative, got {n}")
        values, arrays = _pointer_values(self.parsed_args, args, self.name_prefix)
        if queue is None:
            raise ValueError(_NO_QUEUE)
        if wait_for:
            cl.enqueue_barrier(queue, wait_for=list(wait_for))
        _wait_for_events(queue, arrays)
        if n:
            # The engine's results are `object` in its stubs: the last kernel's Event here.
            return _engine(queue, allocator).scan(self._spec, values, n)  # type: ignore[return-value]
        return cl.enqueue_marker(queue)


class GenericDebugScanKernel(GenericScanKernel):
    """PyOpenCL's one-work-item reference scan, for debugging; here the same engine scan as
    GenericScanKernel (same arguments, same results)."""


class _LegacyScanKernel(GenericScanKernel):
    _output_statement = ""

    def __init__(
        self,
        ctx: Context,
        dtype: npt.DTypeLike,
        scan_expr: str,
        neutral: str | None = None,
        name_prefix: str = "scan",
        options: _Options = None,
        preamble: str = "",
        devices: Sequence[Device] | None = None,
    ) -> None:
        ctype = dtype_to_ctype(np.dtype(dtype))
        super().__init__(
            ctx,
            dtype,
            f"__global {ctype} *input_ary, __global {ctype} *output_ary",
            "input_ary[i]",
            scan_expr,
            neutral,
            self._output_statement,
            name_prefix=name_prefix,
            options=options,
            preamble=preamble,
            devices=devices,
        )

    # PyOpenCL's legacy call, (input_ary, output_ary=None, ...), not GenericScanKernel's.
    def __call__(  # type: ignore[override]
        self,
        input_ary: Array,
        output_ary: Array | Literal["new"] | None = None,
        allocator: _Allocator | None = None,
        queue: CommandQueue | None = None,
    ) -> Array:
        allocator = allocator or input_ary.allocator
        queue = queue or input_ary.queue
        if output_ary is None:
            output_ary = input_ary
        if isinstance(output_ary, str) and output_ary == "new":
            output_ary = input_ary._new_like_me()
        if input_ary.shape != output_ary.shape:
            raise ValueError("input and output must have the same shape")
        if not input_ary.flags.forc:
            raise RuntimeError(f"{type(self).__name__} cannot handle non-contiguous arrays")
        if input_ary.size:
            GenericScanKernel.__call__(
                self, input_ary, output_ary, allocator=allocator, queue=queue, size=input_ary.size
            )
        return output_ary


class InclusiveScanKernel(_LegacyScanKernel):
    """InclusiveScanKernel(ctx, dtype, scan_expr, neutral=None, ...): out[i] combines in[0..i]."""

    _output_statement = "output_ary[i] = item;"


class ExclusiveScanKernel(_LegacyScanKernel):
    """ExclusiveScanKernel(ctx, dtype, scan_expr, neutral=None, ...): out[i] combines
    in[0..i-1] (out[0] = neutral)."""

    _output_statement = "output_ary[i] = prev_item;"
