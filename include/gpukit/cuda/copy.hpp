// Unstructured copies between host and device memory, between devices, and memset.
//
// Sizes are in bytes for copies and in elements for memsets. Every function checks its
// arguments (null addresses, sizes beyond a destination's known capacity, alignment, pitch)
// before calling the driver, and a copy or memset of nothing returns without calling it.
// None of them touches Python, so bindings may release the GIL around the blocking ones.
// The copies run in the context current on the calling thread; `stream_view{}` is the
// legacy default stream. Blocking copies of large pageable host buffers go through the
// pipelined staging of staged_copy.hpp.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>

namespace gpukit::cuda {

// Copies `bytes` from host memory at `src` to `dst`; returns once `src` may be reused. Large
// pageable buffers go through the staging of staged_copy.hpp (should_stage).
void memcpy_htod(device_pointer dst, const void* src, std::size_t bytes);
// Queues the copy of `bytes` from host memory at `src` to `dst` on `s`. Page-locked memory
// must stay valid until the copy has run; pageable memory is read before the call returns.
void memcpy_htod_async(device_pointer dst, const void* src, std::size_t bytes, stream_view s);
// Copies `bytes` from `src` to host memory at `dst`; returns when the copy is done. Large
// pageable buffers go through the staging of staged_copy.hpp (should_stage).
void memcpy_dtoh(void* dst, device_pointer src, std::size_t bytes);
// Queues the copy of `bytes` from `src` to host memory at `dst` on `s`: into page-locked
// memory the bytes are there once `s` has run it; into pageable memory the call waits for it.
void memcpy_dtoh_async(void* dst, device_pointer src, std::size_t bytes, stream_view s);
// Copies `bytes` from `src` to `dst`, both device memory; ordered after earlier work on the
// legacy default stream, and may return before the copy is done.
void memcpy_dtod(device_pointer dst, device_pointer src, std::size_t bytes);
// Queues the copy of `bytes` from `src` to `dst`, both device memory, on `s`.
void memcpy_dtod_async(device_pointer dst, device_pointer src, std::size_t bytes, stream_view s);

// Copies `bytes` between memory of two contexts (possibly on two devices): from `src` in
// `src_context` to `dst` in `dst_context`. Needs no peer access.
void memcpy_peer(device_pointer dst, const context& dst_context, device_pointer src, const context& src_context,
                 std::size_t bytes);
// Queues the copy memcpy_peer makes on `s`.
void memcpy_peer_async(device_pointer dst, const context& dst_context, device_pointer src, const context& src_context,
                       std::size_t bytes, stream_view s);

// Fill `count` elements of 1, 2 or 4 bytes with `value`. The 16- and 32-bit forms need
// `dst` aligned to the element size. This one sets `count` bytes.
void memset_d8(device_pointer dst, std::uint8_t value, std::size_t count);
// Sets `count` 16-bit elements from `dst` (aligned to 2 bytes) to `value`.
void memset_d16(device_pointer dst, std::uint16_t value, std::size_t count);
// Sets `count` 32-bit elements from `dst` (aligned to 4 bytes) to `value`.
void memset_d32(device_pointer dst, std::uint32_t value, std::size_t count);
// Queues memset_d8's work on `s`.
void memset_d8_async(device_pointer dst, std::uint8_t value, std::size_t count, stream_view s);
// Queues memset_d16's work on `s`.
void memset_d16_async(device_pointer dst, std::uint16_t value, std::size_t count, stream_view s);
// Queues memset_d32's work on `s`.
void memset_d32_async(device_pointer dst, std::uint32_t value, std::size_t count, stream_view s);

// Fill `height` rows of `width` elements each; rows start `pitch` bytes apart, so
// `pitch` must hold a row (width * element size) and be a multiple of the element size.
// This one sets bytes.
void memset_d2d8(device_pointer dst, std::size_t pitch, std::uint8_t value, std::size_t width, std::size_t height);
// Sets `height` rows of `width` 16-bit elements, rows `pitch` bytes apart, to `value`.
void memset_d2d16(device_pointer dst, std::size_t pitch, std::uint16_t value, std::size_t width, std::size_t height);
// Sets `height` rows of `width` 32-bit elements, rows `pitch` bytes apart, to `value`.
void memset_d2d32(device_pointer dst, std::size_t pitch, std::uint32_t value, std::size_t width, std::size_t height);
// Queues memset_d2d8's work on `s`.
void memset_d2d8_async(device_pointer dst, std::size_t pitch, std::uint8_t value, std::size_t width, std::size_t height,
                       stream_view s);
// Queues memset_d2d16's work on `s`.
void memset_d2d16_async(device_pointer dst, std::size_t pitch, std::uint16_t value, std::size_t width,
                        std::size_t height, stream_view s);
// Queues memset_d2d32's work on `s`.
void memset_d2d32_async(device_pointer dst, std::size_t pitch, std::uint32_t value, std::size_t width,
                        std::size_t height, stream_view s);

}  // namespace gpukit::cuda
