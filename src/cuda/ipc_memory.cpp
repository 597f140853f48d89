#include "gpukit/cuda/ipc_memory.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <string>
#include <utility>

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

ipc_memory_handle::ipc_memory_handle(ipc_memory_handle&& other) noexcept
    : address_(std::exchange(other.address_, 0)), context_(std::move(other.context_)) {}

ipc_memory_handle& ipc_memory_handle::operator=(ipc_memory_handle&& other) noexcept {
    if (this != &other) {
        release();
        address_ = std::exchange(other.address_, 0);
        context_ = std::move(other.context_);
    }
    return *this;
}

ipc_memory_handle::~ipc_memory_handle() { release(); }

CUdeviceptr ipc_memory_handle::get() const {
    if (!address_)
        throw logic_error("this IPCMemoryHandle has been closed; it can no longer be used");
    return address_;
}

void ipc_memory_handle::close() {
    if (!address_)
        return;
    {
        scoped_context in(*context_);
        GPUKIT_CU(cuIpcCloseMemHandle, address_);
    }
    address_ = 0;
    context_.reset();
}

void ipc_memory_handle::release() noexcept {
    if (!address_)
        return;
    scoped_context in(*context_, std::nothrow);
    try {
        report_release_failure(api().cuIpcCloseMemHandle(address_), "cuIpcCloseMemHandle");
    } catch (...) {
    }
    address_ = 0;
    context_.reset();
}

}  // namespace gpukit::cuda
