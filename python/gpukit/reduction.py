"""User-written reductions (PyCUDA's ``pycuda.reduction``).

``ReductionKernel(dtype_out, neutral, reduce_expr, map_expr, arguments)`` reduces
``map_expr`` (an expression of index ``i``) over every index with ``reduce_expr`` (an
expression of two values ``a`` and ``b``), starting from ``neutral``::

    dot = ReductionKernel(np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
                          arguments="float *x, float *y")
    dot(x_gpu, y_gpu).get()

The kernels are gpukit's generic reduction kernels (``gpukit::array::reduction_kernel``):
the accumulator may be any C type (a dtype's, ``pycuda::complex<T>``, a CUDA vector type, a
struct registered with ``tools.get_or_register_dtype`` and declared in the preamble), and a
call is one crossing into C++. The ``get_*_kernel`` helpers return such kernels, built as
PyCUDA builds them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar, cast

import numpy as np
import numpy.typing as npt

from gpukit import _gpukit, gpuarray
from gpukit._array import builder_arguments
from gpukit._array.two_pass_reduction import TwoPassKernels
from gpukit import compiler as _compiler
from gpukit._array.c_types import DtypedArgument, VectorArg, dtype_to_ctype
from gpukit.elementwise import _parameters, _scalar_bytes

if TYPE_CHECKING:
    from gpukit._array.builder_arguments import NeutralLike
    from gpukit.elementwise import Arguments
    from gpukit.gpuarray import Allocator

_P = ParamSpec("_P")
_R = TypeVar("_R")

__all__ = [
    "ReductionKernel",
    "get_sum_kernel",
    "get_subset_sum_kernel",
    "get_dot_kernel",
    "get_subset_dot_kernel",
    "get_minmax_neutral",
    "get_minmax_kernel",
    "get_subset_minmax_kernel",
    "get_any_kernel",
    "get_all_kernel",
]


class ReductionKernel(_gpukit._ReductionKernel):
    """A reduction of ``map_expr`` over every index ``i`` (of the first array argument, or of
    ``range=`` / ``slice=``), combined by ``reduce_expr`` from ``neutral``, in ``dtype_out``.

    `arguments` is a C parameter list (or a list of VectorArg/ScalarArg); without it the
    kernel takes ``const <dtype_out> *in`` and ``map_expr`` defaults to ``in[i]``. Array
    parameters are pointers: ``x[j]`` is the j-th element of x for any j (a non-contiguous
    array is read through a C-order copy). `neutral` is C code (or a number); `preamble`
    goes before the kernels; `options`, `keep` and the compiler settings are those of
    SourceModule. `allocator` makes the results when a call names none (default: the first
    array's allocator).

    Call it as ``kernel(*args, stream=None, out=None, range=None, slice=None,
    allocator=None)``: the result is a 0-d GPUArray of dtype_out, or `out` (a GPUArray of
    one element of dtype_out) written in place.
    """

    def __init__(
        self,
        dtype_out: npt.DTypeLike,
        neutral: NeutralLike,
        reduce_expr: str,
        map_expr: str | None = None,
        arguments: Arguments | None = None,
        name: str = "reduce_kernel",
        keep: bool = False,
        options: Sequence[str] | None = None,
        preamble: str = "",
        allocator: Allocator | None = None,
        include_dirs: Sequence[_compiler._Path] = (),
        nvcc: _compiler._Path = "nvcc",
        compiler: str | None = None,
        cache_dir: _compiler._Path | Literal[False] | None = None,
    ) -> None:
        self.dtype_out = builder_arguments.dtype(dtype_out, "dtype_out")
        out_c_type = dtype_to_ctype(self.dtype_out)
        neutral = builder_arguments.neutral_text(neutral, self.dtype_out)
        if arguments is None:
            arguments = f"const {out_c_type} *in"
        if map_expr is None:
            map_expr = "in[i]"
        parameters = _parameters(arguments)
        self.arguments: list[DtypedArgument] = [argument for _, argument in parameters]
        self.name = name
        if not any(isinstance(a, VectorArg) for a in self.arguments):
            raise ValueError(f"ReductionKernel {name!r}: needs at least one array (pointer) argument")
        request = _compiler._request("", nvcc, options, True, None, None, include_dirs, compiler, "cubin")
        params = [
            (declarator, a.name, isinstance(a, VectorArg), dtype_to_ctype(a.dtype), a.dtype)
            for declarator, a in parameters
        ]
        super().__init__(
            name,
            params,
            self.dtype_out,
            out_c_type,
            neutral,
            reduce_expr,
            map_expr,
            preamble,
            request["options"],
            request["arch"],
            request["include_dirs"],
            request["system_include_dirs"],
            request["compiler"],
            request["nvcc"],
            None if keep else _compiler._cache_directory(cache_dir),
            allocator,
            self.arguments,
            _scalar_bytes,
            gpuarray.asarray,
        )
        self._two_pass = TwoPassKernels(
            name,
            out_c_type,
            neutral,
            reduce_expr,
            map_expr,
            [declarator for declarator, _ in parameters],
            preamble,
            dict(nvcc=nvcc, options=options, include_dirs=include_dirs, compiler=compiler, cache_dir=cache_dir),
        )
        if keep:
            # SourceModule's path keeps the source and the compiler's output in a directory it
            # prints (PyCUDA's keep); the kernels themselves load on first call, uncached.
            _compiler.compile(
                self.get_source(),
                nvcc=nvcc,
                options=options,
                keep=True,
                no_extern_c=True,
                include_dirs=include_dirs,
                compiler=compiler,
            )

    # ---- PyCUDA's two passes, for programs that drive them themselves (pycbc)

    #: Threads per block of PyCUDA's passes (what PyCUDA's own calls use).
    block_size = 512

    @property
    def stage1_func(self) -> Callable[..., Any]:
        """PyCUDA's first pass as its ``prepared_async_call``: ``(grid, block, stream, out,
        *arguments, seq_count, n, shared_size=block * itemsize)`` (gpukit._array.two_pass_reduction)."""
        return self._two_pass.function(1).prepared_async_call

    @property
    def stage2_func(self) -> Callable[..., Any]:
        """PyCUDA's second pass: stage1_func with the partial results as first argument."""
        return self._two_pass.function(2).prepared_async_call

    @property
    def stage1_arg_types(self) -> list[str]:
        return self._two_pass.arg_types(1)

    @property
    def stage2_arg_types(self) -> list[str]:
        return self._two_pass.arg_types(2)


