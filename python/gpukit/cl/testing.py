"""Running a pytest test once per OpenCL device.

In a test module::

    from gpukit.cl.tools import pytest_generate_tests_for_opencl as pytest_generate_tests

    def test_something(ctx_factory):
        ctx = ctx_factory()   # a fresh Context on this run's device

Tests that take ``ctx_factory`` or ``device`` run once per device; tests that take only
``platform`` run once per platform. ``GPUKIT_CL_TEST`` (or, for code moving from PyOpenCL,
``PYOPENCL_TEST``) narrows the devices with the selection syntax of
``gpukit.cl.select_devices``, e.g. ``GPUKIT_CL_TEST="0:0,1;intel=i5,i7"``.
"""
import os

import gpukit.cl as cl

FIXTURES = ("platform", "device", "ctx_factory")


class ContextFactory:
    """Makes a new Context on one device each time it is called."""

    def __init__(self, device):
        self.device = device

    def __call__(self):
        return cl.Context([self.device])

    def __repr__(self):
        return f"<context factory for {self.device.name!r}>"


def selection_from_environment():
    """The device selection string in effect: GPUKIT_CL_TEST, else PYOPENCL_TEST, else ''."""
    return os.environ.get("GPUKIT_CL_TEST", "").strip() or os.environ.get("PYOPENCL_TEST", "").strip()


def pytest_generate_tests_for_opencl(metafunc):
    """Parametrize the ``platform``, ``device`` and ``ctx_factory`` arguments of a test over the
    selected OpenCL devices (see the module docstring)."""
    names = [name for name in FIXTURES if name in metafunc.fixturenames]
    if not names:
        return
    devices = cl.select_devices(selection_from_environment())
    if names == ["platform"]:
        platforms = list(dict.fromkeys(d.platform for d in devices))
        metafunc.parametrize("platform", platforms, ids=[p.name for p in platforms])
        return
    rows = []
    for device in devices:
        values = {"platform": device.platform, "device": device, "ctx_factory": ContextFactory(device)}
        rows.append(tuple(values[name] for name in names))
    ids = [f"{d.name} on {d.platform.name}" for d in devices]
    metafunc.parametrize(",".join(names), rows, ids=ids)


pytest_generate_tests_for_pyopencl = pytest_generate_tests_for_opencl
