"""Blocking copies of large pageable buffers go through pipelined page-locked staging;
checked on random data at sizes around the piece boundaries and at unaligned offsets."""

import threading

import numpy as np
import pytest

import gpukit.driver as drv

MiB = 1 << 20


@pytest.mark.gpu
@pytest.mark.parametrize("size", [1, 4095, 4097, MiB - 1, MiB, MiB + 1, 33 * MiB + 3])
@pytest.mark.parametrize("offset", [0, 3])
def test_pageable_round_trip(ctx, size, offset):
    rng = np.random.default_rng(size + offset)
    backing = rng.integers(0, 256, size + offset, dtype=np.uint8)
    src = backing[offset:]  # unaligned view into a numpy array
    dev = drv.mem_alloc(size)
    drv.memcpy_htod(dev, src)
    dst_backing = np.zeros(size + 5, dtype=np.uint8)
    dst = dst_backing[5:]
    drv.memcpy_dtoh(dst, dev)
    np.testing.assert_array_equal(dst, src)
    assert not dst_backing[:5].any()


@pytest.mark.gpu
def test_to_device_from_device_large(ctx):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((1531, 2049)).astype(np.float64)  # ~24 MiB, not a multiple of a piece
    dev = drv.to_device(a)
    np.testing.assert_array_equal(drv.from_device(dev, a.shape, a.dtype), a)
    np.testing.assert_array_equal(drv.from_device_like(dev, a), a)


@pytest.mark.gpu
def test_pagelocked_source_and_destination(ctx):
    src = drv.pagelocked_empty(9 * MiB + 1, np.uint8)
    src[:] = np.random.default_rng(3).integers(0, 256, src.size, dtype=np.uint8)
    dev = drv.to_device(src)
    dst = drv.pagelocked_zeros_like(src)
    drv.memcpy_dtoh(dst, dev)
    np.testing.assert_array_equal(dst, src)


@pytest.mark.gpu
def test_ordered_after_a_kernel_on_the_default_stream(ctx):
    # A memset on the legacy default stream must have landed before the staged copy reads.
    n = 8 * MiB + 4
    dev = drv.mem_alloc(n)
    drv.memset_d8_async(dev, 0x5A, n)
    out = np.empty(n, np.uint8)
    drv.memcpy_dtoh(out, dev)
    assert (out == 0x5A).all()


SLOW_FILL = """
extern "C" __global__ void slow_fill(unsigned int *out, unsigned int n, long long spin)
{
    const long long start = clock64();
    while (clock64() - start < spin) {}
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = i ^ 0x5A5A5A5Au;
}
"""


@pytest.mark.gpu
def test_ordered_after_work_on_other_blocking_streams(ctx):
    # As cuMemcpyDtoH/HtoD: a blocking copy waits for what other (blocking) streams still run
    # on the memory: a kernel filling it (read after write), a kernel reading it (write after
    # read). reikna computes on a stream of its own and then calls get().
    from gpukit.compiler import SourceModule

    fill = SourceModule(SLOW_FILL).get_function("slow_fill")
    n = 3 * MiB + 5
    dev = drv.mem_alloc(4 * n)
    stream = drv.Stream()
    fill(dev, np.uint32(n), np.int64(200_000_000), block=(256, 1, 1), grid=(64, 1), stream=stream)
    out = np.empty(n, np.uint32)
    drv.memcpy_dtoh(out, dev)
    np.testing.assert_array_equal(out, np.arange(n, dtype=np.uint32) ^ np.uint32(0x5A5A5A5A))
    # The kernel fills after its spin: a staged upload issued meanwhile must land after it.
    fill(dev, np.uint32(n), np.int64(200_000_000), block=(256, 1, 1), grid=(64, 1), stream=stream)
    upload = np.random.default_rng(3).integers(0, 2**32, n, dtype=np.uint32)
    drv.memcpy_htod(dev, upload)
    stream.synchronize()
    drv.memcpy_dtoh(out, dev)
    np.testing.assert_array_equal(out, upload)


@pytest.mark.gpu
def test_concurrent_threads_share_one_context(ctx):
    n = 12 * MiB + 9
    results = []

    def work(seed):
        ctx.push()
        try:
            a = np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)
            back = drv.from_device(drv.to_device(a), a.shape, a.dtype)
            results.append(np.array_equal(a, back))
        finally:
            drv.Context.pop()

    threads = [threading.Thread(target=work, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True, True, True]
