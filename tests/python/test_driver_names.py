"""The rest of PyCUDA's pycuda.driver names: mem_alloc_like, gpuarray_to_array,
dtype_to_array_format, HostPointer, Context.attach, the constant classes memory_type,
jit_fallback, graphics_register_flags and array_cubemap_face, and what kernels take as
arguments: managed numpy arrays, structured arrays through In/Out/InOut, record scalars."""

import numpy as np
import pytest

import gpukit.driver as drv

# Names of PyCUDA's documented driver API (and driver.py) that exist on CUDA 12 and 13.
PYCUDA_DRIVER_NAMES = """
    Error CompileError MemoryError LogicError LaunchError RuntimeError
    ctx_flags event_flags device_attribute pointer_attribute function_attribute func_cache shared_config
    array_format array3d_flags address_mode filter_mode memory_type compute_mode jit_option jit_target
    jit_fallback jit_input_type host_alloc_flags mem_attach_flags mem_host_register_flags limit ipc_mem_flags
    graphics_register_flags array_cubemap_face
    get_version get_driver_version init Device Context Stream Event
    mem_get_info mem_alloc mem_alloc_like to_device from_device from_device_like mem_alloc_pitch DeviceAllocation
    mem_get_ipc_handle IPCMemoryHandle PointerHolderBase
    pagelocked_empty pagelocked_zeros pagelocked_empty_like pagelocked_zeros_like PagelockedHostAllocation
    HostAllocation aligned_empty aligned_zeros aligned_empty_like aligned_zeros_like AlignedHostAllocation
    register_host_memory RegisteredHostMemory HostPointer
    managed_empty managed_zeros managed_empty_like managed_zeros_like ManagedAllocation
    ArrayDescriptor ArrayDescriptor3D Array TRSF_READ_AS_INTEGER TRSF_NORMALIZED_COORDINATES
    matrix_to_array np_to_array gpuarray_to_array make_multichannel_2d_array dtype_to_array_format
    memset_d8 memset_d16 memset_d32 memset_d2d8 memset_d2d16 memset_d2d32
    memcpy_htod memcpy_htod_async memcpy_dtoh memcpy_dtoh_async memcpy_dtod memcpy_dtod_async
    memcpy_peer memcpy_peer_async memcpy_dtoa memcpy_atod memcpy_htoa memcpy_atoh memcpy_atoa
    Memcpy2D Memcpy3D Memcpy3DPeer Module module_from_file module_from_buffer Function
    ArgumentHandler In Out InOut initialize_profiler start_profiler stop_profiler
    set_debugging CUDA_DEBUGGING
""".split()


def test_pycuda_driver_names_exist():
    missing = [name for name in PYCUDA_DRIVER_NAMES if not hasattr(drv, name)]
    assert missing == []


def test_new_constant_classes_come_from_the_header():
    assert [m.name for m in drv.memory_type] == ["HOST", "DEVICE", "ARRAY", "UNIFIED"]
    assert drv.memory_type.UNIFIED == 4
    assert (drv.jit_fallback.PREFER_PTX, drv.jit_fallback.PREFER_BINARY) == (0, 1)
    flags = drv.graphics_register_flags
    assert (flags.NONE, flags.READ_ONLY, flags.WRITE_DISCARD, flags.SURFACE_LDST, flags.TEXTURE_GATHER) == (
        0,
        1,
        2,
        4,
        8,
    )
    assert [m.name for m in drv.array_cubemap_face] == [
        "POSITIVE_X",
        "NEGATIVE_X",
        "POSITIVE_Y",
        "NEGATIVE_Y",
        "POSITIVE_Z",
        "NEGATIVE_Z",
    ]


def test_dtype_to_array_format_as_pycuda():
    f = drv.array_format
    assert [
        drv.dtype_to_array_format(t)
        for t in (np.uint8, np.uint16, np.uint32, np.int8, np.int16, np.int32, np.float32, np.float16)
    ] == [
        f.UNSIGNED_INT8,
        f.UNSIGNED_INT16,
        f.UNSIGNED_INT32,
        f.SIGNED_INT8,
        f.SIGNED_INT16,
        f.SIGNED_INT32,
        f.FLOAT,
        f.HALF,
    ]
    for dtype in (np.float64, np.complex64, np.int64, np.bool_):
        with pytest.raises(TypeError, match=f"cannot convert dtype {np.dtype(dtype)}"):
            drv.dtype_to_array_format(dtype)


def test_host_pointer_is_the_base_of_host_allocations():
    assert isinstance(drv.aligned_empty(16, np.uint8).base, drv.HostPointer)
    assert issubclass(drv.PagelockedHostAllocation, drv.HostPointer)
    assert issubclass(drv.RegisteredHostMemory, drv.HostPointer)
    assert not issubclass(drv.DeviceAllocation, drv.HostPointer)


