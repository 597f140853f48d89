// One counted reference to an OpenCL object: the one owner behind every OpenCL class (context,
// queue, buffer, image, sampler, event, program, kernel) and the allocators. Moving hands the reference on,
// copying takes another one (clRetain*), destroying drops it (clRelease*, never throwing: a
// failure becomes a cleanup warning). The owning classes declare only moves, so they stay
// move-only; the allocators copy theirs, since a pool may outlive the Context and
// CommandQueue objects the user made and still needs them to free its blocks.
#pragma once

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/release.hpp"

#include <CL/cl.h>

#include <string>
#include <utility>

namespace gpukit::cl::detail {

// The retain and release entry points of each handle type, and their names for errors.
template <class Handle>
struct retain_traits;

#define GPUKIT_CL_RETAIN_TRAITS(handle_type, object)                     \
    template <>                                                          \
    struct retain_traits<handle_type> {                                  \
        static constexpr auto retain = &opencl_api::clRetain##object;    \
        static constexpr auto release = &opencl_api::clRelease##object;  \
        static constexpr const char* retain_name = "clRetain" #object;   \
        static constexpr const char* release_name = "clRelease" #object; \
    };

GPUKIT_CL_RETAIN_TRAITS(cl_context, Context)
GPUKIT_CL_RETAIN_TRAITS(cl_command_queue, CommandQueue)
GPUKIT_CL_RETAIN_TRAITS(cl_mem, MemObject)
GPUKIT_CL_RETAIN_TRAITS(cl_event, Event)
GPUKIT_CL_RETAIN_TRAITS(cl_program, Program)
GPUKIT_CL_RETAIN_TRAITS(cl_kernel, Kernel)
GPUKIT_CL_RETAIN_TRAITS(cl_sampler, Sampler)

#undef GPUKIT_CL_RETAIN_TRAITS

// Selects the adopting constructor: retained(handle, adopt).
struct adopt_t {
    explicit adopt_t() = default;
};
inline constexpr adopt_t adopt{};

template <class Handle>
class retained {
public:
    using traits = retain_traits<Handle>;

    retained() noexcept = default;
    // Takes a reference of its own to `handle` (which may be null: an empty reference).
    explicit retained(Handle handle) : handle_(handle) {
        if (!handle_)
            return;
        const auto retain =
            gpukit::detail::required_entry(api().*traits::retain, traits::retain_name, throw_missing_entry);
        check_status(retain(handle_), traits::retain_name);
    }
    // Takes over the reference the caller holds: that of a handle just created (clCreate*
    // and enqueued commands' events return one), which this object now drops.
    retained(Handle handle, adopt_t) noexcept : handle_(handle) {}
    retained(const retained& other) : retained(other.handle_) {}
    retained(retained&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    // Drops the reference held before (after taking the new one, so self-assignment is safe).
    retained& operator=(retained other) noexcept {
        std::swap(handle_, other.handle_);
        return *this;
    }
    ~retained() { reset(); }

    Handle get() const noexcept { return handle_; }
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    // Drops the reference now; the handle becomes null.
    void reset() noexcept {
        if (handle_)
            release_with(traits::release, std::exchange(handle_, nullptr), traits::release_name);
    }
    // Forgets the handle without dropping a reference: for an object that only borrowed it
    // (pooled_buffer's buffer part, whose reference is the pool's).
    void forget() noexcept { handle_ = nullptr; }

private:
    Handle handle_ = nullptr;
};

// One more owner of an existing object (the wrap() factories): a reference of its own when
// `retain`, else the caller's, which it takes over (and drops, should the factory throw after).
// A null handle throws cl::logic_error naming `kind` ("a context").
template <class Handle>
retained<Handle> reference_to(Handle handle, bool retain, const char* kind) {
    if (!handle)
        throw logic_error(std::string("wrapping ") + kind + ": the handle is null; expected a live OpenCL object",
                          CL_INVALID_VALUE, retain_traits<Handle>::retain_name);
    return retain ? retained<Handle>(handle) : retained<Handle>(handle, adopt);
}

}  // namespace gpukit::cl::detail
