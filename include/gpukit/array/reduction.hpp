// Whole-array reductions, generated as CUDA C like the elementwise kernels and cached the
// same way. A reduction_spec says what is reduced: the kernel's parameters (arrays and
// scalars), a map expression giving each index i's value, a reduce expression combining two
// values, and the neutral value to start from. numpy's sum, min, max, dot, any, all and their
// subset forms are specs (below); PyCUDA's ReductionKernel is one too (reduction_kernel.hpp).
//
// Two launches: a first kernel (stage 1) where each block of a device-filling grid reduces
// its share (grid-stride), in registers, then across the block with warp shuffles, into one
// partial result; a second, single-block kernel (stage 2) reduces the partial results into
// the output. When stage 1 needs one block only (small inputs), it writes the output itself
// and stage 2 does not run.
#pragma once

#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/ndarray.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit::array {

// A C type a reduction reads, accumulates or writes: a dtype's (float, gk_complex<double>,
// ...), or one the caller names (a struct or CUDA vector type declared in a preamble or a
// header, pycuda::complex<float>) with its size in bytes.
struct value_type {
    value_type(array::dtype t);  // implicit: specs read best with dtypes

    // A type the caller names in C, of `size` bytes; `dtype` when it is that dtype's type.
    value_type(std::string c_name, std::size_t size, std::optional<array::dtype> dtype = std::nullopt);

    std::string c_name;                 // its name in the kernels: `float`, `gk_complex<double>`, a struct's
    std::size_t size;                   // its size in bytes
    std::optional<array::dtype> dtype;  // set when the type is a dtype's: arrays are checked against it
};

// How the map expression uses a parameter.
enum class reduction_param_kind {
    // An array read only as name[i], element i of the array in C order over its shape: any
    // layout works (the kernel follows strides), and contiguous ones are read 16 bytes at a
    // time. gpukit's own specs use these.
    element,
    // An array the map indexes freely, as in C: a pointer to contiguous memory, name[j] being
    // the j-th element in memory (the arrays of users' kernels, as PyCUDA's ReductionKernel
    // has them; the gathered array of a subset).
    pointer,
    // A value, passed to the kernel by value.
    scalar,
};

// One parameter of a reduction kernel.
struct reduction_param {
    std::string name;  // a C identifier
    value_type type;   // the element type of an array, the type of a scalar

    // How the map expression uses it: an element array, a pointer array or a scalar.
    reduction_param_kind kind;
    // The parameter as the caller declared it, kept as written ("const float *__restrict__ x");
    // empty: gpukit declares it ("const float *x", "float x"). Element arrays are always
    // declared by gpukit.
    std::string declarator = {};
};

// What an empty input gives: the neutral value (a sum of nothing is 0), or a logic_error, as
// numpy's min and max raise ("zero-size array to reduction operation min which has no
// identity").
enum class empty_reduction { identity, error };

// A reduction's description, checked once when made and never changed after, so that its
// compiled variants are found by key() (a number taken when the spec is made) instead of by
// their source text.
class reduction_spec {
public:
    // name:        a C identifier; the kernels are name_stage1 and name_stage2.
    // params:      the kernel's parameters, in order.
    // accumulator: the type partial results are kept and combined in (out_type in the
    //              expressions). Values move between threads as raw bytes (warp shuffles of
    //              4-byte words), so it must be copyable bit by bit: any dtype, CUDA vector
    //              type or plain struct.
    // output:      the result's type; the final accumulator is converted to it, C-style.
    // neutral:     an expression of the accumulator type: reducing it with x gives x.
    // map:         an expression of the accumulator type for index i (a long long), using
    //              the parameters by name. `n` is the number of indices reduced, unless a
    //              parameter is called n.
    // reduce:      an expression of the accumulator type combining the values `a` and `b`
    //              (which hide parameters of those names); associative and commutative, as
    //              partial results meet in any order.
    // preamble:    CUDA C placed before the kernels (helper functions, types).
    // The expressions may use the scalar parameters (both kernels receive every parameter).
    // logic_error for a name that is not a C identifier, parameter names that are not C
    // identifiers or are keywords (core/c_text.hpp), repeat, are `i` or start with the
    // reserved prefix gk_, an empty (or blank) expression, or an
    // accumulator or output of no size.
    reduction_spec(std::string name, std::vector<reduction_param> params, value_type accumulator, value_type output,
                   std::string neutral, std::string map, std::string reduce, std::string preamble = {},
                   empty_reduction empty = empty_reduction::identity);

