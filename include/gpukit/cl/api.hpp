// The OpenCL ICD loader, loaded at run time (ARCHITECTURE.md rule 1).
//
// libOpenCL.so.1 is opened with dlopen on the first call of api(); every entry point in
// cl_functions.inc is resolved with dlsym. Nothing links against OpenCL, so code that never
// calls api() runs on a machine without it. The table is also the seam for fault injection:
// tests swap an entry through mutable_api() and restore it with api_override.
#pragma once

#include "gpukit/cl/error.hpp"

#include "gpukit/core/api_override.hpp"
#include "gpukit/core/detail/run_time_library.hpp"

#include <CL/cl.h>

namespace gpukit::cl {

// The OpenCL entry points gpukit calls, one function pointer per name in cl_functions.inc
// (`clCreateBuffer`, ...); one the installed loader does not export stays null.
struct opencl_api {
#define X(name) decltype(&::name) name = nullptr;
#include "gpukit/cl/cl_functions.inc"
#undef X
};

// The loaded table. Throws cl::runtime_error naming libOpenCL.so.1 when it cannot be loaded.
const opencl_api& api();

// True when libOpenCL.so.1 can be loaded; never throws.
bool available() noexcept;

// For tests only: the live table, whose entries may be replaced.
opencl_api& mutable_api();

// Throws cl::logic_error: the installed OpenCL loader does not offer `routine`.
[[noreturn]] void throw_missing_entry(const char* routine);

// Throws as throw_cl_error does unless `status` is CL_SUCCESS.
inline void check_status(cl_int status, const char* routine) {
    if (status != CL_SUCCESS)
        throw_cl_error(status, routine);
}

// Fault injection in tests: gpukit::api_override (core/api_override.hpp), also known here.
using gpukit::api_override;

}  // namespace gpukit::cl

// The OpenCL entry point `name`; cl::logic_error when the installed loader lacks it.
#define GPUKIT_CL_ENTRY(name) \
    ::gpukit::detail::required_entry(::gpukit::cl::api().name, #name, ::gpukit::cl::throw_missing_entry)

// Calls an OpenCL entry point that returns a cl_int status and throws on failure:
// GPUKIT_CL(clFinish, queue).
#define GPUKIT_CL(name, ...) ::gpukit::cl::check_status(GPUKIT_CL_ENTRY(name)(__VA_ARGS__), #name)

// Calls an OpenCL entry point that returns its object and reports the status through its
// last argument: handle = GPUKIT_CL_CREATE(clCreateBuffer, "size 16", ctx, flags, 16, nullptr).
// `detail` is added to the error message to say which request failed.
#define GPUKIT_CL_CREATE(name, detail, ...)                                              \
    [&] {                                                                                \
        cl_int gpukit_cl_status_ = CL_SUCCESS;                                           \
        auto gpukit_cl_object_ = GPUKIT_CL_ENTRY(name)(__VA_ARGS__, &gpukit_cl_status_); \
        if (gpukit_cl_status_ != CL_SUCCESS)                                             \
            ::gpukit::cl::throw_cl_error(gpukit_cl_status_, #name, detail);              \
        return gpukit_cl_object_;                                                        \
    }()
