// numpy's promotion table for the supported types (numpy.promote_types, numpy 2).
#include "gpukit/array/dtype.hpp"
#include "gpukit/core/error.hpp"

#include <gtest/gtest.h>

namespace {

using namespace gpukit::array;

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

TEST(Dtype, PromotionFollowsNumpy) {
    EXPECT_EQ(promote(dtype::bool_, dtype::int8), dtype::int8);
    EXPECT_EQ(promote(dtype::int8, dtype::uint8), dtype::int16);
    EXPECT_EQ(promote(dtype::int32, dtype::uint32), dtype::int64);
    EXPECT_EQ(promote(dtype::int64, dtype::uint64), dtype::float64);
    EXPECT_EQ(promote(dtype::uint8, dtype::int64), dtype::int64);
    EXPECT_EQ(promote(dtype::int16, dtype::float32), dtype::float32);
    EXPECT_EQ(promote(dtype::int32, dtype::float32), dtype::float64);
    EXPECT_EQ(promote(dtype::float32, dtype::float64), dtype::float64);
    EXPECT_EQ(promote(dtype::int8, dtype::complex64), dtype::complex64);
    EXPECT_EQ(promote(dtype::int32, dtype::complex64), dtype::complex128);
    EXPECT_EQ(promote(dtype::float64, dtype::complex64), dtype::complex128);
    EXPECT_EQ(promote(dtype::float32, dtype::complex64), dtype::complex64);
    for (int a = 0; a <= static_cast<int>(dtype::complex128); ++a)
        for (int b = 0; b <= static_cast<int>(dtype::complex128); ++b)
            EXPECT_EQ(promote(dtype(a), dtype(b)), promote(dtype(b), dtype(a)));
}

TEST(Dtype, PythonScalarsAreWeak) {
    EXPECT_EQ(promote_with_scalar(dtype::int8, python_scalar::integer), dtype::int8);
    EXPECT_EQ(promote_with_scalar(dtype::bool_, python_scalar::integer), dtype::int64);
    EXPECT_EQ(promote_with_scalar(dtype::int8, python_scalar::floating), dtype::float64);
    EXPECT_EQ(promote_with_scalar(dtype::float32, python_scalar::floating), dtype::float32);
    EXPECT_EQ(promote_with_scalar(dtype::float32, python_scalar::complex), dtype::complex64);
    EXPECT_EQ(promote_with_scalar(dtype::int64, python_scalar::complex), dtype::complex128);
}

TEST(Dtype, SumTypes) {
    EXPECT_EQ(sum_type(dtype::bool_), dtype::int64);
    EXPECT_EQ(sum_type(dtype::int8), dtype::int64);
    EXPECT_EQ(sum_type(dtype::uint16), dtype::uint64);
    EXPECT_EQ(sum_type(dtype::float32), dtype::float32);
}

}  // namespace
