"""Sides of the scan cases: an inclusive sum scan (cumsum) of float32 random numbers into a
second array of the same size, each library with its own API: gpukit's and PyCUDA's
InclusiveScanKernel(np.float32, "a+b")(x, y), CuPy's cp.cumsum(x, out=y).

Big: 2^26 elements, effective GB/s of the bytes a scan must move (every element read once
and written once), in batches between synchronizations as the array cases are timed,
against a raw cuMemcpyDtoD moving the same bytes. Small: 1000 elements, seconds per call,
timed as the small-array cases are (a library's host cost is what a program pays there).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

from gpukit.bench import arrays, small
from gpukit.bench.gpu import primary_context
from gpukit.bench.harness import cpp_baselines

if TYPE_CHECKING:
    from gpukit.bench.harness import Run, Settings
    from gpukit.bench.small import Upload

    #: (upload from numpy, the scan of x into y, synchronize, free what it holds), x and y
    #: arrays of the library.
    Library: TypeAlias = tuple[Upload, Callable[[Any, Any], object], Callable[[], object], Callable[[], object]]
    #: timing(operation, synchronize) -> samples.
    Timing: TypeAlias = Callable[[Callable[[], object], Callable[[], object]], list[float]]

BIG = 1 << 26
SMALL = small.SIZE


def moved_bytes(count: int) -> int:
    """What a scan of `count` float32 reads and writes."""
    return 2 * count * 4


@functools.lru_cache(maxsize=2)
def _host_data(count: int) -> npt.NDArray[np.float32]:
    return np.random.default_rng(2026).random(count, dtype=np.float32)


def raw_dtod(settings: Settings) -> list[float]:
    """A device-to-device copy of the input's bytes: it reads and writes them, so its
    effective rate counts each byte twice, as the scans' does."""
    import gpukit.driver as drv

    primary_context()
    nbytes = BIG * 4
    dst, src = drv.mem_alloc(nbytes), drv.mem_alloc(nbytes)
    try:
        _bench = cpp_baselines()
        return [2 * rate for rate in _bench.raw_dtod_rate(int(dst), int(src), nbytes, settings["repeats"])]
    finally:
        dst.free()
        src.free()


# ---- each library: (upload from numpy, the scan of x into y, synchronize, free what it holds)


def _gpukit() -> Library:
    lib, upload, synchronize = small.LIBRARIES["gpukit"]()
    from gpukit.scan import InclusiveScanKernel

    return upload, InclusiveScanKernel(np.float32, "a+b"), synchronize, lib.release_default_pools


def _cupy() -> Library:
    cp, upload, synchronize = small.LIBRARIES["cupy"]()
    return upload, lambda x, y: cp.cumsum(x, out=y), synchronize, cp.get_default_memory_pool().free_all_blocks


def _pycuda() -> Library:
    _, upload, synchronize = small.LIBRARIES["pycuda"]()  # Unavailable unless the real PyCUDA is installed
    from pycuda.scan import InclusiveScanKernel  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, untyped

    return upload, InclusiveScanKernel(np.float32, "a+b"), synchronize, lambda: None


LIBRARIES: dict[str, Callable[[], Library]] = {"gpukit": _gpukit, "cupy": _cupy, "pycuda": _pycuda}


def _measure(library: str, count: int, timing: Timing) -> list[float]:
    upload, scan, synchronize, release = LIBRARIES[library]()
    try:
        x, y = upload(_host_data(count)), upload(_host_data(count))
        samples = timing(functools.partial(scan, x, y), synchronize)
        del x, y
        return samples
    finally:
        release()


def big(library: str) -> Run:
    """The side timing the scan of 2^26 float32 with `library`: GB/s."""

    def run(settings: Settings) -> list[float]:
        return _measure(
            library,
            BIG,
            lambda operation, synchronize: arrays._rates(operation, synchronize, moved_bytes(BIG), settings),
        )

    return run


def small_side(library: str) -> Run:
    """The side timing the scan of 1000 float32 with `library`: seconds per call."""

    def run(settings: Settings) -> list[float]:
        return _measure(
            library, SMALL, lambda operation, synchronize: small._per_operation(operation, synchronize, settings)
        )

    return run
