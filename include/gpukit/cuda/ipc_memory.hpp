// Device memory shared between processes: a handle for an allocation made here, and the
// owning `ipc_memory_handle` for memory opened from another process's handle.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"

#include <cuda.h>

namespace gpukit::cuda {

// The inter-process handle of the allocation that contains `address` (made in this process
// with cuMemAlloc).
CUipcMemHandle get_ipc_mem_handle(CUdeviceptr address);

// Move-only; the destructor unmaps the memory in its context (detail/context_bound.hpp).
class ipc_memory_handle {
public:
    // Maps another process's allocation into the current context. `flags` is 0 or
    // CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS (checked before the driver is called).
    static ipc_memory_handle open(const CUipcMemHandle& handle, unsigned int flags);

    // logic_error once closed.
    CUdeviceptr get() const { return memory_.get("this IPCMemoryHandle has been closed; it can no longer be used"); }
    // True once close() has run (or the handle was moved from).
    bool is_closed() const noexcept { return memory_.empty(); }
    // Unmaps the memory now; a second call does nothing.
    void close() { memory_.free(); }

private:
    ipc_memory_handle(CUdeviceptr address, context_state_ptr ctx) noexcept : memory_(address, std::move(ctx)) {}

    detail::context_bound<detail::ipc_memory_traits> memory_;
};

}  // namespace gpukit::cuda
