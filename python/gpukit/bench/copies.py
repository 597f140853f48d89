"""Sides of the copy cases: bytes per second of one blocking copy, page-locked or pageable
host memory, or device to device. Every side copies the same buffers in the primary
context; the raw sides call the driver from C++ on those very buffers. The get() sides
copy an array of their own, each into a new host array or into one made beforehand."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import numpy.typing as npt

from gpukit.bench.gpu import cupy, primary_context, synchronize
from gpukit.bench.harness import cpp_baselines, seconds_per_call

if TYPE_CHECKING:
    from gpukit.bench.harness import Run, Settings
    from gpukit.driver import Context, DeviceAllocation
    from gpukit.gpuarray import GPUArray

GiB = 1 << 30


def _host(nbytes: int, pinned: bool) -> npt.NDArray[np.uint8]:
    import gpukit.driver as drv

    host = drv.pagelocked_empty(nbytes, np.uint8) if pinned else np.empty(nbytes, np.uint8)
    host[:] = 1  # touch every page, so no side pays for first-touch faults
    return host


def _rates(copy: Callable[[], object], wait: Callable[[], object], nbytes: int, settings: Settings) -> list[float]:
    copy()  # warm-up
    wait()
    return [nbytes / seconds for seconds in seconds_per_call(copy, 1, settings, wait)]


class _Buffers:
    """One host buffer and one device buffer per (size, pinned), shared by all sides of a case."""

    cache: ClassVar[dict[tuple[int, bool], tuple[npt.NDArray[np.uint8], DeviceAllocation]]] = {}

    @classmethod
    def get(cls, nbytes: int, pinned: bool) -> tuple[npt.NDArray[np.uint8], DeviceAllocation]:
        primary_context()
        key = (nbytes, pinned)
        if key not in cls.cache:
            import gpukit.driver as drv

            cls.cache.clear()  # keep at most one set of large buffers alive
            cls.cache[key] = (_host(nbytes, pinned), drv.mem_alloc(nbytes))
        return cls.cache[key]


def htod_raw(nbytes: int, pinned: bool) -> Run:
    def run(settings: Settings) -> list[float]:
        host, dev = _Buffers.get(nbytes, pinned)
        _bench = cpp_baselines()
        return _bench.raw_htod_rate(int(dev), host.ctypes.data, nbytes, settings["repeats"])

    return run


def dtoh_raw(nbytes: int, pinned: bool) -> Run:
    def run(settings: Settings) -> list[float]:
        host, dev = _Buffers.get(nbytes, pinned)
        _bench = cpp_baselines()
        return _bench.raw_dtoh_rate(host.ctypes.data, int(dev), nbytes, settings["repeats"])

    return run


def htod_gpukit(nbytes: int, pinned: bool) -> Run:
    def run(settings: Settings) -> list[float]:
        import gpukit.driver as drv

        host, dev = _Buffers.get(nbytes, pinned)
        return _rates(lambda: drv.memcpy_htod(dev, host), drv.Context.synchronize, nbytes, settings)

    return run


def dtoh_gpukit(nbytes: int, pinned: bool) -> Run:
    def run(settings: Settings) -> list[float]:
        import gpukit.driver as drv

        host, dev = _Buffers.get(nbytes, pinned)
        return _rates(lambda: drv.memcpy_dtoh(host, dev), drv.Context.synchronize, nbytes, settings)

    return run


def htod_cupy(nbytes: int, pinned: bool) -> Run:
    def run(settings: Settings) -> list[float]:
        host, _ = _Buffers.get(nbytes, pinned)
        cp = cupy()
        return _rates(lambda: cp.asarray(host), cp.cuda.Device().synchronize, nbytes, settings)

    return run


def dtoh_cupy(nbytes: int, pinned: bool) -> Run:
    def run(settings: Settings) -> list[float]:
        host, _ = _Buffers.get(nbytes, pinned)
        cp = cupy()
        dev = cp.ones(nbytes, cp.uint8)
        return _rates(lambda: dev.get(out=host), cp.cuda.Device().synchronize, nbytes, settings)

    return run


def _device_pair(nbytes: int) -> tuple[DeviceAllocation, DeviceAllocation]:
    import gpukit.driver as drv

    primary_context()
    return drv.mem_alloc(nbytes), drv.mem_alloc(nbytes)


def dtod_raw(nbytes: int) -> Run:
    def run(settings: Settings) -> list[float]:
        dst, src = _device_pair(nbytes)
        _bench = cpp_baselines()
        return _bench.raw_dtod_rate(int(dst), int(src), nbytes, settings["repeats"])

    return run


def dtod_gpukit(nbytes: int) -> Run:
    def run(settings: Settings) -> list[float]:
        import gpukit.driver as drv

        dst, src = _device_pair(nbytes)
        return _rates(lambda: drv.memcpy_dtod(dst, src, nbytes), drv.Context.synchronize, nbytes, settings)

    return run


def dtod_cupy(nbytes: int) -> Run:
    def run(settings: Settings) -> list[float]:
        cp = cupy()
        src = cp.ones(nbytes, cp.uint8)
        dst = cp.empty_like(src)
        return _rates(lambda: cp.copyto(dst, src), cp.cuda.Device().synchronize, nbytes, settings)

    return run


# ---- peer copies: device 0 to device 1 (to device 0 again on a machine of one GPU)

PEER_BYTES = 1 << 30


@functools.lru_cache(maxsize=1)
def _peer_buffers(nbytes: int) -> tuple[DeviceAllocation, Context, DeviceAllocation, Context]:
    """(dst, dst context, src, src context): src in device 0's primary context, dst in device
    1's (device 0's on one GPU), peer access on both ways where the devices allow it, as a
    program that copies between GPUs sets it up."""
    import gpukit.driver as drv

    source = primary_context()
    target = drv.Device(1).retain_primary_context() if drv.Device.count() > 1 else source
    if target is not source and drv.Device(0).can_access_peer(drv.Device(1)):
        for this, peer in ((source, target), (target, source)):
            try:
                this.enable_peer_access(peer)
            except drv.Error as error:  # enabled already, by an earlier run in this process
                if "ALREADY_ENABLED" not in str(error).upper():
                    raise
    src = drv.mem_alloc(nbytes)
    target.push()
    try:
        dst = drv.mem_alloc(nbytes)
    finally:
        drv.Context.pop()
    return dst, target, src, source


def peer_raw(nbytes: int) -> Run:
    def run(settings: Settings) -> list[float]:
        dst, target, src, source = _peer_buffers(nbytes)
        return cpp_baselines().raw_peer_rate(
            int(dst), target.handle, int(src), source.handle, nbytes, settings["repeats"]
        )

    return run


def peer_gpukit(nbytes: int) -> Run:
    def run(settings: Settings) -> list[float]:
        import gpukit.driver as drv

        dst, target, src, source = _peer_buffers(nbytes)
        return _rates(
            lambda: drv.memcpy_peer(dst, src, nbytes, dest_context=target, src_context=source),
            lambda: synchronize(source, target),
            nbytes,
            settings,
        )

    return run


def peer_cupy(nbytes: int) -> Run:
    def run(settings: Settings) -> list[float]:
        cp = cupy()
        dst, target, src, source = _peer_buffers(nbytes)
        dst_device = 1 if target is not source else 0
        return _rates(
            lambda: cp.cuda.runtime.memcpyPeer(int(dst), dst_device, int(src), 0, nbytes),
            lambda: synchronize(source, target),
            nbytes,
            settings,
        )

    return run


# ---- a GPUArray's get() into a new numpy array, whose pages the copy touches first

GET_BYTES = 256 << 20


def _gpukit_get_rates(copy: Callable[[GPUArray], object], settings: Settings) -> list[float]:
    """Rates of copy(x) for x a GPUArray of GET_BYTES of float32 (zeros: the content does not
    change a copy), which is freed afterwards, its pool too."""
    import gpukit.driver as drv
    import gpukit.gpuarray as gpuarray

    primary_context()
    try:
        x = gpuarray.zeros(GET_BYTES // 4, np.float32)
        result = _rates(functools.partial(copy, x), drv.Context.synchronize, GET_BYTES, settings)
        del x
        return result
    finally:
        gpuarray.release_default_pools()


def get_into_existing_gpukit(settings: Settings) -> list[float]:
    import gpukit.driver as drv

    existing = _host(GET_BYTES, pinned=False).view(np.float32)
    return _gpukit_get_rates(lambda x: drv.memcpy_dtoh(existing, x.gpudata), settings)


def get_fresh_gpukit(settings: Settings) -> list[float]:
    return _gpukit_get_rates(lambda x: x.get(), settings)


def get_fresh_gpukit_first_touch(settings: Settings) -> list[float]:
    """get() with no freed memory kept for reuse: every page of every new array is fresh
    from the kernel, as for the first get() of a program."""
    import gpukit.driver as drv

    old = drv.set_prefaulted_reuse_limit(0)
    try:
        return _gpukit_get_rates(lambda x: x.get(), settings)
    finally:
        drv.set_prefaulted_reuse_limit(old)


def get_fresh_cupy(settings: Settings) -> list[float]:
    primary_context()
    cp = cupy()
    try:
        x = cp.zeros(GET_BYTES // 4, cp.float32)
        result = _rates(x.get, cp.cuda.Device().synchronize, GET_BYTES, settings)
        del x
        return result
    finally:
        cp.get_default_memory_pool().free_all_blocks()
