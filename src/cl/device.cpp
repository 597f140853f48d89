#include "gpukit/cl/device.hpp"

#include "gpukit/cl/platform.hpp"

namespace gpukit::cl {
namespace {

auto query(cl_device_id handle, cl_device_info param) {
    return [=](size_t size, void* value, size_t* size_ret) {
        return api().clGetDeviceInfo(handle, param, size, value, size_ret);
    };
}

}  // namespace

std::vector<std::byte> device::info_bytes(cl_device_info param) const {
    return detail::info_bytes(query(handle_, param), "clGetDeviceInfo");
}

std::string device::info_string(cl_device_info param) const {
    return detail::info_string(query(handle_, param), "clGetDeviceInfo");
}

std::string device::name() const { return info_string(CL_DEVICE_NAME); }
cl_device_type device::type() const { return info<cl_device_type>(CL_DEVICE_TYPE); }
std::string device::vendor() const { return info_string(CL_DEVICE_VENDOR); }
std::string device::version() const { return info_string(CL_DEVICE_VERSION); }
std::pair<int, int> device::opencl_version() const { return parse_opencl_version(version(), "device " + name()); }

std::pair<int, int> parse_opencl_version(std::string_view text, const std::string& what) {
    // "OpenCL " then digits, '.', digits, then a space or the end.
    constexpr std::string_view prefix = "OpenCL ";
    const auto number = [&](std::size_t& at) {
        int value = 0;
        const std::size_t start = at;
        while (at < text.size() && at - start < 4 && text[at] >= '0' && text[at] <= '9')
            value = value * 10 + (text[at++] - '0');
        return at > start ? value : -1;
    };
    std::size_t at = prefix.size();
    int major = -1, minor = -1;
    if (text.starts_with(prefix) && (major = number(at)) >= 0 && at < text.size() && text[at++] == '.')
        minor = number(at);
    if (minor < 0 || (at < text.size() && text[at] != ' '))
        throw runtime_error("the OpenCL version of " + what + " is '" + std::string(text) +
                                "'; expected 'OpenCL <major>.<minor> ...' as the OpenCL specification has it",
                            CL_INVALID_VALUE, "clGet*Info(VERSION)");
    return {major, minor};
}
std::string device::driver_version() const { return info_string(CL_DRIVER_VERSION); }
std::string device::extensions() const { return info_string(CL_DEVICE_EXTENSIONS); }
cl_uint device::vendor_id() const { return info<cl_uint>(CL_DEVICE_VENDOR_ID); }
cl_uint device::max_compute_units() const { return info<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS); }
cl_ulong device::global_mem_size() const { return info<cl_ulong>(CL_DEVICE_GLOBAL_MEM_SIZE); }
cl_ulong device::local_mem_size() const { return info<cl_ulong>(CL_DEVICE_LOCAL_MEM_SIZE); }
size_t device::max_work_group_size() const { return info<size_t>(CL_DEVICE_MAX_WORK_GROUP_SIZE); }
cl_ulong device::max_mem_alloc_size() const { return info<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE); }
bool device::image_support() const { return info<::cl_bool>(CL_DEVICE_IMAGE_SUPPORT) != CL_FALSE; }

cl_device_svm_capabilities device::svm_capabilities() const {
    cl_device_svm_capabilities caps = 0;
    // Devices before OpenCL 2.0 do not know the parameter and answer CL_INVALID_VALUE.
    const cl_int status = api().clGetDeviceInfo(handle_, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, nullptr);
    if (status == CL_INVALID_VALUE)
        return 0;
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clGetDeviceInfo", "CL_DEVICE_SVM_CAPABILITIES of '" + name() + "'");
    return caps;
}

platform device::get_platform() const { return platform(info<cl_platform_id>(CL_DEVICE_PLATFORM)); }

}  // namespace gpukit::cl
