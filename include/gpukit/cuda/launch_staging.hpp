// Device copies of host buffers for one launch: the In / Out / InOut arguments.
//
// A staging_buffer allocates device memory of the host buffer's size, copies the host bytes
// in (when `copy_in`), and after the launch copies them back (when `copy_out`). It owns the
// device memory and frees it, in its context, when destroyed.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>

namespace gpukit::cuda {

class staging_buffer {
public:
    // Allocates in the current context and, when `copy_in`, enqueues the host-to-device copy
    // on `s`. `host` must stay valid until finish() returns.
    staging_buffer(void* host, std::size_t bytes, bool copy_in, bool copy_out, stream_view s);
    staging_buffer(staging_buffer&& other) noexcept;
    staging_buffer& operator=(staging_buffer&&) = delete;
    staging_buffer(const staging_buffer&) = delete;
    ~staging_buffer();

    CUdeviceptr device_pointer() const noexcept { return device_; }
    // After the launch: copies the device bytes back when `copy_out` (waiting for `s`).
    void finish();

private:
    void* host_;
    std::size_t bytes_;
    bool copy_out_;
    stream_view stream_;
    CUdeviceptr device_ = 0;
    context_state_ptr context_;
};

}  // namespace gpukit::cuda
