// Fast blocking copies between pageable host memory and device memory.
//
// The driver copies pageable memory through a small internal bounce buffer, one piece at a
// time, which leaves most of the bus idle. These functions do the staging themselves: the
// host side is copied by several CPU threads into page-locked buffers that are reused
// across calls, while the previous piece is already moving over the bus on a stream.
// Events say when a staging buffer may be refilled.
//
// The staging buffers and their stream are cached per context (a context cache, see
// context_cache.hpp) and used by one copy at a time; concurrent copies in
// one context wait for each other. The copies are ordered like cuMemcpyHtoD/DtoH: after
// earlier work on the legacy default stream, and finished when the call returns.
#pragma once

#include <cuda.h>

#include <cstddef>

namespace gpukit::cuda {

// Copies smaller than this go straight to the driver: staging cannot win on them.
inline constexpr std::size_t staged_copy_min_bytes = std::size_t{1} << 20;

// True when the driver knows `p` as page-locked, device or managed memory, so that a copy
// from or to it needs no staging.
bool is_driver_memory(const void* p);

// True when a copy of `bytes` to or from `host` should go through the staging buffers.
bool should_stage(const void* host, std::size_t bytes);

// Blocking copies through the staging buffers of the current context. They work for any
// size and alignment, but are meant for large pageable buffers (see should_stage). This one
// copies `bytes` from host memory at `src` to device memory at `dst`.
void staged_memcpy_htod(CUdeviceptr dst, const void* src, std::size_t bytes);
// Copies `bytes` from device memory at `src` to host memory at `dst` through the staging
// buffers of the current context; returns when the bytes are there.
void staged_memcpy_dtoh(void* dst, CUdeviceptr src, std::size_t bytes);

}  // namespace gpukit::cuda
