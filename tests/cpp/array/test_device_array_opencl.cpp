// device_array on an OpenCL backend (PoCL in CI, NVIDIA's OpenCL on the GPU machine): numpy's
// operators, broadcasting, views, in-place updates and reductions, each against the host.
#include "gpukit/array/array.hpp"
#include "gpukit/array/opencl_backend.hpp"

#include "cl/cl_test_device.hpp"
#include "random/philox_reference.hpp"
#include "expect_error.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

namespace {

using namespace gpukit;
using array::device_array;
using array::dtype;

class DeviceArrayOnOpencl : public gpukit::testing::cl_queue_test {
protected:
    void SetUp() override {
        gpukit::testing::cl_queue_test::SetUp();
        if (IsSkipped())
            return;
        device = std::make_shared<array::opencl_backend>(*q);
    }

    std::shared_ptr<array::opencl_backend> device;
};

TEST_F(DeviceArrayOnOpencl, OperatorsWithScalarsAndNumpysTypes) {
    std::vector<float> values(1001);
    for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = static_cast<float>(k % 37) - 18.0f;
    const device_array x = device_array::from_host(device, values);
    EXPECT_EQ(x.runs_on(), device);
    const device_array y = 2 * x + 1;  // a C++ int is a weak scalar: float32 stays
    EXPECT_EQ(y.type(), dtype::float32);
    EXPECT_EQ(y.runs_on(), device);
    const std::vector<float> got = y.to_host<float>();
    for (std::size_t k = 0; k < values.size(); ++k)
        ASSERT_EQ(got[k], 2 * values[k] + 1) << k;
    // int32 / int32 is float64 where the device has it.
    const device_array i = device_array::from_host(device, std::vector<std::int32_t>{7, -7, 9});
    const device_array j = device_array::from_host(device, std::vector<std::int32_t>{2, 2, -4});
    if (device->type_problem(dtype::float64).empty())
        EXPECT_EQ((i / j).to_host<double>(), (std::vector<double>{3.5, -3.5, -2.25}));
    EXPECT_EQ((i * j - i).to_host<std::int32_t>(), (std::vector<std::int32_t>{7, -7, -45}));
    EXPECT_EQ((-i).to_host<std::int32_t>(), (std::vector<std::int32_t>{-7, 7, -9}));
}

TEST_F(DeviceArrayOnOpencl, BroadcastsTransposesAndReversedViews) {
    std::vector<std::int64_t> column{1, 2, 3}, row{10, 20, 30, 40};
    const device_array c = device_array::from_host(device, column, {3, 1});
    const device_array r = device_array::from_host(device, row, {1, 4});
    const std::vector<std::int64_t> table = (c * r).to_host<std::int64_t>();
    for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = 0; b < 4; ++b)
            EXPECT_EQ(table[a * 4 + b], column[a] * row[b]);
    // A transposed matrix plus a reversed row, and the result copied to C order.
    std::vector<std::int32_t> m(4 * 3);
    std::iota(m.begin(), m.end(), 0);
    const device_array matrix = device_array::from_host(device, m, {4, 3});
    const device_array flipped =
        device_array::from_host(device, std::vector<std::int32_t>{100, 200, 300, 400})[{slice{{}, {}, -1}}];
    const std::vector<std::int32_t> sums = (matrix.transpose() + flipped).to_host<std::int32_t>();
    for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = 0; b < 4; ++b)
            EXPECT_EQ(sums[a * 4 + b], m[b * 3 + a] + 100 * static_cast<std::int32_t>(4 - b)) << a << ", " << b;
    EXPECT_EQ(matrix.transpose().copy().to_host<std::int32_t>(),
              (std::vector<std::int32_t>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
}

TEST_F(DeviceArrayOnOpencl, InPlaceUpdatesReadAnOverlappingOperandFirst) {
    std::vector<std::int32_t> values(9);
    std::iota(values.begin(), values.end(), 1);
    device_array z = device_array::from_host(device, values);
    z += z[{slice{{}, {}, -1}}];  // numpy: every element plus its mirror, read before writing
    EXPECT_EQ(z.to_host<std::int32_t>(), (std::vector<std::int32_t>(9, 10)));
    z *= 3;
    EXPECT_EQ(z.to_host<std::int32_t>(), (std::vector<std::int32_t>(9, 30)));
    gpukit::test::expect_error<logic_error>([&] { (void)z.item<std::int32_t>(); }, "9 elements, not one");
    EXPECT_EQ(z[{std::int64_t{4}}].item<std::int32_t>(), 30);
}

// numpy's assignment (a[...] = b, a.fill(v), a[...] = host values) into views, converting.
TEST_F(DeviceArrayOnOpencl, AssignmentsIntoViewsConvertAndBroadcast) {
    std::vector<std::int32_t> m(4 * 3, -1);
    device_array matrix = device_array::from_host(device, m, {4, 3});
    // A reversed float row broadcast into every row of the transposed view: truncated to int32.
    device_array target = matrix.transpose();  // shape (3, 4), a view
    target.assign(device_array::from_host(device, std::vector<float>{1.9f, -2.5f, 3.0f, 4.7f})[{slice{{}, {}, -1}}]);
    EXPECT_EQ(matrix.to_host<std::int32_t>(), (std::vector<std::int32_t>{4, 4, 4, 3, 3, 3, -2, -2, -2, 1, 1, 1}));
    // A view assigned from an overlapping reversed view of itself is read first.
    device_array v = device_array::from_host(device, std::vector<std::int16_t>{1, 2, 3, 4, 5});
    device_array first_four = v[{slice{{}, std::int64_t{4}, {}}}];
    first_four.assign(v[{slice{std::int64_t{4}, std::int64_t{0}, -1}}]);
    EXPECT_EQ(v.to_host<std::int16_t>(), (std::vector<std::int16_t>{5, 4, 3, 2, 5}));
    // Fill: a float truncates into integers; a Python-like int beyond the type is refused.
    device_array every_other = v[{slice{{}, {}, std::int64_t{2}}}];
    every_other.assign(array::scalar(-7.9));
    EXPECT_EQ(v.to_host<std::int16_t>(), (std::vector<std::int16_t>{-7, 4, -7, 2, -7}));
    gpukit::test::expect_error<std::overflow_error>([&] { every_other.assign(array::scalar(40000)); },
                                                    "Python integer 40000 out of bounds for int16");
    gpukit::test::expect_error<std::invalid_argument>(
        [&] {
            every_other.assign(device_array::from_host(device, std::vector<std::int16_t>{1, 2}));
        },
        "could not broadcast input array from shape (2,) into shape (3,)");
    // Host bytes into a strided view.
    const std::vector<std::int16_t> host{10, 20, 30};
    every_other.assign_from_host(std::as_bytes(std::span(host)));
    EXPECT_EQ(v.to_host<std::int16_t>(), (std::vector<std::int16_t>{10, 4, 20, 2, 30}));
    gpukit::test::expect_error<logic_error>(
        [&] { every_other.assign_from_host(std::as_bytes(std::span(host).first(2))); }, "4 bytes for an array of 6");
    std::vector<std::byte> raw(10);
    v.to_host_bytes(raw);
    EXPECT_EQ(std::to_integer<int>(raw[2]), 4);
}

// apply(unary_op) and update(binary_op) beyond the operators.
TEST_F(DeviceArrayOnOpencl, UnaryFunctionsAndEveryInPlaceOperation) {
    device_array x = device_array::from_host(device, std::vector<std::int32_t>{-3, 0, 5, -8});
    EXPECT_EQ(array::apply(array::unary_op::absolute, x).to_host<std::int32_t>(),
              (std::vector<std::int32_t>{3, 0, 5, 8}));
    EXPECT_EQ(array::apply(array::unary_op::logical_not, x).to_host<bool>(),
              (std::vector<bool>{false, true, false, false}));
    gpukit::test::expect_error<logic_error>([&] { (void)array::apply(array::unary_op::cast, x); }, "use astype");
    x.update(array::binary_op::maximum, array::scalar(1));
    EXPECT_EQ(x.to_host<std::int32_t>(), (std::vector<std::int32_t>{1, 1, 5, 1}));
    x.update(array::binary_op::power, device_array::from_host(device, std::vector<std::int32_t>{3, 2, 2, 0}));
    EXPECT_EQ(x.to_host<std::int32_t>(), (std::vector<std::int32_t>{1, 1, 25, 1}));
}

TEST_F(DeviceArrayOnOpencl, ReductionsAndItems) {
    std::vector<std::int16_t> values(5000);
    std::int64_t total = 0;
    std::int16_t low = 1000, high = -1000;
    for (std::size_t k = 0; k < values.size(); ++k) {
        values[k] = static_cast<std::int16_t>(static_cast<int>(k * 7 % 601) - 300);
        total += values[k];
        low = std::min(low, values[k]);
        high = std::max(high, values[k]);
    }
    const device_array a = device_array::from_host(device, values);
    const device_array s = array::sum(a);
    EXPECT_EQ(s.type(), dtype::int64);  // numpy's sum type of int16
    EXPECT_EQ(s.item<std::int64_t>(), total);
    EXPECT_EQ(array::min(a).item<int>(), low);
    EXPECT_EQ(array::max(a).item<int>(), high);
    const device_array b = device_array::from_host(device, std::vector<float>{1.5f, -2.0f, 4.0f});
    EXPECT_EQ(array::dot(b, b).item<float>(), 1.5f * 1.5f + 4.0f + 16.0f);
    EXPECT_EQ(device_array::zeros(device, {7}, dtype::uint16).to_host<std::uint16_t>(), std::vector<std::uint16_t>(7));
}

TEST_F(DeviceArrayOnOpencl, BoolArraysComparisonsWhereAndLogic) {
    const device_array x = device_array::from_host(device, std::vector<float>{0.5f, -1.0f, 2.5f, 0.0f, 3.0f});
    const device_array positive = array::apply(array::binary_op::greater, x, 0);
    EXPECT_EQ(positive.type(), dtype::bool_);
    EXPECT_EQ(positive.to_host<bool>(), (std::vector<bool>{true, false, true, false, true}));
    // numpy.where over a bool condition, a scalar on one side.
    EXPECT_EQ(array::where(positive, x, -1).to_host<float>(), (std::vector<float>{0.5f, -1.0f, 2.5f, -1.0f, 3.0f}));
    // astype(bool) tests for non-zero (2.5 is true), and bools count as 0 and 1.
    const device_array truth = x.astype(dtype::bool_);
    EXPECT_EQ(truth.to_host<bool>(), (std::vector<bool>{true, true, true, false, true}));
    EXPECT_EQ(array::sum(truth).item<std::int64_t>(), 4);
    EXPECT_EQ(array::min(truth).item<bool>(), false);
    const device_array both = array::apply(array::binary_op::logical_and, positive, truth);
    EXPECT_EQ(both.to_host<bool>(), (std::vector<bool>{true, false, true, false, true}));
    // A bool array from the host, and bool + bool as numpy types it (bool: logical or).
    const device_array flags = device_array::from_host(device, std::vector<bool>{true, false, false, true, false});
    EXPECT_EQ((flags + positive).to_host<bool>(), (std::vector<bool>{true, false, true, true, true}));
}

TEST_F(DeviceArrayOnOpencl, RandomNumbersAreCudasPhiloxNumbers) {
    // 1003 elements: the last block is partial. Each element is its block's word as philox.hpp
    // says, the same numbers CUDA gives for the same seed.
    const std::uint64_t seed = 0x123456789abcdefULL;
    const std::vector<float> f = array::rand(device, {1003}, dtype::float32, seed).to_host<float>();
    const std::vector<std::uint32_t> bits = array::rand(device, {1003}, dtype::uint32, seed).to_host<std::uint32_t>();
    const std::vector<std::int32_t> signed_bits = array::rand(device, {5}, dtype::int32, seed).to_host<std::int32_t>();
    for (std::size_t e = 0; e < f.size(); ++e) {
        const auto w = gpukit::testing::rand_block(e / 4, seed);
        ASSERT_EQ(bits[e], w[e % 4]) << e;
        ASSERT_EQ(f[e], static_cast<float>(w[e % 4] >> 8) * 0x1p-24f) << e;
    }
    EXPECT_EQ(static_cast<std::uint32_t>(signed_bits[4]), bits[4]);
    // 2^21 + 5 elements: on a GPU more blocks than work items (the kernel loops), elements
    // sampled through the whole array and its partial last block.
    const std::vector<float> big = array::rand(device, {(1 << 21) + 5}, dtype::float32, seed).to_host<float>();
    std::vector<std::size_t> sampled;
    for (std::size_t e = 0; e < big.size(); e += 997)
        sampled.push_back(e);
    for (std::size_t e = big.size() - 8; e < big.size(); ++e)
        sampled.push_back(e);
    for (const std::size_t e : sampled) {
        const auto w = gpukit::testing::rand_block(e / 4, seed);
        ASSERT_EQ(big[e], static_cast<float>(w[e % 4] >> 8) * 0x1p-24f) << e;
    }
    if (device->type_problem(dtype::float64).empty()) {
        const std::vector<double> d = array::rand(device, {7}, dtype::float64, seed).to_host<double>();
        for (std::size_t e = 0; e < d.size(); ++e) {
            const auto w = gpukit::testing::rand_block(e / 2, seed);
            const std::uint64_t word = (std::uint64_t{w[2 * (e % 2)]} << 32) | w[2 * (e % 2) + 1];
            ASSERT_EQ(d[e], static_cast<double>(word >> 11) * 0x1p-53) << e;
        }
    }
    gpukit::test::expect_error<type_error>([&] { (void)array::rand(device, {3}, dtype::int16); }, "not supported");
}

// Complex elements: OpenCL C's cfloat_t and cdouble_t with the CUDA kernels' numerics, every
// operation against std::complex over a reversed view, both widths and mixed with reals.
template <class C>
void expect_near(const std::vector<C>& got, const std::vector<C>& want, double tolerance, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t k = 0; k < got.size(); ++k)
        ASSERT_LE(std::abs(std::complex<double>(got[k]) - std::complex<double>(want[k])),
                  tolerance * std::max(1.0, std::abs(std::complex<double>(want[k]))))
            << what << " element " << k << ": " << got[k] << " vs " << want[k];
}

