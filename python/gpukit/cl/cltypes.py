"""OpenCL C's scalar and vector types as numpy dtypes, with PyOpenCL's ``pyopencl.cltypes``
names: ``cltypes.float`` is ``numpy.float32``, ``cltypes.float4`` a record dtype laid out as
OpenCL C's ``float4``, ``cltypes.make_float4(1, 2, 3, 4)`` a 0-d array of it that a kernel
takes by value.

A vector of n components is a record of fields ``s0`` ... ``s<n-1>``; the first four also
answer to OpenCL's names ``x``, ``y``, ``z``, ``w`` (``v["x"]``). OpenCL stores a 3-vector as
a 4-vector, so ``float3`` has a fourth field ``padding0`` and ``float3.itemsize == 16``. Each
type is registered with gpukit.cl.tools' C type registry under its OpenCL name, so
``dtype_to_ctype(cltypes.float4) == "float4"``.
"""

import numpy as np

from gpukit.cl.tools import get_or_register_dtype
from gpukit._warnings import warn

char = np.int8
uchar = np.uint8
short = np.int16
ushort = np.uint16
int = np.int32  # noqa: A001  (OpenCL C's names, shadowing the builtins on purpose)
uint = np.uint32
long = np.int64
ulong = np.uint64
half = np.float16
float = np.float32  # noqa: A001
double = np.float64

# The scalar types that have vector types (OpenCL's half vectors need an extension), and the
# component counts OpenCL C defines.
_VECTOR_SCALARS = {
    "char": char,
    "uchar": uchar,
    "short": short,
    "ushort": ushort,
    "int": int,
    "uint": uint,
    "long": long,
    "ulong": ulong,
    "float": float,
    "double": double,
}
_COUNTS = (2, 3, 4, 8, 16)
_LETTERS = ("x", "y", "z", "w")

#: (scalar dtype, count) -> vector dtype, and the reverse.
vec_types = {}
vec_type_to_scalar_and_count = {}


def _vector_dtype(scalar, count):
    stored = 4 if count == 3 else count
    names = [f"s{i}" for i in range(count)] + [f"padding{i}" for i in range(stored - count)]
    titles = [_LETTERS[i] if i < min(count, 4) else None for i in range(stored)]
    return np.dtype({"names": names, "formats": [scalar] * stored, "titles": titles})


def _makers(name, dtype, count):
    """make_<name>, filled_<name>, zeros_<name> and ones_<name> for the vector type `dtype`."""
    stored = len(dtype.names)

    def make(*components, **fields):
        if len(components) > count:
            raise TypeError(f"make_{name} takes at most {count} components, got {len(components)}")
        if len(components) < count:
            warn(
                f"make_{name}: components left out are 0, which PyOpenCL deprecates; give all {count} "
                f"or use zeros_{name}()",
                DeprecationWarning,
            )
        padded = tuple(components) + (0,) * (stored - len(components))
        value = np.array(padded, dtype)
        for field, component in fields.items():
            value[field] = component  # ValueError for a field the type does not have
        return value

    def filled(component):
        return make(*[component] * count)

    make.__doc__ = f"A 0-d array of OpenCL's {name} with the given components (s0, s1, ...; or by field name)."
    filled.__doc__ = f"A 0-d array of OpenCL's {name} with every component `component`."
    return {
        f"make_{name}": make,
        f"filled_{name}": filled,
        f"zeros_{name}": lambda: filled(0),
        f"ones_{name}": lambda: filled(1),
    }


for _scalar_name, _scalar in _VECTOR_SCALARS.items():
    for _count in _COUNTS:
        _name = f"{_scalar_name}{_count}"
        _dtype = get_or_register_dtype(_name, _vector_dtype(_scalar, _count))
        globals()[_name] = _dtype
        globals().update(_makers(_name, _dtype, _count))
        vec_types[np.dtype(_scalar), _count] = _dtype
        vec_type_to_scalar_and_count[_dtype] = np.dtype(_scalar), _count
del _scalar_name, _scalar, _count, _name, _dtype
