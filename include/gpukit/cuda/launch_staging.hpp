// Device copies of host buffers for one launch: the In / Out / InOut arguments.
//
// A staging_buffer allocates device memory of the host buffer's size, copies the host bytes
// in (when `copy_in`), and after the launch copies them back (when `copy_out`). It owns the
// device memory and frees it, in its context, when destroyed (detail/context_bound.hpp),
// once the launch stream has finished with it.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>

namespace gpukit::cuda {

namespace detail {
// A staging buffer's device copy and the stream of the launch that reads it.
struct staged_memory {
    CUdeviceptr device = 0;
    CUstream stream = nullptr;
    bool operator==(const staged_memory&) const = default;
};
// Waits for the stream (the kernel may still read an In buffer), then cuMemFree.
struct staged_memory_traits {
    using handle_type = staged_memory;
    static constexpr const char* release_name = "cuMemFree";
    static CUresult release(staged_memory memory);
};
}  // namespace detail

// The device copy of one host buffer for a launch (an In, Out or InOut argument): made
// before the launch, finish() after it. Move-only; the destructor frees the device memory
// once the launch stream is done with it.
class staging_buffer {
public:
    // Allocates in the current context and, when `copy_in`, enqueues the host-to-device copy
    // on `s`. `host` must stay valid until finish() returns.
    staging_buffer(void* host, std::size_t bytes, bool copy_in, bool copy_out, stream_view s);
    // Takes over the other buffer's device memory; the other is left owning none.
    staging_buffer(staging_buffer&&) noexcept = default;
    staging_buffer& operator=(staging_buffer&&) = delete;

    // 0 for an empty host buffer.
    CUdeviceptr device_pointer() const noexcept { return memory_.handle().device; }
    // After the launch: copies the device bytes back when `copy_out` (waiting for `s`).
    void finish();

private:
    void* host_;
    std::size_t bytes_;
    bool copy_out_;
    detail::context_bound<detail::staged_memory_traits> memory_;  // empty for an empty host buffer
};

}  // namespace gpukit::cuda
