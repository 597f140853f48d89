// One way to own a driver object that lives in a CUDA context (ARCHITECTURE.md, "Ownership,
// once"): the handle, the state of the context it belongs to, and the driver call that
// releases it. Every CUDA resource class holds one of these as a member, so moving,
// destroying, the throwing free() and the quiet release of destructors are written here
// once; what else a class holds (a size, flags, the array a texture reads) stays in it.
//
// Traits name the handle and the release call:
//
//     struct device_memory_traits {
//         using handle_type = CUdeviceptr;  // handle_type{} means "nothing owned"
//         static constexpr const char* release_name = "cuMemFree";
//         static CUresult release(CUdeviceptr handle) { return api().cuMemFree(handle); }
//     };
//
// Those of a plain driver call are made below from the table in release_calls.inc; a
// release that does more writes its own (launch_staging.hpp).
//
// Every CUDA resource gpukit owns is released with its context current, whichever thread
// lets go of it. `Scope` is what makes it current: scoped_context, replaced only by the
// tests of this template, which run without a driver.
#pragma once

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/context.hpp"

#include <new>
#include <utility>

namespace gpukit::cuda::detail {

template <class Traits, class Scope = scoped_context>
class context_bound {
public:
    using handle_type = typename Traits::handle_type;

    context_bound() noexcept = default;
    context_bound(handle_type handle, context_state_ptr context) noexcept
        : handle_(handle), context_(std::move(context)) {}
    context_bound(context_bound&& other) noexcept
        : handle_(std::exchange(other.handle_, handle_type{})), context_(std::move(other.context_)) {}
    // Releases what this held (as the destructor does), then takes over `other`'s handle.
    context_bound& operator=(context_bound&& other) noexcept {
        if (this != &other) {
            reset();
            handle_ = std::exchange(other.handle_, handle_type{});
            context_ = std::move(other.context_);
        }
        return *this;
    }
    context_bound(const context_bound&) = delete;
    context_bound& operator=(const context_bound&) = delete;
    ~context_bound() { reset(); }

    // True once released or moved from.
    bool empty() const noexcept { return handle_ == handle_type{}; }
    // The handle; handle_type{} when empty.
    const handle_type& handle() const noexcept { return handle_; }
    // The handle; logic_error(`released_message`) when empty, the message naming the
    // owner's Python class ("this DeviceAllocation has been freed; ...").
    const handle_type& get(const char* released_message) const {
        if (empty())
            throw logic_error(released_message);
        return handle_;
    }
    // The owning context; null when empty.
    const context_state_ptr& context() const noexcept { return context_; }
    // The owning context; logic_error(`released_message`) when empty.
    const context_state_ptr& context(const char* released_message) const {
        get(released_message);
        return context_;
    }

    // Releases the handle now, in its context. A failure throws the driver's error naming
    // the release call and leaves the handle owned, so the destructor tries again. A second
    // call does nothing.
    void free() {
        if (empty())
            return;
        {
            Scope in(*context_);
            const CUresult result = Traits::release(handle_);
            if (result != CUDA_SUCCESS)
                throw_cuda_error(result, Traits::release_name);
        }
        forget();
    }

    // The destructor's release: never throws; a failure is reported through the
    // cleanup-warning hook (report_release_failure).
    void reset() noexcept {
        if (empty())
            return;
        release(*context_, handle_);
        forget();
    }

    // Releases a handle that no object holds, as reset() does: the memory pool's allocators
    // hand their blocks out as plain addresses.
    static void release(const context_state& context, handle_type handle) noexcept {
        Scope in(context, std::nothrow);
        try {
            report_release_failure(Traits::release(handle), Traits::release_name);
        } catch (...) {  // no driver (or a forked child): nothing can be released
        }
    }

private:
    void forget() noexcept {
        handle_ = handle_type{};
        context_.reset();
    }

    handle_type handle_{};
    context_state_ptr context_;
};

#define X(traits, handle, call)                                          \
    struct traits {                                                      \
        using handle_type = handle;                                      \
        static constexpr const char* release_name = #call;               \
        static CUresult release(handle_type h) { return api().call(h); } \
    };
#include "gpukit/cuda/detail/release_calls.inc"
#undef X

}  // namespace gpukit::cuda::detail
