"""Mistakes a type checker must find in a gpukit user's program: tests/python/test_typing.py
runs ``mypy --strict`` on this file and expects exactly the errors named by the ``planted:``
comments, on those lines (the error code mypy reports there)."""

import numpy as np

import gpukit.cl as cl
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import cuda
from gpukit.compiler import SourceModule

module = SourceModule(42)  # planted: arg-type
kernel = module.get_function("k")
array = gpuarray.zeros("eight", np.float32)  # planted: arg-type
host: str = array.get()  # planted: assignment
drv.Stream().no_such_method()  # planted: attr-defined
drv.no_such_function()  # planted: attr-defined
attribute: str = drv.device_attribute.WARP_SIZE  # planted: assignment
stream: drv.Stream = drv.Event()  # planted: assignment
gpuarray.ones_like(np.ones(3))  # planted: arg-type
cuda.device_array((2, 2), order=1)  # planted: arg-type
cl.create_some_context(interactive="yes")  # planted: arg-type
length: int = array.dtype  # planted: assignment
(array + 1).no_such_attribute  # planted: attr-defined
