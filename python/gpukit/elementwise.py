"""User-written elementwise kernels (PyCUDA's ``pycuda.elementwise``).

``ElementwiseKernel(arguments, operation)`` declares a kernel's parameters in C and the
operation on element ``i``; gpukit generates PyCUDA's kernel around it (see
``gpukit::array::elementwise_kernel`` for its exact text), compiles it on first use in each
context and caches it there. Array parameters are plain pointers to contiguous memory, so
``x[j]`` is element ``j`` of ``x`` for any ``j`` (gathers, reversals and stencils work as in
C); ``n`` is the first array argument's size.

PyCUDA's lower-level helpers are here too: get_elwise_module, get_elwise_kernel and the
kernel factories its gpuarray used (get_take_kernel, get_linear_combination_kernel, ...;
see gpukit/_array/elementwise_helpers.py).
"""

from __future__ import annotations

import builtins
import numbers
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from gpukit import _gpukit, gpuarray
from gpukit._array import c_types as _c_types, elementwise_helpers as _elementwise_helpers
from gpukit import compiler as _compiler
from gpukit._array.c_types import ScalarArg, VectorArg
from gpukit._array.elementwise_helpers import *  # noqa: F401,F403  (PyCUDA's get_*_kernel helpers)

if TYPE_CHECKING:
    from gpukit._typing import StreamLike
    from gpukit.driver import Function
    from gpukit.gpuarray import GPUArray

#: A kernel's parameters as the builders take them: a C parameter list ("float a, float *x"),
#: or a list of VectorArg / ScalarArg.
Arguments = str | Sequence[VectorArg | ScalarArg]

# (declarator as written, its argument)
_Parameter = tuple[str, VectorArg | ScalarArg]

__all__ = [
    "ElementwiseKernel",
    "get_elwise_module",
    "get_elwise_range_module",
    "get_elwise_kernel_and_types",
    "get_elwise_kernel",
] + _elementwise_helpers.__all__


def _parameters(arguments: Arguments) -> list[_Parameter]:
    """[(declarator, Argument)]: a PyCUDA argument string keeps each declaration as written
    (const and __restrict__ included); Argument objects give their own declarator()."""
    if isinstance(arguments, str):
        pieces = [piece.strip() for piece in arguments.split(",")]
        return [(piece, _c_types.parse_c_arg(piece)) for piece in pieces]
    if not isinstance(arguments, Sequence):
        raise TypeError(
            f'arguments must be a C declaration string ("float a, float *x") or a list of VectorArg / '
            f"ScalarArg, got {type(arguments).__name__} {arguments!r}"
        )
    parameters: list[_Parameter] = []
    for argument in arguments:
        if not isinstance(argument, (VectorArg, ScalarArg)):
            raise TypeError(
                f"ElementwiseKernel arguments must be a C declaration string or a list of VectorArg / "
                f"ScalarArg, got {argument!r}"
            )
        parameters.append((argument.declarator(), argument))
    return parameters


def _kernel_params(parameters: Sequence[_Parameter]) -> list[tuple[str, str, bool]]:
    """The (declarator, name, is_array) triples the C++ side takes."""
    return [(declarator, a.name, isinstance(a, VectorArg)) for declarator, a in parameters]


