"""Sides of the compile cases: seconds to get a loaded module from CUDA C source, cold
(compiling), from the disk cache in a new process, and again in the same process."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import uuid
from typing import TYPE_CHECKING

from gpukit.bench.gpu import cupy, primary_context

if TYPE_CHECKING:
    from gpukit.bench.harness import Settings

SOURCE = """
__global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def _fresh_source() -> str:
    # A unique comment defeats every cache, on disk and in memory, of every library.
    return SOURCE + f"// {uuid.uuid4()}\n"


def gpukit_cold(settings: Settings) -> list[float]:
    primary_context()
    from gpukit.compiler import SourceModule

    samples = []
    for _ in range(settings["repeats"]):
        source = _fresh_source()
        start = time.perf_counter()
        SourceModule(source, cache_dir=False).get_function("saxpy")
        samples.append(time.perf_counter() - start)
    return samples


def cupy_cold(settings: Settings) -> list[float]:
    primary_context()
    cp = cupy()
    samples = []
    saved = {name: os.environ.get(name) for name in ("CUPY_CACHE_DIR", "CUPY_CACHE_IN_MEMORY")}
    try:
        for _ in range(settings["repeats"]):
            with tempfile.TemporaryDirectory() as cache:
                os.environ["CUPY_CACHE_DIR"] = cache
                os.environ["CUPY_CACHE_IN_MEMORY"] = "1"
                source = 'extern "C" {' + _fresh_source() + "}"
                start = time.perf_counter()
                cp.RawModule(code=source).get_function("saxpy")  # RawModule compiles lazily
                samples.append(time.perf_counter() - start)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return samples


# Run in a new process: import, context, then time only the SourceModule call.
_DISK_HIT_CHILD = """
import sys, time
import gpukit.driver as drv
ctx = drv.Device(0).retain_primary_context()
ctx.push()
from gpukit.compiler import SourceModule
source = sys.stdin.read()
start = time.perf_counter()
SourceModule(source)
print(time.perf_counter() - start)
"""


def gpukit_disk_hit(settings: Settings) -> list[float]:
    primary_context()
    from gpukit.compiler import SourceModule

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, GPUKIT_CACHE_DIR=cache, PYTHONPATH=os.pathsep.join(sys.path))
        env.pop("GPUKIT_DISABLE_CACHE", None)
        source = _fresh_source()
        SourceModule(source, cache_dir=cache)  # fills the disk cache the children read
        samples = []
        for _ in range(settings["repeats"]):
            run = subprocess.run(
                [sys.executable, "-c", _DISK_HIT_CHILD],
                input=source,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            samples.append(float(run.stdout.strip().splitlines()[-1]))
        return samples


def gpukit_repeat(settings: Settings) -> list[float]:
    primary_context()
    from gpukit.compiler import SourceModule

    with tempfile.TemporaryDirectory() as cache:
        first = SourceModule(SOURCE, cache_dir=cache)  # held: later calls reuse its module
        calls = 200 if settings["quick"] else 2000
        samples = []
        for _ in range(settings["repeats"]):
            start = time.perf_counter()
            for _ in range(calls):
                SourceModule(SOURCE, cache_dir=cache)
            samples.append((time.perf_counter() - start) / calls)
        del first
        return samples
