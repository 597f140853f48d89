"""A pytest plugin for projects that test their own GPU code with gpukit.

Installed with gpukit as the ``gpukit`` pytest11 entry point. It registers the ``cuda``
marker (used by ``gpukit.tools.mark_cuda_test``) and two fixtures:

- ``cuda_device``: the default device (``gpukit.tools.get_default_device()``);
- ``cuda_context``: a fresh context on it, current for the test and released after it.

Tests that use them are skipped, with the reason, on machines without a CUDA device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

    from gpukit.driver import Context, Device


def pytest_configure(config: pytest.Config) -> None:
    """Registers the ``cuda`` marker."""
    config.addinivalue_line("markers", "cuda: the test needs a CUDA context (gpukit.tools.mark_cuda_test)")


def why_no_cuda() -> str | None:
    """Why CUDA tests cannot run here (no driver, no device), or None when they can."""
    import gpukit.driver as drv

    if not drv.driver_available():
        return "no CUDA driver (libcuda.so.1) on this machine"
    try:
        if drv.Device.count() == 0:
            return "the CUDA driver reports no device"
    except drv.Error as e:
        return f"CUDA failed to initialise: {e}"
    return None


@pytest.fixture
def cuda_device() -> Device:
    """The default CUDA device (gpukit.tools.get_default_device); skips the test without one."""
    why = why_no_cuda()
    if why:
        pytest.skip(why)
    from gpukit import tools

    return tools.get_default_device()


@pytest.fixture
def cuda_context(cuda_device: Device) -> Iterator[Context]:
    """A new context on cuda_device, current for the test; popped and detached after it."""
    import gpukit.driver as drv
    from gpukit import tools

    context = cuda_device.make_context()
    try:
        yield context
    finally:
        while drv.Context.get_current() is not None:
            drv.Context.pop()
        context.detach()
        tools.clear_context_caches()
