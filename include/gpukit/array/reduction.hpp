// Whole-array reductions, generated as CUDA C like the elementwise kernels and cached the
// same way. A reduction_spec says what is reduced: each element (or pair of elements) is
// mapped to an accumulator, accumulators are combined two at a time, starting from an
// identity. sum, min, max and dot are specs; a ReductionKernel is one too.
//
// Two launches: a first kernel (stage 1) where each block of a device-filling grid reads its
// share with 16-byte loads (grid-stride), combines it in registers, then across the block
// with warp shuffles, and writes one partial result; a second, single-block kernel (stage 2)
// combines the partial results into the output.
#pragma once

#include "gpukit/array/ndarray.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpukit::array {

// What an empty input gives: the identity (a sum of nothing is 0), or a logic_error, as
// numpy's min and max raise ("zero-size array to reduction operation min which has no
// identity").
enum class empty_reduction { identity, error };

// A reduction's description, checked once when made and never changed after, so that its
// compiled variants are found by key() (a number taken when the spec is made) instead of by
// their source text.
class reduction_spec {
public:
    // name:        a C identifier; the kernels are name_stage1 and name_stage2.
    // inputs:      the dtypes of the one or two arrays reduced, called a and b in `map`.
    // accumulator: the dtype partial results are kept and combined in: a real type of 4 or
    //              8 bytes, which warp shuffles move.
    // output:      the result's dtype; the final accumulator is converted to it, C-style.
    // identity:    a C expression of the accumulator type: combining it with x gives x.
    // map:         a C expression of the accumulator type for element i, reading `a[i]` (and
    //              `b[i]`); i is the element's position in memory order.
    // combine:     a C expression of the accumulator type combining accumulators `x` and
    //              `y`; associative and commutative (partial results meet in any order).
    // preamble:    CUDA C placed before the kernels (helper functions).
    // logic_error for a name that is not a C identifier, no or more than two inputs, an
    // accumulator the warp shuffles cannot move, or an empty expression.
    reduction_spec(std::string name, std::vector<dtype> inputs, dtype accumulator, dtype output, std::string identity,
                   std::string map, std::string combine, std::string preamble = {},
                   empty_reduction empty = empty_reduction::identity);

    const std::string& name() const noexcept { return name_; }
    const std::vector<dtype>& inputs() const noexcept { return inputs_; }
    dtype accumulator() const noexcept { return accumulator_; }
    dtype output() const noexcept { return output_; }
    const std::string& identity() const noexcept { return identity_; }
    const std::string& map() const noexcept { return map_; }
    const std::string& combine() const noexcept { return combine_; }
    const std::string& preamble() const noexcept { return preamble_; }
    empty_reduction empty() const noexcept { return empty_; }
    // The kernels' names: name_stage1 (one partial result per block) and name_stage2.
    const std::string& stage1_name() const noexcept { return stage1_name_; }
    const std::string& stage2_name() const noexcept { return stage2_name_; }
    // Unique to this spec for the life of the process (see src/array/kernel_cache.hpp).
    std::uint64_t key() const noexcept { return key_; }

private:
    std::string name_;
    std::vector<dtype> inputs_;
    dtype accumulator_;
    dtype output_;
    std::string identity_;
    std::string map_;
    std::string combine_;
    std::string preamble_;
    empty_reduction empty_;
    std::string stage1_name_;
    std::string stage2_name_;
    std::uint64_t key_;
};

// vectorized: every input 16-byte aligned; each thread loads 16 / (narrowest input
// itemsize) consecutive elements per step with 16-byte loads. contiguous: one element per
// thread and step.
enum class reduction_variant { vectorized, contiguous };

// The CUDA C of `variant`: both kernels, name_stage1 and name_stage2.
std::string reduction_source(const reduction_spec& spec, reduction_variant variant);

// numpy's reductions as specs, made once per dtype (combination) and kept for the life of
// the process. sum: numpy's sum() type (bool and narrower integers give 64-bit integers),
// floating sums accumulating in float64. min, max: the input's type; NaN wins, as in numpy;
// an empty input is an error. dot: sum(a * b) in the promoted type of a and b, accumulated as
// sum() does. logic_error for complex inputs.
const reduction_spec& sum_spec(dtype t);
const reduction_spec& min_spec(dtype t);
const reduction_spec& max_spec(dtype t);
const reduction_spec& dot_spec(dtype a, dtype b);

// Bytes of device scratch reduce() needs on the current context's device, for any spec
// (the device's figure is asked for once per device).
std::size_t reduction_scratch_bytes();

// Reduces `a` (and `b`, for specs of two inputs: same shape, same memory order) into `out`
// (one element of spec.output()) on `s`. The inputs must be contiguous and of the spec's
// dtypes; `scratch` holds the partial results (reduction_scratch_bytes(), assumed when it
// has no capacity). logic_error for arguments that do not fit the spec, and for an empty
// input when the spec's empty() is error.
void reduce(const reduction_spec& spec, const ndarray& a, const ndarray* b, const ndarray& out,
            cuda::device_pointer scratch, cuda::stream_view s = {});

}  // namespace gpukit::array
