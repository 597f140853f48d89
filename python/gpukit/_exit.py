"""Releasing the context that gpukit.autoinit / gpukit.autoprimaryctx made current."""

from __future__ import annotations

import atexit
import os
from typing import Protocol

from gpukit import driver as _driver


class _ContextHolder(Protocol):
    """A module holding the context it made current (gpukit.autoinit, gpukit.autoprimaryctx)."""

    context: _driver.Context | None


def release_at_exit(module: _ContextHolder) -> None:
    """At interpreter exit, pop ``module.context`` if it is current, then detach it. A child
    made by fork() inherits the handler but not the context (CUDA refuses to run there), so
    it leaves the context to the process that made it."""
    owner = os.getpid()

    def finish() -> None:
        context = module.context
        if context is None or os.getpid() != owner:
            return
        if _driver.Context.get_current() == context:
            _driver.Context.pop()
        context.detach()
        module.context = None

    atexit.register(finish)
