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
std::string device::driver_version() const { return info_string(CL_DRIVER_VERSION); }
std::string device::extensions() const { return info_string(CL_DEVICE_EXTENSIONS); }
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
