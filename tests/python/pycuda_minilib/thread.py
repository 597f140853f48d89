"""Thread: the library's own context and stream, pushed around its work."""

import numpy as np

import pycuda.driver as cuda
from pycuda.compiler import SourceModule

from .array import Array


class Buffer(cuda.ArgumentHandler):
    """Raw device memory passed to kernels through get_device_alloc(), as reikna's Buffer
    (it never calls the base __init__)."""

    def __init__(self, size):
        self._buffer = cuda.mem_alloc(size)
        self.size = size

    def __int__(self):
        return int(self._buffer)

    def get_device_alloc(self):
        return self._buffer


class Thread:
    def __init__(self, device_number=0):
        self.device = cuda.Device(device_number)
        self.context = self.device.make_context()
        self.stream = cuda.Stream()
        cuda.Context.pop()
        self.active = False

    def __enter__(self):
        self.context.push()
        self.active = True
        return self

    def __exit__(self, *exc):
        cuda.Context.pop()
        self.active = False

    def release(self):
        self.context.detach()

    def array(self, shape, dtype, strides=None, offset=0, nbytes=None, base_data=None):
        dtype = np.dtype(dtype)
        shape = tuple(shape) if not np.isscalar(shape) else (shape,)
        if nbytes is None:
            extent = (
                dtype.itemsize
                if strides is None
                else dtype.itemsize + sum((n - 1) * abs(s) for n, s in zip(shape, strides))
            )
            nbytes = offset + (int(np.prod(shape)) * dtype.itemsize if strides is None else extent)
        if base_data is None and (offset or strides is not None):
            base_data = cuda.mem_alloc(max(nbytes, 1))
        return Array(self, shape, dtype, strides=strides, offset=offset, nbytes=nbytes, base_data=base_data)

    def to_device(self, host):
        result = self.array(host.shape, host.dtype)
        result.set_async(np.ascontiguousarray(host), stream=self.stream)
        return result

    def from_device(self, array):
        host = array.get_async(stream=self.stream)
        self.stream.synchronize()
        return host

    def temporary(self, nbytes):
        return Buffer(nbytes)

    def compile(self, source, **options):
        return SourceModule(source, no_extern_c=True, options=["-DMINILIB=1"], **options)

    def synchronize(self):
        self.stream.synchronize()
