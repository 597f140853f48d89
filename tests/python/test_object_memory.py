"""Host memory holding Python objects never reaches a device (issue 29, item 1).

The bytes of a numpy array of dtype object (or of a record with an object field, or of a
memoryview of either) are references: addresses in this process. Taken as raw host memory they
were uploaded as data, and a copy from the device wrote integers over them, so that the process
died with SIGSEGV at the next use of the array. Every way host memory enters or leaves gpukit
refuses them, with a TypeError that names the argument and says what it expects:

- the buffer protocol (memory_args.hpp's get_plain_buffer: driver copies, page-locking,
  structured copies, modules, kernel arguments by value and In/Out/InOut, gpukit.cl's buffers,
  copies and SVM), and
- device arrays (GPUArray, numba's DeviceNDArray): no device array has such a dtype, so nothing
  copies them to or from the host (to_gpu, set, get, copy_to_host, ...).

The calls refused before anything reaches a driver run here; the rest are marked gpu."""

import numpy as np
import pytest

import gpukit.cl as cl
import gpukit.cl.tools  # noqa: F401  (cl.tools.SVMAllocator)
import gpukit.cuda as cuda
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import _gpukit
from cl_devices import ctx as cl_ctx  # noqa: F401  (a fixture: one context per OpenCL device)

ADDRESS = 0x7F00_1234_5000  # a device address given as an integer: nothing is allocated

HELD = "holds Python objects"
EXPECTED = "expected memory of a numeric or other plain-data dtype"


def object_array():
    return np.array([None, "text", 3, None], dtype=object)


def record_array():
    return np.zeros(4, [("a", np.int32), ("b", object)])


def nested_record_array():
    return np.zeros(2, [("x", [("y", object)]), ("O", np.int64)])


def object_memoryview():
    return memoryview(np.array([1.5, None, 2], dtype=object))


HOST_OBJECTS = [object_array, record_array, nested_record_array, object_memoryview]
IDS = ["object array", "record with object", "nested record with object", "memoryview of objects"]
OBJECT_DTYPES = [np.dtype(object), np.dtype([("a", np.int32), ("b", object)]), np.dtype([("x", [("y", object)])])]
DTYPE_IDS = ["object", "record with object", "nested record with object"]


def untouched(value):
    """What `value` holds, to check that a refused call left it alone."""
    return [repr(x) for x in (value.obj if isinstance(value, memoryview) else value)]


def refuse(call, value, argument):
    before = untouched(value)
    with pytest.raises(TypeError, match=rf"^{argument}: the \w+ of (dtype|format) .* {HELD}.*{EXPECTED}"):
        call(value)
    assert untouched(value) == before


# ---- gpukit.driver: the buffer protocol -------------------------------------------------------

DRIVER_CALLS = [
    ("memcpy_htod", lambda v: drv.memcpy_htod(ADDRESS, v), r"memcpy_htod\(src\)"),
    ("memcpy_htod_async", lambda v: drv.memcpy_htod_async(ADDRESS, v), r"memcpy_htod_async\(src\)"),
    ("memcpy_dtoh", lambda v: drv.memcpy_dtoh(v, ADDRESS), r"memcpy_dtoh\(dest\)"),
    ("memcpy_dtoh_async", lambda v: drv.memcpy_dtoh_async(v, ADDRESS), r"memcpy_dtoh_async\(dest\)"),
    ("register_host_memory", lambda v: drv.register_host_memory(v), r"register_host_memory\(ary\)"),
    ("module_from_buffer", lambda v: drv.module_from_buffer(v), r"module_from_buffer\(buffer\)"),
    ("Memcpy2D.set_src_host", lambda v: drv.Memcpy2D().set_src_host(v), r"set_src_host\(buffer\)"),
    ("Memcpy2D.set_dst_host", lambda v: drv.Memcpy2D().set_dst_host(v), r"set_dst_host\(buffer\)"),
    ("Memcpy3D.set_src_host", lambda v: drv.Memcpy3D().set_src_host(v), r"set_src_host\(buffer\)"),
    ("Memcpy3D.set_dst_host", lambda v: drv.Memcpy3D().set_dst_host(v), r"set_dst_host\(buffer\)"),
    # By value: numpy arrays and records say it by their dtype (test_pycuda_arguments.py);
    # other buffers by their format.
    ("call by value", lambda v: _gpukit._kernel_argument_bytes(np.int32(1), v), "argument 1"),
    ("prepared call by value", lambda v: _gpukit._prepared_argument_bytes("i32s", np.int32(1), v), "argument 1"),
]


