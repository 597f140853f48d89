"""The CUDA driver interface (PyCUDA's ``pycuda.driver``): versions, errors, constants,
devices, contexts, streams, events, memory, modules, kernels and the profiler switches."""
import abc

from gpukit._gpukit import (  # noqa: F401  (re-exported API)
    AlignedHostAllocation,
    ArgumentHandler,
    Array,
    ArrayDescriptor,
    ArrayDescriptor3D,
    Context,
    Device,
    DeviceAllocation,
    Error,
    Event,
    Function,
    GpukitWarning,
    Graph,
    GraphExec,
    GraphNode,
    In,
    InOut,
    Module,
    Out,
    CompileError,
    IPCMemoryHandle,
    LaunchError,
    LogicError,
    ManagedAllocation,
    Memcpy2D,
    Memcpy3D,
    Memcpy3DPeer,
    MemoryError,
    PagelockedHostAllocation,
    PrefaultedHostMemory,
    RegisteredHostMemory,
    RuntimeError,
    Stream,
    SurfaceObject,
    TextureObject,
    address_mode,
    array3d_flags,
    array_cubemap_face,
    array_format,
    capture_mode,
    capture_status,
    compute_mode,
    ctx_flags,
    device_attribute,
    driver_available,
    event_flags,
    filter_mode,
    func_cache,
    function_attribute,
    get_driver_version,
    graphics_register_flags,
    get_version,
    host_alloc_flags,
    init,
    initialize_profiler,
    ipc_mem_flags,
    jit_fallback,
    jit_input_type,
    jit_option,
    jit_target,
    limit,
    mem_alloc,
    mem_alloc_pitch,
    mem_attach_flags,
    mem_get_info,
    mem_get_ipc_handle,
    mem_host_register_flags,
    memory_type,
    module_from_buffer,
    module_from_file,
    memcpy_atoa,
    memcpy_atod,
    memcpy_atoh,
    memcpy_dtoa,
    memcpy_dtod,
    memcpy_dtod_async,
    memcpy_dtoh,
    memcpy_dtoh_async,
    memcpy_htoa,
    memcpy_htod,
    memcpy_htod_async,
    memcpy_peer,
    memcpy_peer_async,
    memset_d2d8,
    memset_d2d8_async,
    memset_d2d16,
    memset_d2d16_async,
    memset_d2d32,
    memset_d2d32_async,
    memset_d8,
    memset_d8_async,
    memset_d16,
    memset_d16_async,
    memset_d32,
    memset_d32_async,
    pointer_attribute,
    set_prefaulted_reuse_limit,
    shared_config,
    start_profiler,
    stop_profiler,
    stream_flags,
    texture_flags,
    update_capture_dependencies_flags,
)
from gpukit._arrays import (  # noqa: F401  (re-exported API)
    dtype_to_array_format,
    gpuarray_to_array,
    make_multichannel_2d_array,
    matrix_to_array,
    np_to_array,
)
from gpukit._graph import StreamCapture  # noqa: F401  (re-exported API)
from gpukit._memory import (  # noqa: F401  (re-exported API)
    PointerHolderBase,
    aligned_empty,
    aligned_empty_like,
    aligned_zeros,
    aligned_zeros_like,
    from_device,
    from_device_like,
    managed_empty,
    managed_empty_like,
    managed_zeros,
    managed_zeros_like,
    mem_alloc_like,
    pagelocked_empty,
    pagelocked_empty_like,
    pagelocked_zeros,
    pagelocked_zeros_like,
    prefaulted_empty,
    register_host_memory,
    to_device,
)

# The seed's older name for page-locked allocations.
HostAllocation = PagelockedHostAllocation


class HostPointer(abc.ABC):
    """PyCUDA's common base of host memory allocations: isinstance(x, HostPointer) holds for
    page-locked, aligned and registered host memory."""


for _host_memory in (PagelockedHostAllocation, AlignedHostAllocation, RegisteredHostMemory):
    HostPointer.register(_host_memory)
del _host_memory

# PyCUDA spells the texture flags as module constants (TRSF_READ_AS_INTEGER, ...).
for _flag in texture_flags:
    globals()["TRSF_" + _flag.name] = _flag
del _flag


# ---- debug builds

#: Whether kernels compiled from now on get device debug information; see set_debugging().
CUDA_DEBUGGING = False


def set_debugging(flag=True):
    """Compile kernels from now on with device debug information (``-G``, for cuda-gdb and
    compute-sanitizer), bypassing the compile cache; ``set_debugging(False)`` stops it.
    ``import gpukit.debug`` calls it, as ``import pycuda.debug`` does in PyCUDA."""
    global CUDA_DEBUGGING
    CUDA_DEBUGGING = bool(flag)
