// Whole-array reductions: sum, min, max and dot, generated as CUDA C like the elementwise
// kernels and cached the same way.
//
// Two launches: a first kernel where each block of a device-filling grid reads its share
// with 16-byte loads (grid-stride), combines it in registers, then across the block with
// warp shuffles, and writes one partial result; a second, single-block kernel combines the
// partials into the output. Sums of float32 accumulate in double; integer sums in 64 bits,
// as numpy's do. min and max propagate NaN, as numpy's do.
#pragma once

#include "gpukit/array/ndarray.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace gpukit::array {

enum class reduction { sum, min, max, dot };

// The result's dtype: numpy's sum() type for sum, the input's for min and max, the promoted
// type of both inputs for dot. logic_error for complex inputs.
dtype reduction_type(reduction op, dtype a, std::optional<dtype> b = std::nullopt);

// The CUDA C of the two kernels, gk_reduce and gk_reduce_finish; `vector_width` is 1 or
// 16 / (smallest input itemsize).
std::string reduction_source(reduction op, dtype a, std::optional<dtype> b, int vector_width);

// Bytes of device scratch reduce() needs on the current context's device.
std::size_t reduction_scratch_bytes();

// Reduces `a` (and `b` for dot, same shape) into `out` (one element of
// reduction_type(...)) on `s`. The inputs must be contiguous (logic_error otherwise);
// `scratch` holds the partial results (reduction_scratch_bytes()). min and max of an empty
// array are a logic_error, as numpy raises.
void reduce(reduction op, const ndarray& a, const ndarray* b, const ndarray& out, cuda::device_pointer scratch,
            cuda::stream_view s = {});

}  // namespace gpukit::array
