// The C++ operators' fusion (array/fusion.hpp, array.hpp): the arithmetic of one statement runs
// as one kernel, its result is computed by the statement's end from the operands' values then,
// and chains, repeated operands and mixed types give numpy's answers. On an OpenCL backend
// (PoCL in CI) wrapped to count the kernels launched.
#include "gpukit/array/array.hpp"
#include "gpukit/array/opencl_backend.hpp"

#include "cl/cl_test_device.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using array::device_array;
using array::dtype;

// An OpenCL backend that counts the kernels it launches.
class counting_backend : public array::backend {
public:
    explicit counting_backend(std::shared_ptr<array::opencl_backend> inner) : inner_(std::move(inner)) {}

    int launches = 0;

    kernel_language language() const noexcept override { return inner_->language(); }
    array::memory_space space() const noexcept override { return inner_->space(); }
    std::string name() const override { return inner_->name(); }
    std::string type_problem(dtype t) const override { return inner_->type_problem(t); }
    unsigned preferred_group_size() const noexcept override { return inner_->preferred_group_size(); }
    std::shared_ptr<const array::device_buffer> allocate(std::size_t bytes) override { return inner_->allocate(bytes); }
    void write(const array::device_buffer& dst, std::size_t offset, std::span<const std::byte> src) override {
        inner_->write(dst, offset, src);
    }
    void read(const array::device_buffer& src, std::size_t offset, std::span<std::byte> dst) override {
        inner_->read(src, offset, dst);
    }
    array::loaded_kernel kernel(std::uint64_t key, const std::string& name,
                                const std::function<std::string()>& source) override {
        return inner_->kernel(key, name, source);
    }
    void launch(const array::loaded_kernel& k, const array::launch_shape& shape,
                std::span<const array::kernel_argument> args) override {
        ++launches;
        inner_->launch(k, shape, args);
    }
    void synchronize() override { inner_->synchronize(); }

private:
    std::shared_ptr<array::opencl_backend> inner_;
};

class DeviceArrayFusion : public gpukit::testing::cl_queue_test {
protected:
    void SetUp() override {
        gpukit::testing::cl_queue_test::SetUp();
        if (IsSkipped())
            return;
        device = std::make_shared<counting_backend>(std::make_shared<array::opencl_backend>(*q));
    }

    // Kernels launched by `statement`.
    template <class F>
    int launches_of(F&& statement) {
        const int before = device->launches;
        statement();
        return device->launches - before;
    }

    std::shared_ptr<counting_backend> device;
};

std::vector<float> ramp(std::size_t n, float start, float step) {
    std::vector<float> v(n);
    for (std::size_t k = 0; k < n; ++k)
        v[k] = start + step * static_cast<float>(k % 101);
    return v;
}

TEST_F(DeviceArrayFusion, OneStatementOfArithmeticIsOneKernel) {
    const std::vector<float> hx = ramp(1001, -3.0f, 0.25f), hy = ramp(1001, 1.0f, -0.5f);
    const device_array x = device_array::from_host(device, hx), y = device_array::from_host(device, hy);
    std::optional<device_array> z;
    EXPECT_EQ(launches_of([&] { z = 2 * x + y; }), 1);
    EXPECT_EQ(launches_of([&] { z = (x - y) * (x + y) / 4 + 1; }), 1);
    const std::vector<float> got = z->to_host<float>();
    for (std::size_t k = 0; k < hx.size(); ++k)  // float32 at every step, as numpy computes it
        ASSERT_EQ(got[k], (hx[k] - hy[k]) * (hx[k] + hy[k]) / 4.0f + 1.0f) << k;
    // A comparison does not fuse: its operand is computed, then the comparison.
    std::optional<device_array> less;
    EXPECT_EQ(launches_of([&] { less = apply(array::binary_op::less, 2 * x, y); }), 2);
    const std::vector<bool> flags = less->to_host<bool>();
    for (std::size_t k = 0; k < hx.size(); ++k)
        ASSERT_EQ(flags[k], 2 * hx[k] < hy[k]) << k;
}

TEST_F(DeviceArrayFusion, AResultIsComputedByTheEndOfItsStatement) {
    device_array x = device_array::from_host(device, std::vector<float>{1, 2, 3});
    const device_array t = 2 * x;  // computed when this statement ends...
    const device_array u = x + 1;
    x.assign(100);  // ...so changing x afterwards changes neither
    EXPECT_EQ(t.to_host<float>(), (std::vector<float>{2, 4, 6}));
    EXPECT_EQ(u.to_host<float>(), (std::vector<float>{2, 3, 4}));
    // A result kept in a variable is computed, not fused into a later statement's kernel; a
    // result assigned to its own operand reads the operand's value from before the statement.
    device_array v = x * 3;
    EXPECT_EQ(launches_of([&] { v = v + x; }), 1);
    EXPECT_EQ(v.to_host<float>(), (std::vector<float>{400, 400, 400}));
    EXPECT_EQ(launches_of([&] { v = 2 * v - x / 4; }), 1);
    EXPECT_EQ(v.to_host<float>(), (std::vector<float>{775, 775, 775}));
    // Used within its own statement, a result is computed there.
    EXPECT_EQ((x / 4 + 1).to_host<float>(), (std::vector<float>{26, 26, 26}));
    // A result nobody keeps is never computed.
    EXPECT_EQ(launches_of([&] { (void)(x + x); }), 0);
}

