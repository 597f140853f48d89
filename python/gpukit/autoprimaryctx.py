"""Importing this module makes the default device's *primary* context current (the one
the CUDA runtime, CuPy and PyTorch use), so gpukit shares it with them."""
import atexit

from gpukit import driver as _driver
from gpukit import tools as _tools

device = _tools.get_default_device()
context = device.retain_primary_context()
context.push()


def _finish():
    global context
    if context is None:
        return
    if _driver.Context.get_current() == context:
        _driver.Context.pop()
    context.detach()
    context = None


atexit.register(_finish)
