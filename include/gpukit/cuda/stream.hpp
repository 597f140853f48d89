// CUDA streams: an owning, move-only `stream` and a borrowed `stream_view`.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"
#include "gpukit/cuda/detail/handle_view.hpp"

#include <cuda.h>

namespace gpukit::cuda {

class event;
class event_view;

// A stream handle someone else owns (the legacy default stream is stream_view{}).
class stream_view : public detail::handle_view<CUstream> {
public:
    using handle_view::handle_view;
    // Blocks until all work queued on the stream has completed; the driver's error when some
    // of it failed.
    void synchronize() const;
    // True when all work queued on the stream has completed; never blocks.
    bool is_done() const;
    // Makes later work on this stream wait for `e` (an event's view(), or an event itself).
    void wait_for_event(event_view e) const;
    // The context the stream belongs to (for the legacy and per-thread default streams, the
    // current one); cuda_error when the handle is not a stream.
    CUcontext context() const;
};

// Move-only; the destructor destroys the stream in its context (detail/context_bound.hpp).
class stream {
public:
    // A new stream in the current context. `priority` follows the driver: lower numbers are
    // higher priority; values outside the context's range are clamped by the driver.
    static stream create(unsigned int flags = CU_STREAM_DEFAULT, int priority = 0);

    // The CUstream; null once moved from.
    CUstream handle() const noexcept { return owned_.handle(); }
    // A borrowed view of this stream, valid while the stream lives.
    stream_view view() const noexcept { return stream_view(handle()); }
    // The same as view(), so a stream can be passed where a stream_view is taken.
    operator stream_view() const noexcept { return view(); }
    // The context the stream was made in; null once moved from.
    const context_state_ptr& owner() const noexcept { return owned_.context(); }

    // Blocks until all work queued on the stream has completed; the driver's error when some
    // of it failed.
    void synchronize() const { view().synchronize(); }
    // True when all work queued on the stream has completed; never blocks.
    bool is_done() const { return view().is_done(); }
    // Makes later work on this stream wait until `e` has completed (its last record).
    void wait_for_event(const event& e) const;
    // The stream's priority, as given to create() after the driver clamped it to the
    // context's range (context::stream_priority_range).
    int priority() const;
    // The CU_STREAM_* flags the stream was made with (DEFAULT or NON_BLOCKING).
    unsigned int flags() const;

private:
    stream(CUstream handle, context_state_ptr ctx) noexcept : owned_(handle, std::move(ctx)) {}

    detail::context_bound<detail::stream_traits> owned_;
};

}  // namespace gpukit::cuda
