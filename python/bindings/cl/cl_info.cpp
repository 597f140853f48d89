#include "cl/cl_info.hpp"

#include "cl/cl_args.hpp"

#include "gpukit/cl/context.hpp"
#include "gpukit/cl/image.hpp"  // CL_UNORM_INT24 where the OpenCL headers lack it
#include "gpukit/cl/platform.hpp"
#include "gpukit/cl/program.hpp"
#include "gpukit/cl/queue.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

// The C type of an answer, and what Python gets for it.
enum class info_type {
    size,          // size_t: int
    ulong,         // cl_ulong: int
    uint,          // cl_uint: int
    boolean,       // cl_bool: bool
    address,       // a pointer: int
    mem_flags,     // cl_mem_flags: mem_flags
    text,          // a string: str
    sizes,         // size_t[]: a list of int
    context,       // cl_context: a new Context object of it
    program,       // cl_program: a new Program object of it
    devices,       // cl_device_id[]: a list of Device
    bytes,         // raw bytes: bytes
    binaries,      // CL_PROGRAM_BINARIES: a list of bytes, one per device (program::binaries)
    integer,       // cl_int: int
    platform,      // cl_platform_id: Platform
    device,        // cl_device_id: Device, or None for a null one (a root device's parent)
    queue,         // cl_command_queue: a new CommandQueue object of it
    device_type,   // cl_device_type: device_type
    image_format,  // cl_image_format: ImageFormat
};

struct info_param {
    const char* name;  // PyOpenCL's member name
    cl_uint param;
    info_type type;
};

// Buffer.get_info. ASSOCIATED_MEMOBJECT (a sub-buffer's parent) and PROPERTIES (a list of pairs)
// are not among them.
constexpr info_param mem_info_params[] = {
    {"TYPE", CL_MEM_TYPE, info_type::uint},
    {"FLAGS", CL_MEM_FLAGS, info_type::mem_flags},
    {"SIZE", CL_MEM_SIZE, info_type::size},
    {"HOST_PTR", CL_MEM_HOST_PTR, info_type::address},
    {"MAP_COUNT", CL_MEM_MAP_COUNT, info_type::uint},
    {"REFERENCE_COUNT", CL_MEM_REFERENCE_COUNT, info_type::uint},
    {"CONTEXT", CL_MEM_CONTEXT, info_type::context},
    {"OFFSET", CL_MEM_OFFSET, info_type::size},
    {"USES_SVM_POINTER", CL_MEM_USES_SVM_POINTER, info_type::boolean},
};

// Image.get_image_info: all of PyOpenCL's image_info but BUFFER (gpukit makes no images over buffers).
constexpr info_param image_info_params[] = {
    {"FORMAT", CL_IMAGE_FORMAT, info_type::image_format},
    {"ELEMENT_SIZE", CL_IMAGE_ELEMENT_SIZE, info_type::size},
    {"ROW_PITCH", CL_IMAGE_ROW_PITCH, info_type::size},
    {"SLICE_PITCH", CL_IMAGE_SLICE_PITCH, info_type::size},
    {"WIDTH", CL_IMAGE_WIDTH, info_type::size},
    {"HEIGHT", CL_IMAGE_HEIGHT, info_type::size},
    {"DEPTH", CL_IMAGE_DEPTH, info_type::size},
    {"ARRAY_SIZE", CL_IMAGE_ARRAY_SIZE, info_type::size},
    {"NUM_MIP_LEVELS", CL_IMAGE_NUM_MIP_LEVELS, info_type::uint},
    {"NUM_SAMPLES", CL_IMAGE_NUM_SAMPLES, info_type::uint},
};

// Sampler.get_info.
constexpr info_param sampler_info_params[] = {
    {"REFERENCE_COUNT", CL_SAMPLER_REFERENCE_COUNT, info_type::uint},
    {"CONTEXT", CL_SAMPLER_CONTEXT, info_type::context},
    {"NORMALIZED_COORDS", CL_SAMPLER_NORMALIZED_COORDS, info_type::boolean},
    {"ADDRESSING_MODE", CL_SAMPLER_ADDRESSING_MODE, info_type::uint},
    {"FILTER_MODE", CL_SAMPLER_FILTER_MODE, info_type::uint},
};

