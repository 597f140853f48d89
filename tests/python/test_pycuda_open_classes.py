"""PyCUDA's driver and kernel classes as libraries use them: instances take attributes of the
library's own (PyCUDA's Boost.Python objects all have a __dict__: neon sets func.threads,
chainer tags pooled allocations with their device, VPF sets fields on Memcpy2D), and the
classes can be subclassed with attributes and overridden methods (reikna's Device, chainer's
IPCEvent, pycbc's ReductionKernel, compyle's and neon's SourceModule)."""

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit.compiler import SourceModule
from gpukit.elementwise import ElementwiseKernel
from gpukit.reduction import ReductionKernel
from gpukit.scan import ExclusiveScanKernel, InclusiveScanKernel
from gpukit.tools import DeviceMemoryPool

gpu = pytest.mark.gpu

SOURCE = """
extern "C" __global__ void twice(float *x, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2;
}
"""


def test_copy_descriptors_take_attributes():
    copy = drv.Memcpy2D()
    copy.width = 640  # a field PyCUDA does not have, set by VPF's samples
    copy.width_in_bytes = 2560
    assert copy.width == 640 and copy.width_in_bytes == 2560
    for cls in (drv.Memcpy3D, drv.Memcpy3DPeer):
        c = cls()
        c.label = cls.__name__
        assert c.label == cls.__name__


@gpu
def test_driver_objects_take_attributes(ctx):
    module = SourceModule(SOURCE).module
    function = module.get_function("twice")
    objects = [
        drv.Device(0),
        ctx,
        drv.Stream(),
        drv.Event(),
        module,
        function,
        drv.mem_alloc(64),
        DeviceMemoryPool().allocate(64),
    ]
    for obj in objects:
        obj.tag = ("tag", type(obj).__name__)
        assert obj.tag == ("tag", type(obj).__name__), type(obj)
    function.threads = 128  # neon's kernels carry their launch shape
    function.name = "twice"
    assert function.threads == 128 and function.get_attribute(drv.function_attribute.MAX_THREADS_PER_BLOCK) > 0


@gpu
def test_subclassed_driver_classes(ctx):
    class Device(drv.Device):  # reikna's
        def __init__(self, number):
            drv.Device.__init__(self, number)
            self.name = self.name()

    class IPCEvent(drv.Event):  # chainer's
        def __init__(self):
            super().__init__(drv.event_flags.INTERPROCESS | drv.event_flags.DISABLE_TIMING)

    class NamedStream(drv.Stream):
        def __init__(self, label):
            super().__init__()
            self.label = label

        def synchronize(self):
            self.synchronized = True
            return super().synchronize()

    device = Device(0)
    assert device.name == drv.Device(0).name() and device == drv.Device(0) and hash(device) == hash(drv.Device(0))
    event = IPCEvent()
    stream = NamedStream("copies")
    event.record(stream)
    stream.synchronize()
    assert stream.synchronized and stream.label == "copies" and event.query()
    x = gpuarray.to_gpu(np.arange(10, dtype=np.float32))
    SourceModule(SOURCE).get_function("twice")(x, np.int32(10), block=(32, 1, 1), grid=(1, 1), stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(x.get(), 2 * np.arange(10, dtype=np.float32))


@gpu
def test_subclassed_source_modules(ctx):
    class CachedModule(SourceModule):  # neon's: every parameter positionally
        def __init__(
            self,
            source,
            nvcc="nvcc",
            options=None,
            keep=False,
            no_extern_c=False,
            arch=None,
            code=None,
            cache_dir=None,
            include_dirs=[],
        ):
            super().__init__(source, nvcc, options, keep, no_extern_c, arch, code, cache_dir, include_dirs)

    class Launching(SourceModule):  # compyle's: any unknown name is a launcher
        def __getattr__(self, name):
            def launch(*args, **kwargs):
                return self.get_function(name)(*args, **kwargs)

            return launch

    for cls in (CachedModule, Launching):
        x = gpuarray.to_gpu(np.arange(5, dtype=np.float32))
        module = cls(SOURCE, no_extern_c=True)
        launcher = module.twice if cls is Launching else module.get_function("twice")
        launcher(x, np.int32(5), block=(32, 1, 1), grid=(1, 1))
        np.testing.assert_array_equal(x.get(), [0, 2, 4, 6, 8])


@gpu
def test_subclassed_kernels(ctx):
    class Axpy(ElementwiseKernel):
        def __init__(self):
            super().__init__("float a, float *x, float *y", "y[i] = a * x[i] + y[i]", "axpy")
            self.calls = 0

        def __call__(self, *args, **kwargs):
            self.calls += 1
            return super().__call__(*args, **kwargs)

    class Norm(ReductionKernel):  # pycbc's subclass calls the base positionally
        def __init__(self):
            ReductionKernel.__init__(
                self, np.float32, "0", "a+b", "x[i]*x[i]", "const float *x", "norm2", False, None, ""
            )
            self.shared_size = 512

    class Cumsum(InclusiveScanKernel):
        label = "cumsum"

    x = np.linspace(0, 1, 1001).astype(np.float32)
    y = np.linspace(1, 2, 1001).astype(np.float32)
    gx, gy = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    axpy = Axpy()
    axpy(np.float32(3), gx, gy)
    assert axpy.calls == 1
    np.testing.assert_allclose(gy.get(), 3 * x + y, rtol=1e-6)
    norm = Norm()
    assert norm.shared_size == 512 and norm.dtype_out == np.float32
    np.testing.assert_allclose(norm(gx).get(), np.dot(x.astype(np.float64), x), rtol=1e-5)
    scan = Cumsum(np.float32, "a+b")
    np.testing.assert_allclose(scan(gpuarray.to_gpu(x)).get(), np.cumsum(x), rtol=1e-4)
    exclusive = type("Exclusive", (ExclusiveScanKernel,), {})(np.int32, "a+b", "0")
    np.testing.assert_array_equal(
        exclusive(gpuarray.to_gpu(np.arange(7, dtype=np.int32))).get(), [0, 0, 1, 3, 6, 10, 15]
    )


@gpu
def test_subclassed_memory_pool(ctx):
    class CountingPool(DeviceMemoryPool):
        def __init__(self):
            super().__init__()
            self.requests = []

        def allocate(self, size):
            self.requests.append(size)
            return super().allocate(size)

    pool = CountingPool()
    a = gpuarray.to_gpu(np.arange(100, dtype=np.float64), allocator=pool.allocate)
    b = a * 2
    assert pool.requests == [800, 800] and b.allocator == pool.allocate
    np.testing.assert_array_equal(b.get(), 2 * np.arange(100))
    allocation = pool.allocate(16)
    allocation.device = drv.Device(0)  # chainer's
    assert allocation.device == drv.Device(0)
