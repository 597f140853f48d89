"""Shared test set-up: GPU tests skip with the reason when no CUDA device is present, and
each GPU test gets a context of its own."""

import atexit
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

import gpukit.driver as drv
from gpukit import _gpukit


def _plugin_is_installed():
    """Whether pytest loads gpukit's plugin by itself: a pip-installed gpukit registers it as
    the pytest11 entry point "gpukit", unless plugin autoloading is switched off."""
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    return any(entry.value == "gpukit.pytest_plugin" for entry in importlib.metadata.entry_points(group="pytest11"))


# gpukit's own pytest plugin (cuda_context / cuda_device fixtures), as installed users get it;
# listed here only when pytest does not load it already (registering the module twice, under
# the entry point's name and under its own, is an error).
pytest_plugins = [] if _plugin_is_installed() else ["gpukit.pytest_plugin"]

# Compilations made by the tests go to a cache of their own, never the user's: one for the
# whole run, made by the process that starts it and removed when it ends. pytest-xdist's
# workers inherit its name, so a kernel that tests on several workers need is compiled once.
if "PYTEST_XDIST_WORKER" not in os.environ or "GPUKIT_TEST_CACHE_DIR" not in os.environ:
    os.environ["GPUKIT_TEST_CACHE_DIR"] = tempfile.mkdtemp(prefix="gpukit-test-cache-")
    atexit.register(shutil.rmtree, os.environ["GPUKIT_TEST_CACHE_DIR"], ignore_errors=True)
os.environ["GPUKIT_CACHE_DIR"] = os.environ["GPUKIT_TEST_CACHE_DIR"]
# nanobind's leak report, off for users: on in this process (gpukit may have been imported
# before this file, by the pytest plugin) and in every child process the tests start.
os.environ["GPUKIT_LEAK_WARNINGS"] = "1"
_gpukit._set_leak_warnings(True)
os.environ.pop("GPUKIT_DISABLE_CACHE", None)


def pytest_collection_modifyitems(config, items):
    # The tests that take minutes go first: parallel workers start them at once and run the
    # rest beside them, instead of one worker starting one near the end (the whole GPU run
    # then lasts as long as that test after its start).
    items.sort(key=lambda item: item.get_closest_marker("long_running") is None)
    from gpukit.pytest_plugin import why_no_cuda  # registered by now

    no_gpu = why_no_cuda()
    if no_gpu:
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(pytest.mark.skip(reason=no_gpu))


def dtype_sweep(dtypes):
    """`dtypes` as a test's parameters, all but the first marked `dtype_sweep`: the host code is
    the same for each element type, so the sanitizer lane runs the first only (each dtype costs
    PoCL a compile there); `make test` runs them all."""
    return [dtypes[0]] + [pytest.param(t, marks=pytest.mark.dtype_sweep) for t in dtypes[1:]]


def cuda_device_count():
    """The CUDA devices of this machine; 0 without a driver or when it fails to start."""
    if not drv.driver_available():
        return 0
    try:
        return drv.Device.count()
    except drv.Error:
        return 0


def drain_context_stack():
    while drv.Context.get_current() is not None:
        drv.Context.pop()


def in_context(context, action):
    """action(), with `context` current for it."""
    context.push()
    try:
        return action()
    finally:
        drv.Context.pop()


@pytest.fixture
def ctx():
    """A fresh context on device 0, current for the test and released after it."""
    drain_context_stack()
    context = drv.Device(0).make_context()
    yield context
    drain_context_stack()
    context.detach()


# The context that this process's pool_ctx tests share (made on first use).
_shared_cuda_context = []


@pytest.fixture
def pool_ctx():
    """A context on device 0 for tests of arrays and kernels, current for the test; afterwards
    the default memory pools are emptied. The tests of a process share it: a context per test
    costs the driver ~0.1 s, for which the workers of a parallel run on one GPU queue. A test
    that breaks it (a faulted kernel) or detaches it gets the next test a new one."""
    import gpukit.gpuarray as gpuarray

    drain_context_stack()
    if _shared_cuda_context:
        _shared_cuda_context[0].push()
    else:
        _shared_cuda_context.append(drv.Device(0).make_context())
    yield _shared_cuda_context[0]
    gpuarray.release_default_pools()
    drain_context_stack()
    try:
        in_context(_shared_cuda_context[0], _shared_cuda_context[0].synchronize)
    except drv.Error:
        release_shared_cuda_context()


def release_shared_cuda_context():
    """Detaches the shared context, and empties the per-context caches that would keep it."""
    from gpukit import tools

    if _shared_cuda_context:
        tools.clear_context_caches()
        context = _shared_cuda_context.pop()
        try:
            context.detach()
        except drv.Error:
            pass  # detached already, by the test


def pytest_sessionfinish(session):
    """The contexts the tests shared go before the interpreter's exit (nanobind reports
    objects that outlive the module as leaks)."""
    import cl_devices

    release_shared_cuda_context()
    cl_devices.release_shared_contexts()


@pytest.fixture
def primary_ctx():
    """The device's primary context, current for the test. Tests that hand gpukit's arrays
    to other libraries (CuPy, PyTorch, numba) use it: those work in the primary context and
    keep per-device state (streams, pools, handles) made in whatever context was current
    when they first ran, which must therefore outlive the test."""
    import gpukit.gpuarray as gpuarray

    drain_context_stack()
    context = drv.Device(0).retain_primary_context()
    context.push()
    yield context
    gpuarray.release_default_pools()
    drain_context_stack()
    context.detach()


def run_in_fresh_process(script, expect_returncode=0):
    """Runs the Python `script` in a process of its own (device printf writes to that
    process's stdout; nothing it does touches this process's contexts): its stdout, after
    asserting that it exited with `expect_returncode`."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == expect_returncode, result.stderr
    return result.stdout


def installed_nvcc():
    """The nvcc gpukit would run (PATH, CUDA_PATH, CUDA_HOME, /usr/local/cuda), or None."""
    from gpukit import _gpukit

    return _gpukit._find_nvcc("nvcc") or None