// Constants that are no info parameters but arguments (PyOpenCL's classes of the same names).
constexpr info_param channel_orders[] = {
    {"R", CL_R, info_type::uint},
    {"A", CL_A, info_type::uint},
    {"RG", CL_RG, info_type::uint},
    {"RA", CL_RA, info_type::uint},
    {"RGB", CL_RGB, info_type::uint},
    {"RGBA", CL_RGBA, info_type::uint},
    {"BGRA", CL_BGRA, info_type::uint},
    {"ARGB", CL_ARGB, info_type::uint},
    {"INTENSITY", CL_INTENSITY, info_type::uint},
    {"LUMINANCE", CL_LUMINANCE, info_type::uint},
    {"Rx", CL_Rx, info_type::uint},
    {"RGx", CL_RGx, info_type::uint},
    {"RGBx", CL_RGBx, info_type::uint},
    {"DEPTH", CL_DEPTH, info_type::uint},
    {"sRGB", CL_sRGB, info_type::uint},
    {"sRGBx", CL_sRGBx, info_type::uint},
    {"sRGBA", CL_sRGBA, info_type::uint},
    {"sBGRA", CL_sBGRA, info_type::uint},
    {"ABGR", CL_ABGR, info_type::uint},
};
constexpr info_param channel_types[] = {
    {"SNORM_INT8", CL_SNORM_INT8, info_type::uint},
    {"SNORM_INT16", CL_SNORM_INT16, info_type::uint},
    {"UNORM_INT8", CL_UNORM_INT8, info_type::uint},
    {"UNORM_INT16", CL_UNORM_INT16, info_type::uint},
    {"UNORM_SHORT_565", CL_UNORM_SHORT_565, info_type::uint},
    {"UNORM_SHORT_555", CL_UNORM_SHORT_555, info_type::uint},
    {"UNORM_INT_101010", CL_UNORM_INT_101010, info_type::uint},
    {"SIGNED_INT8", CL_SIGNED_INT8, info_type::uint},
    {"SIGNED_INT16", CL_SIGNED_INT16, info_type::uint},
    {"SIGNED_INT32", CL_SIGNED_INT32, info_type::uint},
    {"UNSIGNED_INT8", CL_UNSIGNED_INT8, info_type::uint},
    {"UNSIGNED_INT16", CL_UNSIGNED_INT16, info_type::uint},
    {"UNSIGNED_INT32", CL_UNSIGNED_INT32, info_type::uint},
    {"HALF_FLOAT", CL_HALF_FLOAT, info_type::uint},
    {"FLOAT", CL_FLOAT, info_type::uint},
    {"UNORM_INT24", CL_UNORM_INT24, info_type::uint},
    {"UNORM_INT_101010_2", CL_UNORM_INT_101010_2, info_type::uint},
};
constexpr info_param mem_object_types[] = {
    {"BUFFER", CL_MEM_OBJECT_BUFFER, info_type::uint},
    {"IMAGE2D", CL_MEM_OBJECT_IMAGE2D, info_type::uint},
    {"IMAGE3D", CL_MEM_OBJECT_IMAGE3D, info_type::uint},
    {"IMAGE2D_ARRAY", CL_MEM_OBJECT_IMAGE2D_ARRAY, info_type::uint},
    {"IMAGE1D", CL_MEM_OBJECT_IMAGE1D, info_type::uint},
    {"IMAGE1D_ARRAY", CL_MEM_OBJECT_IMAGE1D_ARRAY, info_type::uint},
    {"IMAGE1D_BUFFER", CL_MEM_OBJECT_IMAGE1D_BUFFER, info_type::uint},
    {"PIPE", CL_MEM_OBJECT_PIPE, info_type::uint},
};
constexpr info_param addressing_modes[] = {
    {"NONE", CL_ADDRESS_NONE, info_type::uint},
    {"CLAMP_TO_EDGE", CL_ADDRESS_CLAMP_TO_EDGE, info_type::uint},
    {"CLAMP", CL_ADDRESS_CLAMP, info_type::uint},
    {"REPEAT", CL_ADDRESS_REPEAT, info_type::uint},
    {"MIRRORED_REPEAT", CL_ADDRESS_MIRRORED_REPEAT, info_type::uint},
};
constexpr info_param filter_modes[] = {
    {"NEAREST", CL_FILTER_NEAREST, info_type::uint},
    {"LINEAR", CL_FILTER_LINEAR, info_type::uint},
};

// Kernel.get_info: all of PyOpenCL's kernel_info.
constexpr info_param kernel_info_params[] = {
    {"FUNCTION_NAME", CL_KERNEL_FUNCTION_NAME, info_type::text},
    {"NUM_ARGS", CL_KERNEL_NUM_ARGS, info_type::uint},
    {"REFERENCE_COUNT", CL_KERNEL_REFERENCE_COUNT, info_type::uint},
    {"CONTEXT", CL_KERNEL_CONTEXT, info_type::context},
    {"PROGRAM", CL_KERNEL_PROGRAM, info_type::program},
    {"ATTRIBUTES", CL_KERNEL_ATTRIBUTES, info_type::text},
};

// Program.get_info: all of PyOpenCL's program_info (KERNEL_NAMES as OpenCL gives it, the names
// joined by ';').
constexpr info_param program_info_params[] = {
    {"REFERENCE_COUNT", CL_PROGRAM_REFERENCE_COUNT, info_type::uint},
    {"CONTEXT", CL_PROGRAM_CONTEXT, info_type::context},
    {"NUM_DEVICES", CL_PROGRAM_NUM_DEVICES, info_type::uint},
    {"DEVICES", CL_PROGRAM_DEVICES, info_type::devices},
    {"SOURCE", CL_PROGRAM_SOURCE, info_type::text},
    {"BINARY_SIZES", CL_PROGRAM_BINARY_SIZES, info_type::sizes},
    {"BINARIES", CL_PROGRAM_BINARIES, info_type::binaries},
    {"NUM_KERNELS", CL_PROGRAM_NUM_KERNELS, info_type::size},
    {"KERNEL_NAMES", CL_PROGRAM_KERNEL_NAMES, info_type::text},
    {"IL", CL_PROGRAM_IL, info_type::bytes},
    {"SCOPE_GLOBAL_CTORS_PRESENT", CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, info_type::boolean},
    {"SCOPE_GLOBAL_DTORS_PRESENT", CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT, info_type::boolean},
};

