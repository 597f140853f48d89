// Device memory shared between processes: a handle for an allocation made here, and the
// owning `ipc_memory_handle` for memory opened from another process's handle.
#pragma once

#include "gpukit/cuda/context.hpp"

#include <cuda.h>

namespace gpukit::cuda {

// The inter-process handle of the allocation that contains `address` (made in this process
// with cuMemAlloc).
CUipcMemHandle get_ipc_mem_handle(CUdeviceptr address);

class ipc_memory_handle {
public:
    // Maps another process's allocation into the current context. `flags` is 0 or
    // CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS (checked before the driver is called).
    static ipc_memory_handle open(const CUipcMemHandle& handle, unsigned int flags);

    ipc_memory_handle(ipc_memory_handle&& other) noexcept;
    ipc_memory_handle& operator=(ipc_memory_handle&& other) noexcept;
    ~ipc_memory_handle();

    CUdeviceptr get() const;  // logic_error once closed
    bool is_closed() const noexcept { return address_ == 0; }
    // Unmaps the memory now; a second call does nothing.
    void close();

private:
    ipc_memory_handle(CUdeviceptr address, context_state_ptr ctx) noexcept
        : address_(address), context_(std::move(ctx)) {}
    void release() noexcept;

    CUdeviceptr address_ = 0;
    context_state_ptr context_;
};

}  // namespace gpukit::cuda