template <class T>
void complex_operations_match_the_host(const std::shared_ptr<array::opencl_backend>& device, double tolerance) {
    using C = std::complex<T>;
    std::vector<C> a(257), b(257);
    for (std::size_t k = 0; k < a.size(); ++k) {
        a[k] = C(static_cast<T>(std::sin(0.3 * k) * 3), static_cast<T>(std::cos(0.7 * k) * 2));
        b[k] = C(static_cast<T>(0.5 + k % 7), static_cast<T>(static_cast<int>(k % 5) - 2));
    }
    const device_array x = device_array::from_host(device, a);
    const device_array y = device_array::from_host(device, b);
    const device_array y_reversed = y[{slice{{}, {}, -1}}];
    std::vector<C> sum(a.size()), quotient(a.size()), product(a.size()), square(a.size()), scaled(a.size());
    std::vector<T> magnitude(a.size()), imaginary(a.size());
    std::vector<bool> less(a.size());
    C total{}, dot{};
    for (std::size_t k = 0; k < a.size(); ++k) {
        const C r = b[a.size() - 1 - k];
        sum[k] = a[k] + r;
        quotient[k] = a[k] / r;
        product[k] = a[k] * b[k];
        square[k] = a[k] * a[k];
        scaled[k] = C(2) * a[k] - C(T(1.5));
        magnitude[k] = std::abs(a[k]);
        imaginary[k] = a[k].imag();
        less[k] = a[k].real() < b[k].real() || (a[k].real() == b[k].real() && a[k].imag() < b[k].imag());
        total += a[k];
        dot += a[k] * b[k];
    }
    expect_near((x + y_reversed).to_host<C>(), sum, tolerance, "x + reversed y");
    expect_near((x / y_reversed).to_host<C>(), quotient, tolerance, "x / reversed y");
    expect_near((x * y).to_host<C>(), product, tolerance, "x * y");
    expect_near(array::apply(array::binary_op::power, x, array::scalar(2)).to_host<C>(), square, tolerance, "x ** 2");
    expect_near((2 * x - 1.5).to_host<C>(), scaled, tolerance, "2 x - 1.5");
    const std::vector<T> got_magnitude = array::apply(array::unary_op::absolute, x).template to_host<T>();
    const std::vector<T> got_imaginary = array::apply(array::unary_op::imag, x).template to_host<T>();
    for (std::size_t k = 0; k < a.size(); ++k) {
        ASSERT_NEAR(got_magnitude[k], magnitude[k], tolerance * magnitude[k]) << k;
        ASSERT_EQ(got_imaginary[k], imaginary[k]) << k;
    }
    EXPECT_EQ(array::apply(array::binary_op::less, x, y).to_host<bool>(), less);
    expect_near(std::vector<C>{array::sum(x).item<C>()}, std::vector<C>{total}, tolerance * 10, "sum");
    expect_near(std::vector<C>{array::dot(x, y).item<C>()}, std::vector<C>{dot}, tolerance * 10, "dot");
    // Conversions: to the other width, to a real type (the real part), from a real type.
    const device_array wide = x.astype(sizeof(T) == 4 ? dtype::complex128 : dtype::complex64);
    EXPECT_EQ(wide.type(), sizeof(T) == 4 ? dtype::complex128 : dtype::complex64);
    const std::vector<T> real_part = x.astype(array::dtype_of<T>()).template to_host<T>();
    for (std::size_t k = 0; k < a.size(); ++k)
        ASSERT_EQ(real_part[k], a[k].real()) << k;
    const device_array from_real =
        device_array::from_host(device, std::vector<T>{T(1.5), T(-2)}).astype(array::dtype_of<C>());
    EXPECT_EQ(from_real.to_host<C>(), (std::vector<C>{C(T(1.5), 0), C(T(-2), 0)}));
    gpukit::test::expect_error<logic_error>([&] { (void)array::max(x); }, "not supported yet");
}

