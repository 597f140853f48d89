"""PyOpenCL's ElementwiseKernel on gpukit's array engine: ``gpukit.cl.elementwise``
(``pyopencl.elementwise`` through ``gpukit.pyopencl_compat``)::

    lin_comb = ElementwiseKernel(ctx, "float a, float *x, float b, float *y, float *z",
                                 "z[i] = a*x[i] + b*y[i]", "linear_combination")
    lin_comb(5, x, 6, y, z)          # x, y, z: gpukit.cl.array.Array of one size

The operation is OpenCL C run for every index i below the first array's size, as PyOpenCL runs
it; ``x[i]`` is element i of the Array passed for x (a later contiguous array may be longer).
Arrays may be any views, also strided ones (then only `x[i]` itself may be read or written;
contiguous arrays may be indexed anywhere). Build options of the -D kind become #defines of the
preamble; ``range=``/``slice=`` run a part of the indices.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from gpukit import cl
from gpukit._gpukit import _ElementwiseSpec
from gpukit.cl.argtypes import ScalarArg, VectorArg
from gpukit.cl.array import _NO_QUEUE, Array, _engine, _wait_for_events

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing import TypeAlias

    from gpukit._gpukit.cl import CommandQueue, Context, Event
    from gpukit.cl.array import _Scalar, _WaitList

    #: A kernel's arguments: a C declaration list ("float a, const float *x"), or the
    #: declarations, each a C declaration or a VectorArg/ScalarArg.
    _Arguments: TypeAlias = str | Sequence[str | VectorArg | ScalarArg]
    #: A parsed argument: (name, dtype, "in"/"inout" for arrays or "scalar").
    _Param: TypeAlias = tuple[str, np.dtype[Any], str]
    #: Build options: a str or a sequence of them.
    _Options: TypeAlias = str | Sequence[str] | None

__all__ = ["ElementwiseKernel"]

# OpenCL C's scalar type names (and their common spellings) and the dtypes they hold.
_TYPES: dict[str, type[np.generic[Any]]] = {
    "char": np.int8,
    "signed char": np.int8,
    "uchar": np.uint8,
    "unsigned char": np.uint8,
    "short": np.int16,
    "ushort": np.uint16,
    "unsigned short": np.uint16,
    "int": np.int32,
    "uint": np.uint32,
    "unsigned int": np.uint32,
    "unsigned": np.uint32,
    "long": np.int64,
    "ulong": np.uint64,
    "unsigned long": np.uint64,
    "float": np.float32,
    "double": np.float64,
    "bool": np.bool_,
    "cfloat_t": np.complex64,
    "cdouble_t": np.complex128,
}
_QUALIFIERS = {"const", "__const", "volatile", "restrict", "__restrict", "__restrict__", "__global", "global"}
_DECLARATOR = re.compile(r"^(?P<type>[A-Za-z_][\w ]*?)\s*(?P<star>\*?)\s*(?P<name>[A-Za-z_]\w*)$")


def _parse_arguments(arguments: _Arguments, who: str = "ElementwiseKernel", arrays_needed: bool = True) -> list[_Param]:
    """[(name, dtype, kind)] of a C declaration list ("float a, const float *x") or of
    VectorArg/ScalarArg objects; ValueError without an array unless not `arrays_needed`."""
    declarations: list[object]
    if isinstance(arguments, str):
        declarations = [d.strip() for d in arguments.split(",") if d.strip()]
    else:
        declarations = list(arguments)
    params: list[_Param] = []
    for d in declarations:
        if isinstance(d, VectorArg):
            params.append((d.name, np.dtype(d.dtype), "inout"))
            continue
        if isinstance(d, ScalarArg):
            params.append((d.name, np.dtype(d.dtype), "scalar"))
            continue
        if not isinstance(d, str):
            raise TypeError(f"{who}: an argument is a C declaration or a VectorArg/ScalarArg, got {d!r}")
        words = d.replace("*", " * ").split()
        const = "const" in words or "__const" in words
        match = _DECLARATOR.match(" ".join(w for w in words if w not in _QUALIFIERS))
        if match is None:
            raise ValueError(f"{who}: cannot parse the argument {d!r} ('<type> <name>' or '<type> *<name>')")
        type_name = " ".join(match.group("type").split())
        if type_name not in _TYPES:
            raise TypeError(
                f"{who}: the argument {d!r} has the type {type_name!r}, which gpukit.cl's "
                f"kernels do not take yet (they take {', '.join(sorted(set(_TYPES)))})"
            )
        kind = ("in" if const else "inout") if match.group("star") else "scalar"
        params.append((match.group("name"), np.dtype(_TYPES[type_name]), kind))
    if arrays_needed and not any(kind != "scalar" for _, _, kind in params):
        raise ValueError(f"{who}: the arguments hold no array (a pointer argument)")
    return params


def _as_declared(arg: object, name: str, dtype: np.dtype[Any], who: str) -> Array:
    """The Array `arg` seen as the declared element type: an Array of another type of the same
    size is reinterpreted (PyOpenCL passes every Array's bytes as they are: `char *flags` takes
    a uint8 Array); TypeError for one of another size or anything but an Array."""
    if not isinstance(arg, Array):
        raise TypeError(f"{who}: the argument {name} must be an Array, got {type(arg).__name__}")
    if arg.dtype == dtype:
        return arg
    if arg.dtype.itemsize != dtype.itemsize:
        raise TypeError(
            f"{who}: the argument {name} is declared {dtype} ({dtype.itemsize} bytes), the Array "
            f"holds {arg.dtype} ({arg.dtype.itemsize} bytes)"
        )
    return arg.view(dtype)


def _pointer_values(
    params: Sequence[_Param], args: Sequence[Array | _Scalar], who: str
) -> tuple[list[Array | bytes], list[Array]]:
    """(values, arrays) of a call whose arrays the kernel indexes freely (scans, reductions):
    the bytes of each scalar in its declared type, each Array as declared (contiguous)."""
    if len(args) != len(params):
        raise TypeError(f"{who} takes {len(params)} arguments, got {len(args)}")
    values: list[Array | bytes] = []
    arrays: list[Array] = []
    for (name, dtype, kind), arg in zip(params, args):
        if kind == "scalar":
            values.append(np.asarray(arg, dtype=dtype).tobytes())
            continue
        array = _as_declared(arg, name, dtype, who)
        if not array.flags.forc:
            raise ValueError(f"{who}: the argument {name} must be a contiguous Array")
        values.append(array)
        arrays.append(array)
    return values, arrays


def _defines(options: _Options, who: str = "ElementwiseKernel") -> str:
    """The -D options as #define lines; NotImplementedError for other build options."""
    if options is None:
        return ""
    options = options.split() if isinstance(options, str) else list(options)
    lines: list[str] = []
    k = 0
    while k < len(options):
        option = options[k]
        if option == "-D" and k + 1 < len(options):
            definition, k = options[k + 1], k + 2
        elif option.startswith("-D") and len(option) > 2:
            definition, k = option[2:], k + 1
        else:
            raise NotImplementedError(
                f"{who}: the build option {option!r} is not supported by gpukit.cl yet (only -D definitions)"
            )
        name, _, value = definition.partition("=")
        lines.append(f"#define {name} {value or 1}")
    return "\n".join(lines) + "\n" if lines else ""


