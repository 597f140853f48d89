"""Sides of the random_uniform cases: uniform float32 random numbers, 2^26 of them (bytes
written per second) and 1000 (seconds per call), from gpukit's rand (Philox, a new array per
call), a gpukit XORWOW generator filling an existing array, CuPy's default generator
(cupy.random.random_sample, a new array per call) and PyCUDA's XORWOW fill_uniform.

The big case times batches of operations between synchronizations as the array cases do
(arrays._rates), the small one as the small-array cases do (small._per_operation); the
generators are made before the timing (their states are made once)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from gpukit.bench import arrays, small
from gpukit.bench.gpu import primary_context

if TYPE_CHECKING:
    from gpukit.bench.harness import Run, Settings

BIG = 1 << 26
SMALL = small.SIZE


def _measure(
    n: int, operation: Callable[[], object], synchronize: Callable[[], object], settings: Settings
) -> list[float]:
    if n == BIG:
        return arrays._rates(operation, synchronize, 4 * n, settings)
    return small._per_operation(operation, synchronize, settings)


def gpukit_rand(n: int) -> Run:
    def run(settings: Settings) -> list[float]:
        primary_context()
        import gpukit.curandom as curandom
        import gpukit.driver as drv
        import gpukit.gpuarray as gpuarray

        try:
            return _measure(n, functools.partial(curandom.rand, (n,)), drv.Context.synchronize, settings)
        finally:
            gpuarray.release_default_pools()

    return run


def gpukit_xorwow(n: int) -> Run:
    def run(settings: Settings) -> list[float]:
        primary_context()
        import gpukit.curandom as curandom
        import gpukit.driver as drv
        import gpukit.gpuarray as gpuarray

        generator = curandom.XORWOWRandomNumberGenerator()
        data = gpuarray.empty(n, np.float32)
        try:
            return _measure(n, functools.partial(generator.fill_uniform, data), drv.Context.synchronize, settings)
        finally:
            del data
            gpuarray.release_default_pools()

    return run


def cupy_random(n: int) -> Run:
    def run(settings: Settings) -> list[float]:
        cp, _, synchronize = small._cupy()
        try:
            return _measure(n, functools.partial(cp.random.random_sample, (n,), cp.float32), synchronize, settings)
        finally:
            cp.get_default_memory_pool().free_all_blocks()

    return run


def pycuda_xorwow(n: int) -> Run:
    def run(settings: Settings) -> list[float]:
        pycuda_gpuarray, _, synchronize = small._pycuda()
        import pycuda.curandom  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, and has no type information

        generator = pycuda.curandom.XORWOWRandomNumberGenerator()
        data = pycuda_gpuarray.empty(n, np.float32)
        return _measure(n, functools.partial(generator.fill_uniform, data), synchronize, settings)

    return run


def sides(n: int) -> list[tuple[str, Run]]:
    """(side name, run) of both cases, for n elements."""
    return [
        ("gpukit curandom.rand (Philox)", gpukit_rand(n)),
        ("gpukit XORWOW fill_uniform", gpukit_xorwow(n)),
        ("CuPy cupy.random.random_sample", cupy_random(n)),
        ("PyCUDA XORWOW fill_uniform", pycuda_xorwow(n)),
    ]
