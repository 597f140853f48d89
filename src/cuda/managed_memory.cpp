#include "gpukit/cuda/managed_memory.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/memory.hpp"

#include <string>

namespace gpukit::cuda {

managed_allocation managed_allocation::allocate(std::size_t bytes, unsigned int flags) {
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
        throw logic_error("managed_empty(): mem_flags " + std::to_string(flags) +
                          " is not valid for allocation; use mem_attach_flags.GLOBAL (1) or HOST (2)");
    const std::size_t request = bytes == 0 ? 1 : bytes;
    const memory_info info = mem_get_info();  // also checks for a current context
    if (request > info.free)
        throw memory_error("managed_empty(): " + std::to_string(request) + " bytes of managed memory requested, but " +
                           "only " + std::to_string(info.free) + " bytes of device memory are free; allocate less");
    context ctx = context::current_or_throw("managed_empty()");
    CUdeviceptr address = 0;
    const CUresult result = api().cuMemAllocManaged(&address, request, flags);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuMemAllocManaged", std::to_string(bytes) + " bytes, flags " + std::to_string(flags));
    return managed_allocation(address, bytes, ctx.state());
}

void* managed_allocation::data() const { return reinterpret_cast<void*>(device_pointer()); }

void managed_allocation::attach(unsigned int flags, stream_view s) const {
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST && flags != CU_MEM_ATTACH_SINGLE)
        throw logic_error("ManagedAllocation.attach(): mem_flags " + std::to_string(flags) +
                          " is not one of mem_attach_flags.GLOBAL (1), HOST (2) or SINGLE (4)");
    if (flags == CU_MEM_ATTACH_SINGLE && !s.handle())
        throw logic_error(
            "ManagedAllocation.attach(): mem_attach_flags.SINGLE attaches to one stream, so a Stream "
            "must be given, not the default stream");
    const CUdeviceptr address = device_pointer();
    // Length 0 means the whole allocation, which is the only length managed memory accepts.
    GPUKIT_CU(cuStreamAttachMemAsync, s.handle(), address, 0, flags);
}

}  // namespace gpukit::cuda
