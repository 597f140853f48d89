"""Helpers of PyCUDA's ``pycuda.tools``: choosing the default device and context."""
from gpukit import _gpukit


def make_default_context(ctx_maker=None):
    """Return a new Context on the default device, made current.

    The device is the integer in ``$CUDA_DEVICE``, else the integer in ``~/.cuda-device``
    (or ``~/.cuda_device``); with neither, each device is tried in turn. ``ctx_maker``
    (default ``Device.make_context``) is called with the chosen Device.
    """
    return _gpukit._make_default_context(ctx_maker)


def get_default_device(default=0):
    """Return the Device chosen by ``$CUDA_DEVICE`` or ``~/.cuda-device``, else ``Device(default)``.

    Deprecated in PyCUDA in favour of make_default_context(); kept for ported code.
    """
    return _gpukit._get_default_device(default)
