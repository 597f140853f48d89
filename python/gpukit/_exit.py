"""Releasing the context that gpukit.autoinit / gpukit.autoprimaryctx made current."""
import atexit

from gpukit import driver as _driver


def release_at_exit(module):
    """At interpreter exit, pop ``module.context`` if it is current, then detach it."""

    def finish():
        context = module.context
        if context is None:
            return
        if _driver.Context.get_current() == context:
            _driver.Context.pop()
        context.detach()
        module.context = None

    atexit.register(finish)
