// OpenCL events: the completion of one enqueued command, for waiting and timing.
#pragma once

#include <CL/cl.h>

namespace gpukit::cl {

// Device timestamps of a command in nanoseconds (the queue needs profiling enabled).
struct profile_times {
    cl_ulong queued = 0;
    cl_ulong submit = 0;
    cl_ulong start = 0;
    cl_ulong end = 0;
};

// Owns one reference to a cl_event; move-only.
class event {
public:
    // Takes over the reference the enqueue call returned.
    explicit event(cl_event handle) noexcept : handle_(handle) {}
    event(event&& other) noexcept;
    event& operator=(event&& other) noexcept;
    ~event();

    cl_event handle() const noexcept { return handle_; }

    // Blocks until the command has finished; throws when it failed.
    void wait() const;
    // CL_QUEUED, CL_SUBMITTED, CL_RUNNING, CL_COMPLETE, or a negative error code.
    cl_int status() const;
    // The command's timestamps; it must have finished and its queue must profile.
    profile_times profile() const;

private:
    void release() noexcept;

    cl_event handle_ = nullptr;
};

}  // namespace gpukit::cl
