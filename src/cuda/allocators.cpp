#include "gpukit/cuda/allocators.hpp"

#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/host_memory.hpp"
#include "gpukit/cuda/memory.hpp"

namespace gpukit::cuda {

device_allocator device_allocator::for_current_context() {
    return device_allocator(context::current_or_throw("a device memory allocator").state());
}

device_allocator::pointer_type device_allocator::allocate(std::size_t bytes) {
    scoped_context in(*context_);
    CUdeviceptr block = 0;
    const CUresult result = api().cuMemAlloc(&block, bytes);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuMemAlloc", std::to_string(bytes) + " bytes");
    return block;
}

void device_allocator::free(pointer_type block, std::size_t) noexcept {
    detail::context_bound<detail::device_memory_traits>::release(*context_, block);
}

pagelocked_allocator pagelocked_allocator::for_current_context(unsigned int flags) {
    return pagelocked_allocator(context::current_or_throw("a page-locked memory allocator").state(), flags);
}

pagelocked_allocator::pointer_type pagelocked_allocator::allocate(std::size_t bytes) {
    scoped_context in(*context_);
    void* block = nullptr;
    const CUresult result = api().cuMemHostAlloc(&block, bytes, flags_);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuMemHostAlloc", std::to_string(bytes) + " bytes, flags " + std::to_string(flags_));
    return block;
}

void pagelocked_allocator::free(pointer_type block, std::size_t) noexcept {
    detail::context_bound<detail::pagelocked_memory_traits>::release(*context_, block);
}

}  // namespace gpukit::cuda
