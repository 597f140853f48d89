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
    // A block is a device address; 0 means no block.
    using pointer_type = CUdeviceptr;

    // An allocator for the context `ctx`, which it holds (a context cache passes
    // borrowed(state), context_cache.hpp, so as not to keep its context alive).
    explicit device_allocator(context_state_ptr ctx) noexcept : context_(std::move(ctx)) {}
    // An allocator for the context current on this thread (logic_error when there is none).
    static device_allocator for_current_context();

    pointer_type allocate(std::size_t bytes);  // memory_error when the device is out of memory
    // Frees `block` (cuMemFree) with the owning context current; `bytes` is unused. Never
    // throws: a failure is reported through the cleanup-warning hook.
    void free(pointer_type block, std::size_t bytes) noexcept;
    // The context the allocator allocates in.
    const context_state_ptr& owner() const noexcept { return context_; }

private:
    context_state_ptr context_;
};

// cuMemHostAlloc / cuMemFreeHost with host_alloc_flags (CU_MEMHOSTALLOC_*).
class pagelocked_allocator {
public:
    // A block is a host address; null means no block.
    using pointer_type = void*;

    // An allocator for the context `ctx`, which it holds, passing `flags` (CU_MEMHOSTALLOC_*)
    // to every cuMemHostAlloc.
    pagelocked_allocator(context_state_ptr ctx, unsigned int flags) noexcept
        : context_(std::move(ctx)), flags_(flags) {}
    // An allocator with `flags` for the context current on this thread (logic_error when
    // there is none).
    static pagelocked_allocator for_current_context(unsigned int flags = 0);

    pointer_type allocate(std::size_t bytes);  // memory_error when page-locked memory runs out
    // Frees `block` (cuMemFreeHost) with the owning context current; `bytes` is unused.
    // Never throws: a failure is reported through the cleanup-warning hook.
    void free(pointer_type block, std::size_t bytes) noexcept;
    // The CU_MEMHOSTALLOC_* flags every allocation is made with.
    unsigned int flags() const noexcept { return flags_; }
    // The context the allocator allocates in.
    const context_state_ptr& owner() const noexcept { return context_; }

private:
    context_state_ptr context_;
    unsigned int flags_;
};

}  // namespace gpukit::cuda
