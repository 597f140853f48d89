// A counted reference to a context or queue that copies share by retaining. Allocators hold
// their context or queue this way: the pool may outlive the Context and CommandQueue objects
// the user made, and still needs them to free its blocks.
#pragma once

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/release.hpp"

#include <CL/cl.h>

#include <utility>

namespace gpukit::cl::detail {

template <class Handle>
struct retain_traits;

template <>
struct retain_traits<cl_context> {
    static constexpr auto retain = &opencl_api::clRetainContext;
    static constexpr auto release = &opencl_api::clReleaseContext;
    static constexpr const char* retain_name = "clRetainContext";
    static constexpr const char* release_name = "clReleaseContext";
};

template <>
struct retain_traits<cl_command_queue> {
    static constexpr auto retain = &opencl_api::clRetainCommandQueue;
    static constexpr auto release = &opencl_api::clReleaseCommandQueue;
    static constexpr const char* retain_name = "clRetainCommandQueue";
    static constexpr const char* release_name = "clReleaseCommandQueue";
};

template <class Handle>
class retained {
public:
    using traits = retain_traits<Handle>;

    retained() noexcept = default;
    // Takes a reference of its own to `handle` (which may be null: an empty reference).
    explicit retained(Handle handle) : handle_(handle) {
        if (!handle_)
            return;
        const auto retain = api().*traits::retain;
        if (!retain)
            throw_missing_entry(traits::retain_name);
        if (const cl_int status = retain(handle_); status != CL_SUCCESS)
            throw_cl_error(status, traits::retain_name);
    }
    retained(const retained& other) : retained(other.handle_) {}
    retained(retained&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    retained& operator=(retained other) noexcept {
        std::swap(handle_, other.handle_);
        return *this;
    }
    ~retained() {
        if (handle_)
            release_with(traits::release, handle_, traits::release_name);
    }

    Handle get() const noexcept { return handle_; }
    explicit operator bool() const noexcept { return handle_ != nullptr; }

private:
    Handle handle_ = nullptr;
};

}  // namespace gpukit::cl::detail
