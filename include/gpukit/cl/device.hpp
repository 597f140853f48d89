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
    explicit device(cl_device_id handle) noexcept : handle_(handle) {}
    cl_device_id handle() const noexcept { return handle_; }

    std::string name() const;
    cl_device_type type() const;
    std::string vendor() const;
    // The vendor's number (a PCIe vendor ID, or a Khronos-assigned one).
    cl_uint vendor_id() const;
    std::string version() const;
    // The OpenCL version the device supports, from version(): (1, 2), (3, 0), ...
    std::pair<int, int> opencl_version() const;
    std::string driver_version() const;
    std::string extensions() const;
    cl_uint max_compute_units() const;
    cl_ulong global_mem_size() const;
    cl_ulong local_mem_size() const;
    size_t max_work_group_size() const;
    cl_ulong max_mem_alloc_size() const;
    // Whether the device supports images (gpukit itself passes none to kernels).
    bool image_support() const;
    // CL_DEVICE_SVM_* bits; 0 on devices older than OpenCL 2.0, which have no SVM.
    cl_device_svm_capabilities svm_capabilities() const;
    platform get_platform() const;

    // Any clGetDeviceInfo parameter (CL_DEVICE_*): the raw bytes, a string, or a value of
    // type T (which must have exactly the size the device answers with).
    std::vector<std::byte> info_bytes(cl_device_info param) const;
    std::string info_string(cl_device_info param) const;
    template <class T>
    T info(cl_device_info param) const;

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
