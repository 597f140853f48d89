"""Sides of the cases of gpuarray's module functions: where, if_positive, take (a gather) and
concatenate, each on big arrays (2^26 float32: effective GB/s, the bytes read and written per
second, against a raw cuMemcpyDtoD moving as many bytes) and on small ones (1000 float32:
seconds per call, the host's cost), with gpukit, CuPy and PyCUDA when they are installed.

Each library does the operation its natural way: CuPy has no if_positive, so its side is
``cupy.where(c > 0, x, y)``; the criterion of where is float32 everywhere (tested for
non-zero). take's indices are int32 random positions over the whole source.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpukit.bench import arrays, small
from gpukit.bench.harness import Unavailable

if TYPE_CHECKING:
    from types import ModuleType

    from gpukit.bench.harness import Run, Settings

BIG = 1 << 26

# name: (what a program writes, bytes read and written per element of the result).
FUNCTIONS = {
    "where": ("where(c, x, y)", 16),
    "if_positive": ("if_positive(c, x, y)", 16),
    "take": ("take(x, indices)", 12),
    "concatenate": ("concatenate((x[:n/2], y[n/2:]))", 8),
}


def _operation(name: str, kind: str, lib: ModuleType, c: Any, x: Any, y: Any, indices: Any) -> Callable[[], object]:
    """The call of function `name` with the library `lib` of kind "gpukit", "pycuda" (both
    PyCUDA's API) or "cupy"; the halves of concatenate are views made outside the timing."""
    half = x.shape[0] // 2
    if name == "where":
        return functools.partial(lib.where, c, x, y)
    if name == "if_positive":
        return (
            functools.partial(lib.where, c > 0, x, y) if kind == "cupy" else functools.partial(lib.if_positive, c, x, y)
        )
    if name == "take":
        return functools.partial(lib.take, x, indices)
    return functools.partial(lib.concatenate, (x[:half], y[half:]))


@functools.lru_cache(maxsize=2)
def _host_operands(
    count: int,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.int32]]:
    rng = np.random.default_rng(2026)
    criterion = rng.standard_normal(count).astype(np.float32)  # half positive, none zero
    x, y = rng.random(count, dtype=np.float32), rng.random(count, dtype=np.float32)
    indices = rng.integers(0, count, count, dtype=np.int32)
    return criterion, x, y, indices


def raw_dtod(name: str) -> Run:
    """A device-to-device copy of half the bytes the big operation moves: it reads and writes
    them, so its effective rate counts each byte twice."""
    return lambda settings: arrays.copy_rates(FUNCTIONS[name][1] * BIG, settings)


def _release(kind: str) -> None:
    """Frees the memory the library's pool holds, so the next side finds the device's memory free."""
    if kind == "gpukit":
        import gpukit.gpuarray as gpuarray

        gpuarray.release_default_pools()
    elif kind == "cupy":
        import cupy as cp  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, and has no type information

        cp.get_default_memory_pool().free_all_blocks()


def big(name: str, kind: str) -> Run:
    """Bytes read and written per second by function `name` of library `kind` on BIG elements."""

    def run(settings: Settings) -> list[float]:
        lib, upload, synchronize = small.LIBRARIES[kind]()
        operands: list[Any] | None  # arrays of the library, dropped (None) before its pool is freed
        operation: Callable[[], object] | None
        try:
            operands = [upload(a) for a in _host_operands(BIG)]
            try:
                operation = _operation(name, kind, lib, *operands)
                operation()  # a library without the function raises here, before any timing
            except Exception as e:  # noqa: BLE001  (PyCUDA's take needs texture references, gone in CUDA 12)
                if kind == "gpukit":
                    raise
                raise Unavailable(f"{type(e).__name__}: {e}") from e
            return arrays._rates(operation, synchronize, FUNCTIONS[name][1] * BIG, settings)
        finally:
            operands = operation = None
            _release(kind)

    return run


def small_calls(name: str, kind: str) -> Run:
    """Seconds per call of function `name` of library `kind` on small.SIZE elements."""

    def run(settings: Settings) -> list[float]:
        lib, upload, synchronize = small.LIBRARIES[kind]()
        operands = [upload(a) for a in _host_operands(small.SIZE)]
        operation = _operation(name, kind, lib, *operands)
        try:
            operation()
        except Exception as e:  # noqa: BLE001  (as in big())
            if kind == "gpukit":
                raise
            raise Unavailable(f"{type(e).__name__}: {e}") from e
        return small._per_operation(operation, synchronize, settings)

    return run
