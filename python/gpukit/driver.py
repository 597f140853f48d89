"""The CUDA driver interface (PyCUDA's ``pycuda.driver``): versions, errors, constants,
devices, contexts, streams, events, memory, modules, kernels and the profiler switches."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

from gpukit._gpukit import (  # the re-exported API (`X as X` marks each for type checkers)
    AlignedHostAllocation as AlignedHostAllocation,
    Array as Array,
    ArrayDescriptor as ArrayDescriptor,
    ArrayDescriptor3D as ArrayDescriptor3D,
    Context as Context,
    Device as Device,
    DeviceAllocation as DeviceAllocation,
    Error as Error,
    Event as Event,
    Function as Function,
    GpukitWarning as GpukitWarning,
    Graph as Graph,
    GraphExec as GraphExec,
    GraphNode as GraphNode,
    Module as Module,
    PooledDeviceAllocation as PooledDeviceAllocation,
    PooledHostAllocation as PooledHostAllocation,
    CompileError as CompileError,
    IPCMemoryHandle as IPCMemoryHandle,
    LaunchError as LaunchError,
    LogicError as LogicError,
    ManagedAllocation as ManagedAllocation,
    Memcpy2D as Memcpy2D,
    Memcpy3D as Memcpy3D,
    Memcpy3DPeer as Memcpy3DPeer,
    MemoryError as MemoryError,
    PagelockedHostAllocation as PagelockedHostAllocation,
    PrefaultedHostMemory as PrefaultedHostMemory,
    RegisteredHostMemory as RegisteredHostMemory,
    RuntimeError as RuntimeError,
    Stream as Stream,
    SurfaceObject as SurfaceObject,
    TextureObject as TextureObject,
    address_mode as address_mode,
    array3d_flags as array3d_flags,
    array_cubemap_face as array_cubemap_face,
    array_format as array_format,
    capture_mode as capture_mode,
    capture_status as capture_status,
    compute_mode as compute_mode,
    ctx_flags as ctx_flags,
    device_attribute as device_attribute,
    driver_available as driver_available,
    event_flags as event_flags,
    filter_mode as filter_mode,
    func_cache as func_cache,
    function_attribute as function_attribute,
    graphics_map_flags as graphics_map_flags,
    get_driver_version as get_driver_version,
    graphics_register_flags as graphics_register_flags,
    get_version as get_version,
    host_alloc_flags as host_alloc_flags,
    init as init,
    initialize_profiler as initialize_profiler,
    ipc_mem_flags as ipc_mem_flags,
    jit_fallback as jit_fallback,
    jit_input_type as jit_input_type,
    jit_option as jit_option,
    jit_target as jit_target,
    limit as limit,
    mem_alloc as mem_alloc,
    mem_alloc_pitch as mem_alloc_pitch,
    mem_attach_flags as mem_attach_flags,
    mem_get_info as mem_get_info,
    mem_get_ipc_handle as mem_get_ipc_handle,
    mem_host_register_flags as mem_host_register_flags,
    memory_type as memory_type,
    module_from_buffer as module_from_buffer,
    module_from_file as module_from_file,
    memcpy_atoa as memcpy_atoa,
    memcpy_atod as memcpy_atod,
    memcpy_atoh as memcpy_atoh,
    memcpy_dtoa as memcpy_dtoa,
    memcpy_dtod as memcpy_dtod,
    memcpy_dtod_async as memcpy_dtod_async,
    memcpy_dtoh as memcpy_dtoh,
    memcpy_dtoh_async as memcpy_dtoh_async,
    memcpy_htoa as memcpy_htoa,
    memcpy_htod as memcpy_htod,
    memcpy_htod_async as memcpy_htod_async,
    memcpy_peer as memcpy_peer,
    memcpy_peer_async as memcpy_peer_async,
    memset_d2d8 as memset_d2d8,
    memset_d2d8_async as memset_d2d8_async,
    memset_d2d16 as memset_d2d16,
    memset_d2d16_async as memset_d2d16_async,
    memset_d2d32 as memset_d2d32,
    memset_d2d32_async as memset_d2d32_async,
    memset_d8 as memset_d8,
    memset_d8_async as memset_d8_async,
    memset_d16 as memset_d16,
    memset_d16_async as memset_d16_async,
    memset_d32 as memset_d32,
    memset_d32_async as memset_d32_async,
    pointer_attribute as pointer_attribute,
    set_prefaulted_reuse_limit as set_prefaulted_reuse_limit,
    shared_config as shared_config,
    start_profiler as start_profiler,
    stop_profiler as stop_profiler,
    stream_flags as stream_flags,
    texture_flags as texture_flags,
    update_capture_dependencies_flags as update_capture_dependencies_flags,
)
from gpukit._cuda_arrays import (
    dtype_to_array_format as dtype_to_array_format,
    gpuarray_to_array as gpuarray_to_array,
    make_multichannel_2d_array as make_multichannel_2d_array,
    matrix_to_array as matrix_to_array,
    np_to_array as np_to_array,
)
from gpukit._graph import StreamCapture as StreamCapture
from gpukit._memory import (
    PointerHolderBase as PointerHolderBase,
    aligned_empty as aligned_empty,
    aligned_empty_like as aligned_empty_like,
    aligned_zeros as aligned_zeros,
    aligned_zeros_like as aligned_zeros_like,
    from_device as from_device,
    from_device_like as from_device_like,
    managed_empty as managed_empty,
    managed_empty_like as managed_empty_like,
    managed_zeros as managed_zeros,
    managed_zeros_like as managed_zeros_like,
    mem_alloc_like as mem_alloc_like,
    pagelocked_empty as pagelocked_empty,
    pagelocked_empty_like as pagelocked_empty_like,
    pagelocked_zeros as pagelocked_zeros,
    pagelocked_zeros_like as pagelocked_zeros_like,
    prefaulted_empty as prefaulted_empty,
    register_host_memory as register_host_memory,
    to_device as to_device,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from gpukit._typing import StreamLike

# ---- In / Out / InOut: host arrays copied through device memory around a kernel call


class ArgumentHandler:
    """PyCUDA's kernel-argument protocol: Function.__call__ passes
    ``int(handler.get_device_alloc())`` as a pointer, calls ``pre_call(stream)`` before the
    launch and, where the handler has one, ``post_call(stream)`` after it (once the context
    has finished the kernel when no stream is given). Subclasses may define ``__init__``
    without calling this one, as long as they define get_device_alloc()."""

    def __init__(self, ary: npt.NDArray[Any]) -> None:
        self.array = ary
        self.dev_alloc: DeviceAllocation | None = None

    def get_device_alloc(self) -> DeviceAllocation:
        """Device memory of ``array.nbytes`` bytes, allocated on first use and kept."""
        if self.dev_alloc is None:
            try:
                self.dev_alloc = mem_alloc_like(self.array)
            except AttributeError:
                raise TypeError(
                    f"{type(self).__name__}: cannot size device memory for a "
                    f"{type(self.array).__name__}; expected an array with nbytes"
                ) from None
        return self.dev_alloc

    def pre_call(self, stream: StreamLike | None) -> None:
        """Called before the launch; the base class does nothing."""


class In(ArgumentHandler):
    """Copy `array` to the device before the call."""

    def pre_call(self, stream: StreamLike | None) -> None:
        memcpy_htod(self.get_device_alloc(), self.array)


class Out(ArgumentHandler):
    """Copy the device data back into `array` after the call."""

    def post_call(self, stream: StreamLike | None) -> None:
        memcpy_dtoh(self.array, self.get_device_alloc())


class InOut(In, Out):
    """Copy `array` to the device before the call and back after it."""


# The seed's older name for page-locked allocations.
HostAllocation = PagelockedHostAllocation


class HostPointer(abc.ABC):
    """PyCUDA's common base of host memory allocations: isinstance(x, HostPointer) holds for
    page-locked, aligned and registered host memory."""


for _host_memory in (PagelockedHostAllocation, AlignedHostAllocation, RegisteredHostMemory):
    HostPointer.register(_host_memory)
del _host_memory

# PyCUDA spells the texture flags as module constants (TRSF_READ_AS_INTEGER, ...), one per
# member of texture_flags.
TRSF_READ_AS_INTEGER = texture_flags.READ_AS_INTEGER
TRSF_NORMALIZED_COORDINATES = texture_flags.NORMALIZED_COORDINATES
TRSF_SRGB = texture_flags.SRGB
TRSF_DISABLE_TRILINEAR_OPTIMIZATION = texture_flags.DISABLE_TRILINEAR_OPTIMIZATION
TRSF_SEAMLESS_CUBEMAP = texture_flags.SEAMLESS_CUBEMAP


# ---- debug builds

#: Whether kernels compiled from now on get device debug information; see set_debugging().
CUDA_DEBUGGING = False


def set_debugging(flag: bool = True) -> None:
    """Compile kernels from now on with device debug information (``-G``, for cuda-gdb and
    compute-sanitizer), bypassing the compile cache; ``set_debugging(False)`` stops it.
    ``import gpukit.debug`` calls it, as ``import pycuda.debug`` does in PyCUDA."""
    global CUDA_DEBUGGING
    CUDA_DEBUGGING = bool(flag)


# PyCUDA's driver module has its memory pools too (pycuda.tools re-exports them).
from gpukit.tools import DeviceMemoryPool as DeviceMemoryPool  # noqa: E402
from gpukit.tools import PageLockedMemoryPool as PageLockedMemoryPool  # noqa: E402
