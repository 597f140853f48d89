// Linear device memory: the owning, move-only `device_allocation`, pitched allocation, the
// free/total query, and `device_pointer`, the one way copy and memset functions take a
// device address together with how many bytes are known to be there.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"

#include <cuda.h>

#include <cstddef>
#include <optional>
#include <utility>

namespace gpukit::cuda {

// Device memory in bytes, as cuMemGetInfo reports it.
struct memory_info {
    std::size_t free = 0;   // bytes free on the device (every process's allocations count)
    std::size_t total = 0;  // bytes of device memory in all
};

// Free and total memory of the current context's device, in bytes.
memory_info mem_get_info();

// True when the CPU may dereference `address`: managed memory, or page-locked host memory
// seen through its device address. Plain cuMemAlloc memory is not (false also for addresses
// the driver does not know).
bool is_host_accessible(CUdeviceptr address);

// Move-only; the destructor frees the memory in its context, reporting a failure through
// cleanup_warning (detail/context_bound.hpp).
class device_allocation {
public:
    // `bytes` of device memory in the current context. Zero bytes is refused with
    // logic_error before the driver is called: cuMemAlloc rejects it with an unhelpful
    // CUDA_ERROR_INVALID_VALUE, and a null allocation would only move the failure to the
    // first copy.
    static device_allocation allocate(std::size_t bytes);

    // Rows of at least `width_bytes` for `height` rows, laid out so that elements of
    // `access_size` bytes (4, 8 or 16) are accessed coalesced. Returns the allocation and
    // the pitch (bytes from one row to the next) the driver chose. Arguments are checked
    // before the driver is called.
    static std::pair<device_allocation, std::size_t> allocate_pitch(std::size_t width_bytes, std::size_t height,
                                                                    unsigned int access_size);

    // The device address; logic_error once freed (or moved from).
    CUdeviceptr get() const { return memory_.get(freed); }
    // Bytes asked for at allocation (a pitched allocation: pitch * height); 0 once freed.
    std::size_t size() const noexcept { return is_freed() ? 0 : size_; }
    // True once free() has run (or the allocation was moved from).
    bool is_freed() const noexcept { return memory_.empty(); }
    // Frees the memory now, in the owning context. Calling it again does nothing, so code
    // that frees early and then lets the destructor run is safe; any other use afterwards
    // throws logic_error.
    void free() { memory_.free(); }
    // The owning context; logic_error once freed.
    const context_state_ptr& owner() const { return memory_.context(freed); }

private:
    static constexpr const char* freed = "this DeviceAllocation has been freed; it can no longer be used";

    device_allocation(CUdeviceptr address, std::size_t size, context_state_ptr ctx) noexcept
        : memory_(address, std::move(ctx)), size_(size) {}

    detail::context_bound<detail::device_memory_traits> memory_;
    std::size_t size_ = 0;
};

// A device address argument: the address, and the number of bytes known to be valid from it
// (known for allocations, unknown for raw addresses). Copies and memsets check their size
// against `capacity` before calling the driver.
struct device_pointer {
    CUdeviceptr address = 0;              // the device address; 0 is refused by copies and memsets
    std::optional<std::size_t> capacity;  // bytes valid from `address`, when known

    // `address`, with `capacity` bytes valid from it when known. Converts implicitly, so a
    // plain CUdeviceptr may be passed where a device_pointer is taken.
    device_pointer(CUdeviceptr address, std::optional<std::size_t> capacity = std::nullopt) noexcept
        : address(address), capacity(capacity) {}
    // Throws logic_error when `allocation` has been freed.
    device_pointer(const device_allocation& allocation) : address(allocation.get()), capacity(allocation.size()) {}
};

}  // namespace gpukit::cuda
