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

class memory_error : public cl_error {
public:
    using cl_error::cl_error;
};
class logic_error : public cl_error {
public:
    using cl_error::cl_error;
};
class runtime_error : public cl_error {
public:
    using cl_error::cl_error;
};
class build_error : public runtime_error {
public:
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
