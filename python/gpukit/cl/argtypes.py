"""Kernel argument descriptions: a name and a numpy dtype, and the OpenCL C declaration
they stand for, for code that generates kernel source."""
import numpy as np

# numpy scalar types and the OpenCL C types of the same size and kind.
_C_TYPES = {
    np.dtype(np.int8): "char", np.dtype(np.uint8): "uchar",
    np.dtype(np.int16): "short", np.dtype(np.uint16): "ushort",
    np.dtype(np.int32): "int", np.dtype(np.uint32): "uint",
    np.dtype(np.int64): "long", np.dtype(np.uint64): "ulong",
    np.dtype(np.float16): "half", np.dtype(np.float32): "float", np.dtype(np.float64): "double",
}


def c_type_name(dtype):
    """The OpenCL C name of a numpy dtype; ValueError for types OpenCL C has no scalar for."""
    dtype = np.dtype(dtype)
    try:
        return _C_TYPES[dtype]
    except KeyError:
        known = ", ".join(str(d) for d in _C_TYPES)
        raise ValueError(f"no OpenCL C scalar type for dtype {dtype}; expected one of {known}") from None


class DtypedArgument:
    """A named kernel argument of a numpy dtype. Equal when name and dtype are."""

    def __init__(self, dtype, name):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"argument name {name!r} is not a C identifier")
        self.dtype = np.dtype(dtype)
        self.name = name
        c_type_name(self.dtype)  # refuse dtypes OpenCL C cannot declare now, not when generating code

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self):
        return hash((type(self), self.name, self.dtype))

    def __repr__(self):
        return f"{type(self).__name__}({self.dtype.name!r}, {self.name!r})"


class VectorArg(DtypedArgument):
    """A ``__global`` pointer argument. With ``with_offset``, the kernel also takes a ``long``
    element offset ``<name>__offset`` right after the pointer, for views into a buffer."""

    def __init__(self, dtype, name, with_offset=False):
        super().__init__(dtype, name)
        self.with_offset = bool(with_offset)

    def declarator(self):
        declaration = f"__global {c_type_name(self.dtype)} *{self.name}"
        if self.with_offset:
            declaration += f", long {self.name}__offset"
        return declaration

    def __repr__(self):
        return f"VectorArg({self.dtype.name!r}, {self.name!r}, with_offset={self.with_offset})"


class ScalarArg(DtypedArgument):
    """A by-value argument."""

    def declarator(self):
        return f"{c_type_name(self.dtype)} {self.name}"
