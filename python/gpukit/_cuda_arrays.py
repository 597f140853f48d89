"""numpy and device arrays to CUDA arrays: matrix_to_array, np_to_array, gpuarray_to_array,
make_multichannel_2d_array, and dtype_to_array_format.

CUDA arrays have no float64 or complex formats, so those element types travel as integer
channels of the same size (float64 as two int32, complex128 as four int32); the fp_tex*
helpers of <gpukit/helpers.cuh> put the halves back together in a kernel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gpukit._dtype_table import look_up_dtype
from gpukit._gpukit import Array, ArrayDescriptor, ArrayDescriptor3D, Memcpy2D, Memcpy3D, array3d_flags, array_format

if TYPE_CHECKING:
    import numpy.typing as npt

    from gpukit._typing import Order, SupportsCudaArrayInterface

# dtype -> (array_format, channels per element)
_FORMATS: dict[np.dtype[Any], tuple[array_format, int]] = {
    np.dtype(np.uint8): (array_format.UNSIGNED_INT8, 1),
    np.dtype(np.int8): (array_format.SIGNED_INT8, 1),
    np.dtype(np.uint16): (array_format.UNSIGNED_INT16, 1),
    np.dtype(np.int16): (array_format.SIGNED_INT16, 1),
    np.dtype(np.uint32): (array_format.UNSIGNED_INT32, 1),
    np.dtype(np.int32): (array_format.SIGNED_INT32, 1),
    np.dtype(np.float16): (array_format.HALF, 1),
    np.dtype(np.float32): (array_format.FLOAT, 1),
    np.dtype(np.complex64): (array_format.FLOAT, 2),
    np.dtype(np.float64): (array_format.SIGNED_INT32, 2),
    np.dtype(np.complex128): (array_format.SIGNED_INT32, 4),
}


def _format_and_channels(dtype: npt.DTypeLike) -> tuple[array_format, int]:
    """(array_format, channels) that hold one element of `dtype`; ValueError for other dtypes."""
    return look_up_dtype(_FORMATS, dtype, lambda d: f"no CUDA array format holds {d} elements")


def dtype_to_array_format(dtype: npt.DTypeLike) -> array_format:
    """The array_format of a one-channel element type (PyCUDA's); TypeError for other dtypes,
    including float64 and complex, which np_to_array stores as several channels."""
    dtype = np.dtype(dtype)
    entry = _FORMATS.get(dtype)
    if entry is None or entry[1] != 1:
        supported = ", ".join(str(d) for d, (_, n) in _FORMATS.items() if n == 1)
        raise TypeError(f"cannot convert dtype {dtype} to an array format; one-channel formats exist for {supported}")
    return entry[0]


def _check_order(order: str) -> None:
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', not {order!r}")


def _packed(array: npt.NDArray[Any], order: Order) -> npt.NDArray[np.uint8]:
    """The array's bytes in `order`, as a 1-D contiguous view (copied only when needed)."""
    return np.require(array, requirements=order).reshape(-1, order=order).view(np.uint8)


def _fill(
    ary: Array, source: npt.NDArray[Any] | int, row_bytes: int, height: int, depth: int, on_device: bool = False
) -> None:
    """Copy rows of `row_bytes` from `source` (host buffer, or device address when
    `on_device`) into the CUDA array `ary`."""
    copy: Memcpy2D | Memcpy3D
    if depth:
        copy = Memcpy3D()
        copy.depth = depth
    else:
        copy = Memcpy2D()
    if on_device:
        copy.set_src_device(source)
    else:
        copy.set_src_host(source)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = row_bytes
    copy.height = height
    if isinstance(copy, Memcpy3D):  # depth
        copy.src_height = height
    copy()


def _make(width: int, height: int, depth: int, fmt: array_format, channels: int, flags: int) -> Array:
    d: ArrayDescriptor | ArrayDescriptor3D
    if depth:
        d = ArrayDescriptor3D()
        d.depth = depth
        d.flags = flags
    elif flags:
        d = ArrayDescriptor3D()
        d.flags = flags
    else:
        d = ArrayDescriptor()
    d.width, d.height, d.format, d.num_channels = width, height, fmt, channels
    return Array(d)


def np_to_array(nparray: npt.ArrayLike, order: Order, allowSurfaceBind: bool = False) -> Array:
    """A 2-D or 3-D numpy array as a CUDA Array. With order 'C', tex2D(x, y) reads a[y, x]
    and tex3D(x, y, z) reads a[z, y, x]; with 'F' the indices are the other way round.
    allowSurfaceBind=True makes the array usable by a SurfaceObject as well."""
    _check_order(order)
    nparray = np.asarray(nparray)
    if nparray.ndim not in (2, 3):
        raise ValueError(f"np_to_array needs a 2-D or 3-D array, not {nparray.ndim}-D")
    ary, width, height, depth = _array_for(nparray.shape, nparray.dtype, order, allowSurfaceBind)
    _fill(ary, _packed(nparray, order), width * nparray.itemsize, height, depth)
    return ary


def _array_for(
    shape: tuple[int, ...], dtype: np.dtype[Any], order: Order, surface: bool
) -> tuple[Array, int, int, int]:
    """An uninitialised CUDA Array for data of `shape` in `order` (see np_to_array), and its
    width, height and depth (0 for 2-D)."""
    fmt, channels = _format_and_channels(dtype)
    extents = shape if order == "F" else shape[::-1]  # (width, height[, depth])
    width, height = extents[0], extents[1]
    depth = extents[2] if len(shape) == 3 else 0
    flags = array3d_flags.SURFACE_LDST if surface else 0
    return _make(width, height, depth, fmt, channels, flags), width, height, depth


def _compact_strides(shape: tuple[int, ...], itemsize: int, order: str) -> tuple[int, ...]:
    """The byte strides of a contiguous array of `shape` in `order`."""
    strides: list[int] = []
    step = itemsize
    for extent in shape[::-1] if order == "C" else shape:
        strides.append(step)
        step *= extent
    return tuple(strides[::-1]) if order == "C" else tuple(strides)


def gpuarray_to_array(gpuarray: SupportsCudaArrayInterface, order: Order, allowSurfaceBind: bool = False) -> Array:
    """A 2-D or 3-D device array (a GPUArray, or anything with __cuda_array_interface__) as
    a CUDA Array, copied on the device; the same layout rules as np_to_array. The data must
    be contiguous in `order` (C-contiguous for 'C', Fortran-contiguous for 'F')."""
    _check_order(order)
    interface = gpuarray.__cuda_array_interface__
    shape, dtype = tuple(interface["shape"]), np.dtype(interface["typestr"])
    if len(shape) not in (2, 3):
        raise ValueError(f"gpuarray_to_array needs a 2-D or 3-D array, not {len(shape)}-D")
    # No strides in the interface means C-contiguous; extents of 1 may have any stride.
    strides = tuple(interface.get("strides") or _compact_strides(shape, dtype.itemsize, "C"))
    wanted = _compact_strides(shape, dtype.itemsize, order)
    if any(extent > 1 and have != want for extent, have, want in zip(shape, strides, wanted)):
        kind = "C" if order == "C" else "Fortran"
        raise ValueError(
            f"gpuarray_to_array(order={order!r}) needs a {kind}-contiguous array; this one has "
            f"strides {strides} for shape {shape}: copy it into a contiguous one first"
        )
    ary, width, height, depth = _array_for(shape, dtype, order, allowSurfaceBind)
    _fill(ary, interface["data"][0], width * dtype.itemsize, height, depth, on_device=True)
    return ary


def matrix_to_array(matrix: npt.ArrayLike, order: Order = "C", allow_double_hack: bool = False) -> Array:
    """A 2-D numpy array as a CUDA Array; with order 'C', tex2D(x, y) reads matrix[y, x].
    float64 needs allow_double_hack=True (it is stored as two int32 channels)."""
    matrix = np.asarray(matrix)
    if matrix.ndim != 2:
        raise ValueError(f"matrix_to_array needs a 2-D array, not {matrix.ndim}-D; see np_to_array for 3-D")
    if matrix.dtype == np.float64 and not allow_double_hack:
        raise ValueError(
            "float64 has no CUDA array format; pass allow_double_hack=True to store it as two "
            "int32 channels (read with fp_tex2D from <gpukit/helpers.cuh>)"
        )
    return np_to_array(matrix, order)


def make_multichannel_2d_array(matrix: npt.ArrayLike, order: Order) -> Array:
    """A 3-D numpy array as a 2-D Array of 1, 2 or 4 channels: shape (height, width, channels)
    for order 'C', (channels, width, height) for order 'F'."""
    _check_order(order)
    matrix = np.asarray(matrix)
    if matrix.ndim != 3:
        raise ValueError(f"make_multichannel_2d_array needs a 3-D array, not {matrix.ndim}-D")
    if order == "C":
        height, width, channels = matrix.shape
    else:
        channels, width, height = matrix.shape
    if channels not in (1, 2, 4):
        raise ValueError(f"{channels} channels: a CUDA array holds 1, 2 or 4 channels per element")
    fmt, per_element = _format_and_channels(matrix.dtype)
    if per_element != 1:
        raise ValueError(
            f"{matrix.dtype} elements take {per_element} channels each; multichannel arrays need "
            "single-channel element types"
        )
    ary = _make(width, height, 0, fmt, channels, 0)
    _fill(ary, _packed(matrix, order), width * channels * matrix.itemsize, height, 0)
    return ary