def takes(name, make):
    if name == "register_host_memory":
        return make is not object_memoryview  # it takes numpy arrays only
    return make is object_memoryview if "by value" in name else True


@pytest.mark.parametrize(
    "call, argument, make",
    [
        pytest.param(call, argument, make, id=f"{name}-{make_id}")
        for name, call, argument in DRIVER_CALLS
        for make, make_id in zip(HOST_OBJECTS, IDS)
        if takes(name, make)
    ],
)
def test_driver_calls_refuse_memory_holding_objects(call, argument, make):
    refuse(call, make(), argument)


@pytest.mark.parametrize("make", HOST_OBJECTS[:3], ids=IDS[:3])
@pytest.mark.parametrize("lock", [cuda.pinned, cuda.mapped], ids=["pinned", "mapped"])
def test_page_locking_refuses_arrays_holding_objects(lock, make):
    value = make()

    def enter(v):
        with lock(v):
            pass

    refuse(enter, value, r"register_host_pages\(arrays\)")


def test_plain_memory_is_still_taken():
    # The check reads the buffer's format: plain data of every kind passes it and reaches the
    # driver (no driver here: the error is the driver's), datetime64 too, which has no format.
    for value in (
        np.arange(4.0),
        np.zeros(3, [("a", np.int32), ("O", np.float64)]),
        b"bytes",
        bytearray(8),
        memoryview(np.zeros(4, np.int16)),
        np.zeros(2, "M8[s]"),
        np.array(["ab"]),
        np.zeros(2, np.complex64),
    ):
        assert _gpukit._kernel_argument_bytes(value) == [
            bytes(memoryview(value).cast("B")) if not isinstance(value, np.ndarray) else value.tobytes()
        ]


# ---- device arrays: GPUArray, numba's DeviceNDArray, PyCUDA's names ------------------------


def array_of(dtype):
    return np.zeros(4, dtype)


DEVICE_ARRAY_CALLS = [
    lambda d: gpuarray.GPUArray((4,), d, gpudata=ADDRESS),
    lambda d: gpuarray.to_gpu(array_of(d)),
    lambda d: gpuarray.to_gpu_async(array_of(d)),
    lambda d: gpuarray.GPUArray((6,), np.int64, gpudata=ADDRESS).view(d),
    lambda d: setattr(gpuarray.GPUArray((6,), np.float64, gpudata=ADDRESS), "dtype", d),
    lambda d: cuda.to_device(array_of(d)),
    lambda d: cuda.device_array(4, d),
    lambda d: cuda.device_array_like(array_of(d)),
    lambda d: cuda.as_cuda_array(
        type(
            "Foreign",
            (),
            {
                "__cuda_array_interface__": {
                    "shape": (4,),
                    "typestr": np.dtype(d).str,
                    "descr": np.dtype(d).descr,
                    "data": (ADDRESS, False),
                    "version": 3,
                }
            },
        )()
    ),
]
CALL_IDS = [
    "GPUArray",
    "to_gpu",
    "to_gpu_async",
    "view",
    "dtype=",
    "to_device",
    "device_array",
    "device_array_like",
    "as_cuda_array",
]