def test_context_attach_takes_no_flags():
    with pytest.raises(drv.LogicError, match="no flags"):
        drv.Context.attach(1)
    with pytest.raises(TypeError):
        drv.Context.attach(flags=0, extra=1)


class DeviceData:
    """Device memory behind __cuda_array_interface__, with the strides one asks for."""

    def __init__(self, shape, dtype, strides=None, address=0):
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": np.dtype(dtype).str,
            "strides": strides,
            "data": (address, False),
            "version": 3,
        }


def test_gpuarray_to_array_refuses_bad_input_before_the_driver():
    with pytest.raises(ValueError, match="order"):
        drv.gpuarray_to_array(DeviceData((2, 2), np.float32), "c")
    with pytest.raises(ValueError, match="2-D or 3-D"):
        drv.gpuarray_to_array(DeviceData((4,), np.float32), "C")
    with pytest.raises(ValueError, match="C-contiguous"):
        drv.gpuarray_to_array(DeviceData((3, 4), np.float32, strides=(4, 12)), "C")
    with pytest.raises(ValueError, match="Fortran-contiguous"):
        drv.gpuarray_to_array(DeviceData((3, 4), np.float32), "F")  # no strides: C order
    with pytest.raises(ValueError, match="C-contiguous"):
        drv.gpuarray_to_array(DeviceData((3, 4), np.float32, strides=(32, 4)), "C")  # a column slice
    with pytest.raises(ValueError, match="no CUDA array format"):
        drv.gpuarray_to_array(DeviceData((3, 4), np.int64), "C")
    with pytest.raises(TypeError):
        drv.gpuarray_to_array(DeviceData((3, 4), np.float32), "C", allowSurfaceBind=True, surface=True)


# ---- on the GPU


def kernel(source, name):
    from gpukit.compiler import SourceModule

    return SourceModule(source).get_function(name)


@pytest.mark.gpu
def test_mem_alloc_like(ctx):
    a = np.arange(37, dtype=np.float64)
    memory = drv.mem_alloc_like(a)
    assert len(memory) == a.nbytes
    drv.memcpy_htod(memory, a)
    assert (drv.from_device_like(memory, a) == a).all()


@pytest.mark.gpu
def test_int_of_a_managed_allocation_is_its_device_pointer(ctx):
    a = drv.managed_zeros(10, np.float32)
    assert int(a.base) == a.base.get_device_pointer() == a.__array_interface__["data"][0]
    assert a.base.__index__() == int(a.base)


@pytest.mark.gpu
def test_managed_arrays_pass_their_address_to_kernels(ctx):
    doublify = kernel("__global__ void doublify(float *a) { a[threadIdx.x] *= 2; }", "doublify")
    a = drv.managed_empty(33, np.float32, mem_flags=drv.mem_attach_flags.GLOBAL)
    a[:] = np.arange(1, 34)
    doublify(a, block=(33, 1, 1))
    drv.Context.synchronize()
    assert a.tolist() == (2 * np.arange(1, 34)).tolist()
    doublify(a[30:], block=(3, 1, 1))  # a view passes its own first element
    doublify(a.base, block=(1, 1, 1))  # and the allocation its start
    drv.Context.synchronize()
    expected = 2 * np.arange(1, 34)
    expected[30:] *= 2
    expected[0] *= 2
    assert a.tolist() == expected.tolist()
    doublify.prepare("P")
    doublify.prepared_call((1, 1), (2, 1, 1), a[1:])
    drv.Context.synchronize()
    expected[1:3] *= 2
    assert a.tolist() == expected.tolist()


@pytest.mark.gpu
def test_plain_numpy_arrays_pass_by_value_not_as_pointers(ctx):
    # As in PyCUDA: a numpy array that is not managed memory is its bytes, so 16 bytes do not
    # fit the kernel's pointer (with the kernel's parameter sizes known, CUDA 12.4+).
    doublify = kernel("__global__ void doublify(float *a) { a[threadIdx.x] *= 2; }", "doublify")
    if doublify.param_sizes is not None:
        with pytest.raises(drv.LogicError, match="argument 0 is 16 bytes, but parameter 0 of the kernel is 8 bytes"):
            doublify(np.zeros(4, np.float32), block=(4, 1, 1))
        with pytest.raises(drv.LogicError, match="passed by value"):
            doublify(drv.pagelocked_zeros(4, np.float32), block=(4, 1, 1))
    doublify.prepare("P")
    with pytest.raises(TypeError, match="format 'P'"):
        doublify.prepared_call((1, 1), (4, 1, 1), np.zeros(4, np.float32))


PARTICLE = np.dtype([("position", np.float32, 3), ("id", np.int32), ("mass", np.float64)], align=True)
PARTICLE_C = """
struct particle { float position[3]; int id; double mass; };
extern "C" __global__ void weigh(particle *p, particle extra, double *total)
{
    const int i = threadIdx.x;
    p[i].mass = p[i].mass * 2 + extra.mass;
    p[i].id = p[i].id + extra.id;
    total[i] = p[i].position[0] + p[i].position[2];
}
"""


