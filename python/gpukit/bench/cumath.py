"""Sides of the cumath cases: sin and exp of float32 arrays with gpukit.cumath, CuPy and
PyCUDA's pycuda.cumath.

Big: BIG_COUNT random numbers, effective bandwidth (bytes read + written per second) in
batches of operations between synchronizations (as gpukit.bench.arrays measures), against a
raw cuMemcpyDtoD moving the same bytes. Small: small.SIZE numbers, seconds per call (as
gpukit.bench.small measures).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpukit.bench import arrays, small

if TYPE_CHECKING:
    from gpukit.bench.harness import Run, Settings
    from gpukit.bench.small import Upload

FUNCTIONS = ("sin", "exp")
BIG_COUNT = 1 << 26
BIG_BYTES = 2 * BIG_COUNT * 4  # each element read and written once


@functools.lru_cache(maxsize=1)
def _big_host_data() -> npt.NDArray[np.float32]:
    return np.random.default_rng(2026).random(BIG_COUNT, dtype=np.float32)


def _function(
    library: str, name: str
) -> tuple[Callable[[Any], object], Upload, Callable[[], object], Callable[[], object]]:
    """The library's cumath function and the upload and synchronize of its arrays."""
    if library == "cupy":
        cp, upload, synchronize = small.LIBRARIES["cupy"]()
        return getattr(cp, name), upload, synchronize, cp.get_default_memory_pool().free_all_blocks
    if library == "pycuda":
        _, upload, synchronize = small.LIBRARIES["pycuda"]()  # Unavailable unless PyCUDA is installed
        import pycuda.cumath  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, and has no type information

        return getattr(pycuda.cumath, name), upload, synchronize, lambda: None
    import gpukit.cumath

    gpuarray, upload, synchronize = small.LIBRARIES["gpukit"]()
    return getattr(gpukit.cumath, name), upload, synchronize, gpuarray.release_default_pools


def raw_dtod(settings: Settings) -> list[float]:
    """The copy bandwidth for BIG_BYTES (arrays.copy_rates)."""
    return arrays.copy_rates(BIG_BYTES, settings)


def big_side(library: str, name: str) -> Run:
    def run(settings: Settings) -> list[float]:
        function, upload, synchronize, release = _function(library, name)
        x = upload(_big_host_data())
        try:
            return arrays._rates(lambda: function(x), synchronize, BIG_BYTES, settings)
        finally:
            x = None  # the big array goes before the side's memory is released
            release()

    return run


def small_side(library: str, name: str) -> Run:
    def run(settings: Settings) -> list[float]:
        function, upload, synchronize, _ = _function(library, name)
        x = upload(small._host_operands()[0])
        return small._per_operation(functools.partial(function, x), synchronize, settings)

    return run