TEST_F(DeviceArrayFusion, RepeatedOperandsLongChainsAndMixedTypes) {
    const std::vector<float> hx = ramp(777, -1.0f, 0.125f);
    const device_array x = device_array::from_host(device, hx);
    // One array used three times is one operand.
    const std::vector<float> cube = (x * x * x - x).to_host<float>();
    for (std::size_t k = 0; k < hx.size(); ++k)
        ASSERT_EQ(cube[k], hx[k] * hx[k] * hx[k] - hx[k]) << k;
    // A chain of more operands than one kernel takes is split, with the same answer.
    std::vector<device_array> parts;
    for (int k = 0; k < 20; ++k)
        parts.push_back(device_array::from_host(device, std::vector<std::int32_t>{k, -k, 2 * k}));
    device_array total = device_array::zeros(device, {3}, dtype::int32);
    const int kernels = launches_of([&] {
        total = parts[0] + parts[1] + parts[2] + parts[3] + parts[4] + parts[5] + parts[6] + parts[7] + parts[8] +
                parts[9] + parts[10] + parts[11] + parts[12] + parts[13] + parts[14] + parts[15] + parts[16] +
                parts[17] + parts[18] + parts[19];
    });
    EXPECT_GE(kernels, 2);
    EXPECT_LE(kernels, 3);
    EXPECT_EQ(total.to_host<std::int32_t>(), (std::vector<std::int32_t>{190, -190, 380}));
    // Each step keeps numpy's type: int32 * 3 is int32, + float32 is float64, / 2 float64.
    const device_array i = device_array::from_host(device, std::vector<std::int32_t>{1 << 30, -7, 5});
    const device_array f = device_array::from_host(device, std::vector<float>{0.5f, 0.25f, 1e8f});
    if (device->type_problem(dtype::float64).empty()) {
        device_array m = (i * 4 + f) / 2;  // int32 * 4 wraps in int32 first, as numpy's
        EXPECT_EQ(m.type(), dtype::float64);
        EXPECT_EQ(m.to_host<double>(), (std::vector<double>{0.25, -13.875, 50000010.0}));
    }
    // uint8 < 1000 is true from the types alone; the sum before it is still right on its own.
    const device_array b = device_array::from_host(device, std::vector<std::uint8_t>{200, 100});
    EXPECT_EQ(apply(array::binary_op::less, b + b, 1000).to_host<bool>(), (std::vector<bool>{true, true}));
    EXPECT_EQ((b + b).to_host<std::uint8_t>(), (std::vector<std::uint8_t>{144, 200}));
}

TEST_F(DeviceArrayFusion, BroadcastsAndViewsInsideAFusedKernel) {
    std::vector<float> grid(12);
    for (std::size_t k = 0; k < grid.size(); ++k)
        grid[k] = static_cast<float>(k);
    const device_array g = device_array::from_host(device, grid, {3, 4});
    const device_array row = device_array::from_host(device, std::vector<float>{1, 10, 100, 1000});
    const device_array column = device_array::from_host(device, std::vector<float>{-1, 0, 1}, {3, 1});
    const device_array reversed = g[{gpukit::slice{std::nullopt, std::nullopt, -1}}];
    std::optional<device_array> r;
    EXPECT_EQ(launches_of([&] { r = g.transpose().transpose() * row + column * 2 - reversed; }), 1);
    ASSERT_EQ(r->shape(), (std::vector<std::int64_t>{3, 4}));
    const std::vector<float> got = r->to_host<float>();
    const float rows[3] = {-1, 0, 1}, scale[4] = {1, 10, 100, 1000};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            ASSERT_EQ(got[i * 4 + j], grid[i * 4 + j] * scale[j] + rows[i] * 2 - grid[(2 - i) * 4 + j]) << i << j;
}

TEST_F(DeviceArrayFusion, TypeAndShapeErrorsComeFromTheOperator) {
    const device_array x = device_array::from_host(device, std::vector<float>{1, 2, 3});
    const device_array w = device_array::from_host(device, std::vector<float>{1, 2});
    EXPECT_THROW((void)(2 * x + w), std::invalid_argument);  // numpy's ValueError
    const device_array n = device_array::from_host(device, std::vector<std::uint8_t>{1, 2, 3});
    EXPECT_THROW((void)(n + 1000), std::exception);  // 1000 does not fit uint8: numpy's OverflowError
    // Nothing was left half done: the arrays still compute.
    EXPECT_EQ((2 * x + 1).to_host<float>(), (std::vector<float>{3, 5, 7}));
}

}  // namespace
