// Host memory for transfers: aligned (plain, no driver), page-locked (cuMemHostAlloc) and
// registered (an existing range page-locked with cuMemHostRegister). Each is an owning,
// move-only type; every check of arguments happens before the driver is called.
#pragma once

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

namespace gpukit::cuda {

// The size of a virtual memory page, which cuMemHostRegister wants addresses and sizes
// aligned to.
std::size_t host_page_size() noexcept;

// Host memory whose start is a multiple of `alignment`. Needs no driver: it is the way to
// get memory that register_host_memory accepts. Move-only; the destructor frees it.
class aligned_host_allocation {
public:
    // `bytes` (0 allowed) aligned to `alignment`, a power of two. The allocation is rounded
    // up to a whole number of alignment units (at least one), so with the default page
    // alignment both start and size satisfy cuMemHostRegister.
    static aligned_host_allocation allocate(std::size_t bytes, std::size_t alignment);

    // logic_error once freed.
    void* data() const {
        if (!data_)
            throw logic_error("this AlignedHostAllocation has been freed; it can no longer be used");
        return data_.get();
    }
    // The bytes asked for (not the rounded-up capacity).
    std::size_t size() const noexcept { return data_ ? size_ : 0; }
    // The alignment asked for, in bytes.
    std::size_t alignment() const noexcept { return alignment_; }
    // True once free() has run (or the allocation was moved from).
    bool is_freed() const noexcept { return data_ == nullptr; }
    // Frees now; a second call does nothing.
    void free() noexcept { data_.reset(); }

private:
    struct free_memory {
        void operator()(void* p) const noexcept { std::free(p); }
    };

    aligned_host_allocation(void* data, std::size_t size, std::size_t alignment) noexcept
        : data_(data), size_(size), alignment_(alignment) {}

    std::unique_ptr<void, free_memory> data_;  // from std::aligned_alloc
    std::size_t size_ = 0;
    std::size_t alignment_ = 0;
};

// Page-locked host memory from cuMemHostAlloc, owned by the context current at allocation.
// Move-only; the destructor frees it in that context (detail/context_bound.hpp).
class pagelocked_host_allocation {
public:
    // `flags` combines CU_MEMHOSTALLOC_PORTABLE, _DEVICEMAP and _WRITECOMBINED; anything else
    // is refused with logic_error. Zero bytes allocate one byte, so empty arrays work.
    static pagelocked_host_allocation allocate(std::size_t bytes, unsigned int flags);

    // logic_error once freed.
    void* data() const { return memory_.get("this PagelockedHostAllocation has been freed; it can no longer be used"); }
    // The bytes asked for (one byte is allocated for 0); 0 once freed.
    std::size_t size() const noexcept { return is_freed() ? 0 : size_; }
    // True once free() has run (or the allocation was moved from).
    bool is_freed() const noexcept { return memory_.empty(); }
    // The flags the memory was allocated with, together with those the driver reports
    // (cuMemHostGetFlags; current drivers leave PORTABLE out of their report).
    unsigned int flags() const;
    // The device address of this memory (allocated with CU_MEMHOSTALLOC_DEVICEMAP, or any
    // page-locked memory with unified addressing).
    CUdeviceptr device_pointer() const;
    // Frees now in the owning context; a second call does nothing.
    void free() { memory_.free(); }

private:
    pagelocked_host_allocation(void* data, std::size_t size, unsigned int flags, context_state_ptr ctx) noexcept
        : memory_(data, std::move(ctx)), size_(size), flags_(flags) {}

    detail::context_bound<detail::pagelocked_memory_traits> memory_;
    std::size_t size_ = 0;
    unsigned int flags_ = 0;
};

// An existing host range, page-locked for the object's lifetime. It does not own the memory
// itself: whoever made the object keeps the memory alive longer than it. Move-only; the
// destructor unregisters the range in its context (detail/context_bound.hpp).
class registered_host_memory {
public:
    // `data` and `bytes` must both be multiples of host_page_size() and bytes non-zero;
    // `flags` combines CU_MEMHOSTREGISTER_PORTABLE, _DEVICEMAP, _IOMEMORY and _READ_ONLY.
    // Both are checked (logic_error) before the driver is called.
    static registered_host_memory register_memory(void* data, std::size_t bytes, unsigned int flags);

    // logic_error once unregistered.
    void* data() const {
        return memory_.get("this RegisteredHostMemory has been unregistered; it can no longer be used");
    }
    // The bytes registered; 0 once unregistered.
    std::size_t size() const noexcept { return is_registered() ? size_ : 0; }
    // False once unregister() has run (or the object was moved from).
    bool is_registered() const noexcept { return !memory_.empty(); }
    // The device address of data() (registered with CU_MEMHOSTREGISTER_DEVICEMAP, or on a
    // system with unified addressing); logic_error once unregistered.
    CUdeviceptr device_pointer() const;
    // Removes the page lock now (the memory stays valid); a second call does nothing.
    void unregister() { memory_.free(); }

private:
    registered_host_memory(void* data, std::size_t size, context_state_ptr ctx) noexcept
        : memory_(data, std::move(ctx)), size_(size) {}

    detail::context_bound<detail::registered_memory_traits> memory_;
    std::size_t size_ = 0;
};

// A range of host bytes.
struct host_range {
    const void* data;   // the first byte
    std::size_t bytes;  // how many bytes
};

// The whole pages of `page` bytes spanned by `ranges`: each range rounded out to page
// boundaries, the results sorted by address and those that share a page merged into one run;
// empty ranges are left out. What registered_host_pages registers.
std::vector<host_range> page_runs(std::span<const host_range> ranges, std::size_t page);

// Host memory of any alignment, page-locked for the object's lifetime (numba's pinned() and
// mapped() take any array, which rarely starts or ends on a page boundary): every run of
// page_runs(ranges) is registered once, as cuMemHostRegister refuses memory registered
// already. The other bytes of a range's first and last pages are locked with it: harmless,
// since a page stays mapped while any byte of it is in use.
class registered_host_pages {
public:
    // `flags` as for registered_host_memory; every run's errors as there. Runs registered
    // before a failure are unregistered again.
    static registered_host_pages register_ranges(std::span<const host_range> ranges, unsigned int flags);

    // Takes over the other object's runs, leaving it with none.
    registered_host_pages(registered_host_pages&&) noexcept = default;
    // Unregisters this object's runs, then takes over the other object's.
    registered_host_pages& operator=(registered_host_pages&&) noexcept = default;
    registered_host_pages(const registered_host_pages&) = delete;
    registered_host_pages& operator=(const registered_host_pages&) = delete;
    ~registered_host_pages() = default;

    // The device address of host address `p` inside one of the runs (registered with
    // CU_MEMHOSTREGISTER_DEVICEMAP, or on a system with unified addressing); logic_error
    // for an address outside them or once unregistered.
    CUdeviceptr device_pointer(const void* p) const;
    // How many runs register_ranges registered (one per run of page_runs).
    std::size_t run_count() const noexcept { return runs_.size(); }
    // Removes the page locks now (the memory stays valid); a second call does nothing.
    void unregister();

private:
    registered_host_pages() = default;

    std::vector<registered_host_memory> runs_;
};

}  // namespace gpukit::cuda
