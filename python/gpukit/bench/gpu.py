"""GPU set-up shared by the cases: everyone works in device 0's primary context, the one
CuPy, numba and the CUDA runtime use, so all sides run under the same conditions."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from gpukit.bench.harness import Unavailable

if TYPE_CHECKING:
    from types import ModuleType

    from gpukit.bench.harness import Settings
    from gpukit.driver import Context


def require_device() -> None:
    """Unavailable("no CUDA device") unless there is one."""
    import gpukit.driver as drv

    if not drv.driver_available() or drv.Device.count() == 0:
        raise Unavailable("no CUDA device")


@functools.lru_cache(maxsize=None)
def primary_context() -> Context:
    import gpukit.driver as drv

    require_device()
    ctx = drv.Device(0).retain_primary_context()
    ctx.push()
    return ctx


def synchronize(*contexts: Context) -> None:
    """Waits for the work of each context: Context.synchronize() waits for the current one
    (PyCUDA's API), so each is made current in turn."""
    import gpukit.driver as drv

    for context in contexts:
        context.push()
        try:
            drv.Context.synchronize()
        finally:
            drv.Context.pop()


def cupy() -> ModuleType:
    """The cupy module, or Unavailable where it is not installed."""
    try:
        import cupy as cp  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, and has no type information
    except ImportError:
        raise Unavailable("CuPy is not installed") from None
    module: ModuleType = cp
    return module


def launches_per_repeat(settings: Settings) -> int:
    return 2000 if settings["quick"] else 20000
