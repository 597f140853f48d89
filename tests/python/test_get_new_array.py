"""Copies from the device into a new host array (GPUArray.get(), driver.from_device,
gpukit.cuda's copy_to_host) made by prefaulted_empty: the right values, shape, dtype and
order on both sides of its threshold, for odd and empty shapes; given, page-locked and
asynchronous targets behave as before."""

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import _gpukit

pytestmark = pytest.mark.gpu

MiB = 1 << 20
THRESHOLD = _gpukit._prefaulted_min_bytes


def pattern(shape, dtype, order="C", seed=0):
    """Values that differ between neighbours and repeat only every 251 elements (a prime), so
    a wrong index, stride or offset shows."""
    n = int(np.prod(shape, dtype=np.int64))
    values = ((np.arange(n, dtype=np.int64) * 7 + seed) % 251).astype(dtype)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * values[::-1]
    return np.asarray(values.reshape(shape), order=order)


def expect_new_array(result, reference, order):
    np.testing.assert_array_equal(result, reference)
    assert result.dtype == reference.dtype and result.flags.writeable
    assert result.flags.c_contiguous if order == "C" else result.flags.f_contiguous
    if result.nbytes >= THRESHOLD:
        assert isinstance(result.base, drv.PrefaultedHostMemory)
    else:
        assert result.base is None


@pytest.mark.parametrize(
    "shape, dtype",
    [
        ((THRESHOLD + 3,), np.int8),  # just over the threshold, not a whole page
        ((4099, 2053), np.float32),  # odd extents, 33.7 MB
        ((3, 1031, 2063), np.complex64),  # 51 MB
        ((THRESHOLD // 8 - 1,), np.float64),  # just under: numpy.empty
        ((37, 5), np.int16),
        ((1,), np.uint64),
    ],
)
@pytest.mark.parametrize("order", ["C", "F"])
def test_get_into_a_new_array(pool_ctx, shape, dtype, order):
    host = pattern(shape, dtype, order, seed=len(shape))
    a = gpuarray.to_gpu(host)
    expect_new_array(a.get(), host, order)


@pytest.mark.parametrize("shape", [(0,), (0, 5), (5, 0)])
def test_get_empty_arrays(pool_ctx, shape):
    a = gpuarray.zeros(shape, np.float32)
    result = a.get()
    assert result.shape == shape and result.dtype == np.float32 and result.base is None


def test_get_of_a_strided_array(pool_ctx):
    host = pattern((2 * (THRESHOLD // 4) + 10,), np.int32, seed=3)
    expect_new_array(gpuarray.to_gpu(host)[1::2].get(), host[1::2], "C")


def test_get_async_into_a_new_array(pool_ctx):
    host = pattern((THRESHOLD // 4 + 17,), np.float32, seed=5)
    stream = drv.Stream()
    result = gpuarray.to_gpu(host).get_async(stream=stream)
    stream.synchronize()
    expect_new_array(result, host, "C")


def test_given_and_pagelocked_targets_are_unaffected(pool_ctx):
    host = pattern((THRESHOLD // 4 + 5,), np.float32, seed=9)
    a = gpuarray.to_gpu(host)
    target = np.zeros_like(host)
    assert a.get(ary=target) is target
    np.testing.assert_array_equal(target, host)
    pinned = a.get(pagelocked=True)
    assert isinstance(pinned.base, drv.PagelockedHostAllocation)
    np.testing.assert_array_equal(pinned, host)
    stream = drv.Stream()
    pinned_target = drv.pagelocked_empty(host.shape, host.dtype)
    assert a.get(ary=pinned_target, async_=True, stream=stream) is pinned_target
    stream.synchronize()
    np.testing.assert_array_equal(pinned_target, host)


@pytest.mark.parametrize("order", ["C", "F"])
def test_from_device_into_a_new_array(ctx, order):
    host = pattern((2051, 4099), np.float64, order, seed=11)  # 67 MB
    dev = drv.to_device(host)  # the bytes in memory order
    expect_new_array(drv.from_device(dev, host.shape, host.dtype, order=order), host, order)
    expect_new_array(drv.from_device_like(dev, host), host, order)


def test_cuda_copy_to_host_into_a_new_array(pool_ctx):
    from gpukit import cuda

    host = pattern((1025, 8193), np.float32, "F", seed=13)  # 33.6 MB
    expect_new_array(cuda.to_device(host).copy_to_host(), host, "F")


def test_repeated_gets_return_their_memory(pool_ctx):
    def rss_bytes():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096

    a = gpuarray.to_gpu(pattern((64 * MiB,), np.uint8, seed=1))
    a.get()
    before = rss_bytes()
    for _ in range(20):
        assert a.get()[12345] == (12345 * 7 + 1) % 251
    assert rss_bytes() < before + 16 * MiB