TEST_F(DeviceArrayOnOpencl, ComplexOperationsMatchTheHost) {
    complex_operations_match_the_host<float>(device, 2e-6);
    if (device->type_problem(dtype::complex128).empty())
        complex_operations_match_the_host<double>(device, 1e-14);
}

TEST_F(DeviceArrayOnOpencl, WhatItCannotDoIsRefusedSayingSo) {
    const device_array x = device_array::from_host(device, std::vector<float>{1.0f, 2.0f});
    gpukit::test::expect_error<logic_error>([&] { (void)array::inclusive_scan(x); }, "a scan", "not supported yet");
    // Two backends (two queues) do not mix.
    const cl::queue other_queue = cl::queue::create(*ctx, *dev);
    const auto other = std::make_shared<array::opencl_backend>(other_queue);
    const device_array y = device_array::from_host(other, std::vector<float>{3.0f, 4.0f});
    gpukit::test::expect_error<logic_error>([&] { (void)(x + y); }, "different backends");
    device_array z = x;
    gpukit::test::expect_error<logic_error>([&] { z += y; }, "different backends");
    gpukit::test::expect_error<logic_error>([&] { (void)device_array::empty(nullptr, {2}, dtype::int8); },
                                            "no backend");
}

TEST_F(DeviceArrayOnOpencl, MathFunctionsOfRealNumbersAgainstTheHost) {
    std::vector<float> values(777);
    for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = static_cast<float>(k) * 0.013f - 4.0f;
    const device_array x = device_array::from_host(device, values);
    struct case_ {
        array::math_function f;
        float (*host)(float);
    };
    const case_ cases[] = {{array::math_function::sin, std::sin},   {array::math_function::exp, std::exp},
                           {array::math_function::fabs, std::fabs}, {array::math_function::floor, std::floor},
                           {array::math_function::tanh, std::tanh}, {array::math_function::atan, std::atan}};
    for (const case_& c : cases) {
        const device_array z = array::apply(c.f, x);
        EXPECT_EQ(z.type(), dtype::float32);  // numpy: float32 in, float32 out
        const std::vector<float> got = z.to_host<float>();
        for (std::size_t k = 0; k < values.size(); ++k) {
            const float want = c.host(values[k]);
            // OpenCL allows its float functions a few ulps.
            ASSERT_NEAR(got[k], want, 4e-6f * std::max(1.0f, std::fabs(want))) << array::name(c.f) << " at " << k;
        }
    }
    // sqrt of negatives is NaN, as numpy's; integers go through float64 where the device has it.
    const std::vector<float> roots = array::apply(array::math_function::sqrt, x).to_host<float>();
    EXPECT_TRUE(std::isnan(roots[0]));
    EXPECT_NEAR(roots.back(), std::sqrt(values.back()), 1e-6f);
    if (device->type_problem(dtype::float64).empty()) {
        const device_array n = device_array::from_host(device, std::vector<std::int32_t>{1, 4, 9, -1});
        const device_array r = array::apply(array::math_function::sqrt, n);
        EXPECT_EQ(r.type(), dtype::float64);
        const std::vector<double> got = r.to_host<double>();
        EXPECT_EQ(got[2], 3.0);
        EXPECT_TRUE(std::isnan(got[3]));
    }
}

