"""Shared test set-up: GPU tests skip with the reason when no CUDA device is present, and
each GPU test gets a context of its own."""
import os
import tempfile

import pytest

import gpukit.driver as drv

# Compilations made by the tests go to a cache of their own, never the user's.
os.environ["GPUKIT_CACHE_DIR"] = tempfile.mkdtemp(prefix="gpukit-test-cache-")
os.environ.pop("GPUKIT_DISABLE_CACHE", None)


def _why_no_gpu():
    if not drv.driver_available():
        return "no CUDA driver (libcuda.so.1) on this machine"
    try:
        if drv.Device.count() == 0:
            return "the CUDA driver reports no device"
    except drv.Error as e:
        return f"CUDA failed to initialise: {e}"
    return None


NO_GPU = _why_no_gpu()


def pytest_collection_modifyitems(config, items):
    if NO_GPU:
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(pytest.mark.skip(reason=NO_GPU))


def drain_context_stack():
    while drv.Context.get_current() is not None:
        drv.Context.pop()


@pytest.fixture
def ctx():
    """A fresh context on device 0, current for the test and released after it."""
    drain_context_stack()
    context = drv.Device(0).make_context()
    yield context
    drain_context_stack()
    context.detach()
