// OpenCL events: the completion of one enqueued command, for waiting and timing.
#pragma once

#include "gpukit/cl/detail/retained.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace gpukit::cl {

// Device timestamps of a command in nanoseconds (the queue needs profiling enabled).
struct profile_times {
    cl_ulong queued = 0;
    cl_ulong submit = 0;
    cl_ulong start = 0;
    cl_ulong end = 0;
};

namespace detail {
struct kept_owner;
}

// Owns one reference to a cl_event; move-only.
class event {
public:
    // Takes over the reference the enqueue call returned.
    explicit event(cl_event handle) noexcept : handle_(handle, detail::adopt) {}
    // Another owner of the existing event `handle`, as context::wrap.
    static event wrap(cl_event handle, bool retain = true) {
        return event(detail::reference_to(handle, retain, "an event"));
    }
    event(event&&) noexcept = default;
    event& operator=(event&&) noexcept = default;

    cl_event handle() const noexcept { return handle_.get(); }

    // Blocks until the command has finished; throws when it failed.
    void wait() const;
    // CL_QUEUED, CL_SUBMITTED, CL_RUNNING, CL_COMPLETE, or a negative error code.
    cl_int status() const;
    // Any clGetEventInfo / clGetEventProfilingInfo parameter: the raw bytes of the answer.
    std::vector<std::byte> info_bytes(cl_event_info param) const;
    std::vector<std::byte> profiling_info_bytes(cl_profiling_info param) const;
    // The command's timestamps; it must have finished and its queue must profile.
    profile_times profile() const;

    // Keeps `owner` alive until the command is over, whatever happens to this event
    // (PyOpenCL's "nanny event"): give it what owns the host memory a non-blocking command
    // reads or writes, and the program may drop both at once. It is dropped by the first of
    // wait() returning and OpenCL reporting the command complete or failed. OpenCL reports on
    // a thread of its own, so dropping `owner` must be thread-safe, must not block and must
    // not call OpenCL. One owner per event: throws cl::logic_error on a second call (combine
    // the owners into one). Where OpenCL cannot report completion, this waits for the command.
    void keep_until_complete(std::shared_ptr<void> owner);

private:
    explicit event(detail::retained<cl_event> handle) noexcept : handle_(std::move(handle)) {}

    detail::retained<cl_event> handle_;
    // Shared with the completion callback, so the owner lives as long as either needs it.
    std::shared_ptr<detail::kept_owner> kept_;
};

// How many of the completion reports that keep_until_complete asked OpenCL for are still to
// come. OpenCL delivers them on a thread of its own, some implementations (NVIDIA's) a little
// after clFinish has returned: code about to exit waits for this to reach 0 before it judges
// what is still kept.
std::size_t pending_completion_reports() noexcept;

// Waits until every event of `events` has completed (each in turn, as event::wait, whose
// errors it raises: the first failed command's); cl::logic_error for no events, as OpenCL.
void wait_for_events(std::span<const event* const> events);

}  // namespace gpukit::cl
