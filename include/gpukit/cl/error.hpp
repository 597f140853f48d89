// OpenCL errors: the classes thrown for failed calls and misuse, and the standard error names.
//
//   gpukit::cl_error            any OpenCL failure (core/error.hpp)
//   ├── cl::memory_error        the device or host ran out of memory or resources
//   ├── cl::logic_error         the caller did something wrong (CL_INVALID_*, bad arguments)
//   └── cl::runtime_error       the environment failed (no library, no device, no compiler)
//       └── cl::build_error     a program did not build; carries the build log
#pragma once

#include "gpukit/core/error.hpp"

#include <CL/cl.h>

#include <string>

namespace gpukit::cl {

// The device or host ran out of memory or resources (CL_MEM_OBJECT_ALLOCATION_FAILURE,
// CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY).
class memory_error : public cl_error {
public:
    using cl_error::cl_error;
};
// The caller did something wrong: a CL_INVALID_* status, another status only a wrong request
// produces, or arguments gpukit refuses before OpenCL sees them.
class logic_error : public cl_error {
public:
    using cl_error::cl_error;
};
// The environment failed: no OpenCL library, no device, no compiler, or another status that is
// neither a shortage nor a mistake of the caller.
class runtime_error : public cl_error {
public:
    using cl_error::cl_error;
};
// A program did not build (compile or link); log() holds the compiler's output.
class build_error : public runtime_error {
public:
    // `message`, `code` (the OpenCL status) and `routine` as for every cl_error; `log` the
    // build logs of the devices the build failed on.
    build_error(const std::string& message, int code, std::string routine, std::string log)
        : runtime_error(message, code, std::move(routine)), log_(std::move(log)) {}
    // The compiler output of every device the build failed on.
    const std::string& log() const noexcept { return log_; }

private:
    std::string log_;
};

// The standard name of an OpenCL status ("CL_INVALID_VALUE"), or "unknown OpenCL error".
std::string error_name(cl_int code);

// Throws the cl error class that matches `code` (memory_error for allocation and resource
// failures, logic_error for CL_INVALID_* and misuse, runtime_error otherwise), with the
// message "<routine> failed: <CL_ERROR_NAME> (<code>)[: <detail>]".
[[noreturn]] void throw_cl_error(cl_int code, const char* routine, const std::string& detail = {});

}  // namespace gpukit::cl
