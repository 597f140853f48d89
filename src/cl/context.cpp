#include "gpukit/cl/context.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/info.hpp"
#include "gpukit/cl/platform.hpp"

#include <algorithm>
#include <utility>

namespace gpukit::cl {

context context::create(std::span<const device> devices) {
    if (devices.empty())
        throw logic_error("creating a context: expected at least one device, got none", CL_INVALID_VALUE,
                          "clCreateContext");
    const cl_platform_id platform_id = devices.front().get_platform().handle();
    for (const device& d : devices)
        if (d.get_platform().handle() != platform_id)
            throw logic_error("creating a context: all devices must belong to one platform, but '" + d.name() +
                                  "' is on another platform than '" + devices.front().name() + "'",
                              CL_INVALID_DEVICE, "clCreateContext");
    // A device named twice is one device of the context (OpenCL ignores repeats, and PyOpenCL's
    // Context lists each device once): devices() must not list it twice either.
    std::vector<device> unique;
    for (const device& d : devices)
        if (std::find(unique.begin(), unique.end(), d) == unique.end())
            unique.push_back(d);
    std::vector<cl_device_id> handles;
    for (const device& d : unique)
        handles.push_back(d.handle());
    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                                reinterpret_cast<cl_context_properties>(platform_id), 0};
    detail::retained<cl_context> handle(GPUKIT_CL_CREATE(clCreateContext,
                                                         "creating a context for " + std::to_string(handles.size()) +
                                                             " device(s)",
                                                         properties, static_cast<cl_uint>(handles.size()),
                                                         handles.data(), nullptr, nullptr),
                                        detail::adopt);
    return context(std::move(handle), std::move(unique));
}

context context::wrap(cl_context handle, bool retain) {
    detail::retained<cl_context> owned = detail::reference_to(handle, retain, "a context");
    const std::vector<cl_device_id> ids = detail::info_array<cl_device_id>(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetContextInfo(handle, CL_CONTEXT_DEVICES, size, value, size_ret);
        },
        "clGetContextInfo");
    return context(std::move(owned), {ids.begin(), ids.end()});
}

std::vector<std::byte> context::info_bytes(cl_context_info param) const {
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetContextInfo(handle(), param, size, value, size_ret);
        },
        "clGetContextInfo");
}

}  // namespace gpukit::cl
