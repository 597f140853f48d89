// gpukit::array::device_array on a device, every operation checked against the host: odd
// sizes, broadcasting, transposed and reversed views, type promotion as numpy's, empty and
// 0-d arrays.
#include "gpukit/array/array.hpp"
#include "gpu_test.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <set>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::array;

class DeviceArrayGpu : public gpukit::testing::gpu_test {};

std::vector<float> ramp(std::size_t n, float start = -3.0f, float step = 0.37f) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = start + step * static_cast<float>(i % 97) - 0.001f * static_cast<float>(i);
    return v;
}

TEST_F(DeviceArrayGpu, UploadAndDownloadKeepEveryElement) {
    for (std::size_t n : {0u, 1u, 7u, 1000u, 100003u}) {
        const std::vector<float> host = ramp(n);
        const device_array x = device_array::from_host(host);
        EXPECT_EQ(x.size(), static_cast<std::int64_t>(n));
        EXPECT_EQ(x.to_host<float>(), host) << n;
    }
    const device_array z = device_array::zeros({3, 5}, dtype::int16);
    EXPECT_EQ(z.to_host<std::int16_t>(), std::vector<std::int16_t>(15, 0));
}

TEST_F(DeviceArrayGpu, ArithmeticFollowsNumpysTypesAndValues) {
    const std::vector<float> host = ramp(1001);
    const device_array x = device_array::from_host(host);
    const device_array y = 2 * x + 1;
    EXPECT_EQ(y.type(), dtype::float32);
    const std::vector<float> got = y.to_host<float>();
    for (std::size_t i = 0; i < host.size(); ++i)
        ASSERT_EQ(got[i], 2.0f * host[i] + 1.0f) << i;  // two roundings on both sides

    std::vector<std::int32_t> ints(257);
    std::iota(ints.begin(), ints.end(), -128);
    const device_array n = device_array::from_host(ints);
    const device_array half = n + 1.5;  // int32 with a Python-like float: float64
    EXPECT_EQ(half.type(), dtype::float64);
    const std::vector<double> halves = half.to_host<double>();
    for (std::size_t i = 0; i < ints.size(); ++i)
        ASSERT_EQ(halves[i], ints[i] + 1.5);
    const device_array quotient = n / 4;  // true division of integers: float64
    EXPECT_EQ(quotient.type(), dtype::float64);
    EXPECT_EQ(quotient.to_host<double>()[1], -127 / 4.0);
    const device_array negated = -n;
    EXPECT_EQ(negated.to_host<std::int32_t>()[0], 128);
    const device_array small = device_array::from_host(std::vector<std::uint8_t>{0, 200, 255});
    const device_array wrapped = small + small;  // uint8 arithmetic wraps, as numpy's
    EXPECT_EQ(wrapped.type(), dtype::uint8);
    EXPECT_EQ(wrapped.to_host<std::uint8_t>(), (std::vector<std::uint8_t>{0, 144, 254}));
    const device_array below = apply(binary_op::less, small, 1000);  // known from the types
    EXPECT_EQ(below.type(), dtype::bool_);
    EXPECT_EQ(below.to_host<bool>(), (std::vector<bool>{true, true, true}));
    const device_array mixed = small - n[{slice{0, 3, {}}}];  // uint8 with int32: int32
    EXPECT_EQ(mixed.type(), dtype::int32);
    EXPECT_EQ(mixed.to_host<std::int32_t>(), (std::vector<std::int32_t>{128, 327, 381}));
}

