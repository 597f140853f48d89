"""Sides of the small-array cases: seconds per operation on arrays of 1000 float32, where a
library's host cost (Python, dispatch, the result's allocation, the launch) is what a
program pays; the kernels themselves take a few microseconds.

Every side times batches of BATCH operations, each batch ended by a synchronization (timed:
a program waits for its results too), after one warm-up batch that compiles and caches the
kernels and fills the memory pool. Operands are made once, outside the timing; results are
dropped as soon as they are made, as a program drops its temporaries; reductions are queued,
never read back.
"""

from __future__ import annotations

import concurrent.futures
import functools
import importlib
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

from gpukit.bench.gpu import cupy, primary_context
from gpukit.bench.harness import Unavailable, cpp_baselines, seconds_per_call

if TYPE_CHECKING:
    from types import ModuleType

    from gpukit.bench.harness import Run, Settings
    from gpukit.elementwise import ElementwiseKernel

    #: Upload from numpy to an array of a library: a GPUArray, CuPy's or PyCUDA's (Any: those
    #: libraries have no type information).
    Upload: TypeAlias = Callable[[npt.NDArray[Any]], Any]
    #: (array module, upload from numpy, synchronize) of a library.
    Library: TypeAlias = tuple[ModuleType, Upload, Callable[[], object]]

SIZE = 1000
BATCH = 200
KERNELS_VARIABLE = "GPUKIT_BENCH_KERNELS"

# Case name suffix: (the operation as a program writes it, the operation on arrays x and y
# of the library whose array module is `lib`: gpukit.gpuarray, cupy or pycuda.gpuarray,
# each of which has sum and dot).
OPERATIONS: dict[str, tuple[str, Callable[[ModuleType, Any, Any], object]]] = {
    "add": ("x + y", lambda lib, x, y: x + y),
    "axpy": ("2*x + y", lambda lib, x, y: 2 * x + y),
    "scale": ("x * 3", lambda lib, x, y: x * 3),
    "neg": ("-x", lambda lib, x, y: -x),
    "less": ("x < y", lambda lib, x, y: x < y),
    "abs": ("abs(x)", lambda lib, x, y: abs(x)),
    "astype": ("x.astype(np.float64)", lambda lib, x, y: x.astype(np.float64)),
    "sum": ("gpuarray.sum(x) (queued, not read back)", lambda lib, x, y: lib.sum(x)),
    "dot": ("gpuarray.dot(x, y) (queued, not read back)", lambda lib, x, y: lib.dot(x, y)),
    "slice": ("x[::2] (a view)", lambda lib, x, y: x[::2]),
    "reshape": ("x.reshape(10, 100) (a view)", lambda lib, x, y: x.reshape(10, 100)),
    "copy": ("x.copy()", lambda lib, x, y: x.copy()),
}


@functools.lru_cache(maxsize=1)
def _host_operands() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    rng = np.random.default_rng(20261)
    return rng.random(SIZE, dtype=np.float32), rng.random(SIZE, dtype=np.float32)


def _batches(settings: Settings) -> int:
    return 1 if settings["quick"] else 5


def _per_operation(
    operation: Callable[[], object], synchronize: Callable[[], object], settings: Settings
) -> list[float]:
    """Seconds per operation, one sample per repeat of _batches(settings) batches."""

    def batch() -> None:
        for _ in range(BATCH):
            operation()
        synchronize()

    batch()  # warm-up
    return [seconds / BATCH for seconds in seconds_per_call(batch, _batches(settings), settings)]


# ---- the libraries: each gives (array module, upload from numpy, synchronize)


def _gpukit() -> Library:
    primary_context()
    import gpukit.driver as drv
    import gpukit.gpuarray as gpuarray

    return gpuarray, gpuarray.to_gpu, drv.Context.synchronize


def _cupy() -> Library:
    primary_context()
    cp = cupy()
    return cp, cp.asarray, cp.cuda.Device().synchronize


