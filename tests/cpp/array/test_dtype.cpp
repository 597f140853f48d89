// numpy's promotion table for the supported types (numpy.promote_types, numpy 2).
#include "gpukit/array/dtype.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <set>
#include <string_view>
#include <vector>

namespace {

using namespace gpukit::array;

constexpr int dtype_count = static_cast<int>(dtype::complex128) + 1;

// numpy's short name of a dtype (numpy.dtype("i1") is int8), to write whole tables compactly.
std::string_view code(dtype t) {
    constexpr std::string_view codes[] = {"b", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8", "c8", "c16"};
    static_assert(std::size(codes) == dtype_count);
    return codes[static_cast<int>(t)];
}

// Checks `result(row type, column)` against `table`: one line a type, in the order of enum
// dtype, holding the expected codes of its columns.
template <class Result>
void expect_table(const std::string_view (&table)[dtype_count], std::size_t columns, Result result) {
    for (int row = 0; row < dtype_count; ++row) {
        const std::vector<std::string_view> expected = gpukit::split_words(table[row]);
        ASSERT_EQ(expected.size(), columns) << "row " << code(dtype(row));
        for (std::size_t column = 0; column < columns; ++column)
            EXPECT_EQ(code(result(dtype(row), column)), expected[column])
                << "row " << code(dtype(row)) << ", column " << column;
    }
}

TEST(Dtype, PropertiesAndNames) {
    EXPECT_EQ(size_of(dtype::complex128), 16u);
    EXPECT_EQ(kind(dtype::uint16), dtype_kind::unsigned_int);
    EXPECT_EQ(name(dtype::bool_), "bool");
    EXPECT_EQ(c_type(dtype::int64), "long long");
    EXPECT_EQ(dtype_from_name("float"), dtype::float32);
    EXPECT_EQ(dtype_from_name("uint8"), dtype::uint8);
    EXPECT_THROW(dtype_from_name("float16"), gpukit::logic_error);
    EXPECT_EQ(c_type(dtype::complex64), "gk_complex<float>");
}

// numpy.promote_types(row, column), as numpy 2.4 gives it; rows and columns both in the
// order of enum dtype (b i1 i2 i4 i8 u1 u2 u4 u8 f4 f8 c8 c16).
const std::string_view numpy_promotion[dtype_count] = {
    "b    i1   i2   i4   i8   u1   u2   u4   u8   f4   f8   c8   c16",  // b
    "i1   i1   i2   i4   i8   i2   i4   i8   f8   f4   f8   c8   c16",  // i1
    "i2   i2   i2   i4   i8   i2   i4   i8   f8   f4   f8   c8   c16",  // i2
    "i4   i4   i4   i4   i8   i4   i4   i8   f8   f8   f8   c16  c16",  // i4
    "i8   i8   i8   i8   i8   i8   i8   i8   f8   f8   f8   c16  c16",  // i8
    "u1   i2   i2   i4   i8   u1   u2   u4   u8   f4   f8   c8   c16",  // u1
    "u2   i4   i4   i4   i8   u2   u2   u4   u8   f4   f8   c8   c16",  // u2
    "u4   i8   i8   i8   i8   u4   u4   u4   u8   f8   f8   c16  c16",  // u4
    "u8   f8   f8   f8   f8   u8   u8   u8   u8   f8   f8   c16  c16",  // u8
    "f4   f4   f4   f8   f8   f4   f4   f8   f8   f4   f8   c8   c16",  // f4
    "f8   f8   f8   f8   f8   f8   f8   f8   f8   f8   f8   c16  c16",  // f8
    "c8   c8   c8   c16  c16  c8   c8   c16  c16  c8   c16  c8   c16",  // c8
    "c16  c16  c16  c16  c16  c16  c16  c16  c16  c16  c16  c16  c16",  // c16
};

// Every pair, so also both orders of each (numpy's table is symmetric).
TEST(Dtype, PromotionFollowsNumpy) {
    expect_table(numpy_promotion, dtype_count,
                 [](dtype a, std::size_t b) { return promote(a, dtype(static_cast<int>(b))); });
}

// An array of the row's type with a Python int, float and complex (the three columns):
// numpy 2.4's numpy.result_type(numpy.zeros(1, row), scalar).
const std::string_view numpy_with_python_scalar[dtype_count] = {
    "i8   f8   c16",  // b
    "i1   f8   c16",  // i1
    "i2   f8   c16",  // i2
    "i4   f8   c16",  // i4
    "i8   f8   c16",  // i8
    "u1   f8   c16",  // u1
    "u2   f8   c16",  // u2
    "u4   f8   c16",  // u4
    "u8   f8   c16",  // u8
    "f4   f4   c8",   // f4
    "f8   f8   c16",  // f8
    "c8   c8   c8",   // c8
    "c16  c16  c16",  // c16
};

TEST(Dtype, PythonScalarsAreWeak) {
    constexpr python_scalar scalars[] = {python_scalar::integer, python_scalar::floating, python_scalar::complex};
    expect_table(numpy_with_python_scalar, std::size(scalars),
                 [&](dtype t, std::size_t s) { return promote_with_scalar(t, scalars[s]); });
}

TEST(Dtype, SumTypes) {
    EXPECT_EQ(sum_type(dtype::bool_), dtype::int64);
    EXPECT_EQ(sum_type(dtype::int8), dtype::int64);
    EXPECT_EQ(sum_type(dtype::uint16), dtype::uint64);
    EXPECT_EQ(sum_type(dtype::float32), dtype::float32);
}

TEST(Dtype, OpenCLCTypeNamesAreOpenCLCs) {
    EXPECT_TRUE(opencl_c_type_names(dtype::bool_).empty());  // OpenCL C kernels take no bool
    EXPECT_EQ(opencl_c_type_names(dtype::int8).front(), "char");
    EXPECT_EQ(opencl_c_type_names(dtype::uint8).front(), "uchar");
    EXPECT_EQ(opencl_c_type_names(dtype::int64).front(), "long");
    EXPECT_EQ(opencl_c_type_names(dtype::uint64).front(), "ulong");
    EXPECT_EQ(opencl_c_type_names(dtype::complex128).front(), "cdouble_t");
    std::set<std::string_view> seen;
    for (int k = 0; k <= static_cast<int>(dtype::complex128); ++k)
        for (const std::string_view n : opencl_c_type_names(static_cast<dtype>(k)))
            EXPECT_TRUE(seen.insert(n).second) << n << " names two types";
}

TEST(Dtype, CTypeNamesAreOnePerTypeAndStartWithTheUsualOne) {
    EXPECT_EQ(c_type_names(dtype::int64).front(), "long");
    EXPECT_EQ(c_type_names(dtype::uint32).front(), "unsigned");
    EXPECT_EQ(c_type_names(dtype::complex64).front(), "pycuda::complex<float>");
    std::set<std::string_view> seen;
    for (int k = 0; k <= static_cast<int>(dtype::complex128); ++k) {
        const auto t = static_cast<dtype>(k);
        ASSERT_FALSE(c_type_names(t).empty()) << name(t);
        for (const std::string_view n : c_type_names(t))
            EXPECT_TRUE(seen.insert(n).second) << n << " names two types";
    }
    // The fixed-width names name the type of their width.
    EXPECT_NE(std::find(c_type_names(dtype::int8).begin(), c_type_names(dtype::int8).end(), "int8_t"),
              c_type_names(dtype::int8).end());
    EXPECT_NE(std::find(c_type_names(dtype::uint64).begin(), c_type_names(dtype::uint64).end(), "size_t"),
              c_type_names(dtype::uint64).end());
}

}  // namespace
