// The OpenCL ICD loader, loaded at run time (ARCHITECTURE.md rule 1).
//
// libOpenCL.so.1 is opened with dlopen on the first call of api(); every entry point in
// cl_functions.inc is resolved with dlsym. Nothing links against OpenCL, so code that never
// calls api() runs on a machine without it. The table is also the seam for fault injection:
// tests swap an entry through mutable_api() and restore it with api_override.
#pragma once

#include "gpukit/cl/error.hpp"

#include "gpukit/core/api_override.hpp"

#include <CL/cl.h>

namespace gpukit::cl {

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

// Fault injection in tests: gpukit::api_override (core/api_override.hpp), also known here.
using gpukit::api_override;

}  // namespace gpukit::cl

// Calls an OpenCL entry point that returns a cl_int status and throws on failure:
// GPUKIT_CL(clFinish, queue).
#define GPUKIT_CL(name, ...)                                                            \
    do {                                                                                \
        const auto gpukit_cl_fn_ = ::gpukit::cl::api().name;                            \
        if (!gpukit_cl_fn_)                                                             \
            ::gpukit::cl::throw_missing_entry(#name);                                   \
        const cl_int gpukit_cl_status_ = gpukit_cl_fn_(__VA_ARGS__);                    \
        if (gpukit_cl_status_ != CL_SUCCESS)                                            \
            ::gpukit::cl::throw_cl_error(gpukit_cl_status_, #name);                     \
    } while (false)

// Calls an OpenCL entry point that returns its object and reports the status through its
// last argument: handle = GPUKIT_CL_CREATE(clCreateBuffer, "size 16", ctx, flags, 16, nullptr).
// `detail` is added to the error message to say which request failed.
#define GPUKIT_CL_CREATE(name, detail, ...)                                             \
    [&] {                                                                               \
        const auto gpukit_cl_fn_ = ::gpukit::cl::api().name;                            \
        if (!gpukit_cl_fn_)                                                             \
            ::gpukit::cl::throw_missing_entry(#name);                                   \
        cl_int gpukit_cl_status_ = CL_SUCCESS;                                          \
        auto gpukit_cl_object_ = gpukit_cl_fn_(__VA_ARGS__, &gpukit_cl_status_);        \
        if (gpukit_cl_status_ != CL_SUCCESS)                                            \
            ::gpukit::cl::throw_cl_error(gpukit_cl_status_, #name, detail);             \
        return gpukit_cl_object_;                                                       \
    }()