// Platform.get_info.
constexpr info_param platform_info_params[] = {
    {"PROFILE", CL_PLATFORM_PROFILE, info_type::text},
    {"VERSION", CL_PLATFORM_VERSION, info_type::text},
    {"NAME", CL_PLATFORM_NAME, info_type::text},
    {"VENDOR", CL_PLATFORM_VENDOR, info_type::text},
    {"EXTENSIONS", CL_PLATFORM_EXTENSIONS, info_type::text},
    {"HOST_TIMER_RESOLUTION", CL_PLATFORM_HOST_TIMER_RESOLUTION, info_type::ulong},
    {"NUMERIC_VERSION", CL_PLATFORM_NUMERIC_VERSION, info_type::uint},
};

// Device.get_info: the core parameters of OpenCL 1.2 to 3.0 (the *_WITH_VERSION lists of
// name-version records aside) and NVIDIA's, which the GPU machine's devices answer.
constexpr info_param device_info_params[] = {
    {"TYPE", CL_DEVICE_TYPE, info_type::device_type},
    {"VENDOR_ID", CL_DEVICE_VENDOR_ID, info_type::uint},
    {"MAX_COMPUTE_UNITS", CL_DEVICE_MAX_COMPUTE_UNITS, info_type::uint},
    {"MAX_WORK_ITEM_DIMENSIONS", CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, info_type::uint},
    {"MAX_WORK_GROUP_SIZE", CL_DEVICE_MAX_WORK_GROUP_SIZE, info_type::size},
    {"MAX_WORK_ITEM_SIZES", CL_DEVICE_MAX_WORK_ITEM_SIZES, info_type::sizes},
    {"PREFERRED_VECTOR_WIDTH_CHAR", CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, info_type::uint},
    {"PREFERRED_VECTOR_WIDTH_SHORT", CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, info_type::uint},
    {"PREFERRED_VECTOR_WIDTH_INT", CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, info_type::uint},
    {"PREFERRED_VECTOR_WIDTH_LONG", CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, info_type::uint},
    {"PREFERRED_VECTOR_WIDTH_FLOAT", CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, info_type::uint},
    {"PREFERRED_VECTOR_WIDTH_DOUBLE", CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, info_type::uint},
    {"PREFERRED_VECTOR_WIDTH_HALF", CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, info_type::uint},
    {"MAX_CLOCK_FREQUENCY", CL_DEVICE_MAX_CLOCK_FREQUENCY, info_type::uint},
    {"ADDRESS_BITS", CL_DEVICE_ADDRESS_BITS, info_type::uint},
    {"MAX_READ_IMAGE_ARGS", CL_DEVICE_MAX_READ_IMAGE_ARGS, info_type::uint},
    {"MAX_WRITE_IMAGE_ARGS", CL_DEVICE_MAX_WRITE_IMAGE_ARGS, info_type::uint},
    {"MAX_READ_WRITE_IMAGE_ARGS", CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, info_type::uint},
    {"MAX_MEM_ALLOC_SIZE", CL_DEVICE_MAX_MEM_ALLOC_SIZE, info_type::ulong},
    {"IMAGE2D_MAX_WIDTH", CL_DEVICE_IMAGE2D_MAX_WIDTH, info_type::size},
    {"IMAGE2D_MAX_HEIGHT", CL_DEVICE_IMAGE2D_MAX_HEIGHT, info_type::size},
    {"IMAGE3D_MAX_WIDTH", CL_DEVICE_IMAGE3D_MAX_WIDTH, info_type::size},
    {"IMAGE3D_MAX_HEIGHT", CL_DEVICE_IMAGE3D_MAX_HEIGHT, info_type::size},
    {"IMAGE3D_MAX_DEPTH", CL_DEVICE_IMAGE3D_MAX_DEPTH, info_type::size},
    {"IMAGE_MAX_BUFFER_SIZE", CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, info_type::size},
    {"IMAGE_MAX_ARRAY_SIZE", CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, info_type::size},
    {"IMAGE_PITCH_ALIGNMENT", CL_DEVICE_IMAGE_PITCH_ALIGNMENT, info_type::uint},
    {"IMAGE_BASE_ADDRESS_ALIGNMENT", CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, info_type::uint},
    {"IMAGE_SUPPORT", CL_DEVICE_IMAGE_SUPPORT, info_type::boolean},
    {"MAX_PARAMETER_SIZE", CL_DEVICE_MAX_PARAMETER_SIZE, info_type::size},
    {"MAX_SAMPLERS", CL_DEVICE_MAX_SAMPLERS, info_type::uint},
    {"MEM_BASE_ADDR_ALIGN", CL_DEVICE_MEM_BASE_ADDR_ALIGN, info_type::uint},
    {"MIN_DATA_TYPE_ALIGN_SIZE", CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, info_type::uint},
    {"SINGLE_FP_CONFIG", CL_DEVICE_SINGLE_FP_CONFIG, info_type::ulong},
    {"DOUBLE_FP_CONFIG", CL_DEVICE_DOUBLE_FP_CONFIG, info_type::ulong},
    {"HALF_FP_CONFIG", 0x1033, info_type::ulong},  // CL_DEVICE_HALF_FP_CONFIG (cl_ext.h, cl_khr_fp16)
    {"GLOBAL_MEM_CACHE_TYPE", CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, info_type::uint},
    {"GLOBAL_MEM_CACHELINE_SIZE", CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, info_type::uint},
    {"GLOBAL_MEM_CACHE_SIZE", CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, info_type::ulong},
    {"GLOBAL_MEM_SIZE", CL_DEVICE_GLOBAL_MEM_SIZE, info_type::ulong},
    {"MAX_CONSTANT_BUFFER_SIZE", CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, info_type::ulong},
    {"MAX_CONSTANT_ARGS", CL_DEVICE_MAX_CONSTANT_ARGS, info_type::uint},
    {"MAX_GLOBAL_VARIABLE_SIZE", CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, info_type::size},
    {"GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE", CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, info_type::size},
    {"LOCAL_MEM_TYPE", CL_DEVICE_LOCAL_MEM_TYPE, info_type::uint},
    {"LOCAL_MEM_SIZE", CL_DEVICE_LOCAL_MEM_SIZE, info_type::ulong},
    {"ERROR_CORRECTION_SUPPORT", CL_DEVICE_ERROR_CORRECTION_SUPPORT, info_type::boolean},
    {"HOST_UNIFIED_MEMORY", CL_DEVICE_HOST_UNIFIED_MEMORY, info_type::boolean},
    {"PROFILING_TIMER_RESOLUTION", CL_DEVICE_PROFILING_TIMER_RESOLUTION, info_type::size},
    {"ENDIAN_LITTLE", CL_DEVICE_ENDIAN_LITTLE, info_type::boolean},
    {"AVAILABLE", CL_DEVICE_AVAILABLE, info_type::boolean},
    {"COMPILER_AVAILABLE", CL_DEVICE_COMPILER_AVAILABLE, info_type::boolean},
    {"LINKER_AVAILABLE", CL_DEVICE_LINKER_AVAILABLE, info_type::boolean},
    {"EXECUTION_CAPABILITIES", CL_DEVICE_EXECUTION_CAPABILITIES, info_type::ulong},
    {"QUEUE_PROPERTIES", CL_DEVICE_QUEUE_PROPERTIES, info_type::ulong},
    {"QUEUE_ON_HOST_PROPERTIES", CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, info_type::ulong},
    {"QUEUE_ON_DEVICE_PROPERTIES", CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, info_type::ulong},
    {"QUEUE_ON_DEVICE_PREFERRED_SIZE", CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, info_type::uint},
    {"QUEUE_ON_DEVICE_MAX_SIZE", CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, info_type::uint},
    {"MAX_ON_DEVICE_QUEUES", CL_DEVICE_MAX_ON_DEVICE_QUEUES, info_type::uint},
    {"MAX_ON_DEVICE_EVENTS", CL_DEVICE_MAX_ON_DEVICE_EVENTS, info_type::uint},
    {"NAME", CL_DEVICE_NAME, info_type::text},
    {"VENDOR", CL_DEVICE_VENDOR, info_type::text},
    {"DRIVER_VERSION", CL_DRIVER_VERSION, info_type::text},
    {"PROFILE", CL_DEVICE_PROFILE, info_type::text},
    {"VERSION", CL_DEVICE_VERSION, info_type::text},
    {"EXTENSIONS", CL_DEVICE_EXTENSIONS, info_type::text},
    {"OPENCL_C_VERSION", CL_DEVICE_OPENCL_C_VERSION, info_type::text},
    {"BUILT_IN_KERNELS", CL_DEVICE_BUILT_IN_KERNELS, info_type::text},
    {"IL_VERSION", CL_DEVICE_IL_VERSION, info_type::text},
    {"LATEST_CONFORMANCE_VERSION_PASSED", CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, info_type::text},
    {"PLATFORM", CL_DEVICE_PLATFORM, info_type::platform},
    {"NATIVE_VECTOR_WIDTH_CHAR", CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, info_type::uint},
    {"NATIVE_VECTOR_WIDTH_SHORT", CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, info_type::uint},
    {"NATIVE_VECTOR_WIDTH_INT", CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, info_type::uint},
    {"NATIVE_VECTOR_WIDTH_LONG", CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, info_type::uint},
    {"NATIVE_VECTOR_WIDTH_FLOAT", CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, info_type::uint},
    {"NATIVE_VECTOR_WIDTH_DOUBLE", CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, info_type::uint},
    {"NATIVE_VECTOR_WIDTH_HALF", CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, info_type::uint},
    {"PARENT_DEVICE", CL_DEVICE_PARENT_DEVICE, info_type::device},
    {"PARTITION_MAX_SUB_DEVICES", CL_DEVICE_PARTITION_MAX_SUB_DEVICES, info_type::uint},
    {"PARTITION_PROPERTIES", CL_DEVICE_PARTITION_PROPERTIES, info_type::sizes},
    {"PARTITION_AFFINITY_DOMAIN", CL_DEVICE_PARTITION_AFFINITY_DOMAIN, info_type::ulong},
    {"PARTITION_TYPE", CL_DEVICE_PARTITION_TYPE, info_type::sizes},
    {"REFERENCE_COUNT", CL_DEVICE_REFERENCE_COUNT, info_type::uint},
    {"PREFERRED_INTEROP_USER_SYNC", CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, info_type::boolean},
    {"PRINTF_BUFFER_SIZE", CL_DEVICE_PRINTF_BUFFER_SIZE, info_type::size},
    {"SVM_CAPABILITIES", CL_DEVICE_SVM_CAPABILITIES, info_type::ulong},
    {"MAX_PIPE_ARGS", CL_DEVICE_MAX_PIPE_ARGS, info_type::uint},
    {"PIPE_MAX_ACTIVE_RESERVATIONS", CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, info_type::uint},
    {"PIPE_MAX_PACKET_SIZE", CL_DEVICE_PIPE_MAX_PACKET_SIZE, info_type::uint},
    {"PIPE_SUPPORT", CL_DEVICE_PIPE_SUPPORT, info_type::boolean},
    {"PREFERRED_PLATFORM_ATOMIC_ALIGNMENT", CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, info_type::uint},
    {"PREFERRED_GLOBAL_ATOMIC_ALIGNMENT", CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, info_type::uint},
    {"PREFERRED_LOCAL_ATOMIC_ALIGNMENT", CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, info_type::uint},
    {"MAX_NUM_SUB_GROUPS", CL_DEVICE_MAX_NUM_SUB_GROUPS, info_type::uint},
    {"SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS", CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, info_type::boolean},
    {"NUMERIC_VERSION", CL_DEVICE_NUMERIC_VERSION, info_type::uint},
    {"ATOMIC_MEMORY_CAPABILITIES", CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, info_type::ulong},
    {"ATOMIC_FENCE_CAPABILITIES", CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, info_type::ulong},
    {"NON_UNIFORM_WORK_GROUP_SUPPORT", CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, info_type::boolean},
    {"PREFERRED_WORK_GROUP_SIZE_MULTIPLE", CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, info_type::size},
    {"WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT", CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, info_type::boolean},
    {"GENERIC_ADDRESS_SPACE_SUPPORT", CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, info_type::boolean},
    {"DEVICE_ENQUEUE_CAPABILITIES", CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, info_type::ulong},
    // cl_nv_device_attribute_query (cl_ext.h's values), answered by NVIDIA's devices only.
    {"COMPUTE_CAPABILITY_MAJOR_NV", 0x4000, info_type::uint},
    {"COMPUTE_CAPABILITY_MINOR_NV", 0x4001, info_type::uint},
    {"REGISTERS_PER_BLOCK_NV", 0x4002, info_type::uint},
    {"WARP_SIZE_NV", 0x4003, info_type::uint},
    {"GPU_OVERLAP_NV", 0x4004, info_type::boolean},
    {"KERNEL_EXEC_TIMEOUT_NV", 0x4005, info_type::boolean},
    {"INTEGRATED_MEMORY_NV", 0x4006, info_type::boolean},
    {"ATTRIBUTE_ASYNC_ENGINE_COUNT_NV", 0x4007, info_type::uint},
    {"PCI_BUS_ID_NV", 0x4008, info_type::uint},
    {"PCI_SLOT_ID_NV", 0x4009, info_type::uint},
    {"PCI_DOMAIN_ID_NV", 0x400A, info_type::uint},
};

