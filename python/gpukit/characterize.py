"""What the current CUDA device can do, and the sizes of C types on it (PyCUDA's
``pycuda.characterize``)."""

from __future__ import annotations

import struct

import numpy as np

from gpukit._array.builder_arguments import text
from gpukit.compiler import SourceModule
from gpukit.driver import Context, memcpy_dtoh


def platform_bits() -> int:
    """The number of bits in a host pointer (64 on every platform CUDA 12 and 13 support)."""
    return struct.calcsize("P") * 8


def has_double_support() -> bool:
    """Whether the current context's device has double precision arithmetic (compute
    capability 1.3 or later: every device CUDA 12 and 13 run on)."""
    return Context.get_device().compute_capability() >= (1, 3)


def has_stack() -> bool:
    """Whether the current context's device has a call stack (compute capability 2.0 or
    later: every device CUDA 12 and 13 run on)."""
    return Context.get_device().compute_capability() >= (2, 0)


# (type name, preamble, compute capability) -> bytes. Keyed by the device's compute
# capability rather than by context, so the cache keeps no context alive.
_sizes: dict[tuple[str, str, tuple[int, int]], int] = {}


def sizeof(type_name: str, preamble: str = "") -> int:
    """``sizeof(type_name)`` as the current context's device sees it, with `preamble` (C++
    code declaring the type, say) compiled first. Compiles once per type, preamble and kind
    of device; raises CompileError when the type does not compile."""
    key = (
        text(type_name, "sizeof(type_name)"),
        text(preamble, "sizeof(preamble)"),
        Context.get_device().compute_capability(),
    )
    if key not in _sizes:
        # A __device__ variable initialised with the size, read back without a launch.
        source = f"{preamble}\n__device__ unsigned long long gpukit_sizeof_result = sizeof({type_name});\n"
        module = SourceModule(source, no_extern_c=True)
        address, _ = module.get_global("gpukit_sizeof_result")
        result = np.empty(1, np.uint64)
        memcpy_dtoh(result, address)
        _sizes[key] = int(result[0])
    return _sizes[key]
