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

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

import numpy as np

from gpukit.cl.tools import get_or_register_dtype
from gpukit._warnings import warn

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol, TypeAlias

    import numpy.typing as npt

    #: A component of a vector: a real number (a Python or a numpy one).
    _Component: TypeAlias = builtins.float | np.integer[Any] | np.floating[Any]

    class _Make(Protocol):
        """make_<type>(*components, **fields): a 0-d array of the vector type."""

        def __call__(self, *components: _Component, **fields: _Component) -> npt.NDArray[np.void]: ...

    class _Filled(Protocol):
        """filled_<type>(component): a 0-d array of the vector type, every component `component`."""

        def __call__(self, component: _Component) -> npt.NDArray[np.void]: ...

    class _Constant(Protocol):
        """zeros_<type>(), ones_<type>(): a 0-d array of the vector type of zeros, of ones."""

        def __call__(self) -> npt.NDArray[np.void]: ...

    # The vector types and their makers, which the loop at the end defines, as type checkers see them.
    char2: np.dtype[np.void]
    make_char2: _Make
    filled_char2: _Filled
    zeros_char2: _Constant
    ones_char2: _Constant
    char3: np.dtype[np.void]
    make_char3: _Make
    filled_char3: _Filled
    zeros_char3: _Constant
    ones_char3: _Constant
    char4: np.dtype[np.void]
    make_char4: _Make
    filled_char4: _Filled
    zeros_char4: _Constant
    ones_char4: _Constant
    char8: np.dtype[np.void]
    make_char8: _Make
    filled_char8: _Filled
    zeros_char8: _Constant
    ones_char8: _Constant
    char16: np.dtype[np.void]
    make_char16: _Make
    filled_char16: _Filled
    zeros_char16: _Constant
    ones_char16: _Constant
    uchar2: np.dtype[np.void]
    make_uchar2: _Make
    filled_uchar2: _Filled
    zeros_uchar2: _Constant
    ones_uchar2: _Constant
    uchar3: np.dtype[np.void]
    make_uchar3: _Make
    filled_uchar3: _Filled
    zeros_uchar3: _Constant
    ones_uchar3: _Constant
    uchar4: np.dtype[np.void]
    make_uchar4: _Make
    filled_uchar4: _Filled
    zeros_uchar4: _Constant
    ones_uchar4: _Constant
    uchar8: np.dtype[np.void]
    make_uchar8: _Make
    filled_uchar8: _Filled
    zeros_uchar8: _Constant
    ones_uchar8: _Constant
    uchar16: np.dtype[np.void]
    make_uchar16: _Make
    filled_uchar16: _Filled
    zeros_uchar16: _Constant
    ones_uchar16: _Constant
    short2: np.dtype[np.void]
    make_short2: _Make
    filled_short2: _Filled
    zeros_short2: _Constant
    ones_short2: _Constant
    short3: np.dtype[np.void]
    make_short3: _Make
    filled_short3: _Filled
    zeros_short3: _Constant
    ones_short3: _Constant
    short4: np.dtype[np.void]
    make_short4: _Make
    filled_short4: _Filled
    zeros_short4: _Constant
    ones_short4: _Constant
    short8: np.dtype[np.void]
    make_short8: _Make
    filled_short8: _Filled
    zeros_short8: _Constant
    ones_short8: _Constant
    short16: np.dtype[np.void]
    make_short16: _Make
    filled_short16: _Filled
    zeros_short16: _Constant
    ones_short16: _Constant
    ushort2: np.dtype[np.void]
    make_ushort2: _Make
    filled_ushort2: _Filled
    zeros_ushort2: _Constant
    ones_ushort2: _Constant
    ushort3: np.dtype[np.void]
    make_ushort3: _Make
    filled_ushort3: _Filled
    zeros_ushort3: _Constant
    ones_ushort3: _Constant
    ushort4: np.dtype[np.void]
    make_ushort4: _Make
    filled_ushort4: _Filled
    zeros_ushort4: _Constant
    ones_ushort4: _Constant
    ushort8: np.dtype[np.void]
    make_ushort8: _Make
    filled_ushort8: _Filled
    zeros_ushort8: _Constant
    ones_ushort8: _Constant
    ushort16: np.dtype[np.void]
    make_ushort16: _Make
    filled_ushort16: _Filled
    zeros_ushort16: _Constant
    ones_ushort16: _Constant
    int2: np.dtype[np.void]
    make_int2: _Make
    filled_int2: _Filled
    zeros_int2: _Constant
    ones_int2: _Constant
    int3: np.dtype[np.void]
    make_int3: _Make
    filled_int3: _Filled
    zeros_int3: _Constant
    ones_int3: _Constant
    int4: np.dtype[np.void]
    make_int4: _Make
    filled_int4: _Filled
    zeros_int4: _Constant
    ones_int4: _Constant
    int8: np.dtype[np.void]
    make_int8: _Make
    filled_int8: _Filled
    zeros_int8: _Constant
    ones_int8: _Constant
    int16: np.dtype[np.void]
    make_int16: _Make
    filled_int16: _Filled
    zeros_int16: _Constant
    ones_int16: _Constant
    uint2: np.dtype[np.void]
    make_uint2: _Make
    filled_uint2: _Filled
    zeros_uint2: _Constant
    ones_uint2: _Constant
    uint3: np.dtype[np.void]
    make_uint3: _Make
    filled_uint3: _Filled
    zeros_uint3: _Constant
    ones_uint3: _Constant
    uint4: np.dtype[np.void]
    make_uint4: _Make
    filled_uint4: _Filled
    zeros_uint4: _Constant
    ones_uint4: _Constant
    uint8: np.dtype[np.void]
    make_uint8: _Make
    filled_uint8: _Filled
    zeros_uint8: _Constant
    ones_uint8: _Constant
    uint16: np.dtype[np.void]
    make_uint16: _Make
    filled_uint16: _Filled
    zeros_uint16: _Constant
    ones_uint16: _Constant
    long2: np.dtype[np.void]
    make_long2: _Make
    filled_long2: _Filled
    zeros_long2: _Constant
    ones_long2: _Constant
    long3: np.dtype[np.void]
    make_long3: _Make
    filled_long3: _Filled
    zeros_long3: _Constant
    ones_long3: _Constant
    long4: np.dtype[np.void]
    make_long4: _Make
    filled_long4: _Filled
    zeros_long4: _Constant
    ones_long4: _Constant
    long8: np.dtype[np.void]
    make_long8: _Make
    filled_long8: _Filled
    zeros_long8: _Constant
    ones_long8: _Constant
    long16: np.dtype[np.void]
    make_long16: _Make
    filled_long16: _Filled
    zeros_long16: _Constant
    ones_long16: _Constant
    ulong2: np.dtype[np.void]
    make_ulong2: _Make
    filled_ulong2: _Filled
    zeros_ulong2: _Constant
    ones_ulong2: _Constant
    ulong3: np.dtype[np.void]
    make_ulong3: _Make
    filled_ulong3: _Filled
    zeros_ulong3: _Constant
    ones_ulong3: _Constant
    ulong4: np.dtype[np.void]
    make_ulong4: _Make
    filled_ulong4: _Filled
    zeros_ulong4: _Constant
    ones_ulong4: _Constant
    ulong8: np.dtype[np.void]
    make_ulong8: _Make
    filled_ulong8: _Filled
    zeros_ulong8: _Constant
    ones_ulong8: _Constant
    ulong16: np.dtype[np.void]
    make_ulong16: _Make
    filled_ulong16: _Filled
    zeros_ulong16: _Constant
    ones_ulong16: _Constant
    float2: np.dtype[np.void]
    make_float2: _Make
    filled_float2: _Filled
    zeros_float2: _Constant
    ones_float2: _Constant
    float3: np.dtype[np.void]
    make_float3: _Make
    filled_float3: _Filled
    zeros_float3: _Constant
    ones_float3: _Constant
    float4: np.dtype[np.void]
    make_float4: _Make
    filled_float4: _Filled
    zeros_float4: _Constant
    ones_float4: _Constant
    float8: np.dtype[np.void]
    make_float8: _Make
    filled_float8: _Filled
    zeros_float8: _Constant
    ones_float8: _Constant
    float16: np.dtype[np.void]
    make_float16: _Make
    filled_float16: _Filled
    zeros_float16: _Constant
    ones_float16: _Constant
    double2: np.dtype[np.void]
    make_double2: _Make
    filled_double2: _Filled
    zeros_double2: _Constant
    ones_double2: _Constant
    double3: np.dtype[np.void]
    make_double3: _Make
    filled_double3: _Filled
    zeros_double3: _Constant
    ones_double3: _Constant
    double4: np.dtype[np.void]
    make_double4: _Make
    filled_double4: _Filled
    zeros_double4: _Constant
    ones_double4: _Constant
    double8: np.dtype[np.void]
    make_double8: _Make
    filled_double8: _Filled
    zeros_double8: _Constant
    ones_double8: _Constant
    double16: np.dtype[np.void]
    make_double16: _Make
    filled_double16: _Filled
    zeros_double16: _Constant
    ones_double16: _Constant

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
_VECTOR_SCALARS: dict[str, type[np.generic[Any]]] = {
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
vec_types: dict[tuple[np.dtype[Any], builtins.int], np.dtype[np.void]] = {}
vec_type_to_scalar_and_count: dict[np.dtype[np.void], tuple[np.dtype[Any], builtins.int]] = {}


def _vector_dtype(scalar: type[np.generic[Any]], count: builtins.int) -> np.dtype[np.void]:
    stored = 4 if count == 3 else count
    names = [f"s{i}" for i in range(count)] + [f"padding{i}" for i in range(stored - count)]
    titles = [_LETTERS[i] if i < min(count, 4) else None for i in range(stored)]
    return np.dtype({"names": names, "formats": [scalar] * stored, "titles": titles})


def _makers(name: str, dtype: np.dtype[np.void], count: builtins.int) -> dict[str, Callable[..., npt.NDArray[np.void]]]:
    """make_<name>, filled_<name>, zeros_<name> and ones_<name> for the vector type `dtype`."""
    stored = len(dtype.names or ())

    def make(*components: _Component, **fields: _Component) -> npt.NDArray[np.void]:
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

    def filled(component: _Component) -> npt.NDArray[np.void]:
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