// Context.get_info (PROPERTIES: the property list as ints).
constexpr info_param context_info_params[] = {
    {"REFERENCE_COUNT", CL_CONTEXT_REFERENCE_COUNT, info_type::uint},
    {"DEVICES", CL_CONTEXT_DEVICES, info_type::devices},
    {"PROPERTIES", CL_CONTEXT_PROPERTIES, info_type::sizes},
    {"NUM_DEVICES", CL_CONTEXT_NUM_DEVICES, info_type::uint},
};

// CommandQueue.get_info.
constexpr info_param command_queue_info_params[] = {
    {"CONTEXT", CL_QUEUE_CONTEXT, info_type::context},
    {"DEVICE", CL_QUEUE_DEVICE, info_type::device},
    {"REFERENCE_COUNT", CL_QUEUE_REFERENCE_COUNT, info_type::uint},
    {"PROPERTIES", CL_QUEUE_PROPERTIES, info_type::ulong},
};

// Event.get_info.
constexpr info_param event_info_params[] = {
    {"COMMAND_QUEUE", CL_EVENT_COMMAND_QUEUE, info_type::queue},
    {"COMMAND_TYPE", CL_EVENT_COMMAND_TYPE, info_type::uint},
    {"REFERENCE_COUNT", CL_EVENT_REFERENCE_COUNT, info_type::uint},
    {"COMMAND_EXECUTION_STATUS", CL_EVENT_COMMAND_EXECUTION_STATUS, info_type::integer},
    {"CONTEXT", CL_EVENT_CONTEXT, info_type::context},
};

