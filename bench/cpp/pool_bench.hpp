// The C++ baseline of the pool benchmark: allocate+free pairs that hit a bin, through
// gpukit::memory::memory_pool with nothing in between. Runs over the null allocator for
// now, so it measures the pool's own bookkeeping (lock, bin pop and push, handle) and
// needs no GPU.
#pragma once

#include <cstddef>
#include <vector>

namespace gpukit::bench {

// Seconds per allocate+free pair of `bytes`, one entry per repeat. Each repeat starts
// `threads` threads that each run `pairs` pairs on one shared pool, and divides the wall
// time from their common start to the last one's finish by the total number of pairs, so
// with several threads it is the inverse throughput, contention included. The block is
// allocated once before timing, so every timed allocation is a bin hit.
std::vector<double> pool_pair_seconds(std::size_t bytes, int pairs, int repeats, int threads);

}  // namespace gpukit::bench
