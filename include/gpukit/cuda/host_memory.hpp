// Host memory for transfers: aligned (plain, no driver), page-locked (cuMemHostAlloc) and
// registered (an existing range page-locked with cuMemHostRegister). Each is an owning,
// move-only type; every check of arguments happens before the driver is called.
#pragma once

#include "gpukit/cuda/context.hpp"

#include <cuda.h>

#include <cstddef>

namespace gpukit::cuda {

// The size of a virtual memory page, which cuMemHostRegister wants addresses and sizes
// aligned to.
std::size_t host_page_size() noexcept;

// Host memory whose start is a multiple of `alignment`. Needs no driver: it is the way to
// get memory that register_host_memory accepts.
class aligned_host_allocation {
public:
    // `bytes` (0 allowed) aligned to `alignment`, a power of two. The allocation is rounded
    // up to a whole number of alignment units (at least one), so with the default page
    // alignment both start and size satisfy cuMemHostRegister.
    static aligned_host_allocation allocate(std::size_t bytes, std::size_t alignment);

    aligned_host_allocation(aligned_host_allocation&& other) noexcept;
    aligned_host_allocation& operator=(aligned_host_allocation&& other) noexcept;
    ~aligned_host_allocation();

    // logic_error once freed.
    void* data() const;
    // The bytes asked for (not the rounded-up capacity).
    std::size_t size() const noexcept { return size_; }
    std::size_t alignment() const noexcept { return alignment_; }
    bool is_freed() const noexcept { return data_ == nullptr; }
    // Frees now; a second call does nothing.
    void free() noexcept;

private:
    aligned_host_allocation(void* data, std::size_t size, std::size_t alignment) noexcept
        : data_(data), size_(size), alignment_(alignment) {}

    void* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t alignment_ = 0;
};

// Page-locked host memory from cuMemHostAlloc, owned by the context current at allocation.
class pagelocked_host_allocation {
public:
    // `flags` combines CU_MEMHOSTALLOC_PORTABLE, _DEVICEMAP and _WRITECOMBINED; anything else
    // is refused with logic_error. Zero bytes allocate one byte, so empty arrays work.
    static pagelocked_host_allocation allocate(std::size_t bytes, unsigned int flags);

    pagelocked_host_allocation(pagelocked_host_allocation&& other) noexcept;
    pagelocked_host_allocation& operator=(pagelocked_host_allocation&& other) noexcept;
    ~pagelocked_host_allocation();

    void* data() const;  // logic_error once freed
    std::size_t size() const noexcept { return size_; }
    bool is_freed() const noexcept { return data_ == nullptr; }
    // The flags the memory was allocated with, together with those the driver reports
    // (cuMemHostGetFlags; current drivers leave PORTABLE out of their report).
    unsigned int flags() const;
    // The device address of this memory (allocated with CU_MEMHOSTALLOC_DEVICEMAP, or any
    // page-locked memory with unified addressing).
    CUdeviceptr device_pointer() const;
    // Frees now in the owning context; a second call does nothing.
    void free();

private:
    pagelocked_host_allocation(void* data, std::size_t size, unsigned int flags, context_state_ptr ctx) noexcept
        : data_(data), size_(size), flags_(flags), context_(std::move(ctx)) {}
    void release() noexcept;

    void* data_ = nullptr;
    std::size_t size_ = 0;
    unsigned int flags_ = 0;
    context_state_ptr context_;
};

// An existing host range, page-locked for the object's lifetime. It does not own the memory
// itself: whoever made the object keeps the memory alive longer than it.
class registered_host_memory {
public:
    // `data` and `bytes` must both be multiples of host_page_size() and bytes non-zero;
    // `flags` combines CU_MEMHOSTREGISTER_PORTABLE, _DEVICEMAP, _IOMEMORY and _READ_ONLY.
    // Both are checked (logic_error) before the driver is called.
    static registered_host_memory register_memory(void* data, std::size_t bytes, unsigned int flags);

    registered_host_memory(registered_host_memory&& other) noexcept;
    registered_host_memory& operator=(registered_host_memory&& other) noexcept;
    ~registered_host_memory();

    void* data() const;  // logic_error once unregistered
    std::size_t size() const noexcept { return size_; }
    bool is_registered() const noexcept { return data_ != nullptr; }
    CUdeviceptr device_pointer() const;
    // Removes the page lock now (the memory stays valid); a second call does nothing.
    void unregister();

private:
    registered_host_memory(void* data, std::size_t size, context_state_ptr ctx) noexcept
        : data_(data), size_(size), context_(std::move(ctx)) {}
    void release() noexcept;

    void* data_ = nullptr;
    std::size_t size_ = 0;
    context_state_ptr context_;
};

}  // namespace gpukit::cuda
