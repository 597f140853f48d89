"""gpukit: GPU computing for C++ and Python on CUDA 12/13 and OpenCL.

``import gpukit`` works on any machine; CUDA calls need an NVIDIA driver and raise
``gpukit.driver.RuntimeError`` naming the missing library when there is none.
"""
from gpukit._gpukit import VERSION, VERSION_STATUS, VERSION_TEXT

__version__ = VERSION_TEXT
__all__ = ["VERSION", "VERSION_STATUS", "VERSION_TEXT"]
