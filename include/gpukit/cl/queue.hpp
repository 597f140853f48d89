// OpenCL command queues: in-order queues of copies and kernel runs on one device.
#pragma once

#include "gpukit/cl/context.hpp"
#include "gpukit/cl/detail/retained.hpp"
#include "gpukit/cl/device.hpp"
#include "gpukit/cl/event.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace gpukit::cl {

// Owns one reference to an in-order cl_command_queue; move-only.
//
// A queue asked to run out of order runs in order: OpenCL lets an out-of-order queue run its
// commands in any order that keeps their events' dependencies, the order queued included, and
// gpukit's arrays and pools rely on that order. Such a queue says it was made out of order
// (properties(), CL_QUEUE_PROPERTIES), as it was asked, and only where the device offers it.
class queue {
public:
    // A queue on `dev`, which must be one of the devices of `ctx`; `profiling` makes its
    // events carry timestamps.
    static queue create(const context& ctx, const device& dev, bool profiling = false);
    // The same from CL_QUEUE_PROFILING_ENABLE and CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
    // bits (logic_error for other bits, and for out of order on a device without it).
    static queue create_with(const context& ctx, const device& dev, cl_command_queue_properties properties);
    // Another owner of the existing queue `handle`, as context::wrap. An out-of-order queue is
    // refused (cl::logic_error): gpukit relies on commands running in the order queued.
    static queue wrap(cl_command_queue handle, bool retain = true);

    // Takes over the other queue's reference; the other's handle becomes null.
    queue(queue&&) noexcept = default;
    // Drops this queue's reference and takes over the other's, whose handle becomes null.
    queue& operator=(queue&&) noexcept = default;

    // The cl_command_queue handle (not a new reference); null once moved from.
    cl_command_queue handle() const noexcept { return handle_.get(); }
    // The queue's context; borrowed (the queue keeps it alive).
    cl_context context_handle() const noexcept { return context_; }
    // The device the queue's commands run on.
    const device& get_device() const noexcept { return device_; }
    // Whether the queue's events carry timestamps (CL_QUEUE_PROFILING_ENABLE; see event::profile).
    bool profiling() const noexcept { return (properties_ & CL_QUEUE_PROFILING_ENABLE) != 0; }
    // The properties the queue was made with (out of order included, see above).
    cl_command_queue_properties properties() const noexcept { return properties_; }
    // Any clGetCommandQueueInfo parameter (CL_QUEUE_*): the raw bytes of the answer
    // (CL_QUEUE_PROPERTIES: properties()).
    std::vector<std::byte> info_bytes(cl_command_queue_info param) const;

    // Blocks until every enqueued command has finished.
    void finish() const;
    // Hands every enqueued command to the device without waiting.
    void flush() const;

private:
    queue(detail::retained<cl_command_queue> handle, cl_context context, device dev,
          cl_command_queue_properties properties) noexcept
        : handle_(std::move(handle)), context_(context), device_(dev), properties_(properties) {}

    detail::retained<cl_command_queue> handle_;
    cl_context context_ = nullptr;
    device device_;
    cl_command_queue_properties properties_ = 0;
};

// A command that does nothing once the commands of `wait_for` (empty: every command queued
// before on `q`) have completed; its event says when.
event enqueue_marker(const queue& q, std::span<const cl_event> wait_for = {});
// The same as a barrier: commands queued after it on `q` start only once it has completed
// (on an in-order queue, as gpukit's are, they would anyway; it matters to other queues'
// commands that wait for its event).
event enqueue_barrier(const queue& q, std::span<const cl_event> wait_for = {});

}  // namespace gpukit::cl
