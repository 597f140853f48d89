// Elementwise kernels and reductions on a real device, checked against the CPU.
#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/reduction.hpp"
#include "gpukit/cuda/context_cache.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpu_test.hpp"

#include <cmath>
#include <memory>
#include <random>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::array;

class ArrayGpu : public gpukit::testing::gpu_test {};

template <class T>
ndarray upload(const std::vector<T>& host, dtype t) {
    ndarray a = ndarray::empty({static_cast<std::int64_t>(host.size())}, t);
    cuda::memcpy_htod(a.data(), host.data(), host.size() * sizeof(T));
    return a;
}

template <class T>
std::vector<T> download(const ndarray& a) {
    std::vector<T> host(static_cast<std::size_t>(a.size()));
    cuda::memcpy_dtoh(host.data(), a.data(), host.size() * sizeof(T));
    return host;
}

std::vector<float> random_floats(std::size_t n) {
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> d(-2.0f, 3.0f);
    std::vector<float> v(n);
    for (auto& x : v)
        x = d(gen);
    return v;
}

const elementwise_spec axpy{"axpy",
                            {{"x", dtype::float32, param_kind::input},
                             {"a", dtype::float32, param_kind::scalar},
                             {"y", dtype::float32, param_kind::output}},
                            "y[i] = a * x[i] + 1.0f",
                            ""};

TEST_F(ArrayGpu, VectorizedAndUnalignedAndOddSizes) {
    for (std::size_t n : {1u, 3u, 1000u, 1u << 20, (1u << 20) + 7}) {
        const auto host = random_floats(n + 1);
        const ndarray x = upload(host, dtype::float32);
        const ndarray y = ndarray::empty({static_cast<std::int64_t>(n + 1)}, dtype::float32);
        // The whole array (aligned) and the tail from element 1 (not 16-byte aligned).
        for (std::int64_t start : {0, 1}) {
            const ndarray xs = x[{slice{start, static_cast<std::int64_t>(n) + start, {}}}];
            const ndarray ys = y[{slice{start, static_cast<std::int64_t>(n) + start, {}}}];
            std::vector<elementwise_arg> args{xs, scalar_value::of(2.5f), ys};
            EXPECT_EQ(choose_variant(args), start == 0 ? elementwise_variant::vectorized : elementwise_variant::contiguous);
            run(axpy, args);
            const auto result = download<float>(y);
            for (std::size_t i = 0; i < n; ++i)
                // The GPU fuses the multiply-add, the host rounds twice: near zero they differ
                // by more than a few ulps, never by more than this.
                ASSERT_NEAR(result[i + start], 2.5f * host[i + start] + 1.0f, 1e-6f) << "n " << n << " i " << i;
        }
    }
}

// Loaded kernels belong to their context (a context cache) and never keep it alive: a
// context given up after running kernels is destroyed at once.
TEST_F(ArrayGpu, CachedKernelsDoNotKeepTheirContextAlive) {
    std::weak_ptr<cuda::detail::context_state> abandoned;
    {
        cuda::context other = cuda::device::get(0).make_context();  // current from here
        {
            const auto host = random_floats(100);
            const ndarray x = upload(host, dtype::float32);
            const ndarray y = ndarray::empty({100}, dtype::float32);
            const std::vector<elementwise_arg> args{x, scalar_value::of(2.0f), y};
            run(axpy, args);
            EXPECT_NEAR(download<float>(y)[7], 2.0f * host[7] + 1.0f, 1e-6f);
        }
        abandoned = other.state();
        other.detach();  // pops it: the test's own context is current again
    }
    EXPECT_TRUE(abandoned.expired());
}

// clear_context_caches() drops the loaded kernels of live contexts too; they load again.
TEST_F(ArrayGpu, ClearedKernelsLoadAgain) {
    const auto host = random_floats(8);
    const ndarray x = upload(host, dtype::float32);
    const ndarray y = ndarray::empty({8}, dtype::float32);
    const std::vector<elementwise_arg> args{x, scalar_value::of(3.0f), y};
    run(axpy, args);
    cuda::clear_context_caches();
    run(axpy, args);
    EXPECT_NEAR(download<float>(y)[5], 3.0f * host[5] + 1.0f, 1e-6f);
}

TEST_F(ArrayGpu, StridedOperands) {
    const auto host = random_floats(6 * 10);
    const ndarray x = upload(host, dtype::float32).reshape({6, 10});
    const ndarray y = ndarray::empty({10, 3}, dtype::float32);
    // y (10 x 3) = 2.5 * x[::2].T + 1: x's view is strided and transposed.
    const ndarray xs = x[{slice{{}, {}, 2}}].transpose();
    std::vector<elementwise_arg> args{xs, scalar_value::of(2.5f), y};
    EXPECT_EQ(choose_variant(args), elementwise_variant::strided);
    run(axpy, args);
    const auto result = download<float>(y);
    for (int r = 0; r < 10; ++r)
        for (int c = 0; c < 3; ++c)
            ASSERT_FLOAT_EQ(result[r * 3 + c], 2.5f * host[(2 * c) * 10 + r] + 1.0f);
}

TEST_F(ArrayGpu, ArgumentsAreChecked) {
    const ndarray x = ndarray::empty({4}, dtype::float32);
    const ndarray d = ndarray::empty({4}, dtype::float64);
    const ndarray y5 = ndarray::empty({5}, dtype::float32);
    std::vector<elementwise_arg> wrong_type{d, scalar_value::of(1.0f), x};
    EXPECT_THROW(run(axpy, wrong_type), logic_error);
    std::vector<elementwise_arg> wrong_shape{x, scalar_value::of(1.0f), y5};
    EXPECT_THROW(run(axpy, wrong_shape), logic_error);
    std::vector<elementwise_arg> wrong_scalar{x, scalar_value::of(1.0), x};
    EXPECT_THROW(run(axpy, wrong_scalar), logic_error);
}

TEST_F(ArrayGpu, Reductions) {
    for (std::size_t n : {1u, 5u, 4097u, (1u << 22) + 3}) {
        const auto host = random_floats(n);
        const auto other = random_floats(n + 1);
        const ndarray x = upload(host, dtype::float32);
        const ndarray y = upload(std::vector<float>(other.begin() + 1, other.end()), dtype::float32);
        const ndarray out = ndarray::empty({}, dtype::float32);
        const ndarray scratch = ndarray::empty({static_cast<std::int64_t>(reduction_scratch_bytes())}, dtype::uint8);
        const cuda::device_pointer s(scratch.data(), reduction_scratch_bytes());
        double sum = 0, dot = 0;
        float lo = host[0], hi = host[0];
        for (std::size_t i = 0; i < n; ++i) {
            sum += host[i];
            dot += static_cast<double>(host[i]) * other[i + 1];
            lo = std::min(lo, host[i]);
            hi = std::max(hi, host[i]);
        }
        reduce(reduction::sum, x, nullptr, out, s);
        EXPECT_NEAR(download<float>(out)[0], sum, 1e-5 * n + 1e-5);
        reduce(reduction::min, x, nullptr, out, s);
        EXPECT_EQ(download<float>(out)[0], lo);
        reduce(reduction::max, x, nullptr, out, s);
        EXPECT_EQ(download<float>(out)[0], hi);
        reduce(reduction::dot, x, &y, out, s);
        EXPECT_NEAR(download<float>(out)[0], dot, 1e-5 * n + 1e-5);
    }
}

}  // namespace