# ---- PyCUDA's kernels for gpuarray's reductions, built as PyCUDA builds them (the result
# in dtype_out, default the input's); gpuarray's own functions follow numpy's result types.


def _memoized(make: Callable[_P, _R]) -> Callable[_P, _R]:
    """One kernel per combination of arguments (a ReductionKernel serves every context)."""
    return cast("Callable[_P, _R]", functools.lru_cache(maxsize=None)(make))  # (its arguments are hashable)


def _dtype(dtype: npt.DTypeLike | None, what: str) -> np.dtype[Any]:
    """`dtype` as a numpy dtype (TypeError naming the argument `what` otherwise)."""
    return builder_arguments.dtype(dtype, what)


def _optional_dtype(dtype: npt.DTypeLike | None, what: str) -> np.dtype[Any] | None:
    return None if dtype is None else _dtype(dtype, what)


@_memoized
def _sum_kernel(dtype_out: np.dtype[Any], dtype_in: np.dtype[Any]) -> ReductionKernel:
    return ReductionKernel(dtype_out, "0", "a+b", arguments=f"const {dtype_to_ctype(dtype_in)} *in")


def get_sum_kernel(dtype_out: npt.DTypeLike | None, dtype_in: npt.DTypeLike) -> ReductionKernel:
    """sum of ``in`` in dtype_out (dtype_in when None)."""
    dtype_in = _dtype(dtype_in, "dtype_in")
    return _sum_kernel(_optional_dtype(dtype_out, "dtype_out") or dtype_in, dtype_in)


