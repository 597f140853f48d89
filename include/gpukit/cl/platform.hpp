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

    explicit platform(cl_platform_id handle) noexcept : handle_(handle) {}
    cl_platform_id handle() const noexcept { return handle_; }

    std::string name() const;
    std::string vendor() const;
    std::string version() const;
    // The OpenCL version the platform implements, from version(): (1, 2), (3, 0), ...
    std::pair<int, int> opencl_version() const;
    std::string profile() const;
    std::string extensions() const;
    // Lets the implementation free its compiler until the next build (clUnloadPlatformCompiler).
    void unload_compiler() const;
    // The platform's devices of `type` (CL_DEVICE_TYPE_*); empty when it has none of that type.
    std::vector<device> devices(cl_device_type type = CL_DEVICE_TYPE_ALL) const;

    // Any clGetPlatformInfo string (CL_PLATFORM_*), and any answer as raw bytes.
    std::string info_string(cl_platform_info param) const;
    std::vector<std::byte> info_bytes(cl_platform_info param) const;

    friend bool operator==(const platform&, const platform&) = default;

private:
    cl_platform_id handle_;
};

}  // namespace gpukit::cl
