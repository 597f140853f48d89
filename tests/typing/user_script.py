"""A user's program, as written against gpukit's public modules: tests/python/test_typing.py
type-checks it with ``mypy --strict`` (it is never run). Each line uses the API the way the
README, the examples and PyCUDA/numba/PyOpenCL programs do."""

import numpy as np
import numpy.typing as npt

import gpukit
import gpukit.cl as cl
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import cuda, cumath, curandom
from gpukit.compiler import DynamicSourceModule, SourceModule, compile
from gpukit.elementwise import ElementwiseKernel
from gpukit.reduction import ReductionKernel
from gpukit.scan import InclusiveScanKernel

SOURCE = """
__global__ void twice(float *a) { a[threadIdx.x] *= 2.0f; }
"""


def version() -> str:
    major, minor, revision = drv.get_version()
    return f"gpukit {gpukit.__version__}, CUDA {major}.{minor}.{revision}, driver {drv.get_driver_version()}"


def device_summary() -> list[str]:
    drv.init()
    lines = []
    for ordinal in range(drv.Device.count()):
        device = drv.Device(ordinal)
        threads = device.get_attribute(drv.device_attribute.MAX_THREADS_PER_BLOCK)
        lines.append(f"{device.name()}: {device.total_memory() // 2**20} MiB, {threads} threads per block")
    return lines


def kernels(context: drv.Context) -> npt.NDArray[np.float32]:
    module = SourceModule(SOURCE, options=["-O3"], arch="sm_90")
    twice = module.get_function("twice")
    host = np.arange(32, dtype=np.float32)
    device = gpuarray.to_gpu(host)
    stream = drv.Stream()
    twice(device, block=(32, 1, 1), grid=(1, 1), stream=stream)
    stream.synchronize()
    image: bytes = compile(SOURCE, target="ptx")
    assert image
    context.synchronize()
    return device.get()


def arrays() -> float:
    a = gpuarray.zeros((4, 8), np.float32)
    b = gpuarray.ones_like(a)
    c = gpuarray.empty((4, 8), dtype=np.float32)
    c.fill(3)
    d = (a + b) * c - 1
    e = cumath.sqrt(d.astype(np.float64))
    total = gpuarray.sum(e).get()
    flat = d.reshape(32).ravel()
    assert flat.dtype.itemsize == 4 and flat.shape == (32,)
    return float(total) + float(curandom.rand((16,)).get().sum())


def user_kernels() -> None:
    axpb = ElementwiseKernel("float a, float *x, float b, float *z", "z[i] = a * x[i] + b", "axpb")
    x = gpuarray.to_gpu(np.linspace(0, 1, 100, dtype=np.float32))
    z = gpuarray.empty_like(x)
    axpb(np.float32(2), x, np.float32(1), z)
    dot = ReductionKernel(
        np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]", arguments="const float *x, const float *y"
    )
    assert dot(x, z).get() >= 0
    InclusiveScanKernel(np.int32, "a+b")(gpuarray.arange(10, dtype=np.int32))


def numba_style() -> npt.NDArray[np.float64]:
    host = np.ones(10)
    device = cuda.to_device(host)
    out = cuda.device_array_like(device)
    out.copy_to_device(device)
    return out.copy_to_host()


def opencl() -> bytes:
    context = cl.create_some_context()
    queue = cl.CommandQueue(context)
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, size=64)
    host = np.zeros(16, np.float32)
    cl.enqueue_copy(queue, host, buffer)
    # The documented pattern: build() gives the Program, whose attributes are its kernels.
    program = cl.Program(context, "__kernel void scale(__global float *x) { x[get_global_id(0)] *= 2; }").build()
    done: cl.Event = program.scale(queue, host.shape, None, buffer)
    done.wait()
    flags: cl.mem_flags = buffer.flags
    group = program.scale.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, context.devices[0])
    assert isinstance(group, int)  # COMPILE_WORK_GROUP_SIZE and GLOBAL_WORK_SIZE give lists
    return host.tobytes() + bytes([flags & 0xFF, group & 0xFF])


def errors() -> str:
    try:
        DynamicSourceModule("__global__ void k() {}")
    except drv.CompileError as error:
        return error.stderr + error.command_line
    except cl.Error as error:
        return f"{error.routine}: {error.code}"
    except drv.LogicError:
        return "logic"
    return ""