TEST_F(DeviceArrayOnOpencl, MathFunctionsOfTwoArraysAndTwoResults) {
    const device_array x = device_array::from_host(device, std::vector<float>{5.5f, -5.5f, 1.0f, 0.75f});
    const device_array y = device_array::from_host(device, std::vector<float>{2.0f, 2.0f, 0.0f, 3.0f});
    const device_array e = device_array::from_host(device, std::vector<std::int32_t>{1, -2, 200000, 3});
    const auto run_spec = [&](array::math_function f, std::optional<dtype> second,
                              std::vector<array::elementwise_arg> args) {
        array::run(array::math_spec(f, dtype::float32, second, kernel_language::opencl), args, *device);
    };
    // fmod keeps the dividend's sign; fmod by 0 is NaN.
    const device_array r = device_array::empty(device, {4}, dtype::float32);
    run_spec(array::math_function::fmod, dtype::float32, {x.view(), y.view(), r.view()});
    const std::vector<float> remainders = r.to_host<float>();
    EXPECT_EQ(remainders[0], 1.5f);
    EXPECT_EQ(remainders[1], -1.5f);
    EXPECT_TRUE(std::isnan(remainders[2]));
    // ldexp with int32 exponents, clamped far out: 5.5 * 2, -5.5 / 4, inf, 0.75 * 8.
    const device_array l = device_array::empty(device, {4}, dtype::float32);
    run_spec(array::math_function::ldexp, dtype::int32, {x.view(), e.view(), l.view()});
    const std::vector<float> scaled = l.to_host<float>();
    EXPECT_EQ(scaled[0], 11.0f);
    EXPECT_EQ(scaled[1], -1.375f);
    EXPECT_TRUE(std::isinf(scaled[2]));
    EXPECT_EQ(scaled[3], 6.0f);
    // frexp and modf give two arrays.
    const device_array mantissa = device_array::empty(device, {4}, dtype::float32);
    const device_array exponent = device_array::empty(device, {4}, dtype::float32);
    run_spec(array::math_function::frexp, std::nullopt, {x.view(), mantissa.view(), exponent.view()});
    EXPECT_EQ(mantissa.to_host<float>(), (std::vector<float>{0.6875f, -0.6875f, 0.5f, 0.75f}));
    EXPECT_EQ(exponent.to_host<float>(), (std::vector<float>{3.0f, 3.0f, 1.0f, 0.0f}));
    run_spec(array::math_function::modf, std::nullopt, {x.view(), mantissa.view(), exponent.view()});
    EXPECT_EQ(mantissa.to_host<float>(), (std::vector<float>{0.5f, -0.5f, 0.0f, 0.75f}));
    EXPECT_EQ(exponent.to_host<float>(), (std::vector<float>{5.0f, -5.0f, 1.0f, 0.0f}));
    // Integer fmod: C's remainder, 0 for a zero divisor and for -1, as numpy's.
    const device_array a =
        device_array::from_host(device, std::vector<std::int64_t>{7, -7, 9, -9223372036854775807LL - 1});
    const device_array b = device_array::from_host(device, std::vector<std::int64_t>{3, 3, 0, -1});
    const device_array m = device_array::empty(device, {4}, dtype::int64);
    array::run(array::math_spec(array::math_function::fmod, dtype::int64, dtype::int64, kernel_language::opencl),
               std::vector<array::elementwise_arg>{a.view(), b.view(), m.view()}, *device);
    EXPECT_EQ(m.to_host<std::int64_t>(), (std::vector<std::int64_t>{1, -1, 0, 0}));
    // numpy has no complex fmod: refused when the kernel is made, as on CUDA.
    gpukit::test::expect_error<type_error>(
        [&] {
            (void)array::math_spec(array::math_function::fmod, dtype::complex64, dtype::complex64,
                                   kernel_language::opencl);
        },
        "fmod is not supported for complex64");
}