@_memoized
def _subset_sum_kernel(
    dtype_out: np.dtype[Any], dtype_subset: np.dtype[Any], dtype_in: np.dtype[Any]
) -> ReductionKernel:
    return ReductionKernel(
        dtype_out,
        "0",
        "a+b",
        map_expr="in[lookup_tbl[i]]",
        arguments=f"const {dtype_to_ctype(dtype_subset)} *lookup_tbl, const {dtype_to_ctype(dtype_in)} *in",
    )


def get_subset_sum_kernel(
    dtype_out: npt.DTypeLike | None, dtype_subset: npt.DTypeLike, dtype_in: npt.DTypeLike
) -> ReductionKernel:
    """sum of ``in[lookup_tbl[i]]`` (the lookup table first: it sets the length)."""
    dtype_in = _dtype(dtype_in, "dtype_in")
    dtype_out = _optional_dtype(dtype_out, "dtype_out") or dtype_in
    return _subset_sum_kernel(dtype_out, _dtype(dtype_subset, "dtype_subset"), dtype_in)


@_memoized
def _dot_kernel(dtype_out: np.dtype[Any], dtype_a: np.dtype[Any], dtype_b: np.dtype[Any]) -> ReductionKernel:
    return ReductionKernel(
        dtype_out,
        "0",
        "a+b",
        map_expr="a[i]*b[i]",
        arguments=f"const {dtype_to_ctype(dtype_a)} *a, const {dtype_to_ctype(dtype_b)} *b",
    )


def get_dot_kernel(
    dtype_out: npt.DTypeLike | None, dtype_a: npt.DTypeLike | None = None, dtype_b: npt.DTypeLike | None = None
) -> ReductionKernel:
    """sum of ``a[i]*b[i]`` (no conjugation); missing dtypes default to each other, as PyCUDA's."""
    dtype_out, dtype_a, dtype_b = _dot_dtypes(dtype_out, dtype_a, dtype_b)
    return _dot_kernel(dtype_out, dtype_a, dtype_b)


def _dot_dtypes(
    dtype_out: npt.DTypeLike | None, dtype_a: npt.DTypeLike | None, dtype_b: npt.DTypeLike | None
) -> tuple[np.dtype[Any], np.dtype[Any], np.dtype[Any]]:
    dtype_out, dtype_a, dtype_b = (
        _optional_dtype(dtype_out, "dtype_out"),
        _optional_dtype(dtype_a, "dtype_a"),
        _optional_dtype(dtype_b, "dtype_b"),
    )
    dtype_out = dtype_out or dtype_a
    dtype_b = dtype_b or dtype_a or dtype_out
    dtype_a = dtype_a or dtype_out
    if dtype_out is None:
        raise TypeError("get_dot_kernel: give dtype_out or dtype_a")
    assert dtype_a is not None and dtype_b is not None  # (each defaults to dtype_out)
    return dtype_out, dtype_a, dtype_b


@_memoized
def _subset_dot_kernel(
    dtype_out: np.dtype[Any], dtype_subset: np.dtype[Any], dtype_a: np.dtype[Any], dtype_b: np.dtype[Any]
) -> ReductionKernel:
    return ReductionKernel(
        dtype_out,
        "0",
        "a+b",
        map_expr="a[lookup_tbl[i]]*b[lookup_tbl[i]]",
        arguments=f"const {dtype_to_ctype(dtype_subset)} *lookup_tbl, "
        f"const {dtype_to_ctype(dtype_a)} *a, const {dtype_to_ctype(dtype_b)} *b",
    )


def get_subset_dot_kernel(
    dtype_out: npt.DTypeLike | None,
    dtype_subset: npt.DTypeLike,
    dtype_a: npt.DTypeLike | None = None,
    dtype_b: npt.DTypeLike | None = None,
) -> ReductionKernel:
    """sum of ``a[lookup_tbl[i]]*b[lookup_tbl[i]]``."""
    dtype_out, dtype_a, dtype_b = _dot_dtypes(dtype_out, dtype_a, dtype_b)
    return _subset_dot_kernel(dtype_out, _dtype(dtype_subset, "dtype_subset"), dtype_a, dtype_b)