@pytest.mark.parametrize("dtype", OBJECT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("call", DEVICE_ARRAY_CALLS, ids=CALL_IDS)
def test_no_device_array_holds_python_objects(call, dtype):
    with pytest.raises(TypeError, match=rf"dtype .* {HELD}.*device arrays take numeric or other plain-data dtypes"):
        call(dtype)


def test_pycuda_names_refuse_them_too():
    import gpukit.pycuda_compat  # noqa: F401  (makes `import pycuda` give gpukit)
    import pycuda.gpuarray

    with pytest.raises(TypeError, match=HELD):
        pycuda.gpuarray.to_gpu(object_array())
    with pytest.raises(TypeError, match=HELD):
        pycuda.gpuarray.GPUArray((4,), object, gpudata=ADDRESS)


@pytest.mark.parametrize(
    "get",
    [
        lambda a, host: a.get(ary=host),
        lambda a, host: a.get_async(ary=host),
        lambda a, host: a.set(host),
        lambda a, host: a.set_async(host),
    ],
    ids=["get", "get_async", "set", "set_async"],
)
def test_copies_of_plain_device_arrays_refuse_object_host_arrays(get):
    # A device array has a plain dtype, which an object array never equals.
    a = gpuarray.GPUArray((4,), np.int64, gpudata=ADDRESS)
    host = object_array()
    with pytest.raises((TypeError, ValueError), match="object"):
        get(a, host)
    assert host.tolist() == [None, "text", 3, None]


# ---- host memory gpukit allocates: raw bytes, never valid references ----------------------

HOST_ALLOCATIONS = [
    ("aligned_empty", lambda d: drv.aligned_empty((4,), d)),
    ("aligned_zeros", lambda d: drv.aligned_zeros((4,), d)),
    ("aligned_empty_like", lambda d: drv.aligned_empty_like(np.zeros(4, d))),
    ("prefaulted_empty", lambda d: drv.prefaulted_empty((1 << 20,), d)),
    ("pagelocked_empty", lambda d: drv.pagelocked_empty((4,), d)),
    ("pagelocked_zeros_like", lambda d: drv.pagelocked_zeros_like(np.zeros(4, d))),
    ("managed_empty", lambda d: drv.managed_empty((4,), d)),
    ("pinned_array", lambda d: cuda.pinned_array(4, d)),
    ("mapped_array", lambda d: cuda.mapped_array(4, d)),
]


@pytest.mark.parametrize("dtype", OBJECT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name, allocate", HOST_ALLOCATIONS, ids=[name for name, _ in HOST_ALLOCATIONS])
def test_host_allocations_refuse_dtypes_holding_objects(name, allocate, dtype):
    # numpy would read the uninitialised (or device-written) bytes as object references.
    with pytest.raises(
        TypeError,
        match=rf"^\w+\(dtype\): dtype .* {HELD}, but this memory holds raw bytes; "
        r"expected a numeric or other plain-data dtype",
    ):
        allocate(dtype)


# ---- gpukit.cl (PoCL here; every OpenCL device on the GPU machine) -------------------------


@pytest.fixture
def queue(cl_ctx):  # noqa: F811
    return cl.CommandQueue(cl_ctx)


def svm_of(ctx, queue, nbytes):
    if not ctx.devices[0].svm_capabilities:
        pytest.skip(f"device {ctx.devices[0].name!r} reports no SVM capabilities")
    return cl.tools.SVMAllocator(ctx, queue=queue)(nbytes)


CL_CALLS = [
    (
        lambda ctx, q, v: cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=v),
        r"Buffer\(hostbuf\)",
    ),
    (
        lambda ctx, q, v: cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, hostbuf=v),
        r"Buffer\(hostbuf\)",
    ),
    (lambda ctx, q, v: cl.enqueue_copy(q, cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64), v), r"enqueue_copy\(src\)"),
    (lambda ctx, q, v: cl.enqueue_copy(q, v, cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)), r"enqueue_copy\(dest\)"),
    (
        lambda ctx, q, v: cl.enqueue_copy(q, cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64), v, is_blocking=False),
        r"enqueue_copy\(src\)",
    ),
    (
        lambda ctx, q, v: cl.enqueue_copy(q, v, cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64), is_blocking=False),
        r"enqueue_copy\(dest\)",
    ),
    (lambda ctx, q, v: cl.enqueue_copy(q, svm_of(ctx, q, 64), v), r"enqueue_copy\(src\)"),
    (lambda ctx, q, v: cl.enqueue_copy(q, v, svm_of(ctx, q, 64)), r"enqueue_copy\(dest\)"),
]


@pytest.mark.opencl
@pytest.mark.parametrize("make", HOST_OBJECTS, ids=IDS)
@pytest.mark.parametrize(
    "call, argument",
    CL_CALLS,
    ids=["COPY_HOST_PTR", "USE_HOST_PTR", "write", "read", "write async", "read async", "to SVM", "from SVM"],
)
def test_opencl_refuses_memory_holding_objects(cl_ctx, queue, call, argument, make):  # noqa: F811
    refuse(lambda v: call(cl_ctx, queue, v), make(), argument)
    queue.finish()