@pytest.mark.gpu
def test_structured_arrays_and_record_scalars_as_arguments(ctx):
    from gpukit.compiler import SourceModule

    weigh = SourceModule(PARTICLE_C, no_extern_c=True).get_function("weigh")
    assert PARTICLE.itemsize == 24  # float[3] and int in 16 bytes, then the double
    particles = np.zeros(5, PARTICLE)
    particles["position"] = np.arange(15, dtype=np.float32).reshape(5, 3)
    particles["id"] = np.arange(5) * 10
    particles["mass"] = np.linspace(1, 2, 5)
    before = particles.copy()
    extra = np.zeros((), PARTICLE)[()]  # a numpy record scalar (np.void), passed by value
    extra["id"], extra["mass"] = 3, 0.5
    assert isinstance(extra, np.void)
    total = np.empty(5, np.float64)
    weigh(drv.InOut(particles), extra, drv.Out(total), block=(5, 1, 1))
    assert particles["mass"].tolist() == (before["mass"] * 2 + 0.5).tolist()
    assert particles["id"].tolist() == (before["id"] + 3).tolist()
    assert (particles["position"] == before["position"]).all()
    assert total.tolist() == (before["position"][:, 0] + before["position"][:, 2]).astype(np.float64).tolist()
    # In() leaves the host copy alone.
    weigh(drv.In(particles), extra, drv.Out(total), block=(5, 1, 1))
    assert particles["id"].tolist() == (before["id"] + 3).tolist()


def read_array(ary, shape, dtype):
    out = np.empty(shape, dtype)
    drv.memcpy_atoh(out, ary, 0)
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("surface", [False, True])
def test_gpuarray_to_array_copies_device_data(ctx, surface):
    import gpukit.gpuarray as gpuarray

    rng = np.random.default_rng(5)
    a = rng.standard_normal((7, 13)).astype(np.float32)
    ary = drv.gpuarray_to_array(gpuarray.to_gpu(a), "C", allowSurfaceBind=surface)
    d = ary.get_descriptor_3d()
    assert (d.width, d.height, d.depth) == (13, 7, 0)
    assert bool(d.flags & drv.array3d_flags.SURFACE_LDST) == surface
    assert (read_array(ary, (7, 13), np.float32) == a).all()
    f = np.asfortranarray(a)
    keep = drv.to_device(f.ravel(order="K"))  # device memory the interface points into
    device_f = DeviceData(f.shape, f.dtype, f.strides, int(keep))
    ary_f = drv.gpuarray_to_array(device_f, "F", allowSurfaceBind=surface)
    assert (ary_f.get_descriptor_3d().width, ary_f.get_descriptor_3d().height) == (7, 13)
    assert (read_array(ary_f, (13, 7), np.float32) == a.T).all()
    # Same result as np_to_array from the host copy.
    assert (read_array(ary, (7, 13), np.float32) == read_array(drv.np_to_array(a, "C"), (7, 13), np.float32)).all()


@pytest.mark.gpu
def test_gpuarray_to_array_3d_and_double(ctx):
    import gpukit.gpuarray as gpuarray

    a = np.arange(3 * 4 * 5, dtype=np.int16).reshape(3, 4, 5)
    ary = drv.gpuarray_to_array(gpuarray.to_gpu(a), "C")
    assert ary.get_descriptor_3d().depth == 3
    assert (read_array(ary, a.shape, np.int16) == a).all()
    d = np.linspace(-1, 1, 12).reshape(3, 4)
    ary_d = drv.gpuarray_to_array(gpuarray.to_gpu(d), "C")  # float64 as two int32 channels
    assert ary_d.get_descriptor().num_channels == 2
    assert (read_array(ary_d, d.shape, np.float64) == d).all()


@pytest.mark.gpu
def test_context_attach_is_a_handle_to_the_current_context(ctx):
    attached = drv.Context.attach()
    assert attached == ctx and drv.Context.get_current() == ctx
    attached.detach()  # gives up that handle (popping the context, as detach() of the current one does)
    ctx.push()  # the context itself lives on while ctx holds it
    drv.mem_alloc(8).free()


def test_constants_print_as_their_names_as_in_pycuda():
    # kernel_tuner keys Device.get_attributes() by str(attribute) and looks names up in it.
    assert str(drv.device_attribute.MAX_THREADS_PER_BLOCK) == "MAX_THREADS_PER_BLOCK"
    assert f"{drv.function_attribute.NUM_REGS}" == "NUM_REGS"
    assert int(drv.device_attribute.WARP_SIZE) == 10 and "%d" % drv.device_attribute.WARP_SIZE == "10"
    assert {str(a): a for a in drv.device_attribute}["WARP_SIZE"] is drv.device_attribute.WARP_SIZE
