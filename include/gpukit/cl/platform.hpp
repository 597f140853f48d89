// OpenCL platforms: the installed implementations (PoCL, a GPU vendor's driver, ...).
#pragma once

#include "gpukit/cl/device.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace gpukit::cl {

// Platforms live as long as the process and are not reference counted, so this is a
// plain copyable value.
class platform {
public:
    // Every installed platform, in the ICD loader's order; empty when none is installed.
    static std::vector<platform> all();

    // The platform `handle` (as clGetPlatformIDs lists them).
    explicit platform(cl_platform_id handle) noexcept : handle_(handle) {}
    // The cl_platform_id handle.
    cl_platform_id handle() const noexcept { return handle_; }

    // The platform's name, such as "Portable Computing Language" (CL_PLATFORM_NAME).
    std::string name() const;
    // The vendor's name (CL_PLATFORM_VENDOR).
    std::string vendor() const;
    // The OpenCL version answer, `OpenCL <major>.<minor> <vendor-specific>` (CL_PLATFORM_VERSION).
    std::string version() const;
    // The OpenCL version the platform implements, from version(): (1, 2), (3, 0), ...
    std::pair<int, int> opencl_version() const;
    // "FULL_PROFILE" or "EMBEDDED_PROFILE" (CL_PLATFORM_PROFILE).
    std::string profile() const;
    // The names of the extensions the platform supports, separated by spaces
    // (CL_PLATFORM_EXTENSIONS).
    std::string extensions() const;
    // Lets the implementation free its compiler until the next build (clUnloadPlatformCompiler).
    void unload_compiler() const;
    // The platform's devices of `type` (CL_DEVICE_TYPE_*); empty when it has none of that type.
    std::vector<device> devices(cl_device_type type = CL_DEVICE_TYPE_ALL) const;

    // Any clGetPlatformInfo string (CL_PLATFORM_*), without its terminating NUL.
    std::string info_string(cl_platform_info param) const;
    // Any clGetPlatformInfo parameter (CL_PLATFORM_*): the raw bytes of the answer.
    std::vector<std::byte> info_bytes(cl_platform_info param) const;

    // Platforms are equal when they have the same handle.
    friend bool operator==(const platform&, const platform&) = default;

private:
    cl_platform_id handle_;
};

}  // namespace gpukit::cl