// &, |, ^ and ~ with the C++ operators, over a reversed view and with a scalar, and the
// compound forms, against the host's operators.
TEST_F(DeviceArrayOnOpencl, BitwiseOperatorsMatchTheHost) {
    std::vector<std::int16_t> a(301), b(301);
    for (std::size_t k = 0; k < a.size(); ++k) {
        a[k] = static_cast<std::int16_t>(k * 2654435761u);
        b[k] = static_cast<std::int16_t>(k * 40503u + 7);
    }
    const device_array x = device_array::from_host(device, a);
    const device_array y = device_array::from_host(device, b);
    const device_array y_reversed = y[{slice{{}, {}, -1}}];
    std::vector<std::int16_t> both(a.size()), either(a.size()), other(a.size()), masked(a.size()), inverted(a.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
        const std::int16_t r = b[a.size() - 1 - k];
        both[k] = static_cast<std::int16_t>(a[k] & r);
        either[k] = static_cast<std::int16_t>(a[k] | r);
        other[k] = static_cast<std::int16_t>(a[k] ^ r);
        masked[k] = static_cast<std::int16_t>(a[k] & 0x0ff0);
        inverted[k] = static_cast<std::int16_t>(~a[k]);
    }
    EXPECT_EQ((x & y_reversed).to_host<std::int16_t>(), both);
    EXPECT_EQ((x | y_reversed).to_host<std::int16_t>(), either);
    EXPECT_EQ((x ^ y_reversed).to_host<std::int16_t>(), other);
    EXPECT_EQ((x & array::scalar(std::int16_t{0x0ff0})).to_host<std::int16_t>(), masked);
    EXPECT_EQ(array::apply(array::unary_op::invert, x).to_host<std::int16_t>(), inverted);
    device_array z = x.copy();
    z ^= y_reversed;
    EXPECT_EQ(z.to_host<std::int16_t>(), other);
    const device_array f = device_array::from_host(device, std::vector<float>{1.0f});
    gpukit::test::expect_error<type_error>([&] { (void)(f & f); }, "bitwise_and' not supported");
}

