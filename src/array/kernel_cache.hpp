// The compiled kernels of gpukit::array, one cache for elementwise and reduction kernels.
#pragma once

#include "gpukit/cuda/function.hpp"

#include <string>

namespace gpukit::array::detail {

// Threads per block of every generated kernel (the sources declare it in __launch_bounds__).
inline constexpr unsigned block_size = 256;

struct cached_kernel {
    cuda::function function;
    // Blocks that keep every multiprocessor of the device full: multiprocessor count times
    // the blocks of block_size threads one multiprocessor holds at once.
    unsigned full_grid;
};

// Kernel `name` of `source`, compiled with NVRTC for the current context's device on first
// use and cached per (context, source, name). Contexts that only the cache still refers to
// are dropped from it on the next compilation.
cached_kernel kernel(const std::string& source, const std::string& name);

// Blocks for `work_items` items with `items_per_thread` each: enough to cover them, at most
// `k.full_grid`, at least 1. The kernels loop (grid-stride) over the rest.
unsigned grid_for(const cached_kernel& k, long long work_items, long long items_per_thread);

}  // namespace gpukit::array::detail