TEST_F(DeviceArrayGpu, BroadcastsAndReadsTransposedAndReversedViews) {
    std::vector<double> column(3), row(4);
    std::iota(column.begin(), column.end(), 1.0);
    std::iota(row.begin(), row.end(), 10.0);
    const device_array c = device_array::from_host(column, {3, 1});
    const device_array r = device_array::from_host(row, {1, 4});
    const device_array sum = c + r;
    EXPECT_EQ(sum.shape(), (std::vector<std::int64_t>{3, 4}));
    const std::vector<double> s = sum.to_host<double>();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            ASSERT_EQ(s[i * 4 + j], column[i] + row[j]);

    std::vector<double> values(12);
    std::iota(values.begin(), values.end(), 0.0);
    const device_array m = device_array::from_host(values, {3, 4});
    const device_array t = m.transpose();  // (4, 3), not contiguous
    EXPECT_EQ(t.to_host<double>(), (std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
    const device_array tt = t * t - t;
    const std::vector<double> got = tt.to_host<double>();
    const std::vector<double> tv = t.to_host<double>();
    for (std::size_t k = 0; k < got.size(); ++k)
        ASSERT_EQ(got[k], tv[k] * tv[k] - tv[k]);
    const device_array reversed = m[{slice{{}, {}, -1}, slice{{}, {}, -2}}];  // rows reversed, every other column
    EXPECT_EQ(reversed.shape(), (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ((reversed + 0.5).to_host<double>(), (std::vector<double>{11.5, 9.5, 7.5, 5.5, 3.5, 1.5}));
    EXPECT_EQ(reversed.copy().to_host<double>(), (std::vector<double>{11, 9, 7, 5, 3, 1}));
    EXPECT_EQ(reversed.astype(dtype::int8).to_host<std::int8_t>(), (std::vector<std::int8_t>{11, 9, 7, 5, 3, 1}));
}

// The fused path on CUDA (the launch counts are tested on OpenCL: test_device_array_fusion_opencl):
// chains over views, broadcasts, mixed types, a chain longer than one kernel takes, and a
// result computed by its statement's end from the values its operands had then.
TEST_F(DeviceArrayGpu, FusedStatementsMatchTheHost) {
    std::vector<float> values(3 * 333);
    for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = static_cast<float>(k % 17) * 0.5f - 4.0f;
    device_array m = device_array::from_host(values, {3, 333});
    const device_array row = device_array::from_host(std::vector<float>(values.begin(), values.begin() + 333));
    const device_array reversed = m[{slice{{}, {}, -1}}];
    const device_array z = (2 * m - reversed) * row / 4 + 1;
    const std::vector<float> got = z.to_host<float>();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 333; ++j)
            ASSERT_EQ(got[i * 333 + j], (2 * values[i * 333 + j] - values[(2 - i) * 333 + j]) * values[j] / 4.0f + 1.0f)
                << i << " " << j;
    const device_array i32 = device_array::from_host(std::vector<std::int32_t>{1 << 30, -7, 5});
    const device_array f32 = device_array::from_host(std::vector<float>{0.5f, 0.25f, 1e8f});
    const device_array mixed = (i32 * 4 + f32) / 2;  // int32 * 4 wraps first; + float32 is float64
    EXPECT_EQ(mixed.to_host<double>(), (std::vector<double>{0.25, -13.875, 50000010.0}));
    std::vector<device_array> parts;
    for (int k = 0; k < 20; ++k)
        parts.push_back(device_array::from_host(std::vector<std::int64_t>{k, -k}));
    const device_array total = parts[0] + parts[1] + parts[2] + parts[3] + parts[4] + parts[5] + parts[6] + parts[7] +
                               parts[8] + parts[9] + parts[10] + parts[11] + parts[12] + parts[13] + parts[14] +
                               parts[15] + parts[16] + parts[17] + parts[18] + parts[19];
    EXPECT_EQ(total.to_host<std::int64_t>(), (std::vector<std::int64_t>{190, -190}));
    const device_array before = m * 3 + 1;
    m.assign(0);
    EXPECT_EQ(before.to_host<float>()[5], values[5] * 3 + 1);
}

TEST_F(DeviceArrayGpu, InPlaceOperationsWriteIntoTheArrayAndItsViews) {
    const std::vector<float> host = ramp(1001);
    device_array x = device_array::from_host(host);
    const device_array y = device_array::from_host(ramp(1001, 2.0f, 0.5f));
    x += y;
    x *= 2;
    x -= 0.5f;
    const std::vector<float> yh = y.to_host<float>();
    std::vector<float> expected(host.size());
    for (std::size_t i = 0; i < host.size(); ++i)
        expected[i] = (host[i] + yh[i]) * 2.0f - 0.5f;
    EXPECT_EQ(x.to_host<float>(), expected);
    // An operand sharing the memory as other elements is read in full first.
    device_array z = device_array::from_host(std::vector<double>{1, 2, 3, 4, 5});
    z += z[{slice{{}, {}, -1}}];
    EXPECT_EQ(z.to_host<double>(), (std::vector<double>{6, 6, 6, 6, 6}));
    // uint8 arithmetic wraps; a view written through updates its base.
    device_array bytes = device_array::from_host(std::vector<std::uint8_t>{10, 20, 30, 40});
    device_array odd = bytes[{slice{1, {}, 2}}];
    odd += 250;
    EXPECT_EQ(bytes.to_host<std::uint8_t>(), (std::vector<std::uint8_t>{10, 14, 30, 34}));
    // A broadcast operand: each row of a (2, 3) array gets the same (3,) row.
    device_array m = device_array::zeros({2, 3}, dtype::int64);
    m += device_array::from_host(std::vector<std::int64_t>{1, 2, 3});
    EXPECT_EQ(m.to_host<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 1, 2, 3}));
    // A float64 result written into float32 (same_kind allows it), C-style.
    device_array f = device_array::from_host(std::vector<float>{1.0f, 2.0f});
    f /= device_array::from_host(std::vector<double>{3.0, 4.0});
    EXPECT_EQ(f.to_host<float>(), (std::vector<float>{static_cast<float>(1.0 / 3.0), 0.5f}));
}

TEST_F(DeviceArrayGpu, AssignmentsIntoViewsConvertAndBroadcast) {
    device_array matrix = device_array::zeros({4, 3}, dtype::int32);
    device_array target = matrix.transpose();
    target.assign(device_array::from_host(std::vector<float>{1.9f, -2.5f, 3.0f, 4.7f})[{slice{{}, {}, -1}}]);
    EXPECT_EQ(matrix.to_host<std::int32_t>(), (std::vector<std::int32_t>{4, 4, 4, 3, 3, 3, -2, -2, -2, 1, 1, 1}));
    device_array v = device_array::from_host(std::vector<std::int16_t>{1, 2, 3, 4, 5});
    device_array first_four = v[{slice{{}, std::int64_t{4}, {}}}];
    first_four.assign(v[{slice{std::int64_t{4}, std::int64_t{0}, -1}}]);
    EXPECT_EQ(v.to_host<std::int16_t>(), (std::vector<std::int16_t>{5, 4, 3, 2, 5}));
    device_array every_other = v[{slice{{}, {}, std::int64_t{2}}}];
    every_other.assign(scalar(-7.9));
    EXPECT_EQ(v.to_host<std::int16_t>(), (std::vector<std::int16_t>{-7, 4, -7, 2, -7}));
    const std::vector<std::int16_t> host{10, 20, 30};
    every_other.assign_from_host(std::as_bytes(std::span(host)));
    EXPECT_EQ(v.to_host<std::int16_t>(), (std::vector<std::int16_t>{10, 4, 20, 2, 30}));
    device_array x = device_array::from_host(std::vector<std::int32_t>{-3, 0, 5, -8});
    EXPECT_EQ(apply(unary_op::absolute, x).to_host<std::int32_t>(), (std::vector<std::int32_t>{3, 0, 5, 8}));
    x.update(binary_op::maximum, scalar(1));
    EXPECT_EQ(x.to_host<std::int32_t>(), (std::vector<std::int32_t>{1, 1, 5, 1}));
}

TEST_F(DeviceArrayGpu, WhereChoosesAsNumpy) {
    const device_array values = device_array::from_host(std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6});
    const device_array odd = device_array::from_host(std::vector<bool>{true, false, true, false, true, false});
    const device_array kept = where(odd, values, -1);  // -1 wraps to 255 in uint8, as numpy's
    EXPECT_EQ(kept.type(), dtype::uint8);
    EXPECT_EQ(kept.to_host<std::uint8_t>(), (std::vector<std::uint8_t>{1, 255, 3, 255, 5, 255}));
    const device_array halves = where(odd, 0.5, values);  // float64
    EXPECT_EQ(halves.type(), dtype::float64);
    EXPECT_EQ(halves.to_host<double>(), (std::vector<double>{0.5, 2, 0.5, 4, 0.5, 6}));
    // The condition broadcast along rows: a (2, 1) condition over (2, 3) choices.
    const device_array rows = device_array::from_host(std::vector<bool>{true, false}, {2, 1});
    const device_array grid = device_array::from_host(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}, {2, 3});
    const device_array chosen = where(rows, grid, grid * 10);
    EXPECT_EQ(chosen.to_host<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 3, 40, 50, 60}));
}

