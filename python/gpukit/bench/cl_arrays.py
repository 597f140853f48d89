"""Sides of the cl_array_* cases: PyOpenCL's array world on gpukit.cl and on PyOpenCL itself, on
one OpenCL device each (every device gpukit.cl finds: PoCL's CPU device in CI, NVIDIA's OpenCL
too on the GPU machine). Each sample is host seconds per operation, including the wait for
the queue to finish, over a batch of operations."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from gpukit.bench.harness import Unavailable, seconds_per_call

if TYPE_CHECKING:
    from types import ModuleType

    from gpukit.bench.harness import Run, Settings


class _Queue(Protocol):
    """What the sides use of a command queue, gpukit.cl's or PyOpenCL's."""

    @property
    def context(self) -> object: ...
    def finish(self) -> object: ...


SMALL, BIG = 1000, 2**24
TAKEN = 2**22


def devices() -> list[tuple[str, str, str]]:
    """(short name, platform name, device name) of each OpenCL device gpukit.cl finds."""
    try:
        import gpukit.cl as cl

        found = cl.select_devices("") if cl.available() else []
    except Exception:  # no ICD loader, no platform: no OpenCL cases
        return []
    named: list[tuple[str, str, str]] = []
    for d in found:
        short = d.platform.name.split()[0].lower()
        if any(n == short for n, _, _ in named):
            short = f"{short}{len(named)}"
        named.append((short, d.platform.name, d.name))
    return named


def _modules(library: str) -> tuple[ModuleType, ModuleType, ModuleType, ModuleType]:
    if library == "gpukit":
        import gpukit.cl as cl
        import gpukit.cl.array as cla
        import gpukit.cl.clrandom as clrandom
        import gpukit.cl.scan as scan

        return cl, cla, clrandom, scan
    try:
        # Optional and untyped; the names are gpukit.cl's above: either library has the same API.
        import pyopencl as cl  # type: ignore[import-not-found, no-redef]
        import pyopencl.array as cla  # type: ignore[import-not-found, no-redef]
        import pyopencl.clrandom as clrandom  # type: ignore[import-not-found, no-redef]
        import pyopencl.scan as scan  # type: ignore[import-not-found, no-redef]
    except ImportError:
        raise Unavailable("PyOpenCL is not installed")
    return cl, cla, clrandom, scan


def _queue(cl: ModuleType, platform: str, device: str) -> _Queue:
    for p in cl.get_platforms():
        if p.name == platform:
            for d in p.get_devices():
                if d.name == device:
                    queue: _Queue = cl.CommandQueue(cl.Context([d]))
                    return queue
    raise Unavailable(f"no device {device} on {platform}")


def side(library: str, operation: str, platform: str, device: str) -> Run:
    """The side running `operation` ("add_small", "add_big", "sum", "scan", "take", "rand")."""

    def run(settings: Settings) -> list[float]:
        import numpy as np

        cl, cla, clrandom, scan = _modules(library)
        queue = _queue(cl, platform, device)
        n = SMALL if operation == "add_small" else BIG
        rng = np.random.default_rng(0)
        x = cla.to_device(queue, rng.random(n, dtype=np.float32))
        y = cla.to_device(queue, rng.random(n, dtype=np.float32))
        call: Callable[[], object]
        if operation in ("add_small", "add_big"):
            call = lambda: x + y  # noqa: E731
        elif operation == "sum":
            call = lambda: cla.sum(x)  # noqa: E731
        elif operation == "scan":
            knl = scan.InclusiveScanKernel(queue.context, np.int32, "a+b", "0")
            counts = cla.to_device(queue, rng.integers(0, 10, n, dtype=np.int32))
            call = lambda: knl(counts, "new")  # noqa: E731
        elif operation == "take":
            indices = cla.to_device(queue, rng.integers(0, n, TAKEN, dtype=np.int32))
            call = lambda: cla.take(x, indices)  # noqa: E731
        elif operation == "rand":
            generator = clrandom.PhiloxGenerator(queue.context, seed=1)
            call = lambda: generator.fill_uniform(x)  # noqa: E731
        else:
            raise ValueError(operation)
        calls = 300 if operation == "add_small" else 10
        if settings["quick"]:
            calls = max(3, calls // 10)
        for _ in range(3):  # warm-up: kernels built, pools filled
            call()
        queue.finish()
        return seconds_per_call(call, calls, settings, synchronize=queue.finish)

    return run


OPERATIONS = {
    "add_small": f"x + y on {SMALL} float32",
    "add_big": "x + y on 2^24 float32",
    "sum": "sum of 2^24 float32",
    "scan": "InclusiveScanKernel a+b of 2^24 int32 into a new array",
    "take": "take of 2^22 random int32 indices from 2^24 float32",
    "rand": "PhiloxGenerator.fill_uniform of 2^24 float32",
}
