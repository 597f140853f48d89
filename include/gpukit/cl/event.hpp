// OpenCL events: the completion of one enqueued command, for waiting and timing.
#pragma once

#include "gpukit/cl/detail/retained.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace gpukit::cl {

// Device timestamps of a command in nanoseconds (the queue needs profiling enabled).
struct profile_times {
    cl_ulong queued = 0;  // when the command was enqueued (CL_PROFILING_COMMAND_QUEUED)
    cl_ulong submit = 0;  // when it was handed to the device (CL_PROFILING_COMMAND_SUBMIT)
    cl_ulong start = 0;   // when it started running (CL_PROFILING_COMMAND_START)
    cl_ulong end = 0;     // when it finished (CL_PROFILING_COMMAND_END)
};

namespace detail {
struct kept_owner;
}

class context;

// Owns one reference to a cl_event; move-only.
class event {
public:
    // Takes over the reference the enqueue call returned.
    explicit event(cl_event handle) noexcept : handle_(handle, detail::adopt) {}
    // Another owner of the existing event `handle`, as context::wrap.
    static event wrap(cl_event handle, bool retain = true) {
        return event(detail::reference_to(handle, retain, "an event"));
    }
    // Takes over the other event's reference (and what it keeps); the other's handle becomes null.
    event(event&&) noexcept = default;
    // Drops this event's reference and takes over the other's; the other's handle becomes null.
    event& operator=(event&&) noexcept = default;

    // The cl_event handle (not a new reference); null once moved from.
    cl_event handle() const noexcept { return handle_.get(); }

    // Blocks until the command has finished; throws when it failed.
    void wait() const;
    // CL_QUEUED, CL_SUBMITTED, CL_RUNNING, CL_COMPLETE, or a negative error code.
    cl_int status() const;
    // Any clGetEventInfo parameter (CL_EVENT_*): the raw bytes of the answer.
    std::vector<std::byte> info_bytes(cl_event_info param) const;
    // Any clGetEventProfilingInfo parameter (CL_PROFILING_COMMAND_*): the raw bytes of the
    // answer. cl::logic_error (CL_PROFILING_INFO_NOT_AVAILABLE) unless the queue profiles and
    // the command has finished.
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

    // Calls `callback(status)` once the command has reached `type` (CL_SUBMITTED, CL_RUNNING or
    // CL_COMPLETE; a command that failed reports its negative error code). OpenCL calls it on a
    // thread of its own: it must not block on this thread's locks, and must not throw (that ends
    // the program). Counted in
    // pending_completion_reports until it has run. cl::logic_error for another `type`.
    void set_callback(cl_int type, std::function<void(cl_int)> callback) const;

private:
    explicit event(detail::retained<cl_event> handle) noexcept : handle_(std::move(handle)) {}

    detail::retained<cl_event> handle_;
    // Shared with the completion callback, so the owner lives as long as either needs it.
    std::shared_ptr<detail::kept_owner> kept_;
};

// An event the program completes itself (OpenCL 1.1's user event): commands that wait for it
// start once set_status(CL_COMPLETE) is called. One that is never given a status is set to
// CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST when this owner goes, so that the commands
// waiting for it fail instead of waiting forever (nobody could complete it any more).
class user_event : public event {
public:
    // A new user event of `ctx`, whose status is CL_SUBMITTED until set_status().
    static user_event create(const context& ctx);
    // Takes over `other`'s event and whether its status was set; `other` then sets none when it goes.
    user_event(user_event&& other) noexcept : event(std::move(other)), status_set_(other.status_set_) {
        other.status_set_ = true;
    }
    user_event& operator=(user_event&&) = delete;
    // Fails the event (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) unless its status was set.
    ~user_event();

    // CL_COMPLETE, or a negative error code for a failure; once only (cl::logic_error after).
    void set_status(cl_int status);

private:
    explicit user_event(cl_event handle) noexcept : event(handle) {}
    bool status_set_ = false;
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
