// CUDA events: markers in a stream, for synchronisation and timing: an owning, move-only
// `event` and a borrowed `event_view`.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"
#include "gpukit/cuda/detail/handle_view.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <atomic>

namespace gpukit::cuda {

// An event handle someone else owns (made by another library, or an event's view()): what
// a stream waits for.
class event_view : public detail::handle_view<CUevent> {
public:
    using handle_view::handle_view;
    // Blocks until the work before the event's last record has completed (returns at once
    // when it was never recorded).
    void synchronize() const;
    // True when the work before the event's last record has completed (also when never recorded).
    bool query() const;
};

// Move-only; the destructor destroys the event in its context (detail/context_bound.hpp).
class event {
public:
    // A new event in the current context (flags: CU_EVENT_*).
    static event create(unsigned int flags = CU_EVENT_DEFAULT);
    // Opens an event another process exported with ipc_handle().
    static event from_ipc_handle(const CUipcEventHandle& handle);

    // The recorded flag is atomic, so moves are written out rather than defaulted.
    event(event&& other) noexcept;
    // Destroys the event this held, then takes over `other`'s.
    event& operator=(event&& other) noexcept;

    // The CUevent; null once moved from.
    CUevent handle() const noexcept { return owned_.handle(); }
    // A borrowed view of this event, valid while the event lives.
    event_view view() const noexcept { return event_view(handle()); }
    // The same as view(), so an event can be passed where an event_view is taken.
    operator event_view() const noexcept { return view(); }
    // The CU_EVENT_* flags the event was made with.
    unsigned int flags() const noexcept { return flags_; }
    // True once record() has been called (always for an event opened from an IPC handle,
    // which the exporting process records).
    bool was_recorded() const noexcept { return recorded_.load(); }

    // Records the event on `s` (default: the legacy default stream): it completes once the
    // work queued on `s` before it has completed.
    void record(stream_view s = {});
    // Blocks until the work before the last record() has completed (returns at once when
    // never recorded).
    void synchronize() const { view().synchronize(); }
    // True when the work before the event's record() has completed (also when never recorded).
    bool query() const { return view().query(); }
    // Milliseconds from `start` to this event; both must have been recorded, with timing.
    float time_since(const event& start) const;
    // Milliseconds from this event to `end`.
    float time_till(const event& end) const { return end.time_since(*this); }
    // A handle another process can open; needs CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING.
    CUipcEventHandle ipc_handle() const;

private:
    event(CUevent handle, unsigned int flags, context_state_ptr ctx, bool recorded) noexcept
        : owned_(handle, std::move(ctx)), flags_(flags), recorded_(recorded) {}

    detail::context_bound<detail::event_traits> owned_;
    unsigned int flags_ = 0;
    std::atomic<bool> recorded_{false};
};

}  // namespace gpukit::cuda
