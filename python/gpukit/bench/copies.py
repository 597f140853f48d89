"""Sides of the copy cases: bytes per second of one blocking copy, page-locked or pageable
host memory, or device to device. Every side copies the same buffers in the primary
context; the raw sides call the driver from C++ on those very buffers."""
import time

import numpy as np

from gpukit.bench.gpu import primary_context
from gpukit.bench.harness import Unavailable

GiB = 1 << 30


def _host(nbytes, pinned):
    import gpukit.driver as drv
    host = drv.pagelocked_empty(nbytes, np.uint8) if pinned else np.empty(nbytes, np.uint8)
    host[:] = 1  # touch every page, so no side pays for first-touch faults
    return host


def _rates(copy, synchronize, nbytes, settings):
    copy()  # warm-up
    synchronize()
    samples = []
    for _ in range(settings["repeats"]):
        start = time.perf_counter()
        copy()
        synchronize()
        samples.append(nbytes / (time.perf_counter() - start))
    return samples


def _cupy():
    try:
        import cupy as cp
    except ImportError:
        raise Unavailable("CuPy is not installed")
    return cp


class _Buffers:
    """One host buffer and one device buffer per (size, pinned), shared by all sides of a case."""
    cache = {}

    @classmethod
    def get(cls, nbytes, pinned):
        primary_context()
        key = (nbytes, pinned)
        if key not in cls.cache:
            import gpukit.driver as drv
            cls.cache.clear()  # keep at most one set of large buffers alive
            cls.cache[key] = (_host(nbytes, pinned), drv.mem_alloc(nbytes))
        return cls.cache[key]


def htod_raw(nbytes, pinned):
    def run(settings):
        host, dev = _Buffers.get(nbytes, pinned)
        from gpukit._gpukit import _bench
        return _bench.raw_htod_rate(int(dev), host.ctypes.data, nbytes, settings["repeats"])
    return run


def dtoh_raw(nbytes, pinned):
    def run(settings):
        host, dev = _Buffers.get(nbytes, pinned)
        from gpukit._gpukit import _bench
        return _bench.raw_dtoh_rate(host.ctypes.data, int(dev), nbytes, settings["repeats"])
    return run


def htod_gpukit(nbytes, pinned):
    def run(settings):
        import gpukit.driver as drv
        host, dev = _Buffers.get(nbytes, pinned)
        return _rates(lambda: drv.memcpy_htod(dev, host), drv.Context.synchronize, nbytes, settings)
    return run


def dtoh_gpukit(nbytes, pinned):
    def run(settings):
        import gpukit.driver as drv
        host, dev = _Buffers.get(nbytes, pinned)
        return _rates(lambda: drv.memcpy_dtoh(host, dev), drv.Context.synchronize, nbytes, settings)
    return run


def htod_cupy(nbytes, pinned):
    def run(settings):
        host, _ = _Buffers.get(nbytes, pinned)
        cp = _cupy()
        return _rates(lambda: cp.asarray(host), cp.cuda.Device().synchronize, nbytes, settings)
    return run


def dtoh_cupy(nbytes, pinned):
    def run(settings):
        host, _ = _Buffers.get(nbytes, pinned)
        cp = _cupy()
        dev = cp.ones(nbytes, cp.uint8)
        return _rates(lambda: dev.get(out=host), cp.cuda.Device().synchronize, nbytes, settings)
    return run


def _device_pair(nbytes):
    import gpukit.driver as drv
    primary_context()
    return drv.mem_alloc(nbytes), drv.mem_alloc(nbytes)


def dtod_raw(nbytes):
    def run(settings):
        dst, src = _device_pair(nbytes)
        from gpukit._gpukit import _bench
        return _bench.raw_dtod_rate(int(dst), int(src), nbytes, settings["repeats"])
    return run


def dtod_gpukit(nbytes):
    def run(settings):
        import gpukit.driver as drv
        dst, src = _device_pair(nbytes)
        return _rates(lambda: drv.memcpy_dtod(dst, src, nbytes), drv.Context.synchronize, nbytes, settings)
    return run


def dtod_cupy(nbytes):
    def run(settings):
        cp = _cupy()
        src = cp.ones(nbytes, cp.uint8)
        dst = cp.empty_like(src)
        return _rates(lambda: cp.copyto(dst, src), cp.cuda.Device().synchronize, nbytes, settings)
    return run


# ---- device to a new host array (allocation, copy and freeing of the array, as a program
# calling get() in a loop pays for them)

def _device_bytes(nbytes):
    import gpukit.gpuarray as gpuarray
    primary_context()
    a = gpuarray.GPUArray((nbytes,), np.uint8)
    a.fill(1)
    return a


def get_new_gpukit(nbytes):
    def run(settings):
        import gpukit.driver as drv
        a = _device_bytes(nbytes)
        return _rates(a.get, drv.Context.synchronize, nbytes, settings)
    return run


def get_new_numpy_empty(nbytes):
    """numpy.empty + memcpy_dtoh: what get() did before prefaulted_empty."""
    def run(settings):
        import gpukit.driver as drv
        a = _device_bytes(nbytes)
        return _rates(lambda: drv.memcpy_dtoh(np.empty(nbytes, np.uint8), a), drv.Context.synchronize,
                      nbytes, settings)
    return run


def get_new_cupy(nbytes):
    def run(settings):
        cp = _cupy()
        dev = cp.ones(nbytes, cp.uint8)
        return _rates(dev.get, cp.cuda.Device().synchronize, nbytes, settings)
    return run
