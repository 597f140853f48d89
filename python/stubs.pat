# Fix-ups of the generated stubs of gpukit._gpukit (nanobind stubgen pattern file; see
# python/CMakeLists.txt). A query is a regular expression matched against an entry's
# qualified name; the indented lines replace the entry, or delete it when there are none.

# enum.Flag's internal bookkeeping, which the stubs list because they include private
# names (GPUArray's base class is _Array): type checkers refuse them as annotated members.
\._(boundary|flag_mask|singles_mask|all_bits|inverted)_$:

# The attributes the module sets on each exception instance it raises.
gpukit\._gpukit\.CompileError$:
    class CompileError(Error):
        \doc
        msg: str
        stdout: str
        stderr: str
        command_line: str

gpukit\._gpukit\.cl\.Error$:
    \import gpukit._gpukit
    class Error(gpukit._gpukit.Error):
        \doc
        code: int
        routine: str

# Equality with any object: nanobind answers NotImplemented for other types, so Python
# compares identities (object's contract, which type checkers hold overrides to).
\.(Layout|Platform|Device)\.__eq__$:
    def __eq__(self, other: object, /) -> bool: ...

# _Array's results are arrays of the class gpukit.gpuarray sets (GPUArray); the module
# declares them as plain objects.
\._Array\.__(add|radd|iadd|sub|rsub|isub|mul|rmul|imul|truediv|rtruediv|itruediv|pow|rpow|ipow|lt|le|gt|ge)__$:
    \import gpukit.gpuarray
    def __\1__(self, other: object | None) -> gpukit.gpuarray.GPUArray: ...

# Element-wise comparisons return arrays, as numpy's do (and as numpy's stubs declare).
\._Array\.__(eq|ne)__$:
    \import gpukit.gpuarray
    def __\1__(self, other: object | None) -> gpukit.gpuarray.GPUArray: ...  # type: ignore[override]

\._Array\.__getitem__$:
    \import gpukit.gpuarray
    def __getitem__(self, key: object | None) -> gpukit.gpuarray.GPUArray: ...

\._Array\.__(neg|abs)__$:
    \import gpukit.gpuarray
    def __\1__(self) -> gpukit.gpuarray.GPUArray: ...

\._Array\.(copy|reverse)$:
    \import gpukit.gpuarray
    def \1(self, stream: object | None = None) -> gpukit.gpuarray.GPUArray:
        \doc

\._Array\.view$:
    \import gpukit.gpuarray
    def view(self, dtype: object | None = None) -> gpukit.gpuarray.GPUArray:
        \doc

\._Array\.dtype$:
    \import numpy
    \import typing
    @property
    def dtype(self) -> numpy.dtype[typing.Any]: ...

# A reduction's result: a 0-d GPUArray of dtype_out, or out=.
\._ReductionKernel\.__call__$:
    \import gpukit.gpuarray
    def __call__(self, *args: object, stream: object | None = None, out: object | None = None, range: object | None = None, slice: object | None = None, allocator: object | None = None) -> gpukit.gpuarray.GPUArray:
        \doc

# Module attributes: the generator types one by its value's class (a bare tuple or dict).
^gpukit\._gpukit\.VERSION$:
    VERSION: tuple[int, int, int]

^gpukit\._gpukit\.cl\._info_parameters$:
    _info_parameters: dict[str, list[tuple[str, int]]]

# Arrays of any dtype: the generator writes an nb::ndarray without a dtype as a bare NDArray.
\._ArrayEngine\.write$:
    \from typing import Annotated, Any
    \from numpy.typing import NDArray
    def write(self, target: object, host: Annotated[NDArray[Any], dict(order='C', device='cpu', writable=False)]) -> None: ...

\._ArrayEngine\.read$:
    \from typing import Annotated, Any
    \from numpy.typing import NDArray
    def read(self, source: object, host: Annotated[NDArray[Any], dict(order='C', device='cpu')]) -> None: ...

# The package's Python modules whose classes the signatures name (gpukit.gpuarray.GPUArray,
# ...): the generator imports a module it can find, and a wheel build generates the stubs
# from a staging package that holds none of them (where it imports `gpukit` instead, which
# is imported here too, so that both builds write the same stubs).
^gpukit\._gpukit\.__prefix__$:
    \import gpukit, gpukit.gpuarray, gpukit._array.c_types

^gpukit\._gpukit\.cl\.__prefix__$:
    \import gpukit, gpukit.cl.array
