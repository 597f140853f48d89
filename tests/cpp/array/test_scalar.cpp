// A scalar's bytes in the type an operation reads it as (array/scalar.hpp): the conversions
// numpy makes of a Python scalar, for the C++ arrays and the Python operators alike.
#include "gpukit/array/scalar.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace {

using namespace gpukit::array;

template <class T>
T read(const scalar_value& v) {
    EXPECT_EQ(v.size, sizeof(T));
    T value;
    std::memcpy(&value, v.bytes.data(), sizeof(T));
    return value;
}

// An integer of more than 64 bits as the bindings describe it: its sign and its nearest double.
scalar beyond_64_bits(bool negative, double nearest) {
    scalar s;
    s.how = {operand::kind::python_int, dtype::int64, {negative, 0, true}};
    s.value = nearest;
    return s;
}

TEST(Scalar, IntegersConvertExactlyOrWrap) {
    EXPECT_EQ(read<std::uint8_t>(scalar_bytes(-1, dtype::uint8)), 255);
    EXPECT_EQ(read<std::int8_t>(scalar_bytes(300, dtype::int8)), 44);
    EXPECT_EQ(read<std::int64_t>(scalar_bytes(std::numeric_limits<long long>::min(), dtype::int64)),
              std::numeric_limits<long long>::min());
    EXPECT_EQ(read<std::uint64_t>(scalar_bytes(std::numeric_limits<unsigned long long>::max(), dtype::uint64)),
              std::numeric_limits<unsigned long long>::max());
    EXPECT_EQ(read<std::int16_t>(scalar_bytes(-12345, dtype::int16)), -12345);
}

TEST(Scalar, IntegersToFloatsRoundAsPythonsFloat) {
    // 2^53 + 1 rounds to even: 2^53.
    EXPECT_EQ(read<double>(scalar_bytes((1LL << 53) + 1, dtype::float64)), 9007199254740992.0);
    EXPECT_EQ(read<double>(scalar_bytes(std::numeric_limits<unsigned long long>::max(), dtype::float64)),
              18446744073709551616.0);
    EXPECT_EQ(read<double>(scalar_bytes(-7, dtype::float64)), -7.0);
    EXPECT_EQ(read<float>(scalar_bytes(16777217, dtype::float32)), 16777216.0f);
    EXPECT_EQ(read<std::complex<float>>(scalar_bytes(3, dtype::complex64)), std::complex<float>(3.0f, 0.0f));
    // More than 64 bits: the nearest double the bindings found, or Python's OverflowError text.
    EXPECT_EQ(read<double>(scalar_bytes(beyond_64_bits(true, -1.2676506002282294e30), dtype::float64)),
              -1.2676506002282294e30);
    try {
        scalar_bytes(beyond_64_bits(false, HUGE_VAL), dtype::float32);
        ADD_FAILURE() << "an int beyond float64's range converted to a float";
    } catch (const std::overflow_error& e) {
        EXPECT_STREQ(e.what(), "int too large to convert to float");
    }
}

TEST(Scalar, FloatsAndComplexNumbersConvertCStyle) {
    EXPECT_EQ(read<float>(scalar_bytes(2.5, dtype::float32)), 2.5f);
    EXPECT_EQ(read<float>(scalar_bytes(0.1, dtype::float32)), 0.1f);
    EXPECT_EQ(read<double>(scalar_bytes(0.1f, dtype::float64)), static_cast<double>(0.1f));
    EXPECT_EQ(read<std::complex<double>>(scalar_bytes(1.5, dtype::complex128)), std::complex<double>(1.5, 0.0));
    EXPECT_EQ(read<std::complex<float>>(scalar_bytes(std::complex<double>(1.0, -2.0), dtype::complex64)),
              std::complex<float>(1.0f, -2.0f));
    EXPECT_TRUE(std::isnan(read<double>(scalar_bytes(std::nan(""), dtype::float64))));
}

TEST(Scalar, BoolMeansNonZero) {
    EXPECT_TRUE(read<bool>(scalar_bytes(true, dtype::bool_)));
    EXPECT_FALSE(read<bool>(scalar_bytes(false, dtype::bool_)));
    EXPECT_FALSE(read<bool>(scalar_bytes(0, dtype::bool_)));
    EXPECT_TRUE(read<bool>(scalar_bytes(-3, dtype::bool_)));
    EXPECT_FALSE(read<bool>(scalar_bytes(0.0, dtype::bool_)));
    EXPECT_TRUE(read<bool>(scalar_bytes(std::nan(""), dtype::bool_)));
    EXPECT_TRUE(read<bool>(scalar_bytes(std::complex<double>(0.0, 1.0), dtype::bool_)));
    EXPECT_TRUE(read<bool>(scalar_bytes(beyond_64_bits(false, 1e30), dtype::bool_)));
    // A bool in a numeric type is 0 or 1.
    EXPECT_EQ(read<std::int32_t>(scalar_bytes(true, dtype::int32)), 1);
    EXPECT_EQ(read<double>(scalar_bytes(true, dtype::float64)), 1.0);
}

TEST(Scalar, NumpyScalarsAreTypedWithTheirValue) {
    // What the bindings make of numpy.float32(0.25): typed, floating.
    scalar s;
    s.how = {operand::kind::typed, dtype::float32, {}};
    s.number = scalar::number_kind::floating;
    s.value = 0.25;
    EXPECT_EQ(read<double>(scalar_bytes(s, dtype::float64)), 0.25);
    EXPECT_EQ(read<float>(scalar_bytes(s, dtype::float32)), 0.25f);
}

}  // namespace
