// What gpuarray's reductions and ReductionKernel share: their 0-d result, made with the
// scratch for partial results in the same block of memory.
#pragma once

#include "common/bindings.hpp"

#include "gpukit/array/dtype.hpp"
#include "gpukit/cuda/memory.hpp"

#include <cstddef>
#include <optional>

namespace gpukit::python {

struct reduction_result {
    nb::object array;              // the 0-d result (a GPUArray)
    cuda::device_pointer scratch;  // after it, scratch_bytes of the same block
};

// A 0-d array of numpy dtype `dtype` (`type`: its kernel type, if any), with `allocator` and
// `stream` (None: the default pool, the default stream), and `scratch_bytes` after it.
reduction_result new_reduction_result(nb::handle dtype, std::optional<array::dtype> type, nb::handle allocator,
                                      nb::handle stream, std::size_t scratch_bytes);

// `scratch_bytes` of device memory from `allocator` (None: the default pool), held by the
// returned object.
nb::object new_scratch(nb::handle allocator, std::size_t scratch_bytes, cuda::device_pointer& scratch);

}  // namespace gpukit::python
