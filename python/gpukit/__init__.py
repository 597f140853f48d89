"""gpukit: GPU computing for C++ and Python on CUDA 12/13 and OpenCL.

``import gpukit`` works on any machine; CUDA calls need an NVIDIA driver and raise
``gpukit.driver.RuntimeError`` naming the missing library when there is none.
"""
import os

from gpukit._gpukit import VERSION, VERSION_STATUS, VERSION_TEXT

__version__ = VERSION_TEXT
__all__ = ["VERSION", "VERSION_STATUS", "VERSION_TEXT"]

# nanobind's stub generator imports the extension through this package (python/CMakeLists.txt).
if os.environ.get("NB_STUBGEN"):
    from gpukit._stub_generation import declare_runtime_classes_in_place

    declare_runtime_classes_in_place()
