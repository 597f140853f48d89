"""The host memory of an asynchronous copy lives until the copy is done, whatever the
program drops (PyOpenCL's "nanny event" semantics, on the CUDA side). Page-locked memory
from a PageLockedMemoryPool shows a missing hold: a block dropped while its copy waits goes
back to the pool, and the next allocation gets it and overwrites it."""

import gc
import weakref

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import tools
from gpukit.compiler import SourceModule

pytestmark = pytest.mark.gpu

N = 1 << 16
SPIN = """
extern "C" __global__ void spin(long long cycles)
{
    const long long start = clock64();
    while (clock64() - start < cycles) {}
}
"""


@pytest.fixture
def delayed(ctx):
    """(stream, pool, delay): delay() queues ~0.1 s of spinning on the stream, so that work
    queued after it is still waiting when the test drops its host memory."""
    spin = SourceModule(SPIN, no_extern_c=True).get_function("spin")
    stream = drv.Stream()
    pool = tools.PageLockedMemoryPool()

    def delay():
        spin(np.int64(200_000_000), block=(1, 1, 1), stream=stream)

    return stream, pool, delay


def test_a_dropped_source_of_memcpy_htod_async_is_copied_intact(delayed):
    stream, pool, delay = delayed
    device = drv.mem_alloc(4 * N)
    source = pool.allocate((N,), np.float32)
    source[:] = 1
    delay()
    drv.memcpy_htod_async(device, source, stream)
    del source
    reused = pool.allocate((N,), np.float32)  # without a hold, the same block
    reused[:] = 2
    stream.synchronize()
    np.testing.assert_array_equal(drv.from_device(device, (N,), np.float32), 1)
    del reused


def test_a_dropped_target_of_memcpy_dtoh_async_is_not_written_after_reuse(delayed):
    stream, pool, delay = delayed
    device = drv.to_device(np.full(N, 7, np.float32))
    target = pool.allocate((N,), np.float32)
    delay()
    drv.memcpy_dtoh_async(target, device, stream)
    del target
    reused = pool.allocate((N,), np.float32)
    reused[:] = 3
    stream.synchronize()
    np.testing.assert_array_equal(reused, 3)


def test_structured_copies_hold_their_host_memory(delayed):
    stream, pool, delay = delayed
    rows, width = 64, 1024
    device, pitch = drv.mem_alloc_pitch(width * 4, rows, 4)
    source = pool.allocate((rows, width), np.float32)
    source[:] = 5
    copy = drv.Memcpy2D()
    copy.set_src_host(source)
    copy.set_dst_device(device)
    copy.width_in_bytes = copy.src_pitch = width * 4
    copy.dst_pitch = pitch
    copy.height = rows
    delay()
    copy(stream)
    del copy, source
    reused = pool.allocate((rows, width), np.float32)
    reused[:] = 6
    stream.synchronize()
    result = np.empty((rows, pitch // 4), np.float32)
    drv.memcpy_dtoh(result, device)
    np.testing.assert_array_equal(result[:, :width], 5)


def test_gpuarray_set_async_holds_its_source(delayed):
    stream, pool, delay = delayed
    a = gpuarray.empty(N, np.float32, stream=stream)
    source = pool.allocate((N,), np.float32)
    source[:] = 4
    delay()
    a.set_async(source, stream=stream)
    del source
    reused = pool.allocate((N,), np.float32)
    reused[:] = 8
    stream.synchronize()
    np.testing.assert_array_equal(a.get(), 4)


def test_holds_are_let_go_once_the_copy_is_done(delayed):
    stream, pool, delay = delayed
    device = drv.mem_alloc(4 * N)
    source = drv.pagelocked_empty(N, np.float32)
    watch = weakref.ref(source)
    delay()
    drv.memcpy_htod_async(device, source, stream)
    del source
    gc.collect()
    assert watch() is not None  # held while the copy waits
    stream.synchronize()
    gc.collect()
    assert watch() is None


def test_pageable_memory_is_not_held(ctx):
    device = drv.mem_alloc(4 * N)
    source = np.ones(N, np.float32)
    watch = weakref.ref(source)
    drv.memcpy_htod_async(device, source)  # the driver has finished with pageable memory on return
    del source
    gc.collect()
    assert watch() is None
