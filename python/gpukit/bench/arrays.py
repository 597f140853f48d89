"""Sides of the array cases: effective bandwidth (bytes read + bytes written per second)
of elementwise expressions and reductions over 2^28 float32 random numbers, and of a
broadcast add whose result has as many elements.

Every side runs a batch of operations between two synchronizations, so the host's
synchronize and timer cost is spread over the batch as it is in a real program; the
library's own per-operation cost (allocating the result, launching) is measured. The
reference side is a raw cuMemcpyDtoD moving the same number of bytes, the most a
memory-bound kernel can hope for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

from gpukit.bench.gpu import cupy, primary_context, require_device
from gpukit.bench.harness import cpp_baselines, seconds_per_call

if TYPE_CHECKING:
    from gpukit.bench.harness import Run, Settings
    from gpukit.gpuarray import GPUArray

#: Two operands made on the host, uploaded by each side.
Operands: TypeAlias = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]
#: body(x, y, synchronize) -> samples, x and y arrays of the side's library (a GPUArray or a
#: CuPy ndarray: Any, as CuPy has no type information).
Body: TypeAlias = Callable[[Any, Any, Callable[[], object]], list[float]]

COUNT = 1 << 28  # float32 elements per operand: 1 GiB each
OPERATIONS_PER_SAMPLE = 10


@functools.lru_cache(maxsize=1)
def _host_data() -> Operands:
    """Two random operands, made once for all sides and cases (random, so no library can
    profit from compressible or constant data)."""
    rng = np.random.default_rng(12345)
    return rng.random(COUNT, dtype=np.float32), rng.random(COUNT, dtype=np.float32)


A, B = np.float32(1.5), np.float32(0.5)  # the scalars of a * x + b, as a program holds them

# What each expression reads and writes, in operands of COUNT float32 elements.
EXPRESSIONS: dict[str, tuple[Callable[[Any, Any], object], int, int]] = {
    "2x": (lambda x, y: 2 * x, 1, 1),
    "add": (lambda x, y: x + y, 2, 1),
    "axpb": (lambda x, y: A * x + B, 1, 1),
}
REDUCTIONS = {"sum": 1, "min": 1, "max": 1, "dot": 2}  # operands read

# a + b with a of shape (BROADCAST_ROWS, 1) and b of shape (1, BROADCAST_COLUMNS): COUNT elements.
BROADCAST_ROWS = 1 << 14
BROADCAST_COLUMNS = COUNT // BROADCAST_ROWS
BROADCAST_BYTES = (BROADCAST_ROWS + BROADCAST_COLUMNS + COUNT) * 4  # both operands read, the result written


def moved_bytes(reads: int, writes: int) -> int:
    return (reads + writes) * COUNT * 4


def _rates(
    operation: Callable[[], object], synchronize: Callable[[], object], nbytes: int, settings: Settings
) -> list[float]:
    operation()  # warm-up: compiles and caches kernels, fills the memory pool
    synchronize()
    return [nbytes / seconds for seconds in seconds_per_call(operation, OPERATIONS_PER_SAMPLE, settings, synchronize)]


def copy_rates(moved: int, settings: Settings) -> list[float]:
    """The copy bandwidth for an operation that moves `moved` bytes: cuMemcpyDtoD of half of
    them, which reads and writes each, so its effective rate counts each byte twice."""
    import gpukit.driver as drv

    baselines = cpp_baselines()
    primary_context()
    half = moved // 2
    dst, src = drv.mem_alloc(half), drv.mem_alloc(half)
    try:
        return [2 * rate for rate in baselines.raw_dtod_rate(int(dst), int(src), half, settings["repeats"])]
    finally:
        dst.free()
        src.free()


def raw_dtod(reads: int, writes: int) -> Run:
    """The copy bandwidth for the bytes the expression moves (copy_rates)."""
    return lambda settings: copy_rates(moved_bytes(reads, writes), settings)


@functools.lru_cache(maxsize=1)
def _broadcast_host_data() -> Operands:
    rng = np.random.default_rng(54321)
    return (rng.random((BROADCAST_ROWS, 1), dtype=np.float32), rng.random((1, BROADCAST_COLUMNS), dtype=np.float32))


def _gpukit_run(body: Body, host_data: Callable[[], Operands]) -> list[float]:
    """Runs body(x, y, synchronize) with the operands host_data() makes uploaded as GPUArrays,
    then frees the pool, so the next side finds the device memory free. The device is checked
    first: without one, the side is skipped before gigabytes of operands are made."""
    import gpukit.driver as drv
    import gpukit.gpuarray as gpuarray

    primary_context()
    host_x, host_y = host_data()
    try:
        x, y = gpuarray.to_gpu(host_x), gpuarray.to_gpu(host_y)
        result = body(x, y, drv.Context.synchronize)
        del x, y
        return result
    finally:
        gpuarray.release_default_pools()


def _cupy_run(body: Body, host_data: Callable[[], Operands]) -> list[float]:
    require_device()
    cp = cupy()
    host_x, host_y = host_data()
    x, y = cp.asarray(host_x), cp.asarray(host_y)
    try:
        return body(x, y, cp.cuda.Device().synchronize)
    finally:
        del x, y
        cp.get_default_memory_pool().free_all_blocks()


def elementwise(library: str, name: str) -> Run:
    expression, reads, writes = EXPRESSIONS[name]
    runner = {"gpukit": _gpukit_run, "cupy": _cupy_run}[library]

    def run(settings: Settings) -> list[float]:
        return runner(
            lambda x, y, sync: _rates(lambda: expression(x, y), sync, moved_bytes(reads, writes), settings), _host_data
        )

    return run


def broadcast_add(library: str) -> Run:
    """a + b with a of shape (BROADCAST_ROWS, 1) and b of shape (1, BROADCAST_COLUMNS)."""
    runner = {"gpukit": _gpukit_run, "cupy": _cupy_run}[library]

    def run(settings: Settings) -> list[float]:
        return runner(lambda a, b, sync: _rates(lambda: a + b, sync, BROADCAST_BYTES, settings), _broadcast_host_data)

    return run


def reduction(library: str, op: str) -> Run:
    reads = REDUCTIONS[op]

    def gpukit_operation(x: GPUArray, y: GPUArray) -> Callable[[], object]:
        import gpukit.gpuarray as gpuarray

        return (lambda: gpuarray.dot(x, y)) if op == "dot" else (lambda: getattr(gpuarray, op)(x))

    def cupy_operation(x: Any, y: Any) -> Callable[[], object]:
        cp = cupy()
        return (lambda: cp.dot(x, y)) if op == "dot" else (lambda: getattr(cp, op)(x))

    runner, operation = {"gpukit": (_gpukit_run, gpukit_operation), "cupy": (_cupy_run, cupy_operation)}[library]

    def run(settings: Settings) -> list[float]:
        return runner(lambda x, y, sync: _rates(operation(x, y), sync, moved_bytes(reads, 0), settings), _host_data)

    return run
