// gpukit::array::device_array without a device: the element types, how C++ scalars take part
// in type resolution, and every error an operation raises before it touches memory (arrays
// here are views of a made-up address, which no operation below reaches).
#include "gpukit/array/array.hpp"
#include "gpukit/core/error.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::array;

// An array of `shape` over a made-up device address.
device_array fake(std::vector<std::int64_t> shape, dtype t) {
    const layout l = layout::contiguous(std::move(shape), static_cast<std::int64_t>(size_of(t)));
    const auto bytes = static_cast<std::size_t>(l.nbytes() > 0 ? l.nbytes() : 1);
    return device_array(ndarray(borrow(1u << 20, bytes), t, l));
}

TEST(DeviceArray, ElementTypesOfCppTypes) {
    static_assert(dtype_of<bool>() == dtype::bool_);
    static_assert(dtype_of<std::int8_t>() == dtype::int8);
    static_assert(dtype_of<short>() == dtype::int16);
    static_assert(dtype_of<int>() == dtype::int32);
    static_assert(dtype_of<long>() == dtype::int64);
    static_assert(dtype_of<long long>() == dtype::int64);
    static_assert(dtype_of<unsigned char>() == dtype::uint8);
    static_assert(dtype_of<std::uint16_t>() == dtype::uint16);
    static_assert(dtype_of<unsigned>() == dtype::uint32);
    static_assert(dtype_of<std::size_t>() == dtype::uint64);
    static_assert(dtype_of<const float>() == dtype::float32);
    static_assert(dtype_of<double>() == dtype::float64);
    static_assert(dtype_of<std::complex<float>>() == dtype::complex64);
    static_assert(dtype_of<std::complex<double>>() == dtype::complex128);
}

TEST(DeviceArray, CppScalarsAreWeakAsPythonScalarsAndBoolIsTyped) {
    const scalar minus_five = -5;
    EXPECT_EQ(minus_five.how.k, operand::kind::python_int);
    EXPECT_TRUE(minus_five.how.value.negative);
    EXPECT_EQ(minus_five.how.value.magnitude, 5u);
    const scalar lowest = std::numeric_limits<long long>::min();
    EXPECT_TRUE(lowest.how.value.negative);
    EXPECT_EQ(lowest.how.value.magnitude, 1ull << 63);
    const scalar huge = std::numeric_limits<unsigned long long>::max();
    EXPECT_FALSE(huge.how.value.negative);
    EXPECT_EQ(huge.how.value.magnitude, std::numeric_limits<unsigned long long>::max());
    const scalar half = 0.5f;
    EXPECT_EQ(half.how.k, operand::kind::python_float);
    EXPECT_EQ(half.value, std::complex<double>(0.5, 0.0));
    const scalar z = std::complex<float>(1.0f, -2.0f);
    EXPECT_EQ(z.how.k, operand::kind::python_complex);
    EXPECT_EQ(z.value, std::complex<double>(1.0, -2.0));
    const scalar yes = true;
    EXPECT_EQ(yes.how.k, operand::kind::typed);
    EXPECT_EQ(yes.how.type, dtype::bool_);
    // The types numpy gives: 2 * float32 stays float32, int32 + 1.5 is float64.
    EXPECT_EQ(resolve_binary(binary_op::multiply, scalar(2).how, {operand::kind::typed, dtype::float32, {}}).result,
              dtype::float32);
    EXPECT_EQ(resolve_binary(binary_op::add, {operand::kind::typed, dtype::int32, {}}, scalar(1.5).how).result,
              dtype::float64);
}

TEST(DeviceArray, OperationsRefuseBeforeTouchingMemory) {
    const device_array a = fake({3, 4}, dtype::float32);
    const device_array b = fake({5}, dtype::float32);
    // Shapes that do not broadcast, as numpy.broadcast_shapes says.
    EXPECT_THROW(a + b, std::invalid_argument);
    EXPECT_THROW(b * a, std::invalid_argument);
    // An integer that int8 cannot hold (numpy 2: OverflowError).
    EXPECT_THROW(fake({2}, dtype::int8) + 1000, std::overflow_error);
    // numpy refuses - of bool and ** to a negative integer of integers.
    EXPECT_THROW(-fake({2}, dtype::bool_), type_error);
    EXPECT_THROW(apply(binary_op::power, fake({2}, dtype::int32), -1), std::exception);
    // Functions of two arrays or with no loop for the type.
    EXPECT_THROW(apply(math_function::fmod, a), logic_error);
    EXPECT_THROW(apply(math_function::floor, fake({2}, dtype::complex64)), type_error);
    EXPECT_THROW(dot(a, b), logic_error);
    EXPECT_THROW(dot(b, fake({4}, dtype::float32)), logic_error);
    EXPECT_THROW(inclusive_scan(a), logic_error);
    EXPECT_THROW(exclusive_scan(fake({4}, dtype::complex128)), type_error);
    EXPECT_THROW(rand({4}, dtype::int64), type_error);
    EXPECT_THROW((void)a.to_host<double>(), logic_error);
    EXPECT_THROW((void)a.item<float>(), logic_error);
    EXPECT_THROW(device_array::from_host(std::vector<float>(5), {2, 3}), logic_error);
    EXPECT_THROW(where(fake({3}, dtype::bool_), fake({4}, dtype::float32), 0), std::invalid_argument);
}

TEST(DeviceArray, InPlaceOperationsRefuseWhatNumpyRefuses) {
    device_array a = fake({3}, dtype::int32);
    // The result of int32 + float is float64, which same_kind does not write into int32.
    try {
        a += 1.5;
        ADD_FAILURE() << "int32 += 1.5 was taken";
    } catch (const type_error& e) {
        EXPECT_STREQ(
            e.what(),
            "Cannot cast ufunc '+' output from dtype('float64') to dtype('int32') with casting rule 'same_kind'");
    }
    try {
        a *= fake({2, 3}, dtype::int32);
        ADD_FAILURE() << "a (3,) array took a (2, 3) result";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(),
                     "non-broadcastable output operand with shape (3,) doesn't match the broadcast shape (2, 3)");
    }
    EXPECT_THROW(a -= fake({4}, dtype::int32), std::invalid_argument);
    device_array small = fake({2}, dtype::int8);
    EXPECT_THROW(small += 1000, std::overflow_error);
    EXPECT_THROW(a /= 2, type_error);  // true division gives float64
}

TEST(DeviceArray, ViewsShareTheBuffer) {
    const device_array a = fake({3, 4}, dtype::float64);
    const device_array t = a.transpose();
    EXPECT_EQ(t.shape(), (std::vector<std::int64_t>{4, 3}));
    EXPECT_EQ(t.view().buffer(), a.view().buffer());
    const device_array r = a.reshape({2, 6});
    EXPECT_EQ(r.ndim(), 2);
    EXPECT_EQ(r.view().data(), a.view().data());
    const device_array row = a[{index_item{std::int64_t{1}}}];
    EXPECT_EQ(row.shape(), (std::vector<std::int64_t>{4}));
    EXPECT_EQ(row.view().data(), a.view().data() + 4 * sizeof(double));
}

}  // namespace
