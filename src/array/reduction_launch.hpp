// Launching a reduction whose kernels are loaded: shared by reduce() (gpukit's own specs)
// and reduction_kernel::run() (PyCUDA's ReductionKernel), which differ in how their kernels
// are compiled and how their arguments arrive.
#pragma once

#include "kernel_cache.hpp"

#include "gpukit/array/reduction.hpp"

#include <cstddef>
#include <vector>

namespace gpukit::array::detail {

// Kernel arguments as launch_packed takes them: a pointer to each value and its size. The
// values must stay where they are until the launch.
struct packed_arguments {
    std::vector<void*> values;
    std::vector<std::size_t> sizes;

    void add(const void* value, std::size_t size) {
        values.push_back(const_cast<void*>(value));
        sizes.push_back(size);
    }
};

// Where a reduction reads and writes: the indices start, start + step, ... (count of them),
// the output element and the scratch for partial results (its capacity known).
struct reduction_extent {
    long long start;
    long long step;
    long long count;
    CUdeviceptr out;
    cuda::device_pointer scratch;
};

// Stage 1 over `extent` with `params` (the spec's parameters) and `layout` (the strided
// variant's shape and strides; empty otherwise), `per_thread` indices per thread and step
// sizing its grid; then stage 2 when stage 1 ran more than one block. logic_error when the
// scratch holds no partial result or is not 16-byte aligned.
void launch_reduction(const reduction_spec& spec, const cached_kernel& stage1, const cached_kernel& stage2,
                      const packed_arguments& params, const packed_arguments& layout, long long per_thread,
                      const reduction_extent& extent, cuda::stream_view s);

// Indices each thread takes per step of stage 1's loop: a 16-byte word of the narrowest
// element array (vectorized), four (contiguous, and strided over one axis: loads in flight
// together), one (strided over more axes, whose offsets cost divisions: unrolled, their code
// took seconds to compile).
long long indices_per_step(const reduction_spec& spec, reduction_variant variant, int ndim);

}  // namespace gpukit::array::detail
