"""Importing this module makes a context on the default device current
(``tools.make_default_context()``) and releases it cleanly at interpreter exit."""
import atexit

from gpukit import driver as _driver
from gpukit import tools as _tools

context = _tools.make_default_context()
device = context.get_device()


def _finish():
    global context
    if context is None:
        return
    if _driver.Context.get_current() == context:
        _driver.Context.pop()
    context.detach()
    context = None


atexit.register(_finish)
