"""Prefix scans (PyCUDA's ``pycuda.scan``): cumulative sums, products, maxima, or any other
associative operation, over a GPUArray.

    knl = InclusiveScanKernel(np.int32, "a+b")
    knl(x_gpu)                       # in place: x[i] = x[0] + ... + x[i]
    y_gpu = knl(x_gpu, "new")        # into a new array

``scan_expr`` combines ``a`` (the earlier value) and ``b`` (the later one); it must be
associative but need not be commutative (values are combined in their order). The kernel
is gpukit::array::scan (C++): one pass over the data, compiled on first use in each
context; a call is one crossing into C++.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy.typing as npt

from gpukit import _gpukit
from gpukit._array import c_types as _c_types
from gpukit import compiler as _compiler
from gpukit._array import builder_arguments
from gpukit._array.builder_arguments import text
from gpukit.driver import Device

if TYPE_CHECKING:
    from gpukit._array.builder_arguments import NeutralLike
    from gpukit.gpuarray import GPUArray

__all__ = ["InclusiveScanKernel", "ExclusiveScanKernel"]


def _device_ordinals(devices: Iterable[Device] | None) -> list[int] | None:
    if devices is None:
        return None
    try:
        devices = list(devices)
    except TypeError:
        raise TypeError(
            f"devices must be a list of gpukit.driver.Device (or None: any device), got "
            f"{type(devices).__name__} {devices!r}"
        ) from None
    for device in devices:
        if not isinstance(device, Device):
            raise TypeError(f"devices must be gpukit.driver.Device objects, got {type(device).__name__}")
    if not devices:
        raise ValueError("devices must name at least one device (or be None: any device)")
    return [int(device) for device in devices]


class _ScanKernel(_gpukit._ScanKernel):
    """What both scan kernels share. Calling one (``knl(input_ary, output_ary=None,
    allocator=None, queue=None)``) scans `input_ary` into `output_ary` and returns it:
    None scans in place, ``"new"`` makes a new array (from `allocator`, else input_ary's),
    and `queue` is the Stream to run on (default: input_ary's)."""

    if TYPE_CHECKING:

        def __call__(
            self,
            input_ary: object,
            output_ary: object | None = None,
            allocator: object | None = None,
            queue: object | None = None,
        ) -> GPUArray: ...  # (the extension's stub says object)

    def __init__(
        self,
        inclusive: bool,
        dtype: npt.DTypeLike,
        scan_expr: str,
        neutral: NeutralLike | None,
        name_prefix: str,
        options: Sequence[str] | None,
        preamble: str,
        devices: Iterable[Device] | None,
    ) -> None:
        dtype = builder_arguments.dtype(dtype, "dtype")
        c_type = _c_types.dtype_to_ctype(dtype)  # ValueError for a type nobody registered
        preamble = text(preamble, "preamble")
        if dtype.kind == "c":  # dtype_to_ctype names pycuda::complex<...>
            preamble = "#include <pycuda-complex.hpp>\n" + preamble
        request = _compiler._request("", "nvcc", options, True, None, None, (), None, "cubin")
        super().__init__(
            inclusive,
            dtype,
            c_type,
            text(scan_expr, "scan_expr"),
            None if neutral is None else builder_arguments.neutral_text(neutral, dtype),
            text(name_prefix, "name_prefix"),
            preamble,
            request["options"],
            request["arch"],
            request["include_dirs"],
            request["system_include_dirs"],
            request["compiler"],
            request["nvcc"],
            _compiler._cache_directory(None),
            _device_ordinals(devices),
        )


class InclusiveScanKernel(_ScanKernel):
    """``output[i] = input[0] (op) input[1] (op) ... (op) input[i]`` for the associative
    operation `scan_expr` of ``a`` and ``b`` on `dtype` elements (any registered type:
    numbers, ``gpuarray.vec`` types, structs declared in `preamble` and registered with
    ``tools.get_or_register_dtype``). `neutral` (optional here) is the C expression of the
    element that leaves any other unchanged. `name_prefix` names the kernel in profiles,
    `options` are the compiler's, `devices` (None: any) the devices it may run on."""

    def __init__(
        self,
        dtype: npt.DTypeLike,
        scan_expr: str,
        neutral: NeutralLike | None = None,
        name_prefix: str = "scan",
        options: Sequence[str] | None = None,
        preamble: str = "",
        devices: Iterable[Device] | None = None,
    ) -> None:
        super().__init__(True, dtype, scan_expr, neutral, name_prefix, options, preamble, devices)


class ExclusiveScanKernel(_ScanKernel):
    """``output[0] = neutral`` and ``output[i] = input[0] (op) ... (op) input[i-1]``;
    otherwise as InclusiveScanKernel, except that `neutral` is required."""

    def __init__(
        self,
        dtype: npt.DTypeLike,
        scan_expr: str,
        neutral: NeutralLike,
        name_prefix: str = "scan",
        options: Sequence[str] | None = None,
        preamble: str = "",
        devices: Iterable[Device] | None = None,
    ) -> None:
        if neutral is None:
            raise ValueError(
                "ExclusiveScanKernel needs neutral: the C expression of the element that leaves any "
                'other unchanged (its first output), such as "0" for a sum'
            )
        super().__init__(False, dtype, scan_expr, neutral, name_prefix, options, preamble, devices)
