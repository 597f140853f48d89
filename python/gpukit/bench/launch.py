"""Sides of the launch_empty case: host seconds per launch of an empty kernel."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from gpukit.bench import gpu
from gpukit.bench.gpu import launches_per_repeat, primary_context
from gpukit.bench.harness import Unavailable, cpp_baselines

if TYPE_CHECKING:
    from gpukit.bench.harness import Settings

EMPTY_SOURCE = 'extern "C" __global__ void empty_kernel() {}'


def _time_loop(launch_once: Callable[[], object], synchronize: Callable[[], object], settings: Settings) -> list[float]:
    n = launches_per_repeat(settings)
    for _ in range(n // 4):  # warm-up
        launch_once()
    synchronize()
    samples = []
    for _ in range(settings["repeats"]):
        start = time.perf_counter()
        for _ in range(n):
            launch_once()
        stop = time.perf_counter()
        synchronize()
        samples.append((stop - start) / n)
    return samples


def raw_cpp(settings: Settings) -> list[float]:
    primary_context()
    _bench = cpp_baselines()
    return _bench.raw_launch_seconds(launches_per_repeat(settings), settings["repeats"])


def gpukit_cpp(settings: Settings) -> list[float]:
    primary_context()
    _bench = cpp_baselines()
    return _bench.gpukit_launch_seconds(launches_per_repeat(settings), settings["repeats"])


def cupy(settings: Settings) -> list[float]:
    primary_context()
    cp = gpu.cupy()
    kernel = cp.RawKernel(EMPTY_SOURCE, "empty_kernel")
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        return _time_loop(lambda: kernel((1,), (1,), ()), stream.synchronize, settings)


def numba(settings: Settings) -> list[float]:
    primary_context()
    import numpy as np

    if not hasattr(np, "row_stack"):
        # numba-cuda still calls np.row_stack, which numpy 2.5 removed; it is np.vstack.
        np.row_stack = np.vstack
    try:
        from numba import cuda  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, and has no type information
    except ImportError:
        raise Unavailable("numba-cuda is not installed")

    import warnings

    warnings.simplefilter("ignore")  # numba warns that one block under-uses the GPU: that is the point

    @cuda.jit  # type: ignore[untyped-decorator]  # numba is untyped: its decorator is Any
    def empty_kernel() -> None:
        pass

    stream = cuda.stream()
    configured = empty_kernel[1, 1, stream]
    return _time_loop(lambda: configured(), stream.synchronize, settings)


def cuda_python(settings: Settings) -> list[float]:
    primary_context()
    try:
        from cuda.bindings import driver as cu  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional (cuda-python)
        from cuda.bindings import nvrtc
    except ImportError:
        raise Unavailable("cuda-python (cuda.bindings) is not installed")
    err, prog = nvrtc.nvrtcCreateProgram(EMPTY_SOURCE.encode(), b"empty.cu", 0, [], [])
    nvrtc.nvrtcCompileProgram(prog, 0, [])
    err, size = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * size
    nvrtc.nvrtcGetPTX(prog, ptx)
    err, module = cu.cuModuleLoadData(ptx)
    err, function = cu.cuModuleGetFunction(module, b"empty_kernel")
    err, stream = cu.cuStreamCreate(1)

    def launch_once() -> None:
        cu.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)

    samples = _time_loop(launch_once, lambda: cu.cuStreamSynchronize(stream), settings)
    cu.cuStreamDestroy(stream)
    return samples


def pycuda(settings: Settings) -> list[float]:
    primary_context()
    try:
        from pycuda.compiler import SourceModule  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, untyped
        import pycuda.driver as pd  # type: ignore[import-not-found, import-untyped, unused-ignore]  # as above
    except ImportError:
        raise Unavailable("PyCUDA is not installed")
    function = SourceModule("__global__ void empty_kernel() {}").get_function("empty_kernel")
    stream = pd.Stream()
    return _time_loop(lambda: function(block=(1, 1, 1), stream=stream), stream.synchronize, settings)


def gpukit_prepared(settings: Settings) -> list[float]:
    primary_context()
    import gpukit.driver as drv
    from gpukit.compiler import SourceModule

    function = SourceModule(EMPTY_SOURCE, no_extern_c=True).get_function("empty_kernel")
    function.prepare("")  # returns the function itself (typed object in the extension's stub)
    stream = drv.Stream(drv.stream_flags.NON_BLOCKING)
    grid, block = (1, 1), (1, 1, 1)
    return _time_loop(lambda: function.prepared_async_call(grid, block, stream), stream.synchronize, settings)


def gpukit_call(settings: Settings) -> list[float]:
    primary_context()
    import gpukit.driver as drv
    from gpukit.compiler import SourceModule

    function = SourceModule(EMPTY_SOURCE, no_extern_c=True).get_function("empty_kernel")
    stream = drv.Stream(drv.stream_flags.NON_BLOCKING)
    return _time_loop(lambda: function(block=(1, 1, 1), stream=stream), stream.synchronize, settings)
