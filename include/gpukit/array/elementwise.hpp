// Elementwise kernels generated as CUDA C (compiled with NVRTC for the current device and
// cached per context) or as OpenCL C (built by an opencl_backend), from one description.
//
// A kernel is described by its parameters (arrays and scalars, each with a dtype) and an
// operation in CUDA C that computes element `i` using the parameter names, PyCUDA style:
// "z[i] = a * x[i] + y[i]". Inside the operation `x[i]` is the element of array x at
// flat index i (C order over the common shape); `n` is the element count. Element i of an
// array may only be read and written at index i.
//
// Three variants of the same kernel exist; run() picks one per launch:
//  - vectorized: every array contiguous in the same order and 16-byte aligned. Each thread
//    handles 16 / (smallest itemsize) consecutive elements, loading and storing them with
//    16-byte accesses, in a grid-stride loop over a grid that fills the device;
//  - contiguous: contiguous but not aligned; one element per thread, grid-stride;
//  - strided: anything else; shape and byte strides are arguments;
//  - rows: strided operands whose last axis is long (at least rows_min_extent elements, as
//    broadcasts such as (n,1) + (1,m) and wide views are): a 2-D grid, blocks along y take
//    rows (the index over all axes but the last) and work out each operand's row offset
//    once, threads along x run over the last axis with one multiply per element, instead
//    of a division per axis per element.
// OpenCL has the contiguous and strided variants (and OpenCL C operations: the user's text is
// compiled as written).
#pragma once

#include "gpukit/array/backend.hpp"
#include "gpukit/array/ndarray.hpp"
#include "gpukit/cuda/stream.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <cstddef>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace gpukit::array {

// How an array parameter is used: read, written (every element, unconditionally, so its old
// value need not be loaded), or both. Scalars are passed by value.
enum class param_kind { input, output, inout, scalar };

// One parameter of an elementwise kernel.
struct param {
    std::string name;  // a C identifier: the operation's name for it
    dtype type;        // the element type of an array, the type of a scalar
    param_kind kind;   // how the kernel uses it
};

// Whether `p` is an array parameter (not a scalar one).
inline bool is_array(const param& p) noexcept { return p.kind != param_kind::scalar; }

// A kernel's description, checked once when made and never changed after, so that its
// compiled variants can be found by key() (a number taken when the spec is made) instead of
// by their source text.
class elementwise_spec {
public:
    // `name`: a C identifier (the kernels are name_vec, name_contig, name_strided);
    // `preamble`: CUDA C placed before the kernels (helper functions). logic_error for bad
    // names (not C identifiers, parameters that are keywords or the reserved i and n) and for
    // no array parameter.
    elementwise_spec(std::string name, std::vector<param> params, std::string operation, std::string preamble = {});

    // The kernels' base name, as given.
    const std::string& name() const noexcept { return name_; }
    // The kernel's parameters, in order: run() takes one argument per parameter.
    const std::vector<param>& params() const noexcept { return params_; }
    // The operation on element `i`, as given ("z[i] = a * x[i] + y[i]").
    const std::string& operation() const noexcept { return operation_; }
    // The code placed before the kernels; empty for none.
    const std::string& preamble() const noexcept { return preamble_; }
    // Unique to this spec for the life of the process (see kernel_cache.hpp).
    std::uint64_t key() const noexcept { return key_; }

private:
    std::string name_;
    std::vector<param> params_;
    std::string operation_;
    std::string preamble_;
    std::uint64_t key_;
};

// The variants of a kernel (see the top of this file); choose_variant() says which run() uses.
enum class elementwise_variant { vectorized, contiguous, strided, rows };

// The shortest last axis the rows variant is used for.
inline constexpr std::int64_t rows_min_extent = 1024;

// The source of `variant` in `language`; `ndim` is the number of axes the strided variants
// handle (ignored by the others). logic_error for the vectorized and rows variants in OpenCL C.
std::string elementwise_source(const elementwise_spec& spec, elementwise_variant variant, int ndim = 1,
                               kernel_language language = kernel_language::cuda);

// A scalar argument: its bytes in the parameter's C type.
struct scalar_value {
    std::array<std::byte, 16> bytes{};  // the value's bytes, from the first; the rest zero
    std::size_t size = 0;               // how many of `bytes` the value has

    // The bytes of `value` in its own C++ type, which must be the parameter's C type (float for
    // float32, `std::complex<double>` for complex128, ...): at most 16 bytes, trivially copyable.
    template <class T>
    static scalar_value of(T value) {
        static_assert(sizeof(T) <= 16 && std::is_trivially_copyable_v<T>);
        scalar_value s;
        std::memcpy(s.bytes.data(), &value, sizeof(T));
        s.size = sizeof(T);
        return s;
    }
};

// One argument of a kernel: an ndarray for an array parameter, a scalar_value for a scalar.
using elementwise_arg = std::variant<ndarray, scalar_value>;

// Which variant run() uses for `args` (arrays must share one shape) in `language`.
elementwise_variant choose_variant(std::span<const elementwise_arg> args,
                                   kernel_language language = kernel_language::cuda);

// Queues the kernel on `b` over the common shape of the array arguments. logic_error when the
// arguments do not match the parameters (count, array vs scalar, dtype, scalar size), the
// arrays' shapes differ, an array is not `b`'s memory, or `b` cannot take a parameter's type.
void run(const elementwise_spec& spec, std::span<const elementwise_arg> args, backend& b);
// The same on stream `s` of the current CUDA context (cuda_backend).
void run(const elementwise_spec& spec, std::span<const elementwise_arg> args, cuda::stream_view s = {});

}  // namespace gpukit::array