def _scalar_bytes(value: Any, argument: ScalarArg) -> bytes:
    """`value` as the bytes of the scalar parameter `argument`, converted as PyCUDA's
    prepared calls do: integers only for integer parameters, real numbers for floating
    ones; a value that does not fit is an OverflowError, never a wrapped one."""
    dtype = argument.dtype
    where = f"argument {argument.name} ({_c_types.dtype_to_ctype(dtype)})"
    if isinstance(value, (gpuarray.GPUArray, np.ndarray)) and value.ndim > 0:
        raise TypeError(f"{where}: expected a scalar, got an array")
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise TypeError(f"{where}: a numpy array of dtype {value.dtype} holds Python objects, not a value")
        value = value[()]  # a 0-d array is its element, as PyCUDA's packer reads it
    if dtype.kind == "V":  # a struct or vector type: a record of exactly this dtype
        record = np.asarray(value)
        if record.dtype != dtype:
            try:
                record = np.asarray(value, dtype=dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(f"{where}: expected a value of dtype {dtype}, got {value!r}") from e
        if record.ndim != 0:
            raise TypeError(f"{where}: expected one record, got an array of shape {record.shape}")
        return record.tobytes()
    if dtype.kind in "iub":
        if isinstance(value, np.bool_):  # numpy's bool has no __index__
            value = bool(value)
        try:
            number = operator.index(value)
        except TypeError:
            raise TypeError(f"{where}: expected an integer, got {type(value).__name__} {value!r}") from None
        low, high = (0, 1) if dtype.kind == "b" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
        if not low <= number <= high:
            raise OverflowError(f"{where}: {number} is out of range [{low}, {high}]")
        return np.array(number, dtype=dtype).tobytes()
    wanted = numbers.Complex if dtype.kind == "c" else numbers.Real
    if not isinstance(value, wanted) or isinstance(value, (str, bytes)):
        raise TypeError(
            f"{where}: expected a {'complex' if dtype.kind == 'c' else 'real'} number, "
            f"got {type(value).__name__} {value!r}"
        )
    with np.errstate(over="ignore"):
        converted = np.array(value, dtype=dtype)
    if not np.all(np.isfinite(converted)) and np.all(np.isfinite(np.array(value, dtype=np.complex128))):
        raise OverflowError(f"{where}: {value!r} is too large for {dtype}")
    return converted.tobytes()


def _array_of(value: object, argument: VectorArg) -> GPUArray:
    """The GPUArray passed for the pointer parameter `argument` (objects exporting
    __cuda_array_interface__ or DLPack are wrapped without copying)."""
    if not isinstance(value, gpuarray.GPUArray):
        try:
            value = gpuarray.asarray(value)
        except (TypeError, ValueError, AttributeError) as e:
            raise TypeError(
                f"argument {argument.name} is a pointer ({argument.dtype} *): expected a GPUArray or "
                f"an object with __cuda_array_interface__, got {type(value).__name__}"
            ) from e
    if not (value.flags.c_contiguous or value.flags.f_contiguous):
        raise RuntimeError(
            f"ElementwiseKernel: argument {argument.name} is not contiguous (shape {value.shape}, "
            f"strides {value.strides}); pass a C-contiguous copy, "
            f"{argument.name}.ravel().reshape({argument.name}.shape)"
        )
    if value.dtype.itemsize != argument.dtype.itemsize:
        raise TypeError(
            f"argument {argument.name} is declared {argument.dtype} (itemsize "
            f"{argument.dtype.itemsize}), got an array of {value.dtype} (itemsize "
            f"{value.dtype.itemsize}): x[j] would not be element j"
        )
    return value


class ElementwiseKernel:
    """A kernel that runs `operation` for every index ``i`` of its arrays::

        lin_comb = ElementwiseKernel("float a, float *x, float b, float *y, float *z",
                                     "z[i] = a*x[i] + b*y[i]", "lin_comb")
        lin_comb(5, x_gpu, 6, y_gpu, z_gpu)

    `arguments` is a C parameter list (or a list of VectorArg/ScalarArg). Pointer parameters
    take contiguous GPUArrays (or objects with __cuda_array_interface__), scalars take
    numbers or numpy scalars (records for struct and vector types such as float3).
    `preamble` goes before the kernel, `loop_prep` and `after_loop` inside it around the
    loop; `options`, `keep` and the compiler settings are those of SourceModule. ``n`` is
    the size of the first array argument, unless the kernel declares its own ``n``.
    """

    def __init__(
        self,
        arguments: Arguments,
        operation: str,
        name: str = "kernel",
        keep: bool = False,
        options: Sequence[str] | None = None,
        preamble: str = "",
        loop_prep: str = "",
        after_loop: str = "",
        include_dirs: Sequence[_compiler._Path] = (),
        nvcc: _compiler._Path = "nvcc",
        compiler: str | None = None,
        cache_dir: _compiler._Path | Literal[False] | None = None,
    ) -> None:
        parameters = _parameters(arguments)
        self._arguments = [argument for _, argument in parameters]
        self._keep = keep
        self.name = name
        if not any(isinstance(a, VectorArg) for a in self._arguments):
            raise ValueError(f"ElementwiseKernel {name!r}: needs at least one array (pointer) argument")
        request = _compiler._request("", nvcc, options, True, None, None, include_dirs, compiler, "cubin")
        self._kernel = _gpukit._ElementwiseKernel(
            name,
            _kernel_params(parameters),
            operation,
            preamble,
            loop_prep,
            after_loop,
            request["options"],
            request["arch"],
            request["include_dirs"],
            request["system_include_dirs"],
            request["compiler"],
            request["nvcc"],
            None if keep else _compiler._cache_directory(cache_dir),
        )
        self._compile_settings = (nvcc, options, include_dirs, compiler)
        self._declares_n = any(a.name == "n" for a in self._arguments)

    @property
    def arguments(self) -> list[VectorArg | ScalarArg]:
        """The parameters, as VectorArg / ScalarArg objects."""
        return list(self._arguments)

    def get_source(self, use_range: bool = False) -> str:
        """The CUDA C of the kernel (the range form with ``use_range=True``)."""
        return self._kernel.source(use_range)

    def __call__(
        self,
        *args: Any,
        range: builtins.slice | None = None,
        slice: builtins.slice | None = None,
        stream: StreamLike | None = None,
    ) -> None:
        if len(args) != len(self._arguments):
            raise TypeError(
                f"ElementwiseKernel {self.name!r} takes {len(self._arguments)} arguments "
                f"({', '.join(a.name for a in self._arguments)}), got {len(args)}"
            )
        values: list[bytes] = []
        first_array: GPUArray | None = None
        n: int | None = None
        for value, argument in zip(args, self._arguments):
            if isinstance(argument, VectorArg):
                array = _array_of(value, argument)
                first_array = first_array if first_array is not None else array
                values.append(np.uint64(array.ptr if array.size else 0).tobytes())
            else:
                values.append(_scalar_bytes(value, argument))
                if argument.name == "n":
                    n = operator.index(value)
        if range is not None and slice is not None:
            raise TypeError("ElementwiseKernel: pass range= or slice=, not both")
        # (first_array is set: the constructor requires an array argument)
        if stream is None:
            stream = first_array.stream  # type: ignore[union-attr]
        if self._keep:
            self._keep_files(range is not None or slice is not None)
        if slice is not None:
            range = builtins.slice(*slice.indices(first_array.size))  # type: ignore[union-attr]  # (negative indices count from the end)
        if range is not None:
            start, stop, step = _range_bounds(range)
            self._kernel.run_range(values, start, stop, step, stream)
        else:
            # A declared n only sizes the grid here (the kernel loops to its value). (The loop
            # above set n, and first_array: mypy cannot tell.)
            self._kernel.run(
                values,
                max(n, 0) if self._declares_n else first_array.size,  # type: ignore[type-var, union-attr, arg-type]
                stream,
            )

    def _keep_files(self, use_range: bool) -> None:
        """keep=True: compile once more through SourceModule's path, which keeps the source
        and the compiler's output in a directory it prints (PyCUDA's keep)."""
        nvcc, options, include_dirs, compiler = self._compile_settings
        _compiler.compile(
            self.get_source(use_range),
            nvcc=nvcc,
            options=options,
            keep=True,
            no_extern_c=True,
            include_dirs=include_dirs,
            compiler=compiler,
        )
        self._keep = False  # once, as PyCUDA compiles once


def _range_bounds(range_: slice) -> tuple[int, int, int]:
    """(start, stop, step) of the slice object `range_`; start defaults to 0, step to 1."""
    if not isinstance(range_, builtins.slice):
        raise TypeError(f"range= must be a slice object, got {type(range_).__name__}")
    try:
        start = 0 if range_.start is None else operator.index(range_.start)
        stop = operator.index(range_.stop)
        step = 1 if range_.step is None else operator.index(range_.step)
    except TypeError:
        raise TypeError(f"range= must be a slice of integers with a stop, got {range_!r}") from None
    if step == 0:
        raise ValueError("range= step must not be zero")
    return start, stop, step


# ---- PyCUDA's lower-level helpers: a SourceModule / prepared Function of the same kernel,
# bound to the current context (the caller keeps it).

_RANGE_NAMES = ("start", "stop", "step")


def _loop_parameters(arguments: Arguments, use_range: bool) -> list[_Parameter]:
    """[(declarator, Argument)] of `arguments` (declarations kept as written), extended as in
    PyCUDA by ScalarArg ``n`` (uintp) or, with use_range, ``start``, ``stop``, ``step`` (intp)."""
    if use_range:
        loop = [ScalarArg(np.intp, loop_name) for loop_name in _RANGE_NAMES]
    else:
        loop = [ScalarArg(np.uintp, "n")]
    return _parameters(arguments) + [(argument.declarator(), argument) for argument in loop]


def _source(
    parameters: list[_Parameter],
    operation: str,
    name: str,
    preamble: str,
    loop_prep: str,
    after_loop: str,
    use_range: bool,
) -> str:
    if use_range and [a.name for _, a in parameters[-3:]] == list(_RANGE_NAMES):
        parameters = parameters[:-3]  # PyCUDA's callers list them; the range form declares them itself
    return _gpukit._elementwise_kernel_source(
        name, _kernel_params(parameters), operation, preamble, loop_prep, after_loop, use_range
    )


def _module(
    parameters: list[_Parameter],
    operation: str,
    name: str,
    keep: bool,
    options: Sequence[str] | None,
    preamble: str,
    loop_prep: str,
    after_loop: str,
    use_range: bool,
) -> _compiler.SourceModule:
    source = _source(parameters, operation, name, preamble, loop_prep, after_loop, use_range)
    return _compiler.SourceModule(source, options=options, keep=keep, no_extern_c=True)


def _elwise_kernel_source(
    arguments: Arguments,
    operation: str,
    name: str = "kernel",
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
    use_range: bool = False,
) -> str:
    """The CUDA C that get_elwise_kernel_and_types compiles, made without a context (for
    compile-only tests of the kernels built on it)."""
    return _source(_loop_parameters(arguments, use_range), operation, name, preamble, loop_prep, after_loop, use_range)


def get_elwise_module(
    arguments: Arguments,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> _compiler.SourceModule:
    """A SourceModule holding ElementwiseKernel's kernel `name` for these arguments (which
    may include the ``n`` the loop runs to; it is declared when they do not)."""
    return _module(_parameters(arguments), operation, name, keep, options, preamble, loop_prep, after_loop, False)


def get_elwise_range_module(
    arguments: Arguments,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> _compiler.SourceModule:
    """The range form of get_elwise_module: the kernel takes ``long start, stop, step``."""
    return _module(_parameters(arguments), operation, name, keep, options, preamble, loop_prep, after_loop, True)


def get_elwise_kernel_and_types(
    arguments: Arguments,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    use_range: bool = False,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> tuple[_compiler.SourceModule, Function, list[VectorArg | ScalarArg]]:
    """(module, prepared Function, arguments): `arguments` parsed and extended, as in PyCUDA,
    by ScalarArg ``n`` (uintp) or, with use_range, ``start``, ``stop``, ``step`` (intp). A
    declaration string is compiled as written (``const`` and ``__restrict__`` kept)."""
    parameters = _loop_parameters(arguments, use_range)
    module = _module(parameters, operation, name, keep, options, preamble, loop_prep, after_loop, use_range)
    arguments = [argument for _, argument in parameters]
    function = module.get_function(name)
    function.prepare("".join(argument.struct_char for argument in arguments))
    return module, function, arguments


def get_elwise_kernel(
    arguments: Arguments,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> Function:
    """The prepared Function of get_elwise_kernel_and_types."""
    return get_elwise_kernel_and_types(
        arguments, operation, name, keep, options, preamble=preamble, loop_prep=loop_prep, after_loop=after_loop
    )[1]
