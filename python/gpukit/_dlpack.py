"""DLPack exchange: GPUArray.__dlpack__ / __dlpack_device__, and reading another library's
CUDA tensors through their __dlpack__. The capsules themselves are made and consumed by
nanobind's ndarray (python/bindings/common/bind_dlpack.cpp), DLPack 1.0 (versioned) when the consumer
asks for it; this module maps dtypes, devices, streams and the copy request."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gpukit import _gpukit

if TYPE_CHECKING:
    from gpukit.gpuarray import GPUArray

CPU, CUDA, CUDA_HOST, CUDA_MANAGED = 1, 2, 3, 13
_DEVICE_NAMES = {CPU: "the CPU", CUDA_HOST: "CUDA page-locked host memory"}
# DLPack type codes by numpy kind.
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_KINDS = {code: kind for kind, code in _CODES.items()}
# Consumer stream values with a fixed meaning (None, 1 and 2 are the legacy and per-thread
# default streams, which are ordered with gpukit's default-stream work; -1: do not wait).
_ORDERED_STREAMS = (None, 1, 2, -1)


def device_of(array: GPUArray) -> tuple[int, int]:
    """(CUDA, ordinal of the current context's device): gpukit allocates in the current context."""
    return CUDA, int(_gpukit.Context.get_device())


def export(
    array: GPUArray,
    stream: int | None = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
) -> object:
    """A capsule over `array` (a GPUArray), which it keeps alive: 'dltensor_versioned'
    (DLPack 1.0) when `max_version` is (1, 0) or later, else the unversioned 'dltensor'.
    `copy=True` exports a C-contiguous copy, `copy=False` or None the array itself."""
    if max_version is not None and not (
        isinstance(max_version, tuple) and len(max_version) == 2 and all(isinstance(v, int) for v in max_version)
    ):
        raise TypeError(f"__dlpack__: max_version must be None or a (major, minor) tuple, got {max_version!r}")
    if dl_device is not None and tuple(dl_device) != device_of(array):
        raise BufferError(f"__dlpack__: the array is on {device_of(array)}, cannot export to {tuple(dl_device)}")
    if copy:  # a C-contiguous copy (GPUArray.copy() keeps the order of the axes)
        copied = array._empty_like(order="C")
        copied._assign_elements(array)
        array = copied
    kind = array.dtype.kind
    if kind not in _CODES or array.dtype.names is not None:
        raise BufferError(f"__dlpack__: dtype {array.dtype} has no DLPack type")
    itemsize = array.dtype.itemsize
    if any(s % itemsize for s in array.strides):
        raise BufferError(f"__dlpack__: strides {array.strides} are not multiples of the itemsize {itemsize}")
    _wait_for(array, stream)
    # A nanobind ndarray (the stub says object), whose __dlpack__ makes the capsule.
    tensor: Any = _gpukit._dlpack_export(
        array.ptr if array.size else 0,
        list(array.shape),
        [s // itemsize for s in array.strides],
        _CODES[kind],
        itemsize * 8,
        *device_of(array),
        array,
    )
    return tensor.__dlpack__(max_version=max_version)


def _wait_for(array: GPUArray, stream: int | None) -> None:
    """Make the consumer's `stream` see the array's finished contents (the DLPack rule: the
    producer orders its work before the consumer's stream)."""
    if stream == -1:
        return
    if isinstance(array.stream, _gpukit.Stream):
        array.stream.synchronize()
    elif array.stream is not None:
        # A stream of another library (__cuda_stream__), which need not have synchronize().
        event = _gpukit.Event()
        event.record(array.stream)
        event.synchronize()
    elif stream not in _ORDERED_STREAMS:
        # A stream of the consumer's own may be non-blocking, unordered with the default stream.
        _gpukit.Context.synchronize()


def interface(obj: Any) -> tuple[dict[str, Any], object]:
    """(__cuda_array_interface__-style dict, owner) of the CUDA tensor that `obj.__dlpack__`
    exports (any DLPack producer, called as its own version of the protocol allows); the
    owner releases the tensor when the last view of it goes."""
    device_type, _ = obj.__dlpack_device__()
    if device_type not in (CUDA, CUDA_MANAGED):
        where = _DEVICE_NAMES.get(device_type, f"DLPack device type {device_type}")
        raise TypeError(
            f"{type(obj).__name__} is on {where}; gpukit arrays need CUDA device memory (copy it to the GPU first)"
        )
    try:
        # We use the memory on the legacy default stream (1), as gpukit's arrays do.
        capsule = obj.__dlpack__(stream=1, max_version=(1, 0))
    except TypeError:  # producers older than DLPack 1.0 take no max_version
        capsule = obj.__dlpack__(stream=1)
    address, shape, strides, (code, bits, lanes), _, owner = _gpukit._dlpack_import(capsule)
    if lanes != 1 or code not in _KINDS or (code == 6 and bits != 8):
        raise TypeError(f"DLPack type (code {code}, {bits} bits, {lanes} lanes) has no numpy dtype in gpukit")
    dtype = np.dtype(f"{_KINDS[code]}{bits // 8}") if code != 6 else np.dtype(bool)
    byte_strides = tuple(s * dtype.itemsize for s in strides)
    return {
        "shape": tuple(shape),
        "typestr": dtype.str,
        "data": (address, False),
        "strides": byte_strides,
        "version": 3,
    }, owner