TEST_F(DeviceArrayGpu, ReductionsMatchTheHost) {
    const std::vector<float> host = ramp(100003);
    const device_array x = device_array::from_host(host);
    double expected = 0;
    for (float v : host)
        expected += v;
    const device_array total = sum(x);
    EXPECT_EQ(total.type(), dtype::float32);
    EXPECT_EQ(total.ndim(), 0);
    EXPECT_NEAR(total.item<double>(), expected, 1e-3 * std::abs(expected) + 1e-2);
    EXPECT_EQ(min(x).item<float>(), *std::min_element(host.begin(), host.end()));
    EXPECT_EQ(max(x).item<float>(), *std::max_element(host.begin(), host.end()));
    const std::vector<std::int8_t> bytes(1000, 100);
    const device_array b = device_array::from_host(bytes);
    EXPECT_EQ(sum(b).type(), dtype::int64);  // numpy's sum of int8
    EXPECT_EQ(sum(b).item<std::int64_t>(), 100000);
    const device_array flags = apply(binary_op::greater, b, 50);
    EXPECT_EQ(sum(flags).item<std::int64_t>(), 1000);
    std::vector<double> u(777), v(777);
    double uv = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
        u[i] = std::sin(0.1 * static_cast<double>(i));
        v[i] = static_cast<double>(i % 13) - 6;
        uv += u[i] * v[i];
    }
    EXPECT_NEAR(dot(device_array::from_host(u), device_array::from_host(v)).item<double>(), uv, 1e-9);
    EXPECT_EQ(sum(device_array::from_host(std::vector<double>{})).item<double>(), 0.0);
    EXPECT_THROW(min(device_array::from_host(std::vector<double>{})), logic_error);
    // A reversed view.
    const device_array back = x[{slice{{}, {}, -1}}];
    EXPECT_EQ(max(back).item<float>(), *std::max_element(host.begin(), host.end()));
}

