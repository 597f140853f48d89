// The C++ sides of the pool benchmarks: allocate+free pairs that hit a bin, through
// gpukit::memory::memory_pool with nothing in between, and the raw driver pairs it is
// measured against.
#pragma once

#include <cstddef>
#include <vector>

namespace gpukit::bench {

// Seconds per allocate+free pair of `bytes`, one entry per repeat. Each repeat starts
// `threads` threads that each run `pairs` pairs on one shared pool, and divides the wall
// time from their common start to the last one's finish by the total number of pairs, so
// with several threads it is the inverse throughput, contention included. The block is
// allocated once before timing, so every timed allocation is a bin hit.
// Over the null allocator: the pool's own bookkeeping, no GPU needed.
std::vector<double> pool_pair_seconds(std::size_t bytes, int pairs, int repeats, int threads);
// The same over CUDA device memory in the current context.
std::vector<double> device_pool_pair_seconds(std::size_t bytes, int pairs, int repeats, int threads);

// Seconds per raw cuMemAlloc + cuMemFree pair in the current context.
std::vector<double> raw_alloc_pair_seconds(std::size_t bytes, int pairs, int repeats);
// Seconds per raw cuMemAllocAsync + cuMemFreeAsync pair on one stream (the driver's own
// stream-ordered pool), including a final synchronisation.
std::vector<double> raw_async_alloc_pair_seconds(std::size_t bytes, int pairs, int repeats);

}  // namespace gpukit::bench
