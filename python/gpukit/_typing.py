"""Types that gpukit's annotations share: what its functions take as a stream, as device
memory and as a host array's shape and order (the C++ bindings check these at run time)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, SupportsIndex

from gpukit._gpukit import Stream


class SupportsCudaStream(Protocol):
    """A CUDA stream of another library (CUDA Python's stream protocol): ``__cuda_stream__()``
    gives (version, handle)."""

    def __cuda_stream__(self) -> tuple[int, int]: ...


class SupportsCudaArrayInterface(Protocol):
    """Device memory of another library, described by ``__cuda_array_interface__``."""

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...


class SupportsGetPointer(Protocol):
    """Device memory allocated outside gpukit (PointerHolderBase): ``get_pointer()`` gives its address."""

    def get_pointer(self) -> SupportsIndex: ...


class SupportsNbytes(Protocol):
    """Anything with a size in bytes (numpy arrays, GPUArrays)."""

    @property
    def nbytes(self) -> int: ...


#: What the driver's calls take as a stream: a gpukit.driver.Stream or another library's.
StreamLike = Stream | SupportsCudaStream

#: What the driver's copies take as device memory: an allocation or an integer address
#: (anything with __index__), an object with get_pointer() (PointerHolderBase) or one
#: exporting __cuda_array_interface__.
DevicePointer = SupportsIndex | SupportsGetPointer | SupportsCudaArrayInterface

#: A shape as the host allocations take it: an int or a sequence of ints (numpy's too).
HostShape = SupportsIndex | Sequence[SupportsIndex]

#: The layouts numpy gives a new array: C (row-major) or Fortran (column-major) order.
Order = Literal["C", "F"]