TEST_F(DeviceArrayGpu, MathFunctionsAreNumpys) {
    std::vector<double> host(1001);
    for (std::size_t i = 0; i < host.size(); ++i)
        host[i] = -5.0 + 0.01 * static_cast<double>(i);
    const device_array x = device_array::from_host(host);
    const std::vector<double> e = apply(math_function::exp, x).to_host<double>();
    const std::vector<double> s = apply(math_function::sin, x).to_host<double>();
    for (std::size_t i = 0; i < host.size(); ++i) {
        ASSERT_NEAR(e[i], std::exp(host[i]), 4e-16 * std::exp(host[i]));
        ASSERT_NEAR(s[i], std::sin(host[i]), 1e-15);
    }
    const device_array ints = device_array::from_host(std::vector<std::int32_t>{1, 4, 9});
    const device_array roots = apply(math_function::sqrt, ints);  // integers give float64
    EXPECT_EQ(roots.type(), dtype::float64);
    EXPECT_EQ(roots.to_host<double>(), (std::vector<double>{1, 2, 3}));
}

TEST_F(DeviceArrayGpu, ScansMatchTheHost) {
    for (std::size_t n : {0u, 1u, 5u, 1000u, 300001u}) {
        std::vector<std::int32_t> host(n);
        for (std::size_t i = 0; i < n; ++i)
            host[i] = static_cast<std::int32_t>(i % 7) - 3;
        const device_array x = device_array::from_host(host);
        const device_array inclusive = inclusive_scan(x);
        const device_array exclusive = exclusive_scan(x);
        EXPECT_EQ(inclusive.type(), dtype::int64);  // numpy's cumsum of int32
        std::vector<std::int64_t> expected_in(n), expected_ex(n);
        std::int64_t running = 0;
        for (std::size_t i = 0; i < n; ++i) {
            expected_ex[i] = running;
            running += host[i];
            expected_in[i] = running;
        }
        EXPECT_EQ(inclusive.to_host<std::int64_t>(), expected_in) << n;
        EXPECT_EQ(exclusive.to_host<std::int64_t>(), expected_ex) << n;
    }
    const std::vector<double> host{1, 2, 3, 4, 5};
    const device_array reversed = device_array::from_host(host)[{slice{{}, {}, -1}}];
    EXPECT_EQ(inclusive_scan(reversed).to_host<double>(), (std::vector<double>{5, 9, 12, 14, 15}));
}

TEST_F(DeviceArrayGpu, RandomNumbersAreUniformAndRepeatable) {
    const device_array a = rand({1000, 10}, dtype::float64, 7);
    const std::vector<double> values = a.to_host<double>();
    EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](double v) { return v >= 0.0 && v < 1.0; }));
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    EXPECT_NEAR(mean, 0.5, 0.02);
    EXPECT_EQ(rand({1000, 10}, dtype::float64, 7).to_host<double>(), values);
    EXPECT_NE(rand({1000, 10}, dtype::float64, 8).to_host<double>(), values);
    const std::vector<std::uint32_t> bits = rand({4096}, dtype::uint32, 1).to_host<std::uint32_t>();
    EXPECT_GT(std::set<std::uint32_t>(bits.begin(), bits.end()).size(), 4000u);
}

}  // namespace
