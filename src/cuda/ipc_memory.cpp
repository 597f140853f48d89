#include "gpukit/cuda/ipc_memory.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <string>

namespace gpukit::cuda {

CUipcMemHandle get_ipc_mem_handle(CUdeviceptr address) {
    if (address == 0)
        throw logic_error("mem_get_ipc_handle(): the device address is null (0); pass a device allocation");
    CUipcMemHandle handle{};
    GPUKIT_CU(cuIpcGetMemHandle, &handle, address);
    return handle;
}

ipc_memory_handle ipc_memory_handle::open(const CUipcMemHandle& handle, unsigned int flags) {
    if (flags != 0 && flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
        throw logic_error("IPCMemoryHandle(): flags " + std::to_string(flags) +
                          " is not valid; use 0 or ipc_mem_flags.LAZY_ENABLE_PEER_ACCESS (1)");
    context ctx = context::current_or_throw("IPCMemoryHandle()");
    CUdeviceptr address = 0;
    GPUKIT_CU(cuIpcOpenMemHandle, &address, handle, flags);
    return ipc_memory_handle(address, ctx.state());
}

}  // namespace gpukit::cuda