    // The kernels' base name, as given.
    const std::string& name() const noexcept { return name_; }
    // The kernel's parameters, in order: reduce() takes one argument per parameter.
    const std::vector<reduction_param>& params() const noexcept { return params_; }
    // The type partial results are kept and combined in.
    const value_type& accumulator() const noexcept { return accumulator_; }
    // The result's type.
    const value_type& output() const noexcept { return output_; }
    // The expression of the neutral value, which reducing starts from.
    const std::string& neutral() const noexcept { return neutral_; }
    // The expression of index i's value.
    const std::string& map() const noexcept { return map_; }
    // The expression combining two values `a` and `b`.
    const std::string& reduce() const noexcept { return reduce_; }
    // The code placed before the kernels; may be empty.
    const std::string& preamble() const noexcept { return preamble_; }
    // What an empty input gives: the neutral value or a logic_error.
    empty_reduction empty() const noexcept { return empty_; }
    // How many parameters are element arrays (the strided variant passes their strides).
    std::size_t element_arrays() const noexcept { return element_arrays_; }
    // The stage 1 kernel's name, name_stage1 (one partial result per block).
    const std::string& stage1_name() const noexcept { return stage1_name_; }
    // The stage 2 kernel's name, name_stage2 (the partial results reduced into the output).
    const std::string& stage2_name() const noexcept { return stage2_name_; }
    // Unique to this spec for the life of the process (see src/array/kernel_cache.hpp).
    std::uint64_t key() const noexcept { return key_; }

private:
    std::string name_;
    std::vector<reduction_param> params_;
    value_type accumulator_;
    value_type output_;
    std::string neutral_;
    std::string map_;
    std::string reduce_;
    std::string preamble_;
    empty_reduction empty_;
    std::size_t element_arrays_;
    std::string stage1_name_;
    std::string stage2_name_;
    std::uint64_t key_;
};

// How stage 1 reads the arrays. Every variant runs i over start, start + step, ... (count
// indices), except vectorized, which is used only for start 0 and step 1.
//  - vectorized: element arrays contiguous in one order and 16-byte aligned; each thread
//    loads 16 bytes of the narrowest element array (and as many elements of the others) per
//    step; i is the position in memory order;
//  - contiguous: element arrays contiguous in one order (i: the position in memory order),
//    or none at all; four indices per thread and step;
//  - strided: element arrays of any layout (i: the C-order index over their shape, their
//    number of axes being `ndim`); four indices per thread and step.
enum class reduction_variant { vectorized, contiguous, strided };

// The CUDA C of `variant`: both kernels, name_stage1 and name_stage2. Stage 1 takes the
// parameters, then (strided only) gk_dims<ndim> shape and gk_dims<ndim * element arrays>
// strides (array m's at m * ndim), then `acc *partial, out *output, long long start,
// long long step, long long count`; stage 2 the parameters, then `const acc *partial,
// out *output, int count`. logic_error for variants the spec cannot have (vectorized or
// strided without element arrays) and for ndim outside 1..64.
// `language` OpenCL gives the OpenCL C of the contiguous and strided variants
// (opencl_backend's; each array a buffer and a byte offset, groups of up to 256 items).
std::string reduction_source(const reduction_spec& spec, reduction_variant variant, int ndim = 1,
                             kernel_language language = kernel_language::cuda);

// numpy's reductions as specs, made once per combination of dtypes and kept for the life of
// the process; `out` is the result's dtype (numpy's dtype= argument).
//  - sum: the default `out` is numpy's sum() type (bool and narrower integers give 64-bit
//    integers); accumulated in float64 for real outputs, complex128 for complex ones, 64-bit
//    integers for integer and bool ones, each element converted C-style first.
//  - min, max: the input's type; NaN wins, as in numpy; complex values are ordered by real,
//    then imaginary part, as numpy orders them; an empty input is an error.
//  - dot: sum(a * b), without conjugation (numpy.dot), in the promoted type of a and b by
//    default, accumulated as sum() accumulates.
//  - any, all: bool; an element counts as true when it is non-zero (NaN is true).
//  - subset_*: the same over a[subset[i]] (and b[subset[i]]) for i over the subset: the
//    index array is an element array, the gathered ones pointer arrays, followed by a scalar
//    int64 `size` (the gathered arrays' size). An index outside [0, size) wraps around,
//    modulo size (-1 is the last element, as in numpy), so no index reads outside the
//    array. `index` must be an integer dtype (logic_error otherwise).
// `language`: the language of the specs' expressions (OpenCL C for an opencl_backend).
const reduction_spec& sum_spec(dtype t, kernel_language language = kernel_language::cuda);
// numpy.sum of elements of type t into a result of dtype `out`.
const reduction_spec& sum_spec(dtype t, dtype out, kernel_language language = kernel_language::cuda);
// numpy.min of elements of type t: the smallest, NaN winning (an empty input is an error).
const reduction_spec& min_spec(dtype t, kernel_language language = kernel_language::cuda);
// numpy.max of elements of type t: the largest, NaN winning (an empty input is an error).
const reduction_spec& max_spec(dtype t, kernel_language language = kernel_language::cuda);
// numpy.dot of arrays of types a and b, in their promoted type.
const reduction_spec& dot_spec(dtype a, dtype b, kernel_language language = kernel_language::cuda);
// numpy.dot of arrays of types a and b into a result of dtype `out`.
const reduction_spec& dot_spec(dtype a, dtype b, dtype out, kernel_language language = kernel_language::cuda);
// numpy.any of elements of type t: whether one is non-zero (false for none).
const reduction_spec& any_spec(dtype t, kernel_language language = kernel_language::cuda);
// numpy.all of elements of type t: whether every one is non-zero (true for none).
const reduction_spec& all_spec(dtype t, kernel_language language = kernel_language::cuda);
// The sum of `a[subset[i]]` over an index array of dtype `index`, a of type t, into dtype `out`.
const reduction_spec& subset_sum_spec(dtype index, dtype t, dtype out,
                                      kernel_language language = kernel_language::cuda);
