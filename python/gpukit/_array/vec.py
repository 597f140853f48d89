"""CUDA's vector types (``float3``, ``int4``, ...) as numpy record dtypes: PyCUDA's
``gpuarray.vec``.

Each type is a record of the fields x, y, z, w of its scalar type, packed, so its itemsize
is CUDA's ``sizeof`` (float3: 12 bytes, float4: 16, double2: 16) and arrays of it have
CUDA's layout. ``vec.make_float3(1, 2, 3)`` makes a numpy scalar of the type, which a
kernel takes by value. CUDA aligns most 2- and 4-component types more strictly than numpy
aligns these records (float4 on 16 bytes, numpy on 4): a record dtype of your own that
holds one must put it at an offset CUDA's alignment divides.
"""

from __future__ import annotations

import inspect
from typing import Any, cast

import numpy as np

_FIELDS = ("x", "y", "z", "w")

# (CUDA base name, scalar type, the component counts PyCUDA defines). long is 64 bits on
# x86-64 Linux.
_BASES = [
    ("char", np.int8, (1, 2, 3, 4)),
    ("uchar", np.uint8, (1, 2, 3, 4)),
    ("short", np.int16, (1, 2, 3, 4)),
    ("ushort", np.uint16, (1, 2, 3, 4)),
    ("int", np.int32, (1, 2, 3, 4)),
    ("uint", np.uint32, (1, 2, 3, 4)),
    ("long", np.int64, (1, 2, 3, 4)),
    ("ulong", np.uint64, (1, 2, 3, 4)),
    ("longlong", np.int64, (1, 2)),
    ("ulonglong", np.uint64, (1, 2)),
    ("float", np.float32, (1, 2, 3, 4)),
    ("double", np.float64, (1, 2)),
]

#: Every vector type by its CUDA name ("float3"), as the dtype registry knows it.
TYPES: dict[str, np.dtype[np.void]] = {
    f"{base}{count}": np.dtype([(field, scalar) for field in _FIELDS[:count]])
    for base, scalar, counts in _BASES
    for count in counts
}


def _maker(name: str, dtype: np.dtype[np.void]) -> staticmethod[..., np.void]:
    """make_<name>(x, y, ...): a numpy scalar of `dtype` from its components."""
    fields = dtype.names
    assert fields is not None  # a record dtype
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature([inspect.Parameter(field, kind) for field in fields])

    def make(*args: Any, **kwargs: Any) -> np.void:
        components = signature.bind(*args, **kwargs).arguments  # TypeError for missing or unknown ones
        # (a 0-d array's [()] is its scalar, which numpy's stubs type as an array)
        return cast(np.void, np.array(tuple(components[field] for field in fields), dtype)[()])

    make.__name__ = make.__qualname__ = f"make_{name}"
    make.__signature__ = signature  # type: ignore[attr-defined]  # inspect reads it; functions do not declare it
    make.__doc__ = f"A numpy scalar of CUDA's {name} with the given components."
    return staticmethod(make)


class vec:  # noqa: N801  (PyCUDA's name)
    """CUDA's vector types as numpy dtypes (``vec.float3``) and their makers
    (``vec.make_float3(x, y, z)``)."""


for _name, _dtype in TYPES.items():
    setattr(vec, _name, _dtype)
    setattr(vec, f"make_{_name}", _maker(_name, _dtype))
del _name, _dtype
