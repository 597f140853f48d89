"""Sides of the pool cases: allocate + free pairs of 1 MiB that hit a bin."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from gpukit.bench.gpu import cupy, primary_context
from gpukit.bench.harness import cpp_baselines

if TYPE_CHECKING:
    from gpukit.bench.harness import Baselines, Run, Settings

SIZE = 1 << 20


def _pairs(settings: Settings) -> int:
    return 20000 if settings["quick"] else 200000


def _bench() -> Baselines:
    primary_context()
    _bench = cpp_baselines()
    return _bench


def raw_alloc_free(settings: Settings) -> list[float]:
    # The driver's own allocation is slow (tens of µs): fewer pairs keep the case short.
    return _bench().raw_alloc_pair_seconds(SIZE, max(_pairs(settings) // 100, 100), settings["repeats"])


def raw_async_alloc_free(settings: Settings) -> list[float]:
    return _bench().raw_async_alloc_pair_seconds(SIZE, _pairs(settings) // 10, settings["repeats"])


def gpukit_cpp_pool(threads: int) -> Run:
    def run(settings: Settings) -> list[float]:
        return _bench().device_pool_pair_seconds(SIZE, _pairs(settings), settings["repeats"], threads)

    return run


def _time_python_loop(allocate: Callable[[int], object], settings: Settings) -> list[float]:
    n = _pairs(settings) // 4
    for _ in range(n // 10):  # warm-up: the block is in the pool afterwards
        allocate(SIZE)
    samples = []
    for _ in range(settings["repeats"]):
        start = time.perf_counter()
        for _ in range(n):
            allocate(SIZE)  # the result is dropped at once, which frees it
        samples.append((time.perf_counter() - start) / n)
    return samples


def cupy_pool(settings: Settings) -> list[float]:
    primary_context()
    cp = cupy()
    return _time_python_loop(cp.cuda.alloc, settings)


def gpukit_python_pool(settings: Settings) -> list[float]:
    primary_context()
    from gpukit import tools

    pool = tools.DeviceMemoryPool()
    return _time_python_loop(pool.allocate, settings)
