// OpenCL contexts: the devices of one platform that share buffers and programs.
#pragma once

#include "gpukit/cl/detail/retained.hpp"
#include "gpukit/cl/device.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace gpukit::cl {

// Owns one reference to a cl_context; move-only. Buffers, queues and programs created
// from it keep the OpenCL context alive themselves, so it may be destroyed before them.
class context {
public:
    // A context for `devices`, which must be non-empty and belong to one platform; a device
    // listed twice is taken once (devices() lists it once, in the order first given).
    static context create(std::span<const device> devices);
    // Another owner of the existing context `handle` (a queue's, one made elsewhere), with the
    // devices OpenCL reports for it: a reference of its own when `retain`, else the caller's,
    // which it takes over. `handle` must be a live cl_context (OpenCL cannot tell otherwise).
    static context wrap(cl_context handle, bool retain = true);

    // Takes over the other context's reference; the other's handle becomes null.
    context(context&&) noexcept = default;
    // Drops this context's reference and takes over the other's, whose handle becomes null.
    context& operator=(context&&) noexcept = default;

    // The cl_context handle (not a new reference); null once moved from.
    cl_context handle() const noexcept { return handle_.get(); }
    // The context's devices, each once, in the order given to create() (or OpenCL's, for wrap()).
    const std::vector<device>& devices() const noexcept { return devices_; }
    // Any clGetContextInfo parameter (CL_CONTEXT_*): the raw bytes of the answer.
    std::vector<std::byte> info_bytes(cl_context_info param) const;

private:
    context(detail::retained<cl_context> handle, std::vector<device> devices) noexcept
        : handle_(std::move(handle)), devices_(std::move(devices)) {}

    detail::retained<cl_context> handle_;
    std::vector<device> devices_;
};

}  // namespace gpukit::cl
