// Element types of gpukit arrays and numpy's promotion rules between them.
//
// Supported: bool, int8..int64, uint8..uint64, float32, float64, complex64, complex128.
// float16 is not supported (generated kernels would need cuda_fp16.h on NVRTC's include
// path). Elementwise kernels exist for every type (complex as gk_complex<float/double>,
// kernel_text.hpp); so do reductions, except min and max of complex elements on OpenCL.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace gpukit::array {

// The kind of an element type, as numpy's dtype.kind: 'b', 'i', 'u', 'f' and 'c'.
enum class dtype_kind { boolean, signed_int, unsigned_int, floating, complex };

// An element type: numpy's dtype of that name.
enum class dtype : std::uint8_t {
    bool_,  // numpy's bool: one byte, 0 or 1
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float32,
    float64,
    complex64,
    complex128,
};

// The kind of `t` (dtype_kind::signed_int for int32, ...).
dtype_kind kind(dtype t) noexcept;
// The size of an element of type `t` in bytes (numpy's itemsize: 1 for bool, 16 for complex128).
std::size_t size_of(dtype t) noexcept;
// numpy's name: "bool", "int8", ..., "complex128".
std::string_view name(dtype t) noexcept;
// The CUDA C type generated kernels use ("float", "long long", "gk_complex<float>", ...).
std::string_view c_type(dtype t) noexcept;
// The names a user's kernel may declare a parameter of type `t` with, on x86-64 Linux (LP64:
// long and size_t are 64 bits, char is signed): the registry of pycuda.tools.dtype_to_ctype,
// whose answer is the first name. The complex types are pycuda-complex.hpp's.
std::span<const std::string_view> c_type_names(dtype t) noexcept;
// The same for OpenCL C kernels (pyopencl.tools.dtype_to_ctype's registry): "char", "uchar",
// "long" (always 64 bits), "ulong", ..., "cfloat_t"; none for bool, which OpenCL C kernels
// cannot take.
std::span<const std::string_view> opencl_c_type_names(dtype t) noexcept;
// The OpenCL C type the engine's OpenCL kernels hold an element of `t` in: the first of
// opencl_c_type_names, and uchar for bool (OpenCL C kernels take no pointers to bool; a bool
// element is one byte, 0 or 1, as numpy's, and its kernels convert through C's bool).
std::string_view opencl_element_type(dtype t) noexcept;
// The dtype called `n` (numpy names; also "float" for float32 and "double" for float64);
// logic_error listing the supported names otherwise.
dtype dtype_from_name(std::string_view n);

// numpy.promote_types(a, b) for the supported types: the smallest type both convert to
// without loss, where int64 with uint64 gives float64, as numpy does.
dtype promote(dtype a, dtype b) noexcept;

// The kinds of Python scalar that take part in NEP 50 ("weak") promotion.
enum class python_scalar { integer, floating, complex };
// The result of an array of type `t` with a Python scalar (numpy 2, NEP 50): the scalar
// adopts the array's type unless its kind is higher, then the default of that kind
// (float64, complex128), keeping the array's precision for complex (float32 -> complex64).
dtype promote_with_scalar(dtype t, python_scalar s) noexcept;

// numpy's result type of sum(): bool and signed integers narrower than 64 bits give int64,
// unsigned ones uint64; other types keep theirs.
dtype sum_type(dtype t) noexcept;

}  // namespace gpukit::array
