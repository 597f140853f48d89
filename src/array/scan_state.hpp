// The look-back state that scans of more than one tile share in a context (array/scan.hpp).
//
// Per tile, a 64-bit flag and two totals; a scan's blocks publish their tiles' totals there
// and read their predecessors'. The flags must mean nothing to a new scan, without being
// cleared before each one (another launch): every scan gets a new epoch and writes flags
// holding it, and the flags live in a buffer of their own that only ever holds flags of
// earlier epochs (zeroed once, when made). That holds as long as the context's scans use
// the state one after the other, which with_scan_state() sees to.
#pragma once

#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace gpukit::array::detail {

struct scan_state {
    CUdeviceptr flags;         // one unsigned long long per tile
    CUdeviceptr totals;        // two totals per tile, of the scan's total_words words each
    unsigned long long epoch;  // this scan's: > 0, and greater than any earlier scan's
};

// Calls launch(state) with the current context's state, big enough for `tiles` tiles whose
// totals have `total_words` 32-bit words, ordered after every earlier scan that used it:
// when that ran on another stream, `s` waits for it first (on the GPU). `launch` must queue
// its kernels on `s`. Scans in several threads take turns.
//
// Growing the state waits on the host for the scans still using the old one. logic_error
// while `s` is capturing a graph (a replay would reuse this scan's epoch and meet its own
// flags from the previous replay).
void with_scan_state(std::int64_t tiles, std::size_t total_words, cuda::stream_view s,
                     const std::function<void(const scan_state&)>& launch);

}  // namespace gpukit::array::detail