// The complex functions are complex_math.cuh's in OpenCL C too: against std::complex, in both
// widths, over a reversed view (complex64 rounded once from double). Four of them, one of each
// kind of formula (Python's test_cl_complex.py runs them all).
TEST_F(DeviceArrayOnOpencl, ComplexMathFunctionsMatchTheHostLibrary) {
    if (!device->type_problem(dtype::complex128).empty())
        GTEST_SKIP() << "the device has no double precision, in which the complex functions compute";
    std::vector<std::complex<double>> z;
    for (int k = 0; k < 61; ++k)
        z.emplace_back(std::cos(0.37 * k) * (0.1 + 0.05 * k), std::sin(0.37 * k) * (0.1 + 0.05 * k));
    const auto check = [&](auto part) {
        using T = decltype(part);
        std::vector<std::complex<T>> values(z.begin(), z.end());
        const device_array x = device_array::from_host(device, values);
        const device_array reversed = x[{slice{{}, {}, -1}}];
        using host_function = std::complex<double> (*)(const std::complex<double>&);
        const std::pair<array::math_function, host_function> functions[] = {
            {array::math_function::exp, [](const std::complex<double>& v) { return std::exp(v); }},
            {array::math_function::log, [](const std::complex<double>& v) { return std::log(v); }},
            {array::math_function::tanh, [](const std::complex<double>& v) { return std::tanh(v); }},
            {array::math_function::acos, [](const std::complex<double>& v) { return std::acos(v); }},
        };
        const double tolerance = std::is_same_v<T, float> ? 4e-7 : 1e-14;
        for (const auto& [f, host] : functions) {
            const device_array out = array::apply(f, reversed);
            ASSERT_EQ(out.type(), x.type());
            std::vector<std::complex<T>> want(z.size());
            for (std::size_t k = 0; k < z.size(); ++k)
                want[k] = std::complex<T>(host(std::complex<double>(values[z.size() - 1 - k])));
            expect_near(out.to_host<std::complex<T>>(), want, tolerance, std::string(array::name(f)).c_str());
        }
    };
    check(float{});
    check(double{});
}

}  // namespace

