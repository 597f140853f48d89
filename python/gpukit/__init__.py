"""gpukit: GPU computing for C++ and Python on CUDA 12/13 and OpenCL.

``import gpukit`` works on any machine; CUDA calls need an NVIDIA driver and raise
``gpukit.driver.RuntimeError`` naming the missing library when there is none.
"""

from __future__ import annotations

import os
import warnings

from gpukit._gpukit import VERSION, VERSION_STATUS, VERSION_TEXT

# nanobind warns before it refuses an object made by __new__ whose __init__ never ran; the
# TypeError that follows says so, naming the call (gpukit/_errors/arguments.py).
warnings.filterwarnings(
    "ignore", message="nanobind: attempted to access an uninitialized instance", category=RuntimeWarning
)

__version__ = VERSION_TEXT
__all__ = ["VERSION", "VERSION_STATUS", "VERSION_TEXT"]

# nanobind's stub generator imports the extension through this package (python/CMakeLists.txt).
if os.environ.get("NB_STUBGEN"):
    from gpukit._stub_generation import declare_runtime_classes_in_place

    declare_runtime_classes_in_place()