// The smallest `a[subset[i]]` over an index array of dtype `index`, a of type t.
const reduction_spec& subset_min_spec(dtype index, dtype t, kernel_language language = kernel_language::cuda);
// The largest `a[subset[i]]` over an index array of dtype `index`, a of type t.
const reduction_spec& subset_max_spec(dtype index, dtype t, kernel_language language = kernel_language::cuda);
// The sum of `a[subset[i]] * b[subset[i]]` over an index array of dtype `index`, into dtype `out`.
const reduction_spec& subset_dot_spec(dtype index, dtype a, dtype b, dtype out,
                                      kernel_language language = kernel_language::cuda);

// numpy's reductions, by name: the specs above, chosen at run time (reduction_spec_for()).
enum class reduction_op { sum, min, max, dot, any, all };
// The operation called `name` ("sum", "min", "max", "dot", "any", "all"); invalid_argument
// otherwise.
reduction_op reduction_op_from_name(std::string_view name);
// The spec of reduction `op`: over `a` (and `b`, for dot), through the integer index array of
// dtype `index` when given (the subset_* forms), with result dtype `out` (numpy's default when
// absent: sum_type for sum, the promoted type for dot). logic_error naming `what` (the
// caller's name of the operation) for dot without b or another with it, out for min, max, any
// or all, and any or all through an index.
const reduction_spec& reduction_spec_for(reduction_op op, std::string_view what, dtype a, std::optional<dtype> b,
                                         std::optional<dtype> index, std::optional<dtype> out,
                                         kernel_language language = kernel_language::cuda);

// Bytes of device scratch a reduction of `spec` needs on the current context's device: one
// accumulator per block stage 1 may run (the device's figure is asked for once per device).
std::size_t reduction_scratch_bytes(const reduction_spec& spec);

// Runs `spec` over `args` (one per parameter: element and pointer arrays as ndarrays of the
// parameters' dtypes, scalars as their bytes) into `out` (one element of the output type)
// on `s`. Element arrays share one shape, of any layout; i runs over its C-order indices.
// Pointer arrays must be contiguous. `scratch` holds the partial results (16-byte aligned;
// reduction_scratch_bytes(spec) assumed when it has no capacity). logic_error for arguments
// that do not fit the spec, a spec without element arrays (the count comes from them), and
// an empty input when the spec's empty() is error.
void reduce(const reduction_spec& spec, std::span<const elementwise_arg> args, const ndarray& out,
            cuda::device_pointer scratch, cuda::stream_view s = {});
// The same on backend `b` (its memory for every array and `out`; the partial results in memory
// it allocates). On OpenCL the spec's expressions are OpenCL C (reduction_spec_for(...,
// kernel_language::opencl) makes numpy's), its types dtypes the backend takes.
void reduce(const reduction_spec& spec, std::span<const elementwise_arg> args, const ndarray& out, backend& b);
// The same over i = start, start + step, ... (`count` indices) for a spec without element
// arrays (its arrays pointers, indexed by the map as it likes; PyOpenCL's ReductionKernel with
// range= or slice=). logic_error for a spec with element arrays, a negative count or a step
// of 0.
void reduce(const reduction_spec& spec, std::span<const elementwise_arg> args, long long start, long long step,
            long long count, const ndarray& out, backend& b);

}  // namespace gpukit::array
