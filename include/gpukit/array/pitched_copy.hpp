// Copies between two layouts of the same shape and element size as one driver copy: a linear
// copy, or a 2-D or 3-D copy of rows (cuMemcpy2D / cuMemcpy3D), when the elements of both
// sides lie in rows the driver can step through. gpuarray copies strided host arrays and
// strided device views this way, without a kernel or a staging buffer.
#pragma once

#include "gpukit/core/layout.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace gpukit::array {

// Rows of width_in_bytes, `height` of them per slice, `depth` slices (1 and 1 for a linear
// copy); each side's rows start `pitch` bytes apart and its slices `rows_per_slice` rows apart.
// Each side starts at its element [0, ..., 0].
struct pitched_copy {
    // The bytes of one row (of the whole copy, for a linear one).
    std::size_t width_in_bytes = 0;
    // Rows per slice (1 for a linear copy).
    std::size_t height = 1;
    // The number of slices (1 for a linear or 2-D copy).
    std::size_t depth = 1;
    // Bytes from the start of one source row to the next (2-D and 3-D copies).
    std::size_t src_pitch = 0, dst_pitch = 0;  // bytes from one destination row to the next

    // Rows from the start of one source slice to the next (3-D copies).
    std::size_t src_rows_per_slice = 0, dst_rows_per_slice = 0;  // rows from one destination slice to the next

    // 1: a linear copy, 2 or 3: a 2-D or 3-D copy.
    int dimensions() const noexcept { return depth > 1 ? 3 : height > 1 ? 2 : 1; }
};

// How to copy the elements of `src` to the same elements of `dst` (same shape and itemsize)
// as one copy: nullopt when it cannot be (a negative or zero stride, the two sides' axes in
// different orders, more than three axes of rows after joining those contiguous on both
// sides, or slices that are not a whole number of rows apart). An empty layout is nullopt
// too: nothing is to be copied. logic_error when the shapes or item sizes differ.
std::optional<pitched_copy> plan_pitched_copy(const gpukit::layout& dst, const gpukit::layout& src);

// One side of a copy: device memory, or host memory (which the driver reads and writes
// directly when page-locked, and through a synchronous staging copy otherwise).
struct copy_side {
    // Whether the side is host memory (`host` set) rather than device memory (`device` set).
    bool on_host = false;
    CUdeviceptr device = 0;      // element [0, ..., 0] on the device
    const void* host = nullptr;  // element [0, ..., 0] on the host
};

// Runs `plan` from `src` to `dst`: queued on `s` when `async`, else finished on return.
void run_pitched_copy(const pitched_copy& plan, const copy_side& dst, const copy_side& src, bool async,
                      cuda::stream_view s);

}  // namespace gpukit::array