// Event.get_profiling_info: the timestamps in nanoseconds.
constexpr info_param profiling_info_params[] = {
    {"QUEUED", CL_PROFILING_COMMAND_QUEUED, info_type::ulong},
    {"SUBMIT", CL_PROFILING_COMMAND_SUBMIT, info_type::ulong},
    {"START", CL_PROFILING_COMMAND_START, info_type::ulong},
    {"END", CL_PROFILING_COMMAND_END, info_type::ulong},
    {"COMPLETE", CL_PROFILING_COMMAND_COMPLETE, info_type::ulong},
};

// The statuses of a command (Event.command_execution_status, UserEvent.set_status).
constexpr info_param execution_statuses[] = {
    {"COMPLETE", CL_COMPLETE, info_type::integer},
    {"RUNNING", CL_RUNNING, info_type::integer},
    {"SUBMITTED", CL_SUBMITTED, info_type::integer},
    {"QUEUED", CL_QUEUED, info_type::integer},
};

// Program.get_build_info(device, param).
constexpr info_param program_build_info_params[] = {
    {"STATUS", CL_PROGRAM_BUILD_STATUS, info_type::integer},
    {"OPTIONS", CL_PROGRAM_BUILD_OPTIONS, info_type::text},
    {"LOG", CL_PROGRAM_BUILD_LOG, info_type::text},
    {"BINARY_TYPE", CL_PROGRAM_BINARY_TYPE, info_type::uint},
    {"GLOBAL_VARIABLE_TOTAL_SIZE", CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, info_type::size},
};

