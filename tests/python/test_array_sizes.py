"""Shapes and strides of new arrays (device, host, page-locked, managed, numba-style) are
checked as numpy checks them, before anything is allocated: sizes beyond 64 bits are a
ValueError ("array is too big") instead of wrapping to a small allocation, non-integer
extents a TypeError. No GPU is needed: the errors come before the driver is asked."""

import numpy as np
import pytest

import gpukit.cuda as gcuda
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray

ADDRESS = 1 << 40  # gpudata given as an address: nothing is allocated

NEW_ARRAYS = {
    "gpuarray.empty": lambda shape, dtype: gpuarray.empty(shape, dtype),
    "gpuarray.zeros": lambda shape, dtype: gpuarray.zeros(shape, dtype),
    "GPUArray": lambda shape, dtype: gpuarray.GPUArray(shape, dtype),
    "pagelocked_empty": lambda shape, dtype: drv.pagelocked_empty(shape, dtype),
    "aligned_empty": lambda shape, dtype: drv.aligned_empty(shape, dtype),
    "managed_empty": lambda shape, dtype: drv.managed_empty(shape, dtype),
    "cuda.device_array": lambda shape, dtype: gcuda.device_array(shape, dtype),
    "cuda.pinned_array": lambda shape, dtype: gcuda.pinned_array(shape, dtype),
    "cuda.mapped_array": lambda shape, dtype: gcuda.mapped_array(shape, dtype),
}


@pytest.mark.parametrize("make", NEW_ARRAYS.values(), ids=NEW_ARRAYS.keys())
@pytest.mark.parametrize(
    "shape, dtype",
    [
        ((2**32 + 1, 2**32), np.uint8),  # wrapped to 2**32 bytes
        ((2**40, 2**40), np.uint8),  # wrapped to 0
        ((2**62, 2), np.float32),  # elements fit, bytes do not
        ((0, 2**62, 2**62), np.uint8),  # numpy refuses it although it is empty
    ],
)
def test_sizes_beyond_64_bits_are_too_big(make, shape, dtype):
    with pytest.raises(ValueError, match="array is too big"):
        np.empty(shape, dtype)
    with pytest.raises(ValueError, match="array is too big"):
        make(shape, dtype)


@pytest.mark.parametrize("make", NEW_ARRAYS.values(), ids=NEW_ARRAYS.keys())
@pytest.mark.parametrize(
    "shape, error, match",
    [
        ((2.7, 3.9), TypeError, "expected an integer, got float"),
        ((None,), TypeError, "expected an integer, got NoneType"),
        ((True, 3), TypeError, "expected an integer, got bool"),
        ("ab", TypeError, "expected an integer or a sequence of integers"),
        ((-1, 3), ValueError, "negative dimensions are not allowed"),
        ((2**63,), ValueError, "maximum allowed dimension exceeded"),
        ((2**64, 0), ValueError, "maximum allowed dimension exceeded"),
    ],
)
def test_bad_extents_raise_as_numpy(make, shape, error, match):
    with pytest.raises(error):
        np.empty(shape, np.uint8)
    with pytest.raises(error, match=match):
        make(shape, np.uint8)


def test_numpy_integer_extents_are_accepted():
    a = gpuarray.GPUArray((np.int64(3), np.uint8(4)), np.float32, gpudata=ADDRESS)
    assert a.shape == (3, 4) and a.strides == (16, 4)
    assert gpuarray.GPUArray(np.int32(5), np.float32, gpudata=ADDRESS).shape == (5,)


class RecordingAllocator:
    """Records what a new array asks for; the 'memory' is an address nothing uses."""

    def __init__(self):
        self.requests = []

    def __call__(self, nbytes):
        self.requests.append(nbytes)
        return ADDRESS


def test_strided_arrays_allocate_up_to_their_last_element():
    # numba's device_array(shape, strides=...) leaves gaps: the memory must reach the last
    # element, not only size * itemsize bytes.
    allocator = RecordingAllocator()
    gpuarray.GPUArray((3, 2), np.float32, allocator=allocator, strides=(32, 4))
    assert allocator.requests == [2 * 32 + 2 * 4]


def test_strided_arrays_that_would_reach_before_their_memory_are_refused():
    with pytest.raises(ValueError, match="negative strides"):
        gpuarray.GPUArray((3, 2), np.float32, allocator=RecordingAllocator(), strides=(-8, 4))


@pytest.mark.parametrize(
    "strides, error",
    [
        ((2**62, 1), ValueError),  # the last element lies beyond 64-bit offsets
        ((2**64, 1), ValueError),  # a stride beyond 64 bits
        ((1.5, 1), TypeError),
    ],
)
def test_strides_are_checked(strides, error):
    with pytest.raises(error):
        gpuarray.GPUArray((3, 3), np.uint8, gpudata=ADDRESS, strides=strides)


def test_reshape_keeps_numpys_errors():
    a = gpuarray.GPUArray((4, 6), np.float32, gpudata=ADDRESS)
    with pytest.raises(TypeError):
        a.reshape(2.5, 3)
    with pytest.raises(ValueError, match="cannot reshape"):
        a.reshape(5, 5)
    with pytest.raises(ValueError, match="only one dimension may be -1"):
        a.reshape(-1, -1)
    assert a.reshape(np.int64(3), -1).shape == (3, 8)
    assert a.reshape((2, 12)).shape == a.reshape(2, 12).shape == (2, 12)


def test_transpose_and_squeeze_take_numpys_axes():
    a = gpuarray.GPUArray((1, 3, 1), np.float32, gpudata=ADDRESS)
    assert a.transpose(None).shape == a.transpose().shape == (1, 3, 1)
    assert a.transpose((2, 0, 1)).shape == (1, 1, 3)
    assert a.squeeze(np.int64(0)).shape == (3, 1)
    assert a.squeeze(()).shape == (1, 3, 1)  # no axes: nothing removed, as numpy
    assert a.squeeze().shape == (3,)
    with pytest.raises(ValueError, match="got 0 axes"):
        a.transpose(())
    with pytest.raises(ValueError, match="repeated"):
        a.squeeze((0, 0))
    with pytest.raises(IndexError):
        a.squeeze(2**70)