def get_minmax_neutral(what: str, dtype: npt.DTypeLike) -> str:
    """The neutral value of min or max over `dtype`, as C code: an infinity for floating
    types (MY_INFINITY, which the min/max kernels' preamble defines), else the type's limit."""
    what, dtype = _minmax_what(what), _dtype(dtype, "dtype")
    if dtype.kind == "f":
        return "MY_INFINITY" if what == "min" else "-MY_INFINITY"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return str(info.max if what == "min" else info.min)
    raise TypeError(f"get_minmax_neutral: no neutral value for dtype {dtype}")


def _minmax_what(what: str) -> str:
    if not isinstance(what, str) or what not in ("min", "max"):
        raise ValueError(f"what must be 'min' or 'max', got {what!r}")
    return what


def _minmax_reduce_expr(what: str, dtype: np.dtype[Any]) -> str:
    if dtype == np.float64:
        return f"f{what}(a,b)"
    if dtype == np.float32:
        return f"f{what}f(a,b)"
    if dtype.kind in "iu":
        return f"{what}(a,b)"
    raise TypeError(f"get_minmax_kernel: unsupported dtype {dtype} (floating or integer types)")


@_memoized
def _minmax_kernel(what: str, dtype: np.dtype[Any]) -> ReductionKernel:
    return ReductionKernel(
        dtype,
        get_minmax_neutral(what, dtype),
        _minmax_reduce_expr(what, dtype),
        arguments=f"const {dtype_to_ctype(dtype)} *in",
        preamble="#define MY_INFINITY (1./0)",
    )


def get_minmax_kernel(what: str, dtype: npt.DTypeLike) -> ReductionKernel:
    """min or max (`what`) of ``in``, with CUDA's fmin/fmax (which skip NaN) for floats."""
    return _minmax_kernel(_minmax_what(what), _dtype(dtype, "dtype"))


@_memoized
def _subset_minmax_kernel(what: str, dtype: np.dtype[Any], dtype_subset: np.dtype[Any]) -> ReductionKernel:
    return ReductionKernel(
        dtype,
        get_minmax_neutral(what, dtype),
        _minmax_reduce_expr(what, dtype),
        map_expr="in[lookup_tbl[i]]",
        arguments=f"const {dtype_to_ctype(dtype_subset)} *lookup_tbl, const {dtype_to_ctype(dtype)} *in",
        preamble="#define MY_INFINITY (1./0)",
    )


def get_subset_minmax_kernel(what: str, dtype: npt.DTypeLike, dtype_subset: npt.DTypeLike) -> ReductionKernel:
    """min or max of ``in[lookup_tbl[i]]``."""
    return _subset_minmax_kernel(_minmax_what(what), _dtype(dtype, "dtype"), _dtype(dtype_subset, "dtype_subset"))


# any and all differ only in the neutral value and the operator.
@_memoized
def _truth_kernel(dtype_out: np.dtype[Any], dtype_in: np.dtype[Any], neutral: str, reduce_expr: str) -> ReductionKernel:
    return ReductionKernel(
        dtype_out, neutral, reduce_expr, map_expr="(bool)(in[i])", arguments=f"const {dtype_to_ctype(dtype_in)} *in"
    )


def get_any_kernel(dtype_out: npt.DTypeLike, dtype_in: npt.DTypeLike) -> ReductionKernel:
    """Whether any ``in[i]`` is non-zero, in dtype_out (bool)."""
    return _truth_kernel(_dtype(dtype_out, "dtype_out"), _dtype(dtype_in, "dtype_in"), "false", "a || b")


def get_all_kernel(dtype_out: npt.DTypeLike, dtype_in: npt.DTypeLike) -> ReductionKernel:
    """Whether every ``in[i]`` is non-zero, in dtype_out (bool)."""
    return _truth_kernel(_dtype(dtype_out, "dtype_out"), _dtype(dtype_in, "dtype_in"), "true", "a && b")
