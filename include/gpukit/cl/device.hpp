// OpenCL devices and their properties.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpukit::cl {

class platform;

// The (major, minor) of an OpenCL version answer, "OpenCL <major>.<minor> <more>"
// (CL_PLATFORM_VERSION, CL_DEVICE_VERSION); cl::runtime_error naming `what` for another form.
std::pair<int, int> parse_opencl_version(std::string_view text, const std::string& what);

// Root devices are owned by their platform and live as long as the process, so this is a
// plain copyable value (sub-devices are not offered).
class device {
public:
    // The device `handle` (a root device, as clGetDeviceIDs lists them); nothing is retained.
    explicit device(cl_device_id handle) noexcept : handle_(handle) {}
    // The cl_device_id handle.
    cl_device_id handle() const noexcept { return handle_; }

    // The device's name, as the implementation reports it (CL_DEVICE_NAME).
    std::string name() const;
    // The CL_DEVICE_TYPE_* bits: CPU, GPU, ACCELERATOR, ... (CL_DEVICE_TYPE).
    cl_device_type type() const;
    // The vendor's name (CL_DEVICE_VENDOR).
    std::string vendor() const;
    // The vendor's number (a PCIe vendor ID, or a Khronos-assigned one).
    cl_uint vendor_id() const;
    // The OpenCL version answer, `OpenCL <major>.<minor> <vendor-specific>` (CL_DEVICE_VERSION).
    std::string version() const;
    // The OpenCL version the device supports, from version(): (1, 2), (3, 0), ...
    std::pair<int, int> opencl_version() const;
    // The version of the vendor's driver (CL_DRIVER_VERSION).
    std::string driver_version() const;
    // The names of the extensions the device supports, separated by spaces (CL_DEVICE_EXTENSIONS).
    std::string extensions() const;
    // The number of parallel compute units (CL_DEVICE_MAX_COMPUTE_UNITS; a GPU's multiprocessors).
    cl_uint max_compute_units() const;
    // The size of the device's global memory in bytes (CL_DEVICE_GLOBAL_MEM_SIZE).
    cl_ulong global_mem_size() const;
    // The bytes of local memory a work group may use (CL_DEVICE_LOCAL_MEM_SIZE).
    cl_ulong local_mem_size() const;
    // The most work items one work group may have (CL_DEVICE_MAX_WORK_GROUP_SIZE).
    size_t max_work_group_size() const;
    // The largest buffer the device can allocate, in bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE).
    cl_ulong max_mem_alloc_size() const;
    // Whether the device supports images (gpukit itself passes none to kernels).
    bool image_support() const;
    // CL_DEVICE_SVM_* bits; 0 on devices older than OpenCL 2.0, which have no SVM.
    cl_device_svm_capabilities svm_capabilities() const;
    // The platform the device belongs to (CL_DEVICE_PLATFORM).
    platform get_platform() const;

    // Any clGetDeviceInfo parameter (CL_DEVICE_*): the raw bytes of the answer. Every query
    // throws the cl error OpenCL's status calls for (cl::logic_error for an unknown parameter).
    std::vector<std::byte> info_bytes(cl_device_info param) const;
    // A string parameter's answer, without its terminating NUL.
    std::string info_string(cl_device_info param) const;
    // A parameter's answer as a value of type T, which must have exactly the size the device
    // answers with (cl::logic_error otherwise).
    template <class T>
    T info(cl_device_info param) const;

    // Devices are equal when they have the same handle.
    friend bool operator==(const device&, const device&) = default;

private:
    cl_device_id handle_;
};

}  // namespace gpukit::cl

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/info.hpp"

namespace gpukit::cl {

template <class T>
T device::info(cl_device_info param) const {
    return detail::info_value<T>(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetDeviceInfo(handle_, param, size, value, size_ret);
        },
        "clGetDeviceInfo");
}

}  // namespace gpukit::cl
