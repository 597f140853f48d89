// CUDA events: markers in a stream, for synchronisation and timing.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <atomic>

namespace gpukit::cuda {

class event {
public:
    // A new event in the current context (flags: CU_EVENT_*).
    static event create(unsigned int flags = CU_EVENT_DEFAULT);
    // Opens an event another process exported with ipc_handle().
    static event from_ipc_handle(const CUipcEventHandle& handle);

    event(event&& other) noexcept;
    event& operator=(event&& other) noexcept;
    ~event();

    CUevent handle() const noexcept { return handle_; }
    unsigned int flags() const noexcept { return flags_; }
    bool was_recorded() const noexcept { return recorded_.load(); }

    void record(stream_view s = {});
    void synchronize() const;
    // True when the work before the event's record() has completed (also when never recorded).
    bool query() const;
    // Milliseconds from `start` to this event; both must have been recorded, with timing.
    float time_since(const event& start) const;
    // Milliseconds from this event to `end`.
    float time_till(const event& end) const { return end.time_since(*this); }
    // A handle another process can open; needs CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING.
    CUipcEventHandle ipc_handle() const;

private:
    event(CUevent handle, unsigned int flags, context_state_ptr ctx, bool recorded) noexcept
        : handle_(handle), flags_(flags), context_(std::move(ctx)), recorded_(recorded) {}
    void release() noexcept;

    CUevent handle_ = nullptr;
    unsigned int flags_ = 0;
    context_state_ptr context_;
    std::atomic<bool> recorded_{false};
};

}  // namespace gpukit::cuda
