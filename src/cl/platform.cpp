#include "gpukit/cl/platform.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/info.hpp"

#include <CL/cl_ext.h>

namespace gpukit::cl {

std::vector<platform> platform::all() {
    cl_uint count = 0;
    const cl_int status = api().clGetPlatformIDs(0, nullptr, &count);
    // The ICD loader says CL_PLATFORM_NOT_FOUND_KHR when no implementation is registered.
    if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && count == 0))
        return {};
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clGetPlatformIDs", "counting the platforms");
    std::vector<cl_platform_id> handles(count);
    GPUKIT_CL(clGetPlatformIDs, count, handles.data(), nullptr);
    return {handles.begin(), handles.end()};
}

std::string platform::info_string(cl_platform_info param) const {
    return detail::info_string(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetPlatformInfo(handle_, param, size, value, size_ret);
        },
        "clGetPlatformInfo");
}

std::vector<std::byte> platform::info_bytes(cl_platform_info param) const {
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetPlatformInfo(handle_, param, size, value, size_ret);
        },
        "clGetPlatformInfo");
}

void platform::unload_compiler() const { GPUKIT_CL(clUnloadPlatformCompiler, handle_); }

std::string platform::name() const { return info_string(CL_PLATFORM_NAME); }
std::string platform::vendor() const { return info_string(CL_PLATFORM_VENDOR); }
std::string platform::version() const { return info_string(CL_PLATFORM_VERSION); }
std::pair<int, int> platform::opencl_version() const { return parse_opencl_version(version(), "platform " + name()); }
std::string platform::profile() const { return info_string(CL_PLATFORM_PROFILE); }
std::string platform::extensions() const { return info_string(CL_PLATFORM_EXTENSIONS); }

std::vector<device> platform::devices(cl_device_type type) const {
    cl_uint count = 0;
    const cl_int status = api().clGetDeviceIDs(handle_, type, 0, nullptr, &count);
    if (status == CL_DEVICE_NOT_FOUND)
        return {};
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clGetDeviceIDs",
                       "listing the devices of type " + std::to_string(type) + " on platform '" + name() + "'");
    std::vector<cl_device_id> handles(count);
    GPUKIT_CL(clGetDeviceIDs, handle_, type, count, handles.data(), nullptr);
    return {handles.begin(), handles.end()};
}

}  // namespace gpukit::cl