// Kernel.get_work_group_info (COMPILE_WORK_GROUP_SIZE: three size_t, a list).
constexpr info_param work_group_info_params[] = {
    {"WORK_GROUP_SIZE", CL_KERNEL_WORK_GROUP_SIZE, info_type::size},
    {"COMPILE_WORK_GROUP_SIZE", CL_KERNEL_COMPILE_WORK_GROUP_SIZE, info_type::sizes},
    {"LOCAL_MEM_SIZE", CL_KERNEL_LOCAL_MEM_SIZE, info_type::ulong},
    {"PREFERRED_WORK_GROUP_SIZE_MULTIPLE", CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, info_type::size},
    {"PRIVATE_MEM_SIZE", CL_KERNEL_PRIVATE_MEM_SIZE, info_type::ulong},
    // Only for built-in kernels and custom devices: OpenCL refuses it for others.
    {"GLOBAL_WORK_SIZE", CL_KERNEL_GLOBAL_WORK_SIZE, info_type::sizes},
};

// The entry of `params` for the parameter `arg` names; cl.LogicError listing the members of
// `enum_name` otherwise. `call` names the method, `routine` the OpenCL call.
const info_param& find_param(std::span<const info_param> params, nb::handle arg, const std::string& call,
                             const char* enum_name, const char* routine) {
    const auto param =
        static_cast<cl_uint>(cl_unsigned(arg, (call + "(param)").c_str(), std::numeric_limits<cl_uint>::max()));
    for (const info_param& p : params)
        if (p.param == param)
            return p;
    std::string names;
    for (const info_param& p : params)
        names += (names.empty() ? "" : ", ") + std::string(enum_name) + "." + p.name;
    throw cl::logic_error(call + ": parameter " + std::to_string(param) + " is not supported; expected " + names,
                          CL_INVALID_VALUE, routine);
}

// The parameter the attribute `name` stands for (a member's name in lower case), or null.
const info_param* param_of_attribute(std::span<const info_param> params, const std::string& name) {
    for (const info_param& candidate : params) {
        std::string lower = candidate.name;
        for (char& c : lower)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower == name)
            return &candidate;
    }
    return nullptr;
}

template <class T>
T info_as(const std::vector<std::byte>& bytes) {
    T value{};
    std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof value));
    return value;
}

