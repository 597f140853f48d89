// OpenCL contexts: the devices of one platform that share buffers and programs.
#pragma once

#include "gpukit/cl/device.hpp"

#include <CL/cl.h>

#include <span>
#include <vector>

namespace gpukit::cl {

// Owns one reference to a cl_context; move-only. Buffers, queues and programs created
// from it keep the OpenCL context alive themselves, so it may be destroyed before them.
class context {
public:
    // A context for `devices`, which must be non-empty and belong to one platform.
    static context create(std::span<const device> devices);

    context(context&& other) noexcept;
    context& operator=(context&& other) noexcept;
    ~context();

    cl_context handle() const noexcept { return handle_; }
    const std::vector<device>& devices() const noexcept { return devices_; }

private:
    context(cl_context handle, std::vector<device> devices) noexcept
        : handle_(handle), devices_(std::move(devices)) {}
    void release() noexcept;

    cl_context handle_ = nullptr;
    std::vector<device> devices_;
};

}  // namespace gpukit::cl
