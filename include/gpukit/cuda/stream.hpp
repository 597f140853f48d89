// CUDA streams: an owning, move-only `stream` and a borrowed `stream_view`.
#pragma once

#include "gpukit/cuda/context.hpp"

#include <cuda.h>

namespace gpukit::cuda {

class event;

// A stream handle someone else owns (the legacy default stream is stream_view{}).
class stream_view {
public:
    constexpr stream_view() noexcept = default;
    constexpr explicit stream_view(CUstream handle) noexcept : handle_(handle) {}
    CUstream handle() const noexcept { return handle_; }
    void synchronize() const;
    bool is_done() const;
    void wait_for_event(const event& e) const;
    // The context the stream belongs to (for the legacy and per-thread default streams, the
    // current one); cuda_error when the handle is not a stream.
    CUcontext context() const;

private:
    CUstream handle_ = nullptr;
};

class stream {
public:
    // A new stream in the current context. `priority` follows the driver: lower numbers are
    // higher priority; values outside the context's range are clamped by the driver.
    static stream create(unsigned int flags = CU_STREAM_DEFAULT, int priority = 0);

    stream(stream&& other) noexcept;
    stream& operator=(stream&& other) noexcept;
    ~stream();

    CUstream handle() const noexcept { return handle_; }
    stream_view view() const noexcept { return stream_view(handle_); }
    operator stream_view() const noexcept { return view(); }
    const context_state_ptr& owner() const noexcept { return context_; }

    void synchronize() const { view().synchronize(); }
    bool is_done() const { return view().is_done(); }
    void wait_for_event(const event& e) const { view().wait_for_event(e); }
    int priority() const;
    unsigned int flags() const;

private:
    stream(CUstream handle, context_state_ptr ctx) noexcept : handle_(handle), context_(std::move(ctx)) {}
    void release() noexcept;

    CUstream handle_ = nullptr;
    context_state_ptr context_;
};

}  // namespace gpukit::cuda
