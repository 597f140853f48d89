// PyCUDA's ReductionKernel: the caller declares the parameters in C, a map expression giving
// index i's value and a reduce expression combining two values `a` and `b`; gpukit reduces
// map(i) over every i with the generic reduction kernels (reduction.hpp):
//
//   ReductionKernel(float32, neutral "0", reduce "a+b", map "x[i]*y[i]",
//                   arguments "const float *x, const float *y")      // a dot product
//
// Arrays are plain pointers to contiguous memory, as in PyCUDA: x[j] is the j-th element in
// memory, for any j (gathers such as in[lookup_tbl[i]] work). The accumulator and the
// output are PyCUDA's dtype_out, any C type: a dtype's, pycuda::complex<T>, a CUDA vector
// type or a struct of the caller's preamble. The source starts with
// #include <pycuda-complex.hpp>, as PyCUDA's does, and is compiled with the caller's options,
// include directories and compiler (as SourceModule compiles), on first use in each context.
#pragma once

#include "gpukit/array/reduction.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/rtc/compiler.hpp"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace gpukit::array {

// PyCUDA's ReductionKernel (see the top of this file): a reduction_spec over pointer arrays and
// scalars, compiled with the caller's compile request on first use in each context.
class reduction_kernel {
public:
    // `spec` may have pointer arrays and scalars only (logic_error otherwise). `request` gives
    // everything but the source: options, include directories (leading to
    // pycuda-complex.hpp), compiler, architecture. std::invalid_argument for a spec or request
    // holding a NUL character (checked now, not at the first launch).
    reduction_kernel(reduction_spec spec, rtc::compile_request request, std::optional<std::filesystem::path> cache_dir);

    // The reduction's description, as given.
    const reduction_spec& spec() const noexcept { return spec_; }
    // The CUDA C compiled: both kernels.
    std::string source() const;

    // Reduces map(i) for i = start, start + step, ... (count indices) into the output element
    // at `out`, on `s`. `values[k]` holds parameter k's bytes: the device address of an array,
    // the value of a scalar in its C type. `scratch` holds the partial results (as for
    // reduce()). logic_error for a wrong number of values, a scalar of the wrong size, a
    // negative count, or an empty range when the spec's empty() is error.
    void run(std::span<const std::span<const std::byte>> values, long long start, long long step, long long count,
             CUdeviceptr out, cuda::device_pointer scratch, cuda::stream_view s) const;

private:
    struct compiled;  // the compile request and its cache key (reduction_kernel.cpp)

    reduction_spec spec_;
    std::shared_ptr<const compiled> compiled_;
};

}  // namespace gpukit::array