def _pycuda() -> Library:
    primary_context()
    try:
        # PyCUDA keeps a context stack of its own, which must hold the (primary) context
        # before PyCUDA allocates or compiles in it: importing autoprimaryctx pushes it.
        importlib.import_module("pycuda.autoprimaryctx")
        import pycuda.driver as pycuda_driver  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, untyped
        import pycuda.gpuarray as pycuda_gpuarray  # type: ignore[import-not-found, import-untyped, unused-ignore]  # as above
    except ImportError:
        raise Unavailable("PyCUDA is not installed")
    if pycuda_gpuarray.__name__ != "pycuda.gpuarray":
        raise Unavailable("pycuda is gpukit here (gpukit.pycuda_compat is active)")
    return pycuda_gpuarray, pycuda_gpuarray.to_gpu, pycuda_driver.Context.synchronize


LIBRARIES: dict[str, Callable[[], Library]] = {"gpukit": _gpukit, "cupy": _cupy, "pycuda": _pycuda}


def operation_side(library: str, name: str) -> Run:
    """The side timing OPERATIONS[name] with `library` ("gpukit", "cupy" or "pycuda")."""
    _, operation = OPERATIONS[name]

    def run(settings: Settings) -> list[float]:
        lib, upload, synchronize = LIBRARIES[library]()
        host_x, host_y = _host_operands()
        x, y = upload(host_x), upload(host_y)
        # partial rather than a lambda: the call adds less to what is timed.
        return _per_operation(functools.partial(operation, lib, x, y), synchronize, settings)

    return run


def cpp_side(name: str) -> Run:
    """The side timing OPERATIONS[name] with gpukit::array::device_array from C++."""

    def run(settings: Settings) -> list[float]:
        primary_context()
        _bench = cpp_baselines()
        return _bench.device_array_seconds(name, SIZE, BATCH, _batches(settings), settings["repeats"])

    return run


def raw_add_floor(settings: Settings) -> list[float]:
    """The same batches of a precompiled add kernel launched by cuLaunchKernel from C++."""
    primary_context()
    _bench = cpp_baselines()
    return _bench.raw_add_launch_seconds(SIZE, BATCH, _batches(settings), settings["repeats"])


# ---- x + y with many kernels in the context's cache


def kernel_count() -> int:
    """How many distinct ElementwiseKernels small_add_1000_kernels makes: GPUKIT_BENCH_KERNELS,
    default 1000."""
    text = os.environ.get(KERNELS_VARIABLE, "1000")
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError(f"{KERNELS_VARIABLE} must be a positive integer, got {text!r}")
    return count


@functools.lru_cache(maxsize=None)
def _cached_kernels(count: int) -> list[ElementwiseKernel]:
    """`count` distinct ElementwiseKernels (z[i] = x[i] + k for k = 0, 1, ...), each compiled,
    loaded and run once in the primary context; kept alive for the rest of the process.
    They compile on worker threads (NVRTC runs without the GIL), so a cold disk cache costs
    the compile time divided by the CPU count."""
    import gpukit.driver as drv
    import gpukit.gpuarray as gpuarray
    from gpukit.elementwise import ElementwiseKernel

    ctx = primary_context()
    kernels = [
        ElementwiseKernel("float *z, const float *x", f"z[i] = x[i] + {k}.0f", f"bench_add_{k}") for k in range(count)
    ]
    x = gpuarray.to_gpu(_host_operands()[0])
    z = gpuarray.empty_like(x)

    def compile_and_run(share: Sequence[ElementwiseKernel]) -> None:
        ctx.push()  # every thread has a context stack of its own
        try:
            for kernel in share:
                kernel(z, x)
        finally:
            drv.Context.pop()

    workers = min(count, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        shares = [pool.submit(compile_and_run, kernels[w::workers]) for w in range(workers)]
        for share in shares:
            share.result()  # raises what a worker raised
    drv.Context.synchronize()
    return kernels


def add_with_cached_kernels(count: int) -> Run:
    """The gpukit side of small_add after `count` other kernels were made and run."""

    def run(settings: Settings) -> list[float]:
        _cached_kernels(count)
        return operation_side("gpukit", "add")(settings)

    return run
