#include "gpukit/array/dtype.hpp"

#include "gpukit/core/error.hpp"

#include <algorithm>
#include <array>

namespace gpukit::array {

namespace {

struct dtype_info {
    dtype type;
    dtype_kind kind;
    std::size_t size;
    std::string_view name;
    std::string_view c_type;                           // in generated kernels
    std::span<const std::string_view> c_names;         // in users' kernels, the usual name first
    std::span<const std::string_view> opencl_c_names;  // the same in OpenCL C kernels
};

// The C names of each type in users' kernels.
constexpr std::string_view bool_names[] = {"bool"};
constexpr std::string_view int8_names[] = {"signed char", "char", "int8_t"};
constexpr std::string_view int16_names[] =
    {"short", "short int", "signed short", "signed short int", "short signed int", "int16_t"};
constexpr std::string_view int32_names[] = {"int", "signed int", "signed", "int32_t"};
constexpr std::string_view int64_names[] =
    {"long",      "long int",      "signed long",      "signed long int",      "long signed int",
     "long long", "long long int", "signed long long", "signed long long int", "long long signed int",
     "ptrdiff_t", "intptr_t",      "int64_t"};
constexpr std::string_view uint8_names[] = {"unsigned char", "uint8_t"};
constexpr std::string_view uint16_names[] = {"unsigned short", "unsigned short int", "short unsigned int", "uint16_t"};
constexpr std::string_view uint32_names[] = {"unsigned", "unsigned int", "uint32_t"};
constexpr std::string_view uint64_names[] = {"unsigned long",
                                             "unsigned long int",
                                             "long unsigned int",
                                             "unsigned long long",
                                             "unsigned long long int",
                                             "long long unsigned int",
                                             "size_t",
                                             "uintptr_t",
                                             "uint64_t"};
constexpr std::string_view float32_names[] = {"float"};
constexpr std::string_view float64_names[] = {"double"};
constexpr std::string_view complex64_names[] = {"pycuda::complex<float>"};
constexpr std::string_view complex128_names[] = {"pycuda::complex<double>"};

// The names in OpenCL C, where long is always 64 bits and char signed, and which has the
// short unsigned names (uchar, ...); complex numbers are pyopencl-complex.h's. OpenCL C has
// no bool kernel parameters, so bool has no name here.
constexpr std::string_view opencl_int8_names[] = {"char", "signed char"};
constexpr std::string_view opencl_int16_names[] = {"short", "signed short", "short int", "signed short int",
                                                   "short signed int"};
constexpr std::string_view opencl_int32_names[] = {"int", "signed int", "signed"};
constexpr std::string_view opencl_int64_names[] =
    {"long", "long int", "signed long", "signed long int", "long signed int", "intptr_t", "ptrdiff_t"};
constexpr std::string_view opencl_uint8_names[] = {"uchar", "unsigned char"};
constexpr std::string_view opencl_uint16_names[] = {"ushort", "unsigned short", "unsigned short int",
                                                    "short unsigned int"};
constexpr std::string_view opencl_uint32_names[] = {"uint", "unsigned int", "unsigned"};
constexpr std::string_view opencl_uint64_names[] = {"ulong", "unsigned long", "unsigned long int", "long unsigned int",
                                                    "uintptr_t"};
constexpr std::string_view opencl_complex64_names[] = {"cfloat_t"};
constexpr std::string_view opencl_complex128_names[] = {"cdouble_t"};

constexpr std::array<dtype_info, 13> table{{
    {dtype::bool_, dtype_kind::boolean, 1, "bool", "bool", bool_names, {}},
    {dtype::int8, dtype_kind::signed_int, 1, "int8", "signed char", int8_names, opencl_int8_names},
    {dtype::int16, dtype_kind::signed_int, 2, "int16", "short", int16_names, opencl_int16_names},
    {dtype::int32, dtype_kind::signed_int, 4, "int32", "int", int32_names, opencl_int32_names},
    {dtype::int64, dtype_kind::signed_int, 8, "int64", "long long", int64_names, opencl_int64_names},
    {dtype::uint8, dtype_kind::unsigned_int, 1, "uint8", "unsigned char", uint8_names, opencl_uint8_names},
    {dtype::uint16, dtype_kind::unsigned_int, 2, "uint16", "unsigned short", uint16_names, opencl_uint16_names},
    {dtype::uint32, dtype_kind::unsigned_int, 4, "uint32", "unsigned int", uint32_names, opencl_uint32_names},
    {dtype::uint64, dtype_kind::unsigned_int, 8, "uint64", "unsigned long long", uint64_names, opencl_uint64_names},
    {dtype::float32, dtype_kind::floating, 4, "float32", "float", float32_names, float32_names},
    {dtype::float64, dtype_kind::floating, 8, "float64", "double", float64_names, float64_names},
    {dtype::complex64, dtype_kind::complex, 8, "complex64", "gk_complex<float>", complex64_names,
     opencl_complex64_names},
    {dtype::complex128, dtype_kind::complex, 16, "complex128", "gk_complex<double>", complex128_names,
     opencl_complex128_names},
}};

const dtype_info& info(dtype t) noexcept { return table[static_cast<std::size_t>(t)]; }

dtype of(dtype_kind k, std::size_t size) noexcept {
    for (const auto& entry : table)
        if (entry.kind == k && entry.size == size)
            return entry.type;
    return dtype::float64;  // not reached for the sizes promote() asks for
}

bool is_integer(dtype_kind k) noexcept { return k == dtype_kind::signed_int || k == dtype_kind::unsigned_int; }

// The smallest supported float that holds every value of integer type `t` exactly enough
// for numpy: 16-bit and narrower integers fit float32, wider ones need float64.
std::size_t float_size_for(dtype t) noexcept { return size_of(t) <= 2 ? 4 : 8; }

}  // namespace

dtype_kind kind(dtype t) noexcept { return info(t).kind; }
std::size_t size_of(dtype t) noexcept { return info(t).size; }
std::string_view name(dtype t) noexcept { return info(t).name; }

std::string_view c_type(dtype t) noexcept { return info(t).c_type; }
std::span<const std::string_view> c_type_names(dtype t) noexcept { return info(t).c_names; }
std::span<const std::string_view> opencl_c_type_names(dtype t) noexcept { return info(t).opencl_c_names; }
std::string_view opencl_element_type(dtype t) noexcept {
    return t == dtype::bool_ ? std::string_view("uchar") : info(t).opencl_c_names.front();
}

dtype dtype_from_name(std::string_view n) {
    if (n == "float")
        return dtype::float32;
    if (n == "double")
        return dtype::float64;
    for (const auto& entry : table)
        if (entry.name == n)
            return entry.type;
    throw logic_error("unsupported dtype '" + std::string(n) +
                      "': gpukit arrays support bool, int8..int64, uint8..uint64, float32, float64, "
                      "complex64 and complex128");
}

dtype promote(dtype a, dtype b) noexcept {
    if (a == b)
        return a;
    dtype_kind ka = kind(a), kb = kind(b);
    // Order the pair so that `a` has the lower kind.
    if (static_cast<int>(ka) > static_cast<int>(kb)) {
        std::swap(a, b);
        std::swap(ka, kb);
    }
    if (ka == dtype_kind::boolean)
        return b;
    if (ka == kb)
        return size_of(a) > size_of(b) ? a : b;
    if (ka == dtype_kind::signed_int && kb == dtype_kind::unsigned_int) {
        if (size_of(a) > size_of(b))
            return a;
        if (size_of(b) == 8)
            return dtype::float64;  // no integer holds both int64 and uint64
        return of(dtype_kind::signed_int, 2 * size_of(b));
    }
    if (is_integer(ka) && kb == dtype_kind::floating)
        return of(dtype_kind::floating, std::max(float_size_for(a), size_of(b)));
    if (is_integer(ka))  // with complex: the float part must hold the integer
        return of(dtype_kind::complex, 2 * std::max(float_size_for(a), size_of(b) / 2));
    // floating with complex
    return of(dtype_kind::complex, std::max(2 * size_of(a), size_of(b)));
}

dtype promote_with_scalar(dtype t, python_scalar s) noexcept {
    const dtype_kind k = kind(t);
    switch (s) {
    case python_scalar::integer:
        return k == dtype_kind::boolean ? dtype::int64 : t;
    case python_scalar::floating:
        return k == dtype_kind::floating || k == dtype_kind::complex ? t : dtype::float64;
    case python_scalar::complex:
        if (k == dtype_kind::complex)
            return t;
        return t == dtype::float32 ? dtype::complex64 : dtype::complex128;
    }
    return t;
}

dtype sum_type(dtype t) noexcept {
    switch (kind(t)) {
    case dtype_kind::boolean:
    case dtype_kind::signed_int:
        return dtype::int64;
    case dtype_kind::unsigned_int:
        return dtype::uint64;
    default:
        return t;
    }
}

}  // namespace gpukit::array