nb::object decode(const std::vector<std::byte>& bytes, info_type type) {
    switch (type) {
    case info_type::size:
        return nb::int_(info_as<size_t>(bytes));
    case info_type::ulong:
        return nb::int_(info_as<cl_ulong>(bytes));
    case info_type::uint:
        return nb::int_(info_as<cl_uint>(bytes));
    case info_type::boolean:
        return nb::bool_(info_as<::cl_bool>(bytes) != CL_FALSE);
    case info_type::address:
        return nb::int_(reinterpret_cast<std::uintptr_t>(info_as<void*>(bytes)));
    case info_type::mem_flags:
        return as_flags("mem_flags", info_as<cl_mem_flags>(bytes));
    case info_type::text: {
        std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        while (!text.empty() && text.back() == '\0')  // OpenCL strings come with their NUL
            text.pop_back();
        return nb::str(text.c_str(), text.size());
    }
    case info_type::sizes: {
        std::vector<size_t> sizes(bytes.size() / sizeof(size_t));
        std::memcpy(sizes.data(), bytes.data(), sizes.size() * sizeof(size_t));
        return nb::cast(sizes);
    }
    case info_type::context:
        return nb::cast(cl::context::wrap(info_as<cl_context>(bytes)));
    case info_type::program:
        return nb::cast(cl::program::wrap(info_as<cl_program>(bytes)));
    case info_type::devices: {
        nb::list devices;
        for (size_t k = 0; k + sizeof(cl_device_id) <= bytes.size(); k += sizeof(cl_device_id)) {
            cl_device_id handle = nullptr;
            std::memcpy(&handle, bytes.data() + k, sizeof handle);
            devices.append(nb::cast(cl::device(handle)));
        }
        return devices;
    }
    case info_type::bytes:
        return nb::bytes(bytes.data(), bytes.size());
    case info_type::binaries:
        break;  // asked of the program itself (program_info)
    case info_type::integer:
        return nb::int_(info_as<cl_int>(bytes));
    case info_type::platform:
        return nb::cast(cl::platform(info_as<cl_platform_id>(bytes)));
    case info_type::device: {
        const auto handle = info_as<cl_device_id>(bytes);
        return handle ? nb::cast(cl::device(handle)) : nb::none();
    }
    case info_type::queue:
        return nb::cast(cl::queue::wrap(info_as<cl_command_queue>(bytes)));
    case info_type::image_format:
        return nb::cast(image_format{info_as<cl_image_format>(bytes)});
    case info_type::device_type:
        return as_flags("device_type", info_as<cl_device_type>(bytes));
    }
    return nb::none();
}

// (member name, value) of each parameter, for gpukit.cl to make PyOpenCL's class of constants.
nb::list parameter_list(std::span<const info_param> params) {
    nb::list members;
    for (const info_param& p : params)
        members.append(nb::make_tuple(p.name, p.param));
    return members;
}

}  // namespace

// The flag class is looked up in the module, which owns it (as constant_class does).
nb::object as_flags(const char* name, cl_bitfield value) {
    return nb::module_::import_("gpukit._gpukit.cl").attr(name)(value);
}

void bind_info_enums(nb::module_& m) {
    nb::dict classes;
    classes["mem_info"] = parameter_list(mem_info_params);
    classes["kernel_info"] = parameter_list(kernel_info_params);
    classes["kernel_work_group_info"] = parameter_list(work_group_info_params);
    classes["program_info"] = parameter_list(program_info_params);
    classes["platform_info"] = parameter_list(platform_info_params);
    classes["device_info"] = parameter_list(device_info_params);
    classes["context_info"] = parameter_list(context_info_params);
    classes["command_queue_info"] = parameter_list(command_queue_info_params);
    classes["event_info"] = parameter_list(event_info_params);
    classes["profiling_info"] = parameter_list(profiling_info_params);
    classes["program_build_info"] = parameter_list(program_build_info_params);
    classes["command_execution_status"] = parameter_list(execution_statuses);
    classes["image_info"] = parameter_list(image_info_params);
    classes["sampler_info"] = parameter_list(sampler_info_params);
    classes["channel_order"] = parameter_list(channel_orders);
    classes["channel_type"] = parameter_list(channel_types);
    classes["mem_object_type"] = parameter_list(mem_object_types);
    classes["addressing_mode"] = parameter_list(addressing_modes);
    classes["filter_mode"] = parameter_list(filter_modes);
    m.attr("_info_parameters") = classes;
}

nb::object buffer_info(const cl::buffer& b, nb::handle param) {
    const info_param& p = find_param(mem_info_params, param, "Buffer.get_info", "mem_info", "clGetMemObjectInfo");
    return decode(b.info_bytes(p.param), p.type);
}

nb::object image_mem_info(const cl::image& img, nb::handle param) {
    const info_param& p = find_param(mem_info_params, param, "Image.get_info", "mem_info", "clGetMemObjectInfo");
    return decode(img.info_bytes(p.param), p.type);
}

nb::object image_info(const cl::image& img, nb::handle param) {
    const info_param& p = find_param(image_info_params, param, "Image.get_image_info", "image_info", "clGetImageInfo");
    return decode(img.image_info_bytes(p.param), p.type);
}

nb::object sampler_info(const cl::sampler& s, nb::handle param) {
    const info_param& p =
        find_param(sampler_info_params, param, "Sampler.get_info", "sampler_info", "clGetSamplerInfo");
    return decode(s.info_bytes(p.param), p.type);
}

nb::object program_info(const cl::program& p, nb::handle param) {
    const info_param& found =
        find_param(program_info_params, param, "Program.get_info", "program_info", "clGetProgramInfo");
    if (found.type == info_type::binaries) {
        nb::list binaries;
        for (const std::vector<std::byte>& binary : p.binaries())
            binaries.append(nb::bytes(binary.data(), binary.size()));
        return binaries;
    }
    return decode(p.info_bytes(found.param), found.type);
}

