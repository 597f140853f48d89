#include "gpukit/cuda/memory.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <string>

namespace gpukit::cuda {

memory_info mem_get_info() {
    context::current_or_throw("mem_get_info()");
    memory_info info;
    GPUKIT_CU(cuMemGetInfo, &info.free, &info.total);
    return info;
}

bool is_host_accessible(CUdeviceptr address) {
    unsigned int is_managed = 0;
    CUresult result = api().cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, address);
    if (result == CUDA_ERROR_INVALID_VALUE)  // not memory the driver knows
        return false;
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuPointerGetAttribute");
    if (is_managed)
        return true;
    unsigned int memory_type = 0;
    GPUKIT_CU(cuPointerGetAttribute, &memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address);
    return memory_type == CU_MEMORYTYPE_HOST;
}

device_allocation device_allocation::allocate(std::size_t bytes) {
    if (bytes == 0)
        throw logic_error("mem_alloc(0): cannot allocate 0 bytes of device memory; ask for at least 1 byte");
    context ctx = context::current_or_throw("mem_alloc()");
    CUdeviceptr address = 0;
    const CUresult result = api().cuMemAlloc(&address, bytes);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuMemAlloc", std::to_string(bytes) + " bytes");
    return device_allocation(address, bytes, ctx.state());
}

std::pair<device_allocation, std::size_t> device_allocation::allocate_pitch(std::size_t width_bytes, std::size_t height,
                                                                            unsigned int access_size) {
    if (access_size != 4 && access_size != 8 && access_size != 16)
        throw logic_error("mem_alloc_pitch(): access_size " + std::to_string(access_size) +
                          " is not supported; it must be 4, 8 or 16 (the element size in bytes)");
    if (width_bytes == 0 || height == 0)
        throw logic_error("mem_alloc_pitch(): width " + std::to_string(width_bytes) + " bytes by height " +
                          std::to_string(height) + " rows is empty; both must be at least 1");
    context ctx = context::current_or_throw("mem_alloc_pitch()");
    CUdeviceptr address = 0;
    std::size_t pitch = 0;
    const CUresult result = api().cuMemAllocPitch(&address, &pitch, width_bytes, height, access_size);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuMemAllocPitch",
                         std::to_string(width_bytes) + " bytes by " + std::to_string(height) + " rows");
    return {device_allocation(address, pitch * height, ctx.state()), pitch};
}

}  // namespace gpukit::cuda
