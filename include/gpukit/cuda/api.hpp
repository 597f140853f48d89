// The CUDA driver, loaded at run time (ARCHITECTURE.md rule 1).
//
// libcuda.so.1 is opened with dlopen on the first call of api(); every entry point in
// driver_functions.inc is resolved through cuGetProcAddress, each at the CUDA version of
// its prototype's ABI. Nothing links against the driver, so code that never calls api()
// runs on a machine without one. The table is also the seam for fault injection: tests swap an entry
// through mutable_api() and restore it with api_override.
#pragma once

#include "gpukit/core/api_override.hpp"
#include "gpukit/core/detail/run_time_library.hpp"
#include "gpukit/cuda/detail/gl_declarations.hpp"

#include <cuda.h>
#include <cudaProfiler.h>

#include <string>

namespace gpukit::cuda {

// The seed's shared_config calls are deprecated in CUDA 12 but still offered.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
// The driver's entry points: one function pointer per entry of driver_functions.inc, named
// as cuda.h names the function (cuMemAlloc, ...). An entry the installed driver does not
// offer stays null; GPUKIT_CU_ENTRY turns a call of it into logic_error.
struct driver_api {
#define X(name, version) decltype(&::name) name = nullptr;
#include "gpukit/cuda/driver_functions.inc"
#undef X
};
#pragma GCC diagnostic pop

// The loaded table. Throws runtime_error naming libcuda.so.1 when the driver cannot be
// loaded, or the result of cuInit when initialisation fails (for CUDA_ERROR_NO_DEVICE the
// table is still returned: device counting must work on a machine without a GPU).
const driver_api& api();

// True when libcuda.so.1 can be loaded; never throws.
bool driver_available() noexcept;

// The file libcuda.so.1 was loaded from, links resolved (for reports such as `python -m
// gpukit info`). Throws runtime_error like api() when there is no driver, but not when only
// cuInit failed: the file is worth showing then too.
std::string driver_library_path();

// For tests only: the live table, whose entries may be replaced.
driver_api& mutable_api();

// Throws the gpukit error that matches `result` (memory_error for out-of-memory, launch_error
// for kernel faults, logic_error for invalid arguments or handles, runtime_error otherwise),
// with the message "<routine> failed: <CUDA_ERROR_NAME>: <description>[ (<detail>)]".
[[noreturn]] void throw_cuda_error(CUresult result, const char* routine, const std::string& detail = {});

// Throws as throw_cuda_error does unless `result` is CUDA_SUCCESS.
inline void check_result(CUresult result, const char* routine) {
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, routine);
}

// The answer of a readiness query (cuStreamQuery, cuEventQuery): true for CUDA_SUCCESS,
// false for CUDA_ERROR_NOT_READY; any other result is thrown as throw_cuda_error does.
bool is_ready(CUresult result, const char* routine);

// Throws logic_error: the installed driver does not offer `routine`.
[[noreturn]] void throw_missing_entry(const char* routine);

// The driver's name for a result ("CUDA_ERROR_OUT_OF_MEMORY"), or "CUresult <n>".
std::string error_name(CUresult result);

// Fault injection in tests: gpukit::api_override (core/api_override.hpp), also known here.
using gpukit::api_override;

}  // namespace gpukit::cuda

// The driver entry point `name`; logic_error when the installed driver lacks it.
#define GPUKIT_CU_ENTRY(name) \
    ::gpukit::detail::required_entry(::gpukit::cuda::api().name, #name, ::gpukit::cuda::throw_missing_entry)

// Calls a driver entry point and throws on failure: GPUKIT_CU(cuMemAlloc, &ptr, size).
#define GPUKIT_CU(name, ...) ::gpukit::cuda::check_result(GPUKIT_CU_ENTRY(name)(__VA_ARGS__), #name)