@pytest.mark.opencl
@pytest.mark.parametrize("dtype", OBJECT_DTYPES[1:], ids=DTYPE_IDS[1:])
def test_opencl_kernel_refuses_records_holding_objects_by_value(cl_ctx, dtype):  # noqa: F811
    source = "typedef struct { int a; long b; } S; __kernel void st(__global int *o, S s) { o[0] = s.a; }"
    kernel = cl.Program(cl_ctx, source).build().st
    with pytest.raises(TypeError, match=rf"argument 1 \('s', S\) of kernel 'st': a numpy scalar of dtype .* {HELD}"):
        kernel.set_arg(1, np.zeros((), dtype)[()])


# ---- on a GPU -------------------------------------------------------------------------------

KERNEL = """
extern "C" __global__ void twice(long long *x, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        x[k] *= 2;
}
"""


@pytest.mark.gpu
@pytest.mark.parametrize("make", HOST_OBJECTS[:3], ids=IDS[:3])
def test_copies_from_device_memory_leave_object_arrays_alone(ctx, make):
    # The crash of the issue: device bytes written over the object references.
    value = make()
    memory = drv.to_device(np.full(value.nbytes // 8, 0x1234, np.int64))
    stream = drv.Stream()
    for call, argument in [
        (lambda v: drv.memcpy_dtoh(v, memory), r"memcpy_dtoh\(dest\)"),
        (lambda v: drv.memcpy_dtoh_async(v, memory, stream), r"memcpy_dtoh_async\(dest\)"),
        (lambda v: drv.memcpy_htod(memory, v), r"memcpy_htod\(src\)"),
    ]:
        refuse(call, value, argument)
    stream.synchronize()


@pytest.mark.gpu
@pytest.mark.parametrize("handler", [drv.In, drv.Out, drv.InOut])
@pytest.mark.parametrize("make", HOST_OBJECTS[:3], ids=IDS[:3])
def test_in_out_inout_refuse_object_arrays(ctx, handler, make):
    from gpukit.compiler import SourceModule

    twice = SourceModule(KERNEL, no_extern_c=True).get_function("twice")
    value = make()
    refuse(lambda v: twice(handler(v), np.int32(4), block=(4, 1, 1)), value, "argument 0")


@pytest.mark.gpu
@pytest.mark.parametrize("make", HOST_OBJECTS[:3], ids=IDS[:3])
def test_cuda_array_copies_refuse_object_arrays(ctx, make):
    descriptor = drv.ArrayDescriptor()
    descriptor.width, descriptor.height, descriptor.format, descriptor.num_channels = (
        64,
        1,
        drv.array_format.UNSIGNED_INT8,
        1,
    )
    ary = drv.Array(descriptor)
    value = make()
    refuse(lambda v: drv.memcpy_htoa(ary, 0, v), value, r"memcpy_htoa\(src\)")
    refuse(lambda v: drv.memcpy_atoh(v, ary, 0), value, r"memcpy_atoh\(dest\)")


@pytest.mark.gpu
def test_page_locked_pool_refuses_dtypes_holding_objects(ctx):
    import gpukit.tools as tools

    with pytest.raises(TypeError, match=rf"PageLockedMemoryPool.allocate\(dtype\): dtype object {HELD}"):
        tools.PageLockedMemoryPool().allocate((4,), object)


@pytest.mark.gpu
def test_plain_copies_still_work(ctx):
    # The refusals above are of the dtype only: the same calls move plain data.
    from gpukit.compiler import SourceModule

    twice = SourceModule(KERNEL, no_extern_c=True).get_function("twice")
    host = np.arange(4, dtype=np.int64)
    twice(drv.InOut(host), np.int32(4), block=(4, 1, 1))
    np.testing.assert_array_equal(host, [0, 2, 4, 6])
    a = gpuarray.to_gpu(np.zeros(4, [("a", np.int32), ("b", np.float64)]))
    out = np.empty(4, a.dtype)
    a.get(ary=out)
    assert out.tolist() == [(0, 0.0)] * 4
