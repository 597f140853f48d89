// Managed (unified) memory from cuMemAllocManaged: one address valid on host and device,
// pages migrated on demand.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>

namespace gpukit::cuda {

// Move-only; the destructor frees the memory in its context (detail/context_bound.hpp).
class managed_allocation {
public:
    // `bytes` (0 allocates one byte, so empty arrays work) attached as `flags`, which must
    // be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST. A request larger than the free device
    // memory (mem_get_info) is refused with memory_error without asking the driver:
    // oversubscribing managed memory can stall the GPU instead of failing cleanly.
    static managed_allocation allocate(std::size_t bytes, unsigned int flags);

    void* data() const;  // the host view of the address; logic_error once freed
    // The bytes asked for (one byte is allocated for 0); 0 once freed.
    std::size_t size() const noexcept { return is_freed() ? 0 : size_; }
    // True once free() has run (or the allocation was moved from).
    bool is_freed() const noexcept { return memory_.empty(); }
    // For managed memory the device address equals the host address.
    CUdeviceptr device_pointer() const {
        return memory_.get("this ManagedAllocation has been freed; it can no longer be used");
    }
    // Changes who may access the memory: CU_MEM_ATTACH_GLOBAL, _HOST, or _SINGLE (only
    // `s`, which must then be a real stream). Enqueued on `s`.
    void attach(unsigned int flags, stream_view s) const;
    // Frees now in the owning context; a second call does nothing.
    void free() { memory_.free(); }

private:
    managed_allocation(CUdeviceptr address, std::size_t size, context_state_ptr ctx) noexcept
        : memory_(address, std::move(ctx)), size_(size) {}

    detail::context_bound<detail::device_memory_traits> memory_;
    std::size_t size_ = 0;
};

}  // namespace gpukit::cuda
