"""PyOpenCL's Python-level image helpers: create_image, and image_from_array, which makes an
image of a numpy array's pixels (the array's last axis as channels, or a cltypes vector
dtype's components; numpy's (rows, columns) as the image's (height, width))."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np

from gpukit._gpukit import cl as _cl

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from gpukit.cl._host_views import HostBuffer

# The channel type of each element dtype, plain and normalised (norm_int=True: integers read
# as floats in [0, 1] or [-1, 1]).
_CHANNEL_TYPES: dict[np.dtype[Any], str] = {
    np.dtype(np.float32): "FLOAT",
    np.dtype(np.float16): "HALF_FLOAT",
    np.dtype(np.int8): "SIGNED_INT8",
    np.dtype(np.uint8): "UNSIGNED_INT8",
    np.dtype(np.int16): "SIGNED_INT16",
    np.dtype(np.uint16): "UNSIGNED_INT16",
    np.dtype(np.int32): "SIGNED_INT32",
    np.dtype(np.uint32): "UNSIGNED_INT32",
}
_NORMALISED_CHANNEL_TYPES: dict[np.dtype[Any], str] = {
    np.dtype(np.int8): "SNORM_INT8",
    np.dtype(np.uint8): "UNORM_INT8",
    np.dtype(np.int16): "SNORM_INT16",
    np.dtype(np.uint16): "UNORM_INT16",
}
_ORDERS = {1: "R", 2: "RG", 3: "RGB", 4: "RGBA"}


def create_image(
    context: _cl.Context,
    flags: int,
    format: _cl.ImageFormat,
    shape: Sequence[SupportsIndex] | None = None,
    pitches: Sequence[SupportsIndex] | None = None,
    hostbuf: HostBuffer | None = None,
    is_array: bool = False,  # noqa: A002
    buffer: _cl.Buffer | None = None,
) -> _cl.Image:
    """An Image (PyOpenCL's preferred spelling of the Image constructor, with its arguments)."""
    return _cl.Image(context, flags, format, shape, pitches, hostbuf, is_array, buffer)


def image_from_array(
    ctx: _cl.Context, ary: ArrayLike, num_channels: int | None = None, mode: str = "r", norm_int: bool = False
) -> _cl.Image:
    """A read-only (mode "r") or write-only ("w") Image holding a copy of the C-contiguous
    array `ary`: with `num_channels` of 2 to 4, its last axis holds the channels; without, a
    cltypes vector dtype's components are the channels, else there is one. The image's
    (width, height[, depth]) is the remaining axes reversed."""
    from gpukit.cl import channel_order, channel_type, cltypes, mem_flags

    ary = np.asarray(ary)
    if not ary.flags.c_contiguous:
        raise ValueError("image_from_array: the array must be C-contiguous")
    dtype, shape, strides = ary.dtype, ary.shape, ary.strides
    if num_channels is None:
        dtype, num_channels = cltypes.vec_type_to_scalar_and_count.get(dtype, (dtype, 1))
    elif num_channels != 1:
        if not shape or shape[-1] != num_channels:
            raise ValueError(
                f"image_from_array: the last axis has {shape[-1] if shape else 0} entries; with "
                f"num_channels={num_channels} it must hold the channels"
            )
        shape, strides = shape[:-1], strides[:-1]
    if num_channels not in _ORDERS:
        raise ValueError(f"image_from_array: {num_channels} channels; images have 1 to 4")
    if mode not in ("r", "w"):
        raise ValueError(f"image_from_array: mode must be 'r' or 'w', got {mode!r}")
    types = _NORMALISED_CHANNEL_TYPES if norm_int else _CHANNEL_TYPES
    if dtype not in types:
        kinds = ", ".join(str(d) for d in types)
        raise TypeError(
            f"image_from_array: no {'normalised ' if norm_int else ''}channel type holds {dtype}; "
            f"expected one of {kinds}"
        )
    if not 1 <= len(shape) <= 3:
        raise ValueError(f"image_from_array: the image would have {len(shape)} axes; expected 1 to 3")
    flags = (mem_flags.READ_ONLY if mode == "r" else mem_flags.WRITE_ONLY) | mem_flags.COPY_HOST_PTR
    image_format = _cl.ImageFormat(getattr(channel_order, _ORDERS[num_channels]), getattr(channel_type, types[dtype]))
    return create_image(ctx, flags, image_format, shape=shape[::-1], pitches=strides[::-1][1:] or None, hostbuf=ary)
