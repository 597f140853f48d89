// The CUDA allocators of gpukit's memory pool (memory/allocator.hpp): device memory and
// page-locked host memory, each tied to the context it allocates in.
#pragma once

#include "gpukit/cuda/context.hpp"

#include <cuda.h>

#include <cstddef>

namespace gpukit::cuda {

// cuMemAlloc / cuMemFree in one context.
class device_allocator {
public:
    using pointer_type = CUdeviceptr;

    explicit device_allocator(context_state_ptr ctx) noexcept : context_(std::move(ctx)) {}
    // An allocator for the context current on this thread (logic_error when there is none).
    static device_allocator for_current_context();

    pointer_type allocate(std::size_t bytes);  // memory_error when the device is out of memory
    void free(pointer_type block, std::size_t bytes) noexcept;
    const context_state_ptr& owner() const noexcept { return context_; }

private:
    context_state_ptr context_;
};

// cuMemHostAlloc / cuMemFreeHost with host_alloc_flags (CU_MEMHOSTALLOC_*).
class pagelocked_allocator {
public:
    using pointer_type = void*;

    pagelocked_allocator(context_state_ptr ctx, unsigned int flags) noexcept
        : context_(std::move(ctx)), flags_(flags) {}
    static pagelocked_allocator for_current_context(unsigned int flags = 0);

    pointer_type allocate(std::size_t bytes);  // memory_error when page-locked memory runs out
    void free(pointer_type block, std::size_t bytes) noexcept;
    unsigned int flags() const noexcept { return flags_; }
    const context_state_ptr& owner() const noexcept { return context_; }

private:
    context_state_ptr context_;
    unsigned int flags_;
};

}  // namespace gpukit::cuda