// Arrays over shared virtual memory: kernels take it as a pointer, copies are SVM copies, a
// backend's buffer_source may give SVM for results, and SVM mixes with buffers.
TEST_F(DeviceArrayOnOpencl, ArraysOverSharedVirtualMemory) {
    if ((dev->svm_capabilities() & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0)
        GTEST_SKIP() << dev->name() << " has no coarse-grained buffer SVM";
    const cl::svm_allocator allocator(*ctx, 0, CL_MEM_READ_WRITE, &*q);
    const auto svm_backend = std::make_shared<array::opencl_backend>(*q, [&](std::size_t bytes) {
        return array::borrow(std::make_shared<const cl::svm_allocation>(allocator, bytes));
    });
    std::vector<float> values(6 * 7);
    for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = static_cast<float>(k) * 0.5f - 9.0f;
    const device_array x = device_array::from_host(svm_backend, values, {6, 7});
    ASSERT_TRUE(x.view().buffer()->svm);
    const device_array y = 3 * x - 1;
    ASSERT_TRUE(y.view().buffer()->svm);
    const std::vector<float> got = y.to_host<float>();
    for (std::size_t k = 0; k < values.size(); ++k)
        ASSERT_EQ(got[k], 3 * values[k] - 1) << k;
    // A reversed, strided view that starts inside the memory, in a kernel and a read.
    const device_array view = x[{slice{{}, {}, -2}, slice{1, {}, 3}}];
    const std::vector<float> doubled = (view + view).to_host<float>();
    const std::vector<float> read = view.to_host<float>();
    std::size_t n = 0;
    for (std::int64_t r = 5; r >= 0; r -= 2)
        for (std::int64_t c = 1; c < 7; c += 3, ++n) {
            ASSERT_EQ(read[n], values[r * 7 + c]) << r << ", " << c;
            ASSERT_EQ(doubled[n], 2 * values[r * 7 + c]) << r << ", " << c;
        }
    // SVM given by hand and a buffer of the default backend's kind mix in one kernel.
    auto lent = std::make_shared<cl::svm_allocation>(allocator, 4 * sizeof(std::int32_t));
    const std::shared_ptr<const array::device_buffer> memory = array::borrow(lent);
    device_array s(array::ndarray(memory, dtype::int32, layout({4}, {4}, 4, 0)), device);
    const std::vector<std::int32_t> five_to_eight{5, 6, 7, 8};
    s.assign_from_host(std::as_bytes(std::span(five_to_eight)));
    const device_array b = device_array::from_host(device, std::vector<std::int32_t>{1, 2, 3, 4});
    EXPECT_EQ((s * b).to_host<std::int32_t>(), (std::vector<std::int32_t>{5, 12, 21, 32}));
    EXPECT_EQ(array::sum(s).item<std::int64_t>(), 26);
    // Released under the array: refused, not read.
    lent->release();
    gpukit::test::expect_error<logic_error>([&] { (void)(s + 1).to_host<std::int32_t>(); }, "released");
    gpukit::test::expect_error<logic_error>([&] { (void)array::borrow(std::shared_ptr<const cl::svm_pointer>(lent)); },
                                            "released");
}

// last_event(): the completion of the last kernel the backend queued (PyOpenCL's per-array events).
TEST_F(DeviceArrayOnOpencl, TheLastEventIsTheLastKernelsCompletion) {
    EXPECT_FALSE(device->last_event().has_value());  // nothing queued yet
    const device_array x = device_array::from_host(device, std::vector<std::int32_t>{1, 2, 3});
    EXPECT_FALSE(device->last_event().has_value());  // a copy is no kernel
    const device_array y = x + 1;
    std::optional<cl::event> done = device->last_event();
    ASSERT_TRUE(done.has_value());
    done->wait();
    EXPECT_EQ(done->status(), CL_COMPLETE);
    EXPECT_EQ(y.to_host<std::int32_t>(), (std::vector<std::int32_t>{2, 3, 4}));
}
