// Launching a reduction whose kernels are loaded: shared by reduce() (gpukit's own specs, on
// any backend) and reduction_kernel::run() (PyCUDA's ReductionKernel, on CUDA), which differ in
// how their kernels are compiled and how their arguments arrive.
#pragma once

#include "kernel_cache.hpp"

#include "gpukit/array/backend.hpp"
#include "gpukit/array/reduction.hpp"

#include <cstddef>
#include <span>
#include <string>

namespace gpukit::array::detail {

// Where a reduction reads and writes: the indices start, start + step, ... (count of them),
// the output element, and the memory for partial results, `partial_capacity` bytes.
struct reduction_extent {
    long long start;
    long long step;
    long long count;
    kernel_argument out;
    kernel_argument partial;
    std::size_t partial_capacity;
};

// Stage 1 over `extent` with `params` (the spec's parameters) and `layout` (the strided
// variant's shape and strides; empty otherwise), `per_thread` indices per work item and step
// sizing its grid; then stage 2 when stage 1 ran more than one group. logic_error when the
// partial memory holds no partial result.
void launch_reduction(const reduction_spec& spec, backend& b, const loaded_kernel& stage1, const loaded_kernel& stage2,
                      std::span<const kernel_argument> params, std::span<const kernel_argument> layout,
                      long long per_thread, const reduction_extent& extent);

// The bytes of CUDA scratch a reduction may use (reduction_scratch_bytes(spec) when the
// pointer names no capacity); logic_error unless it holds one partial result and is 16-byte
// aligned (stage 1 stores accumulators there whole).
std::size_t checked_scratch(const reduction_spec& spec, const cuda::device_pointer& scratch);

// Indices each thread takes per step of stage 1's loop: a 16-byte word of the narrowest
// element array (vectorized), four (contiguous, and strided over one axis: loads in flight
// together), one (strided over more axes, whose offsets cost divisions: unrolled, their code
// took seconds to compile).
long long indices_per_step(const reduction_spec& spec, reduction_variant variant, int ndim);

// The OpenCL C of `variant` (contiguous or strided): both kernels, as reduction_source's
// CUDA C but for work groups of up to 256 items reduced through local memory. Element and
// pointer arrays, the partial results and the output are each a buffer and a byte offset.
// logic_error for the vectorized variant and for a type without a dtype.
std::string opencl_reduction_source(const reduction_spec& spec, reduction_variant variant, int ndim);

}  // namespace gpukit::array::detail