nb::object platform_info(const cl::platform& p, nb::handle param) {
    const info_param& found =
        find_param(platform_info_params, param, "Platform.get_info", "platform_info", "clGetPlatformInfo");
    return decode(p.info_bytes(found.param), found.type);
}

nb::object device_info(const cl::device& d, nb::handle param) {
    const info_param& found =
        find_param(device_info_params, param, "Device.get_info", "device_info", "clGetDeviceInfo");
    return decode(d.info_bytes(found.param), found.type);
}

nb::object context_info(const cl::context& c, nb::handle param) {
    const info_param& found =
        find_param(context_info_params, param, "Context.get_info", "context_info", "clGetContextInfo");
    return decode(c.info_bytes(found.param), found.type);
}

nb::object queue_info(const cl::queue& q, nb::handle param) {
    const info_param& found = find_param(command_queue_info_params, param, "CommandQueue.get_info",
                                         "command_queue_info", "clGetCommandQueueInfo");
    return decode(q.info_bytes(found.param), found.type);
}

nb::object event_info(const cl::event& e, nb::handle param) {
    const info_param& found = find_param(event_info_params, param, "Event.get_info", "event_info", "clGetEventInfo");
    return decode(e.info_bytes(found.param), found.type);
}

nb::object event_profiling_info(const cl::event& e, nb::handle param) {
    const info_param& found = find_param(profiling_info_params, param, "Event.get_profiling_info", "profiling_info",
                                         "clGetEventProfilingInfo");
    return decode(e.profiling_info_bytes(found.param), found.type);
}

nb::object program_build_info(const cl::program& p, const cl::device& dev, nb::handle param) {
    const info_param& found = find_param(program_build_info_params, param, "Program.get_build_info",
                                         "program_build_info", "clGetProgramBuildInfo");
    return decode(p.build_info_bytes(dev, found.param), found.type);
}

nb::object info_attribute(nb::handle self, const std::string& name) {
    if (!nb::inst_ready(self))  // a subclass's __init__ not run yet: no object to ask
        return nb::object();
    const auto answer = [&](std::span<const info_param> params, auto&& get) -> nb::object {
        const info_param* found = param_of_attribute(params, name);
        return found ? get(nb::int_(found->param)) : nb::object();
    };
    if (nb::isinstance<cl::platform>(self))
        return answer(platform_info_params,
                      [&](nb::handle p) { return platform_info(nb::cast<const cl::platform&>(self), p); });
    if (nb::isinstance<cl::device>(self))
        return answer(device_info_params,
                      [&](nb::handle p) { return device_info(nb::cast<const cl::device&>(self), p); });
    if (nb::isinstance<cl::context>(self))
        return answer(context_info_params,
                      [&](nb::handle p) { return context_info(nb::cast<const cl::context&>(self), p); });
    if (nb::isinstance<cl::queue>(self))
        return answer(command_queue_info_params,
                      [&](nb::handle p) { return queue_info(nb::cast<const cl::queue&>(self), p); });
    if (nb::isinstance<cl::event>(self))
        return answer(event_info_params, [&](nb::handle p) { return event_info(nb::cast<const cl::event&>(self), p); });
    if (nb::isinstance<cl::program>(self))
        return answer(program_info_params,
                      [&](nb::handle p) { return program_info(nb::cast<const cl::program&>(self), p); });
    if (nb::isinstance<cl::image>(self)) {
        const auto& img = nb::cast<const cl::image&>(self);
        if (nb::object found = answer(image_info_params, [&](nb::handle p) { return image_info(img, p); });
            found.is_valid())
            return found;
        return answer(mem_info_params, [&](nb::handle p) { return image_mem_info(img, p); });
    }
    if (nb::isinstance<cl::sampler>(self))
        return answer(sampler_info_params,
                      [&](nb::handle p) { return sampler_info(nb::cast<const cl::sampler&>(self), p); });
    return nb::object();
}

nb::object kernel_info(const cl::kernel& k, nb::handle param) {
    const info_param& p = find_param(kernel_info_params, param, "Kernel.get_info", "kernel_info", "clGetKernelInfo");
    return decode(k.info_bytes(p.param), p.type);
}

nb::object kernel_work_group_info(const cl::kernel& k, nb::handle param, const cl::device& dev) {
    const info_param& p = find_param(work_group_info_params, param, "Kernel.get_work_group_info",
                                     "kernel_work_group_info", "clGetKernelWorkGroupInfo");
    return decode(k.work_group_info_bytes(p.param, dev), p.type);
}

nb::object info_getattr(nb::handle self, const std::string& name) {
    if (nb::object answer = info_attribute(self, name); answer.is_valid())
        return answer;
    throw nb::attribute_error(("'" + nb::cast<std::string>(nb::type_name(self.type())) + "' object has no attribute '" +
                               name + "' (nor a get_info parameter of that name)")
                                  .c_str());
}

}  // namespace gpukit::python