class ElementwiseKernel:
    """ElementwiseKernel(context, arguments, operation, name="elwise_kernel", options=None,
    preamble="")."""

    def __init__(
        self,
        context: Context,
        arguments: _Arguments,
        operation: str,
        name: str = "elwise_kernel",
        options: _Options = None,
        **kwargs: str,
    ) -> None:
        preamble = kwargs.pop("preamble", "")
        for unsupported in ("loop_prep", "after_loop"):
            if kwargs.pop(unsupported, None):
                raise NotImplementedError(f"ElementwiseKernel: {unsupported}= is not supported by gpukit.cl yet")
        if kwargs:
            raise TypeError(f"ElementwiseKernel() got unexpected keyword arguments {sorted(kwargs)}")
        self.context = context
        self.name = name
        self.operation = operation
        self._params = _parse_arguments(arguments)
        self._spec = _ElementwiseSpec(
            name, [(n, t.name, k) for n, t, k in self._params], operation, _defines(options) + preamble
        )
        # Whether the operation uses i other than as an index `[i]` (then range= would change it).
        self._uses_bare_i = re.search(r"\bi\b", re.sub(r"\[\s*i\s*\]", "", operation)) is not None

    def __call__(
        self,
        *args: Array | _Scalar,
        range: slice | None = None,
        slice: slice | None = None,
        queue: CommandQueue | None = None,
        wait_for: _WaitList = None,
        **kwargs: object,
    ) -> Event:
        index_range = range
        index_slice = slice
        if kwargs:
            raise TypeError(f"ElementwiseKernel call got unexpected keyword arguments {sorted(kwargs)}")
        if len(args) != len(self._params):
            raise TypeError(f"{self.name} takes {len(self._params)} arguments, got {len(args)}")
        part = index_range if index_range is not None else index_slice
        if part is not None and self._uses_bare_i:
            raise NotImplementedError(
                f"{self.name}: range=/slice= with an operation that uses i itself is not supported by gpukit.cl yet"
            )
        values: list[Array | bytes] = []
        arrays: list[Array] = []
        for (name, dtype, kind), arg in zip(self._params, args):
            if kind == "scalar":
                values.append(np.asarray(arg, dtype=dtype).tobytes())
                continue
            arg = _as_declared(arg, name, dtype, self.name)
            flat = arg if arg.ndim == 1 else (arg.ravel() if arg.flags.c_contiguous else arg)
            if arrays and flat.ndim == 1 and flat.flags.c_contiguous and flat.size > arrays[0].size:
                # As PyOpenCL: the first array's size is n; a longer contiguous array may be read
                # beyond i (x[i + 1]), so it is passed whole, seen as its first n elements.
                flat = flat[: arrays[0].size]
            if part is not None:
                flat = flat[part]
            values.append(flat)
            arrays.append(flat)
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise ValueError(
                f"{self.name}: the arrays' shapes differ: {sorted(shapes)} (arrays after the first "
                "may be longer, if contiguous)"
            )
        queue = queue or arrays[0].queue
        if queue is None:
            raise ValueError(_NO_QUEUE)
        if wait_for:
            cl.enqueue_barrier(queue, wait_for=list(wait_for))
        _wait_for_events(queue, arrays)
        if arrays[0].size:
            # The engine's results are `object` in its stubs: the kernel's Event here.
            return _engine(queue, arrays[0].allocator).run(self._spec, values)  # type: ignore[return-value]
        return cl.enqueue_marker(queue)
