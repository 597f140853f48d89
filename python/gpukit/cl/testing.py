"""Running a pytest test once per OpenCL device, as PyOpenCL's
``pytest_generate_tests_for_pyopencl`` does.

In a test module::

    from gpukit.cl.tools import pytest_generate_tests_for_opencl as pytest_generate_tests

    def test_something(ctx_factory):
        ctx = ctx_factory()   # a fresh Context on this run's device

A test may take any of ``platform``, ``device`` and ``ctx_factory`` (and PyOpenCL's deprecated
``ctx_getter``), alone or together, each by its own name. Every such test runs once per
selected device (as in PyOpenCL, a test that takes only ``platform`` too).
``GPUKIT_CL_TEST`` (or, for code moving from PyOpenCL, ``PYOPENCL_TEST``) narrows the devices
with the selection syntax of ``gpukit.cl.select_devices``, where names match a platform's or
device's name or vendor, e.g. ``GPUKIT_CL_TEST="0:0,1;intel=i5,i7"`` or ``PYOPENCL_TEST=pocl``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import gpukit.cl as cl
from gpukit._warnings import warn

if TYPE_CHECKING:
    import pytest

FIXTURES = ("platform", "device", "ctx_factory", "ctx_getter")


class ContextFactory:
    """Makes a new Context on one device each time it is called."""

    def __init__(self, device: cl.Device) -> None:
        self.device = device

    def __call__(self) -> cl.Context:
        return cl.Context([self.device])

    def __repr__(self) -> str:
        return f"<context factory for {self.device.name!r}>"


def selection_from_environment() -> str:
    """The device selection string in effect: GPUKIT_CL_TEST, else PYOPENCL_TEST, else ''."""
    return os.environ.get("GPUKIT_CL_TEST", "").strip() or os.environ.get("PYOPENCL_TEST", "").strip()


def pytest_generate_tests_for_opencl(metafunc: pytest.Metafunc) -> None:
    """Parametrize the ``platform``, ``device`` and ``ctx_factory`` arguments of a test over the
    selected OpenCL devices (see the module docstring)."""
    names = [name for name in FIXTURES if name in metafunc.fixturenames]
    if not names:
        return
    if "ctx_getter" in names:
        warn("the 'ctx_getter' argument is deprecated (as in PyOpenCL); take 'ctx_factory'", DeprecationWarning)
    devices = cl.select_devices(selection_from_environment())
    # Names given as a list: each row is a tuple with one value per name, even for one name.
    rows = []
    for device in devices:
        factory = ContextFactory(device)
        values = {"platform": device.platform, "device": device, "ctx_factory": factory, "ctx_getter": factory}
        rows.append(tuple(values[name] for name in names))
    ids = [f"{d.name} on {d.platform.name}" for d in devices]
    metafunc.parametrize(names, rows, ids=ids)


pytest_generate_tests_for_pyopencl = pytest_generate_tests_for_opencl
