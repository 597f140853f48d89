"""PyCUDA's kernel factories of ``pycuda.elementwise``: ``get_take_kernel``,
``get_linear_combination_kernel``, ``get_axpbyz_kernel`` and the rest.

Each helper builds the kernel PyCUDA's helper of the same name builds, with the same
parameters in the same order, through get_elwise_kernel: it returns a prepared Function
whose last parameter is ``n`` (the element count), compiled once per context and set of
arguments. Callers launch it positionally, as PyCUDA's gpuarray does::

    fill = get_fill_kernel(np.float32)
    fill.prepared_call(z._grid, z._block, np.float32(7), z.gpudata, z.size)

CUDA 12 removed texture references. Where PyCUDA's kernel fetched an operand through one,
the kernel here takes a ``const T *`` parameter instead, and the helper returns
``(function, [])``: the empty list stands for PyCUDA's texture references, so
``func, texrefs = get_take_kernel(...)`` still unpacks. The parameter lists that differ:

- take: ``idx, dest0..dest{k-1}, src0..src{k-1}, n``
- take_put: ``gmem_dest_idx, gmem_src_idx, dest0..dest{k-1}, src0..src{k-1},
  [offset0..offset{k-1}], n``
- linear_combination: summand ``i`` with a GPU scalar takes ``gpu_a{i}, x{i}`` (a pointer
  to the scalar, where a host scalar takes its value ``a{i}``), then ``z, n``.

Each helper is ``helper.spec`` (its arguments -> a _KernelSpec, made without a context)
wrapped by _kernel_helper; tests compile ``_kernel_source(helper.spec(...))`` with NVRTC on
machines without a GPU.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, ParamSpec, Protocol, SupportsIndex, TypeVar, cast

import numpy as np
import numpy.typing as npt

from gpukit._array.builder_arguments import dtype as _dtype
from gpukit._array.c_types import dtype_to_ctype
from gpukit.tools import context_dependent_memoize

if TYPE_CHECKING:
    from gpukit.driver import Function

_P = ParamSpec("_P")
_R_co = TypeVar("_R_co", covariant=True)

__all__ = [
    "get_take_kernel",
    "get_take_put_kernel",
    "get_put_kernel",
    "get_copy_kernel",
    "get_linear_combination_kernel",
    "get_axpbyz_kernel",
    "get_axpbz_kernel",
    "get_binary_op_kernel",
    "get_rdivide_elwise_kernel",
    "get_binary_func_kernel",
    "get_binary_func_scalar_kernel",
    "get_binary_minmax_kernel",
    "get_fill_kernel",
    "get_reverse_kernel",
    "get_real_kernel",
    "get_imag_kernel",
    "get_conj_kernel",
    "get_arange_kernel",
    "get_pow_array_kernel",
    "get_fmod_kernel",
    "get_modf_kernel",
    "get_frexp_kernel",
    "get_ldexp_kernel",
    "get_unary_func_kernel",
    "get_if_positive_kernel",
    "get_where_kernel",
    "get_scalar_op_kernel",
    "get_logical_not_kernel",
]


class _KernelSpec(NamedTuple):
    """What get_elwise_kernel is given: the C parameters (``n`` is added after them), the
    statement run for each ``i``, the kernel's name, and code run once per thread before
    the loop. Hashable: it is the key of the per-context cache."""

    arguments: str
    operation: str
    name: str
    loop_prep: str = ""


class KernelHelper(Protocol[_P, _R_co]):
    """What _kernel_helper and _texref_kernel_helper make of a spec function: called, the
    prepared Function (or ``(function, [])``); ``spec`` gives the _KernelSpec of the same
    arguments."""

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R_co: ...

    spec: Callable[_P, _KernelSpec]


# gpukit.elementwise is imported in the functions below: it imports this module to re-export it.


@context_dependent_memoize
def _prepared_function(spec: _KernelSpec) -> Function:
    from gpukit.elementwise import get_elwise_kernel

    return get_elwise_kernel(spec.arguments, spec.operation, spec.name, loop_prep=spec.loop_prep)


def _kernel_source(spec: _KernelSpec) -> str:
    """The CUDA C the helper of `spec` compiles."""
    from gpukit.elementwise import _elwise_kernel_source

    return _elwise_kernel_source(spec.arguments, spec.operation, spec.name, loop_prep=spec.loop_prep)


def _helper(
    spec_of: Callable[_P, _KernelSpec], returns_texrefs: bool
) -> KernelHelper[_P, Function | tuple[Function, list[object]]]:
    """The helper returning the prepared Function of ``spec_of(*args)``, or ``(function,
    [])`` for a kernel PyCUDA fed through texture references (the empty list is where PyCUDA
    returned them). A spec depends on the arguments alone, so it is remembered per set of
    them: a repeated call costs two dictionary look-ups, as PyCUDA's memoized helpers do
    (arguments must be hashable, as PyCUDA's)."""
    signature = inspect.signature(spec_of)
    memoized = cast("Callable[_P, _KernelSpec]", functools.lru_cache(maxsize=None)(spec_of))

    @functools.wraps(memoized)
    def helper(*args: _P.args, **kwargs: _P.kwargs) -> Function | tuple[Function, list[object]]:
        try:
            spec = memoized(*args, **kwargs)
        except TypeError:
            _refuse_unhashable(helper.__name__, signature, args, kwargs)
            raise
        function = _prepared_function(spec)
        return (function, []) if returns_texrefs else function

    result = cast("KernelHelper[_P, Function | tuple[Function, list[object]]]", helper)  # given spec here
    result.spec = memoized
    return result


def _refuse_unhashable(
    name: str, signature: inspect.Signature, args: tuple[object, ...], kwargs: Mapping[str, object]
) -> None:
    """TypeError naming the argument of helper `name` that cannot be hashed (the memo's key),
    if one cannot; else nothing."""
    for parameter, value in signature.bind(*args, **kwargs).arguments.items():
        try:
            hash(value)
        except TypeError:
            raise TypeError(
                f"{name}({parameter}): expected a hashable value (a dtype, a number, a str, a tuple), "
                f"got {type(value).__name__} {value!r}"
            ) from None


def _kernel_helper(spec_of: Callable[_P, _KernelSpec]) -> KernelHelper[_P, Function]:
    return cast("KernelHelper[_P, Function]", _helper(spec_of, returns_texrefs=False))


def _texref_kernel_helper(spec_of: Callable[_P, _KernelSpec]) -> KernelHelper[_P, tuple[Function, list[object]]]:
    return cast("KernelHelper[_P, tuple[Function, list[object]]]", _helper(spec_of, returns_texrefs=True))


# ---- argument checks


def _ctype(dtype: npt.DTypeLike, what: str) -> str:
    """The C type name of `dtype` (the helper's argument `what`)."""
    try:
        return dtype_to_ctype(_dtype(dtype, what))
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None


def _index_ctype(idx_dtype: npt.DTypeLike) -> str:
    dtype = _dtype(idx_dtype, "idx_dtype")
    if dtype.kind not in "iu":
        raise TypeError(f"idx_dtype: expected an integer dtype for indices, got {dtype}")
    return _ctype(dtype, "idx_dtype")


def _complex_dtype(dtype: npt.DTypeLike, what: str) -> np.dtype[Any]:
    dtype = _dtype(dtype, what)
    if dtype.kind != "c":
        raise TypeError(f"{what}: expected a complex dtype (complex64 or complex128), got {dtype}")
    return dtype


def _vec_count(vec_count: SupportsIndex) -> int:
    try:
        count = operator.index(vec_count)
    except TypeError:
        raise TypeError(f"vec_count: expected an integer, got {type(vec_count).__name__} {vec_count!r}") from None
    if count < 1:
        raise ValueError(f"vec_count: expected at least 1 (the number of arrays moved together), got {count}")
    return count


# C's binary operators, which get_binary_op_kernel and get_scalar_op_kernel put between operands.
_BINARY_OPERATORS = ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=", "&&", "||")


def _binary_operator(op: str) -> str:
    if op not in _BINARY_OPERATORS:
        raise ValueError(f"operator: expected one of C's binary operators {' '.join(_BINARY_OPERATORS)}, got {op!r}")
    return op


def _function_name(func: str, what: str) -> str:
    """A C function name, as the helper's argument `what`; the kernel is named after it
    (with characters such as the colons of ``pycuda::abs`` replaced)."""
    if not isinstance(func, str) or not func.strip():
        raise TypeError(f"{what}: expected the name of a C function as a str, got {func!r}")
    return func.strip()


def _kernel_name(func: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in func) + "_kernel"


# ---- gathers and scatters: with vec_count > 1 one index array moves that many arrays


def _move_spec(
    name: str,
    dtype: npt.DTypeLike,
    idx_dtype: npt.DTypeLike,
    vec_count: SupportsIndex,
    index_arrays: Mapping[str, str],
    move: str,
    src_const: bool = True,
    with_offsets: bool = False,
) -> _KernelSpec:
    """A gather or scatter of vec_count arrays: parameters ``<index arrays>, dest0.., src0..,
    [offset0..]``. Each thread reads element i of every index array into its local
    (`index_arrays` maps parameter to local), then runs `move` with ``{j}`` for each array.
    The sources are const where PyCUDA read them through texture references."""
    count = _vec_count(vec_count)
    tp, idx_tp = _ctype(dtype, "dtype"), _index_ctype(idx_dtype)
    src_tp = f"const {tp}" if src_const else tp
    arguments = (
        [f"{idx_tp} *{array}" for array in index_arrays]
        + [f"{tp} *dest{j}" for j in range(count)]
        + [f"{src_tp} *src{j}" for j in range(count)]
    )
    if with_offsets:
        arguments += [f"{idx_tp} offset{j}" for j in range(count)]
    operation = [f"{idx_tp} {local} = {array}[i];" for array, local in index_arrays.items()] + [
        move.format(j=j) for j in range(count)
    ]
    return _KernelSpec(", ".join(arguments), "\n".join(operation), name)


@_texref_kernel_helper
def get_take_kernel(dtype: npt.DTypeLike, idx_dtype: npt.DTypeLike, vec_count: SupportsIndex = 1) -> _KernelSpec:
    """``dest{j}[i] = src{j}[idx[i]]`` for j < vec_count: parameters ``idx, dest0.., src0.., n``.
    Returns (function, [])."""
    return _move_spec("take", dtype, idx_dtype, vec_count, {"idx": "src_idx"}, "dest{j}[i] = src{j}[src_idx];")


@_texref_kernel_helper
def get_take_put_kernel(
    dtype: npt.DTypeLike, idx_dtype: npt.DTypeLike, with_offsets: bool, vec_count: SupportsIndex = 1
) -> _KernelSpec:
    """``dest{j}[gmem_dest_idx[i]] = src{j}[gmem_src_idx[i] (+ offset{j})]``: parameters
    ``gmem_dest_idx, gmem_src_idx, dest0.., src0.., [offset0..,] n``. Returns (function, [])."""
    move = (
        "dest{j}[dest_idx] = src{j}[src_idx + offset{j}];" if with_offsets else "dest{j}[dest_idx] = src{j}[src_idx];"
    )
    indices = {"gmem_dest_idx": "dest_idx", "gmem_src_idx": "src_idx"}
    return _move_spec("take_put", dtype, idx_dtype, vec_count, indices, move, with_offsets=with_offsets)


@_kernel_helper
def get_put_kernel(dtype: npt.DTypeLike, idx_dtype: npt.DTypeLike, vec_count: SupportsIndex = 1) -> _KernelSpec:
    """``dest{j}[gmem_dest_idx[i]] = src{j}[i]``: parameters ``gmem_dest_idx, dest0.., src0.., n``."""
    return _move_spec(
        "put",
        dtype,
        idx_dtype,
        vec_count,
        {"gmem_dest_idx": "dest_idx"},
        "dest{j}[dest_idx] = src{j}[i];",
        src_const=False,
    )


@_kernel_helper
def get_copy_kernel(dtype_dest: npt.DTypeLike, dtype_src: npt.DTypeLike) -> _KernelSpec:
    """``dest[i] = src[i]`` converted: parameters ``dest, src, n``."""
    if _dtype(dtype_src, "dtype_src").kind == "c" and _dtype(dtype_dest, "dtype_dest").kind != "c":
        raise TypeError(
            f"get_copy_kernel: a complex source ({np.dtype(dtype_src)}) has no conversion to "
            f"{np.dtype(dtype_dest)}; take its real part with get_real_kernel"
        )
    return _KernelSpec(
        f"{_ctype(dtype_dest, 'dtype_dest')} *dest, {_ctype(dtype_src, 'dtype_src')} *src", "dest[i] = src[i]", "copy"
    )


# ---- linear combinations and arithmetic


@_texref_kernel_helper
def get_linear_combination_kernel(
    summand_descriptors: Iterable[tuple[bool, npt.DTypeLike, npt.DTypeLike]], dtype_z: npt.DTypeLike
) -> _KernelSpec:
    """``z[i] = a0*x0[i] + a1*x1[i] + ...``; `summand_descriptors` holds one
    ``(is_gpu_scalar, scalar_dtype, vector_dtype)`` per summand. Parameters per summand:
    ``a{i}, x{i}`` (the scalar's value), or ``gpu_a{i}, x{i}`` (a pointer to it in device
    memory) for a GPU scalar; then ``z, n``. Returns (function, [])."""
    try:
        # (checked below: each a sequence of three, its dtypes read by _ctype)
        summands: list[tuple[Any, ...]] = [tuple(descriptor) for descriptor in summand_descriptors]
    except TypeError:
        raise TypeError(
            "summand_descriptors: expected a sequence of (is_gpu_scalar, scalar_dtype, vector_dtype), "
            f"got {summand_descriptors!r}"
        ) from None
    if not summands or any(len(summand) != 3 for summand in summands):
        raise ValueError(
            "summand_descriptors: expected one or more (is_gpu_scalar, scalar_dtype, vector_dtype), "
            f"got {summand_descriptors!r}"
        )
    arguments: list[str] = []
    loop_prep: list[str] = []
    terms: list[str] = []
    for i, (is_gpu_scalar, scalar_dtype, vector_dtype) in enumerate(summands):
        scalar_tp = _ctype(scalar_dtype, f"summand {i} scalar_dtype")
        vector_tp = _ctype(vector_dtype, f"summand {i} vector_dtype")
        if is_gpu_scalar:
            # Read once per thread, where PyCUDA fetched it from a texture.
            arguments.append(f"const {scalar_tp} *gpu_a{i}")
            loop_prep.append(f"const {scalar_tp} a{i} = *gpu_a{i};")
        else:
            arguments.append(f"{scalar_tp} a{i}")
        arguments.append(f"{vector_tp} *x{i}")
        terms.append(f"a{i}*x{i}[i]")
    arguments.append(f"{_ctype(dtype_z, 'dtype_z')} *z")
    return _KernelSpec(", ".join(arguments), "z[i] = " + " + ".join(terms), "linear_combination", "\n".join(loop_prep))


def _operand_ctype(dtype: npt.DTypeLike, dtype_z: npt.DTypeLike, what: str) -> str:
    """The C type an operand is cast to before the arithmetic: z's type, or z's real type
    for a real operand of a complex result (complex<float> * double does not compile)."""
    dtype, dtype_z = _dtype(dtype, what), _dtype(dtype_z, "dtype_z")
    if dtype_z.kind == "c" and dtype.kind != "c":
        return _ctype(np.empty(0, dtype_z).real.dtype, "dtype_z")
    return _ctype(dtype_z, "dtype_z")


@_kernel_helper
def get_axpbyz_kernel(
    dtype_x: npt.DTypeLike,
    dtype_y: npt.DTypeLike,
    dtype_z: npt.DTypeLike,
    x_is_scalar: bool = False,
    y_is_scalar: bool = False,
) -> _KernelSpec:
    """``z[i] = a*x[i] + b*y[i]``: parameters ``a, x, b, y, z, n``; x_is_scalar /
    y_is_scalar read ``x[0]`` / ``y[0]`` (a one-element GPUArray) for every i."""
    tp_x, tp_y, tp_z = _ctype(dtype_x, "dtype_x"), _ctype(dtype_y, "dtype_y"), _ctype(dtype_z, "dtype_z")
    x_t, y_t = _operand_ctype(dtype_x, dtype_z, "dtype_x"), _operand_ctype(dtype_y, dtype_z, "dtype_y")
    x = "x[0]" if x_is_scalar else "x[i]"
    y = "y[0]" if y_is_scalar else "y[i]"
    return _KernelSpec(
        f"{tp_x} a, {tp_x} *x, {tp_y} b, {tp_y} *y, {tp_z} *z",
        f"z[i] = ({x_t}) a*(({x_t}) {x}) + (({y_t}) b)*(({y_t}) {y})",
        "axpbyz",
    )


@_kernel_helper
def get_axpbz_kernel(dtype_x: npt.DTypeLike, dtype_z: npt.DTypeLike) -> _KernelSpec:
    """``z[i] = a*x[i] + b``: parameters ``a, x, b, z, n`` (a and b of dtype_z)."""
    tp_x, tp_z = _ctype(dtype_x, "dtype_x"), _ctype(dtype_z, "dtype_z")
    return _KernelSpec(f"{tp_z} a, {tp_x} *x, {tp_z} b, {tp_z} *z", "z[i] = a * x[i] + b", "axpb")


@_kernel_helper
def get_binary_op_kernel(
    dtype_x: npt.DTypeLike,
    dtype_y: npt.DTypeLike,
    dtype_z: npt.DTypeLike,
    operator: str,
    x_is_scalar: bool = False,
    y_is_scalar: bool = False,
) -> _KernelSpec:
    """``z[i] = x[i] <operator> y[i]`` (a C binary operator such as ``"+"`` or ``"<"``):
    parameters ``x, y, z, n``; x_is_scalar / y_is_scalar read ``x[0]`` / ``y[0]``."""
    op = _binary_operator(operator)
    tp_x, tp_y, tp_z = _ctype(dtype_x, "dtype_x"), _ctype(dtype_y, "dtype_y"), _ctype(dtype_z, "dtype_z")
    x = "x[0]" if x_is_scalar else "x[i]"
    y = "y[0]" if y_is_scalar else "y[i]"
    if _dtype(dtype_z, "dtype_z").kind != "b":
        # Computed in z's type, as PyCUDA; a bool z (a comparison) compares the operands as they
        # are, where PyCUDA cast them to bool first.
        x = f"({_operand_ctype(dtype_x, dtype_z, 'dtype_x')}) {x}"
        y = f"({_operand_ctype(dtype_y, dtype_z, 'dtype_y')}) {y}"
    return _KernelSpec(f"{tp_x} *x, {tp_y} *y, {tp_z} *z", f"z[i] = ({tp_z}) ({x} {op} {y})", "multiply")


@_kernel_helper
def get_rdivide_elwise_kernel(dtype_x: npt.DTypeLike, dtype_z: npt.DTypeLike) -> _KernelSpec:
    """``z[i] = y / x[i]``: parameters ``x, y, z, n`` (the scalar y of dtype_z)."""
    tp_x, tp_z = _ctype(dtype_x, "dtype_x"), _ctype(dtype_z, "dtype_z")
    return _KernelSpec(f"{tp_x} *x, {tp_z} y, {tp_z} *z", "z[i] = y / x[i]", "divide_r")


@_kernel_helper
def get_binary_func_kernel(
    func: str, dtype_x: npt.DTypeLike, dtype_y: npt.DTypeLike, dtype_z: npt.DTypeLike
) -> _KernelSpec:
    """``z[i] = func(x[i], y[i])`` for a C function name `func`: parameters ``x, y, z, n``."""
    func = _function_name(func, "func")
    tp_x, tp_y, tp_z = _ctype(dtype_x, "dtype_x"), _ctype(dtype_y, "dtype_y"), _ctype(dtype_z, "dtype_z")
    return _KernelSpec(f"{tp_x} *x, {tp_y} *y, {tp_z} *z", f"z[i] = {func}(x[i], y[i])", _kernel_name(func))


@_kernel_helper
def get_binary_func_scalar_kernel(
    func: str, dtype_x: npt.DTypeLike, dtype_y: npt.DTypeLike, dtype_z: npt.DTypeLike
) -> _KernelSpec:
    """``z[i] = func(x[i], y)``: parameters ``x, y, z, n`` (y a scalar)."""
    func = _function_name(func, "func")
    tp_x, tp_y, tp_z = _ctype(dtype_x, "dtype_x"), _ctype(dtype_y, "dtype_y"), _ctype(dtype_z, "dtype_z")
    return _KernelSpec(f"{tp_x} *x, {tp_y} y, {tp_z} *z", f"z[i] = {func}(x[i], y)", _kernel_name(func))


@_kernel_helper
def get_binary_minmax_kernel(
    func: str, dtype_x: npt.DTypeLike, dtype_y: npt.DTypeLike, dtype_z: npt.DTypeLike, use_scalar: bool
) -> _KernelSpec:
    """``z[i] = max(x[i], y[i])`` (`func` "max" or "min"): get_binary_func_kernel's
    parameters ``x, y, z, n``, or with use_scalar get_binary_func_scalar_kernel's (y a
    scalar). CUDA's function for the dtypes: fmax/fmin in double when x or y is float64,
    fmaxf/fminf when another is floating (both operands converted, as PyCUDA meant: it
    passed mixed types, which CUDA's overloads cannot resolve), max/min for two integers of
    one dtype (PyCUDA named maxf/minf there, which do not exist)."""
    if func not in ("max", "min"):
        raise ValueError(f"func: expected 'max' or 'min', got {func!r}")
    dtypes = [_dtype(dtype_x, "dtype_x"), _dtype(dtype_y, "dtype_y"), _dtype(dtype_z, "dtype_z")]
    if any(dtype.kind not in "iuf" for dtype in dtypes):
        raise TypeError(
            f"get_binary_minmax_kernel: expected integer or floating dtypes, got {', '.join(map(str, dtypes))}"
        )
    if np.float64 in dtypes[:2]:
        func, cast = f"f{func}", "(double) "
    elif any(dtype.kind == "f" for dtype in dtypes):
        func, cast = f"f{func}f", "(float) "
    elif dtypes[0] != dtypes[1]:
        # CUDA's integer max/min overloads are ambiguous for mixed widths (int, long).
        raise TypeError(
            f"get_binary_minmax_kernel: integer x and y need one dtype, got {dtypes[0]} and "
            f"{dtypes[1]}; convert one first"
        )
    else:
        cast = ""
    tp_x, tp_y, tp_z = _ctype(dtype_x, "dtype_x"), _ctype(dtype_y, "dtype_y"), _ctype(dtype_z, "dtype_z")
    y_parameter, y = (f"{tp_y} y", "y") if use_scalar else (f"{tp_y} *y", "y[i]")
    return _KernelSpec(
        f"{tp_x} *x, {y_parameter}, {tp_z} *z", f"z[i] = {func}({cast}x[i], {cast}{y})", _kernel_name(func)
    )


# ---- filling, reordering, parts of complex numbers


@_kernel_helper
def get_fill_kernel(dtype: npt.DTypeLike) -> _KernelSpec:
    """``z[i] = a``: parameters ``a, z, n``."""
    tp = _ctype(dtype, "dtype")
    return _KernelSpec(f"{tp} a, {tp} *z", "z[i] = a", "fill")


@_kernel_helper
def get_reverse_kernel(dtype: npt.DTypeLike) -> _KernelSpec:
    """``z[i] = y[n-1-i]``: parameters ``y, z, n``."""
    tp = _ctype(dtype, "dtype")
    return _KernelSpec(f"{tp} *y, {tp} *z", "z[i] = y[n-1-i]", "reverse")


def _complex_part(dtype: npt.DTypeLike, real_dtype: npt.DTypeLike, part: str) -> _KernelSpec:
    """The spec of ``z[i] = part(y[i])`` (part: real or imag) of a complex y."""
    tp = _ctype(_complex_dtype(dtype, "dtype"), "dtype")
    return _KernelSpec(f"{tp} *y, {_ctype(real_dtype, 'real_dtype')} *z", f"z[i] = {part}(y[i])", part)


@_kernel_helper
def get_real_kernel(dtype: npt.DTypeLike, real_dtype: npt.DTypeLike) -> _KernelSpec:
    """``z[i] = real(y[i])`` of a complex y: parameters ``y, z, n``."""
    return _complex_part(dtype, real_dtype, "real")


@_kernel_helper
def get_imag_kernel(dtype: npt.DTypeLike, real_dtype: npt.DTypeLike) -> _KernelSpec:
    """``z[i] = imag(y[i])`` of a complex y: parameters ``y, z, n``."""
    return _complex_part(dtype, real_dtype, "imag")


@_kernel_helper
def get_conj_kernel(dtype: npt.DTypeLike, conj_dtype: npt.DTypeLike) -> _KernelSpec:
    """``z[i] = conj(y[i])`` of a complex y: parameters ``y, z, n``."""
    tp = _ctype(_complex_dtype(dtype, "dtype"), "dtype")
    conj_tp = _ctype(_complex_dtype(conj_dtype, "conj_dtype"), "conj_dtype")
    return _KernelSpec(f"{tp} *y, {conj_tp} *z", "z[i] = pycuda::conj(y[i])", "conj")


@_kernel_helper
def get_arange_kernel(dtype: npt.DTypeLike) -> _KernelSpec:
    """``z[i] = start + i*step``: parameters ``z, start, step, n``."""
    tp = _ctype(dtype, "dtype")
    return _KernelSpec(f"{tp} *z, {tp} start, {tp} step", "z[i] = start + i*step", "arange")


# ---- maths


@_kernel_helper
def get_pow_array_kernel(
    dtype_x: npt.DTypeLike, dtype_y: npt.DTypeLike, dtype_z: npt.DTypeLike, is_base_array: bool, is_exp_array: bool
) -> _KernelSpec:
    """``z[i] = pow(x, y)``: parameters ``x, y, z, n``, where x and y are arrays or scalars
    as is_base_array and is_exp_array say (one of them must be an array). powf for a float32
    z; pycuda::pow for a complex z; for integers only, numpy's exact integer power in z's
    type (repeated squaring; a negative exponent gives C's truncated 1 / x**-y); otherwise pow
    in double (as PyCUDA meant: its pow of two integers did not compile)."""
    if not (is_base_array or is_exp_array):
        raise ValueError(
            "get_pow_array_kernel: the base, the exponent or both must be arrays "
            "(is_base_array and is_exp_array are both false)"
        )
    tp_x, tp_y, tp_z = _ctype(dtype_x, "dtype_x"), _ctype(dtype_y, "dtype_y"), _ctype(dtype_z, "dtype_z")
    x = "x[i]" if is_base_array else "x"
    y = "y[i]" if is_exp_array else "y"
    dtype_z = _dtype(dtype_z, "dtype_z")
    arguments = f"{tp_x} {'*' if is_base_array else ''}x, {tp_y} {'*' if is_exp_array else ''}y, {tp_z} *z"
    if dtype_z.kind in "iu" and all(_dtype(d, "dtype").kind in "iub" for d in (dtype_x, dtype_y)):
        # pow in double is up to 2 ulp off, and 3.0 - 1 ulp converts to 2.
        operation = (
            f"{tp_z} b = ({tp_z}) {x}, r = 1; long long e = (long long) {y}; "
            f"if (e < 0) r = b == 1 ? 1 : b == ({tp_z}) -1 ? ((e & 1) ? ({tp_z}) -1 : 1) : 0; "
            f"else for (; e > 0; e >>= 1, b *= b) if (e & 1) r *= b; "
            f"z[i] = r"
        )
        return _KernelSpec(arguments, operation, "pow_method")
    if dtype_z == np.float32:
        func = "powf"
    elif dtype_z.kind == "c":
        func = "pow"
    else:
        func, x, y = "pow", f"(double) {x}", f"(double) {y}"
    return _KernelSpec(arguments, f"z[i] = {func}({x}, {y})", "pow_method")


@_kernel_helper
def get_fmod_kernel() -> _KernelSpec:
    """``z[i] = fmod(arg[i], mod[i])`` in float32: parameters ``arg, mod, z, n``."""
    return _KernelSpec("float *arg, float *mod, float *z", "z[i] = fmod(arg[i], mod[i])", "fmod_kernel")


@_kernel_helper
def get_modf_kernel() -> _KernelSpec:
    """float32 ``x[i]`` split into ``intpart[i]`` and ``fracpart[i]``: parameters ``x,
    intpart, fracpart, n``."""
    return _KernelSpec(
        "float *x, float *intpart, float *fracpart", "fracpart[i] = modf(x[i], &intpart[i])", "modf_kernel"
    )


@_kernel_helper
def get_frexp_kernel() -> _KernelSpec:
    """float32 ``x[i] = significand[i] * 2**exponent[i]`` (the exponent as a float):
    parameters ``x, significand, exponent, n``."""
    return _KernelSpec(
        "float *x, float *significand, float *exponent",
        "int expt = 0;\nsignificand[i] = frexp(x[i], &expt);\nexponent[i] = expt;",
        "frexp_kernel",
    )


@_kernel_helper
def get_ldexp_kernel() -> _KernelSpec:
    """``z[i] = sig[i] * 2**int(expt[i])`` in float32: parameters ``sig, expt, z, n``."""
    return _KernelSpec("float *sig, float *expt, float *z", "z[i] = ldexp(sig[i], int(expt[i]))", "ldexp_kernel")


@_kernel_helper
def get_unary_func_kernel(
    func_name: str, in_dtype: npt.DTypeLike, out_dtype: npt.DTypeLike | None = None
) -> _KernelSpec:
    """``z[i] = func_name(y[i])``: parameters ``y, z, n`` (z of out_dtype, default in_dtype)."""
    func = _function_name(func_name, "func_name")
    tp_in = _ctype(in_dtype, "in_dtype")
    tp_out = _ctype(in_dtype if out_dtype is None else out_dtype, "out_dtype")
    return _KernelSpec(f"{tp_in} *y, {tp_out} *z", f"z[i] = {func}(y[i])", _kernel_name(func))


# ---- choices and comparisons


@_kernel_helper
def get_if_positive_kernel(crit_dtype: npt.DTypeLike, dtype: npt.DTypeLike) -> _KernelSpec:
    """``result[i] = crit[i] > 0 ? then_[i] : else_[i]``: parameters ``crit, then_, else_, result, n``."""
    crit_tp, tp = _ctype(crit_dtype, "crit_dtype"), _ctype(dtype, "dtype")
    return _KernelSpec(
        f"{crit_tp} *crit, {tp} *then_, {tp} *else_, {tp} *result",
        "result[i] = crit[i] > 0 ? then_[i] : else_[i]",
        "if_positive",
    )


@_kernel_helper
def get_where_kernel(crit_dtype: npt.DTypeLike, dtype: npt.DTypeLike) -> _KernelSpec:
    """``result[i] = crit[i] != 0 ? then_[i] : else_[i]``: parameters ``crit, then_, else_, result, n``."""
    crit_tp, tp = _ctype(crit_dtype, "crit_dtype"), _ctype(dtype, "dtype")
    return _KernelSpec(
        f"{crit_tp} *crit, {tp} *then_, {tp} *else_, {tp} *result",
        "result[i] = crit[i] != 0 ? then_[i] : else_[i]",
        "where",
    )


@_kernel_helper
def get_scalar_op_kernel(
    dtype_x: npt.DTypeLike, dtype_a: npt.DTypeLike, dtype_y: npt.DTypeLike, operator: str
) -> _KernelSpec:
    """``y[i] = x[i] <operator> a`` for a scalar a: parameters ``x, a, y, n``."""
    op = _binary_operator(operator)
    tp_x, tp_a, tp_y = _ctype(dtype_x, "dtype_x"), _ctype(dtype_a, "dtype_a"), _ctype(dtype_y, "dtype_y")
    return _KernelSpec(f"{tp_x} *x, {tp_a} a, {tp_y} *y", f"y[i] = x[i] {op} a", "scalarop_kernel")


@_kernel_helper
def get_logical_not_kernel(dtype_x: npt.DTypeLike, dtype_out: npt.DTypeLike) -> _KernelSpec:
    """``out[i] = (x[i] == 0)``: parameters ``x, out, n``."""
    tp_x, tp_out = _ctype(dtype_x, "dtype_x"), _ctype(dtype_out, "dtype_out")
    return _KernelSpec(f"{tp_x} *x, {tp_out} *out", "out[i] = (x[i] == 0)", "logical_not")
