// NCCL's errors as gpukit exceptions (ARCHITECTURE.md rule 3).
//
//   gpukit::api_error
//   ├── nccl::nccl_error       an NCCL call failed: code is the ncclResult_t, routine the call
//   gpukit::logic_error
//   └── nccl::argument_error   arguments refused before NCCL saw them (sizes, devices,
//                              contexts, ranks); Python's ValueError
// Arguments of the wrong type (mismatched dtypes) are gpukit::type_error, Python's TypeError.
#pragma once

#include "gpukit/core/error.hpp"
#include "gpukit/nccl/api.hpp"

#include <string>

namespace gpukit::nccl {

// An NCCL call failed: code() is the ncclResult_t (see result), routine() the NCCL function.
class nccl_error : public api_error {
public:
    // Takes the message, the ncclResult_t as an int and the routine, as api_error does;
    // throw_nccl_error() builds all three from a failed call.
    using api_error::api_error;
};

// Arguments gpukit refused before NCCL saw them (sizes, devices, contexts, ranks); Python's
// ValueError.
class argument_error : public logic_error {
public:
    using logic_error::logic_error;
};

// NCCL's name of a result ("ncclInvalidArgument"), or "ncclResult_t <n>" for unknown codes.
std::string result_name(result code);

// Throws nccl_error "<routine> failed: <name>: <ncclGetErrorString>[: <ncclGetLastError>]".
// `comm` (may be null) is the communicator the call used, whose last error NCCL keeps.
[[noreturn]] void throw_nccl_error(result code, const char* routine, comm_t comm = nullptr);

// Throws for any result but success.
inline void check(result code, const char* routine, comm_t comm = nullptr) {
    if (code != result::success)
        throw_nccl_error(code, routine, comm);
}

}  // namespace gpukit::nccl
