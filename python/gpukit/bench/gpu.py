"""GPU set-up shared by the cases: everyone works in device 0's primary context, the one
CuPy, numba and the CUDA runtime use, so all sides run under the same conditions."""

import functools

from gpukit.bench.harness import Unavailable


def require_device():
    """Unavailable("no CUDA device") unless there is one."""
    import gpukit.driver as drv

    if not drv.driver_available() or drv.Device.count() == 0:
        raise Unavailable("no CUDA device")


@functools.lru_cache(maxsize=None)
def primary_context():
    import gpukit.driver as drv

    require_device()
    ctx = drv.Device(0).retain_primary_context()
    ctx.push()
    return ctx


def synchronize(*contexts):
    """Waits for the work of each context: Context.synchronize() waits for the current one
    (PyCUDA's API), so each is made current in turn."""
    import gpukit.driver as drv

    for context in contexts:
        context.push()
        try:
            drv.Context.synchronize()
        finally:
            drv.Context.pop()


def cupy():
    """The cupy module, or Unavailable where it is not installed."""
    try:
        import cupy as cp
    except ImportError:
        raise Unavailable("CuPy is not installed") from None
    return cp


def launches_per_repeat(settings):
    return 2000 if settings["quick"] else 20000
