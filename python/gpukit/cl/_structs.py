"""Record dtypes as OpenCL C structs: ``match_dtype_to_c_struct`` (``pyopencl.tools``'), which
writes the C declaration of a numpy record dtype and asks the device's compiler where it puts
each field, so that arrays of the returned dtype and the struct share their layout."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from gpukit.cl import Context, Device


def _field_declaration(name: str, field_dtype: np.dtype[Any], dtype_to_ctype: Callable[[np.dtype[Any]], str]) -> str:
    """`float x` or, for a subarray field, `float x[3][2]`."""
    if field_dtype.subdtype is not None:
        base, shape = field_dtype.subdtype
        return f"{dtype_to_ctype(base)} {name}" + "".join(f"[{n}]" for n in shape)
    return f"{dtype_to_ctype(field_dtype)} {name}"


def match_dtype_to_c_struct(
    device: Device, name: str, dtype: DTypeLike, context: Context | None = None
) -> tuple[np.dtype[Any], str]:
    """``(dtype, c_decl)``: ``c_decl`` declares the struct type `name` with `dtype`'s fields in
    order of their offsets (their types by ``dtype_to_ctype``: registered structs may be
    fields), and the returned dtype has the fields at the offsets, and the size, the device's
    compiler gives that struct (padding inserted where it pads). A kernel on `device` (in
    `context`, or a context of its own) measures them."""
    import gpukit.cl as cl
    from gpukit.cl.tools import dtype_to_ctype

    dtype = np.dtype(dtype)
    if dtype.fields is None:
        raise TypeError(f"match_dtype_to_c_struct: a record dtype with fields, got {dtype}")
    if not name.isidentifier():
        raise ValueError(f"match_dtype_to_c_struct: the struct name must be a C identifier, got {name!r}")
    fields = sorted(dtype.fields.items(), key=lambda item: item[1][1])
    for field_name, _ in fields:
        if not field_name.isidentifier():
            raise ValueError(f"match_dtype_to_c_struct: field name {field_name!r} is not a C identifier")
    members = "".join(f"    {_field_declaration(n, f[0], dtype_to_ctype)};\n" for n, f in fields)
    c_decl = f"typedef struct {{\n{members}}} {name};\n"
    offsets = "".join(
        f"    result[{k + 1}] = (uint)((char *)&probe.{n} - (char *)&probe);\n" for k, (n, _) in enumerate(fields)
    )
    source = (
        f"{c_decl}\n__kernel void gk_struct_layout(__global uint *result)\n{{\n"
        f"    {name} probe;\n    result[0] = sizeof({name});\n{offsets}}}\n"
    )
    context = context or cl.Context([device])
    queue = cl.CommandQueue(context, device)
    program = cl.Program(context, source).build(devices=[device])
    measured = np.empty(len(fields) + 1, np.uint32)
    result = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, measured.nbytes)
    program.gk_struct_layout(queue, (1,), None, result)
    cl.enqueue_copy(queue, measured, result)
    matched = np.dtype(
        {
            "names": [n for n, _ in fields],
            "formats": [f[0] for _, f in fields],
            "offsets": [int(o) for o in measured[1:]],
            "itemsize": int(measured[0]),
        }
    )
    return matched, c_decl
