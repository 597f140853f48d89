// PyCUDA's gpuarray.splay: the grid and block a kernel over n elements of an array is
// launched with in PyCUDA's own kernels (GPUArray._grid, _block), for programs that launch
// kernels of their own with an array's launch shape.
#pragma once

#include "gpukit/cuda/device.hpp"

#include <array>

namespace gpukit::array {

// The launch shape splay() gives: PyCUDA's grid and block of a kernel over n elements.
struct splay_shape {
    std::array<unsigned, 2> grid;   // (blocks, 1)
    std::array<unsigned, 3> block;  // (threads, 1, 1)
};

// One warp per block up to a warp per block on 4 * resident blocks * multiprocessors blocks,
// then more threads per block (in whole warps) up to 128, then that grid of 128-thread blocks
// looping over the rest. logic_error for a negative n.
splay_shape splay(long long n, const cuda::device& dev);

}  // namespace gpukit::array
