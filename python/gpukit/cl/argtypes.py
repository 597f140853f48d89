"""Kernel argument descriptions: a name and a numpy dtype, and the OpenCL C declaration
they stand for, for code that generates kernel source. Immutable and hashable, equal when
their class and fields are, as PyOpenCL's are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gpukit._array import builder_arguments
from gpukit._array.builder_arguments import argument_name
from gpukit._dtype_table import look_up_dtype

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

# numpy dtypes and their OpenCL C types: PyOpenCL's names, complex numbers as the cfloat_t and
# cdouble_t of its pyopencl-complex.h, and half (which PyOpenCL does not map).
_C_TYPES: dict[np.dtype[Any], str] = {
    np.dtype(np.int8): "char",
    np.dtype(np.uint8): "uchar",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "ushort",
    np.dtype(np.int32): "int",
    np.dtype(np.uint32): "uint",
    np.dtype(np.int64): "long",
    np.dtype(np.uint64): "ulong",
    np.dtype(np.float16): "half",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.complex64): "cfloat_t",
    np.dtype(np.complex128): "cdouble_t",
}


def c_type_name(dtype: DTypeLike) -> str:
    """The OpenCL C name of a numpy dtype; ValueError for types it has no name for."""
    return look_up_dtype(_C_TYPES, dtype, lambda d: f"no OpenCL C type for dtype {d}")


@dataclass(frozen=True, init=False)
class DtypedArgument:
    """A named kernel argument of a numpy dtype. The dtype need not have an OpenCL C type
    until declarator() is asked for (as in PyOpenCL)."""

    dtype: np.dtype[Any]
    name: str

    def __init__(self, dtype: DTypeLike, name: str) -> None:
        object.__setattr__(self, "name", argument_name(name, "opencl"))
        object.__setattr__(self, "dtype", builder_arguments.dtype(dtype, "dtype"))


@dataclass(frozen=True, init=False)
class VectorArg(DtypedArgument):
    """A ``__global`` pointer argument. With ``with_offset``, the kernel takes the pointer as
    ``<name>__base`` followed by a ``long <name>__offset`` in bytes (PyOpenCL's convention,
    for views into a buffer); the kernel text computes ``<name>`` from the two."""

    with_offset: bool

    def __init__(self, dtype: DTypeLike, name: str, with_offset: bool = False) -> None:
        super().__init__(dtype, name)
        object.__setattr__(self, "with_offset", with_offset)

    def declarator(self) -> str:
        """The OpenCL C parameter declaration (with the base and offset pair when with_offset)."""
        c_type = c_type_name(self.dtype)
        if self.with_offset:
            return f"__global {c_type} *{self.name}__base, long {self.name}__offset"
        return f"__global {c_type} *{self.name}"


@dataclass(frozen=True, init=False)
class ScalarArg(DtypedArgument):
    """A by-value argument."""

    def declarator(self) -> str:
        """The OpenCL C parameter declaration."""
        return f"{c_type_name(self.dtype)} {self.name}"
