#include "gpukit/nccl/error.hpp"

#include <array>

namespace gpukit::nccl {

std::string result_name(result code) {
    static constexpr std::array<const char*, 8> names = {
        "ncclSuccess",         "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
        "ncclInvalidArgument", "ncclInvalidUsage",       "ncclRemoteError", "ncclInProgress",
    };
    const int value = static_cast<int>(code);
    if (value >= 0 && value < static_cast<int>(names.size()))
        return names[value];
    return "ncclResult_t " + std::to_string(value);
}

void throw_nccl_error(result code, const char* routine, comm_t comm) {
    std::string message = std::string(routine) + " failed: " + result_name(code);
    // The library is loaded whenever a call could fail; the texts are a courtesy, so a
    // missing library (a test making errors by hand) only shortens the message.
    if (nccl_available()) {
        const nccl_api& nccl = api();
        if (const char* text = nccl.ncclGetErrorString(code); text && *text)
            message += std::string(": ") + text;
        if (const char* last = nccl.ncclGetLastError(comm); last && *last)
            message += std::string(" (") + last + ")";
    }
    throw nccl_error(message, static_cast<int>(code), routine);
}

}  // namespace gpukit::nccl
