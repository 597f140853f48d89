"""Reading other libraries' device arrays: __cuda_array_interface__ (version 2 or 3), else
a CUDA __dlpack__ export."""

from __future__ import annotations

import os
from typing import Any

# __cuda_array_interface__ "stream" values that gpukit's default-stream work is ordered
# after anyway: the legacy (1) and per-thread (2) default streams.
_DEFAULT_STREAMS = (1, 2)


def array_interface(obj: object) -> tuple[dict[str, Any], object]:
    """(interface dict, owner) for an object exporting __cuda_array_interface__ or
    __dlpack__; the owner (the object, or the imported DLPack tensor) is kept alive by
    whatever views its memory."""
    interface: dict[str, Any] | None = getattr(obj, "__cuda_array_interface__", None)
    if interface is None:
        if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
            from gpukit import _dlpack

            return _dlpack.interface(obj)
        raise TypeError(f"{type(obj).__name__} exports neither __cuda_array_interface__ nor __dlpack__")
    if interface.get("mask") is not None:
        raise TypeError("masked arrays (__cuda_array_interface__ 'mask') are not supported")
    _wait_for_producer(interface.get("stream"))
    return interface, obj


def _wait_for_producer(stream: object) -> None:
    """The interface's rule (version 3): a consumer waits for the producer's stream before
    using the data. Like numba and CuPy, gpukit synchronizes with it, unless
    GPUKIT_CUDA_ARRAY_INTERFACE_SYNC=0 (the user orders the streams)."""
    if stream is None:
        return
    if not isinstance(stream, int) or isinstance(stream, bool) or stream <= 0:
        raise ValueError(f"__cuda_array_interface__ 'stream' must be None or a positive integer, got {stream!r}")
    if stream in _DEFAULT_STREAMS or os.environ.get("GPUKIT_CUDA_ARRAY_INTERFACE_SYNC") == "0":
        return
    from gpukit import _gpukit

    _gpukit._synchronize_stream_handle(stream)
