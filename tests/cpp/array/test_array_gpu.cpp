// Elementwise kernels and reductions on a real device, checked against the CPU.
#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/reduction.hpp"
#include "gpukit/cuda/context_cache.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpu_test.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
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

TEST_F(ArrayGpu, LongRowsOfStridedOperands) {
    // x[::2] of a 6 x 2000 array: rows of 2000 contiguous elements, every other row; and a
    // row broadcast down the rows (stride 0 on the first axis).
    const auto host = random_floats(6 * 2000);
    const ndarray x = upload(host, dtype::float32).reshape({6, 2000});
    const ndarray xs = x[{slice{{}, {}, 2}}];
    const ndarray y = ndarray::empty({3, 2000}, dtype::float32);
    std::vector<elementwise_arg> args{xs, scalar_value::of(2.5f), y};
    EXPECT_EQ(choose_variant(args), elementwise_variant::rows);
    run(axpy, args);
    auto result = download<float>(y);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 2000; c += 7)
            EXPECT_NEAR(result[r * 2000 + c], 2.5f * host[2 * r * 2000 + c] + 1.0f, 1e-5f) << r << "," << c;
    const ndarray row = x[{std::int64_t{5}}];
    std::vector<elementwise_arg> broadcast{row.view(row.layout().broadcast_to({3, 2000})), scalar_value::of(-1.0f), y};
    run(axpy, broadcast);
    result = download<float>(y);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 2000; c += 7)
            EXPECT_NEAR(result[r * 2000 + c], -host[5 * 2000 + c] + 1.0f, 1e-5f) << r << "," << c;
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

// ---- reductions

const dtype real_types[] = {dtype::bool_,  dtype::int8,   dtype::int16,  dtype::int32,  dtype::int64, dtype::uint8,
                            dtype::uint16, dtype::uint32, dtype::uint64, dtype::float32, dtype::float64};

// Calls f(T{}) with the host type T of the real dtype t (bool as one byte holding 0 or 1).
template <class F>
void with_host_type(dtype t, F&& f) {
    switch (t) {
    case dtype::bool_: return f(std::uint8_t{});
    case dtype::int8: return f(std::int8_t{});
    case dtype::int16: return f(std::int16_t{});
    case dtype::int32: return f(std::int32_t{});
    case dtype::int64: return f(std::int64_t{});
    case dtype::uint8: return f(std::uint8_t{});
    case dtype::uint16: return f(std::uint16_t{});
    case dtype::uint32: return f(std::uint32_t{});
    case dtype::uint64: return f(std::uint64_t{});
    case dtype::float32: return f(float{});
    case dtype::float64: return f(double{});
    default: FAIL() << "no host type for " << name(t);
    }
}

// Small values, so that no integer sum or dot product overflows and every exact result is
// exact in a double too: floats in [-2, 3), integers in [-100, 100] (signed) or [0, 200].
template <class T>
std::vector<T> random_values(dtype t, std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::vector<T> v(n);
    for (auto& x : v) {
        if (t == dtype::bool_)
            x = static_cast<T>(gen() % 2);
        else if constexpr (std::is_floating_point_v<T>)
            x = std::uniform_real_distribution<T>(-2, 3)(gen);
        else if constexpr (std::is_signed_v<T>)
            x = static_cast<T>(static_cast<int>(gen() % 201) - 100);
        else
            x = static_cast<T>(gen() % 201);
    }
    return v;
}

// The one element of `out`, as a double.
double result_of(const ndarray& out) {
    double value = 0;
    with_host_type(out.type(), [&](auto zero) { value = static_cast<double>(download<decltype(zero)>(out)[0]); });
    return value;
}

// The exact result `exact` converted to dtype `t` as the kernel converts its accumulator (a C
// cast; integers wrap), as a double.
double as_dtype(double exact, dtype t) {
    if (t == dtype::bool_)
        return exact != 0 ? 1 : 0;
    double value = 0;
    with_host_type(t, [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_floating_point_v<T>)
            value = static_cast<double>(static_cast<T>(exact));
        else
            value = static_cast<double>(static_cast<T>(static_cast<long long>(exact)));
    });
    return value;
}

// `got` against the exact (host) result: equal for integers; for floats within float64
// rounding of a sum of `magnitude` (the sum of the terms' absolute values), plus one rounding
// to float32 for float32 results. A single element missed or counted twice is far outside.
void expect_result(double got, double exact, double magnitude, dtype out) {
    if (kind(out) != dtype_kind::floating) {
        EXPECT_EQ(got, as_dtype(exact, out));
        return;
    }
    const double tolerance = 1e-12 * magnitude + (out == dtype::float32 ? 1.2e-7 * std::abs(exact) : 0.0);
    EXPECT_NEAR(got, exact, tolerance);
}

// Reductions with a scratch buffer of reduction_scratch_bytes() in the test's context.
class ArrayGpuReductions : public ArrayGpu {
protected:
    void SetUp() override {
        ArrayGpu::SetUp();
        if (IsSkipped())
            return;
        scratch.emplace(ndarray::empty({static_cast<std::int64_t>(reduction_scratch_bytes())}, dtype::uint8));
    }
    void TearDown() override {
        scratch.reset();
        ArrayGpu::TearDown();
    }

    cuda::device_pointer scratch_pointer() const { return {scratch->data(), reduction_scratch_bytes()}; }

    // The result of `spec` over `a` (and `b`), as a double.
    double run(const reduction_spec& spec, const ndarray& a, const ndarray* b = nullptr) {
        const ndarray out = ndarray::empty({}, spec.output());
        reduce(spec, a, b, out, scratch_pointer());
        return result_of(out);
    }

    std::optional<ndarray> scratch;
};

ndarray elements(const ndarray& a, std::int64_t start, std::size_t n) {
    return a[{slice{start, start + static_cast<std::int64_t>(n), {}}}];
}

// The sizes: tails of every length below a vector, and more elements than one sweep of the
// grid covers, for 1-byte types too.
const std::size_t reduction_sizes[] = {1, 2, 31, 4097, (1u << 20) + 5, (1u << 23) + 3};

// sum, min, max and dot (with itself) of every dtype, from an aligned start (the vectorized
// kernel) and from element 1 (not 16-byte aligned: the contiguous kernel).
TEST_F(ArrayGpuReductions, EveryDtypeMatchesTheHost) {
    for (dtype t : real_types)
        with_host_type(t, [&](auto zero) {
            using T = decltype(zero);
            for (std::size_t n : reduction_sizes) {
                const auto host = random_values<T>(t, n + 1, 7);
                const auto other = random_values<T>(t, n + 1, 8);
                const ndarray x = upload(host, t), y = upload(other, t);
                for (std::int64_t start : {0, 1}) {
                    SCOPED_TRACE(std::string(name(t)) + ", " + std::to_string(n) + " elements from " +
                                 std::to_string(start));
                    double sum = 0, magnitude = 0, dot = 0, dot_magnitude = 0;
                    T lo = host[start], hi = host[start];
                    for (std::size_t i = start; i < n + start; ++i) {
                        sum += static_cast<double>(host[i]);
                        magnitude += std::abs(static_cast<double>(host[i]));
                        dot += static_cast<double>(host[i]) * static_cast<double>(other[i]);
                        dot_magnitude += std::abs(static_cast<double>(host[i]) * static_cast<double>(other[i]));
                        lo = std::min(lo, host[i]);
                        hi = std::max(hi, host[i]);
                    }
                    const ndarray xs = elements(x, start, n), ys = elements(y, start, n);
                    expect_result(run(sum_spec(t), xs), sum, magnitude, sum_spec(t).output());
                    EXPECT_EQ(run(min_spec(t), xs), static_cast<double>(lo));
                    EXPECT_EQ(run(max_spec(t), xs), static_cast<double>(hi));
                    expect_result(run(dot_spec(t, t), xs, &ys), dot, dot_magnitude, dot_spec(t, t).output());
                }
            }
        });
}

// dot of two dtypes: 16-byte loads of the narrower one, wider loads of the other.
TEST_F(ArrayGpuReductions, DotOfMixedDtypesMatchesTheHost) {
    const std::pair<dtype, dtype> pairs[] = {{dtype::int8, dtype::float64},  {dtype::float64, dtype::int8},
                                             {dtype::uint16, dtype::int32},  {dtype::bool_, dtype::float32},
                                             {dtype::int64, dtype::uint64},  {dtype::float32, dtype::float64},
                                             {dtype::uint8, dtype::int8}};
    for (const auto& [ta, tb] : pairs)
        with_host_type(ta, [&](auto zero_a) {
            with_host_type(tb, [&](auto zero_b) {
                for (std::size_t n : {std::size_t{3}, std::size_t{4097}, std::size_t{(1u << 20) + 5}}) {
                    const auto ha = random_values<decltype(zero_a)>(ta, n + 1, 11);
                    const auto hb = random_values<decltype(zero_b)>(tb, n + 1, 12);
                    const ndarray a = upload(ha, ta), b = upload(hb, tb);
                    for (std::int64_t start : {0, 1}) {
                        SCOPED_TRACE(std::string(name(ta)) + " . " + std::string(name(tb)) + ", " + std::to_string(n) +
                                     " elements from " + std::to_string(start));
                        double dot = 0, magnitude = 0;
                        for (std::size_t i = start; i < n + start; ++i) {
                            const double term = static_cast<double>(ha[i]) * static_cast<double>(hb[i]);
                            dot += term;
                            magnitude += std::abs(term);
                        }
                        const ndarray as = elements(a, start, n), bs = elements(b, start, n);
                        const reduction_spec& spec = dot_spec(ta, tb);
                        expect_result(run(spec, as, &bs), dot, magnitude, spec.output());
                    }
                }
            });
        });
}

// NaN anywhere (first, in the middle, in the tail after the vectors) makes min, max and sum
// NaN, as in numpy.
TEST_F(ArrayGpuReductions, NanPropagates) {
    for (dtype t : {dtype::float32, dtype::float64})
        with_host_type(t, [&](auto zero) {
            using T = decltype(zero);
            for (std::size_t n : {std::size_t{5}, std::size_t{4099}})
                for (std::size_t at : {std::size_t{0}, n / 2, n - 1})
                    for (std::int64_t start : {0, 1}) {
                        SCOPED_TRACE(std::string(name(t)) + ", NaN at " + std::to_string(at) + " of " +
                                     std::to_string(n) + " from " + std::to_string(start));
                        auto host = random_values<T>(t, n + 1, 5);
                        host[at + start] = std::numeric_limits<T>::quiet_NaN();
                        const ndarray x = elements(upload(host, t), start, n);
                        EXPECT_TRUE(std::isnan(run(min_spec(t), x)));
                        EXPECT_TRUE(std::isnan(run(max_spec(t), x)));
                        EXPECT_TRUE(std::isnan(run(sum_spec(t), x)));
                    }
        });
}

TEST_F(ArrayGpuReductions, EmptyInputs) {
    const ndarray empty = ndarray::empty({0}, dtype::float32);
    EXPECT_EQ(run(sum_spec(dtype::float32), empty), 0.0);
    EXPECT_EQ(run(dot_spec(dtype::float32, dtype::float32), empty, &empty), 0.0);
    EXPECT_THROW(run(min_spec(dtype::float32), empty), logic_error);
    EXPECT_THROW(run(max_spec(dtype::float32), empty), logic_error);
}

// A spec of the user's: a preamble, the index i (the position from the array's start, in the
// vector loop and in the tail alike), an output type unlike the accumulator's.
TEST_F(ArrayGpuReductions, UserSpecSeesTheIndexAndThePreamble) {
    const reduction_spec weighted{"weighted",
                                  {dtype::float32},
                                  dtype::float64,
                                  dtype::float64,
                                  "0.0",
                                  "weight(i) * a[i]",
                                  "x + y",
                                  "__device__ double weight(long long i) { return (double)i; }"};
    const reduction_spec last_positive{"last_positive", {dtype::float32}, dtype::int64, dtype::int32,
                                       "-1LL",          "a[i] > 0 ? i : -1LL", "x > y ? x : y"};
    for (std::size_t n : {std::size_t{7}, std::size_t{4097}, std::size_t{(1u << 20) + 5}}) {
        auto host = random_floats(n + 1);
        host[n] = -1.0f;  // the last positive element is not the last one
        const ndarray x = upload(host, dtype::float32);
        for (std::int64_t start : {0, 1}) {
            SCOPED_TRACE(std::to_string(n) + " elements from " + std::to_string(start));
            double sum = 0, magnitude = 0;
            long long last = -1;
            for (std::size_t i = 0; i < n; ++i) {
                const double term = static_cast<double>(i) * host[i + start];
                sum += term;
                magnitude += std::abs(term);
                if (host[i + start] > 0)
                    last = static_cast<long long>(i);
            }
            const ndarray xs = elements(x, start, n);
            expect_result(run(weighted, xs), sum, magnitude, dtype::float64);
            EXPECT_EQ(run(last_positive, xs), static_cast<double>(last));
        }
    }
}

TEST_F(ArrayGpuReductions, ArgumentsAreChecked) {
    const reduction_spec& sum = sum_spec(dtype::float32);
    const reduction_spec& dot = dot_spec(dtype::float32, dtype::float32);
    const ndarray x = ndarray::empty({6}, dtype::float32), i32 = ndarray::empty({6}, dtype::int32),
                  x5 = ndarray::empty({5}, dtype::float32);
    const ndarray out = ndarray::empty({}, dtype::float32), out64 = ndarray::empty({}, dtype::float64),
                  out2 = ndarray::empty({2}, dtype::float32);
    const cuda::device_pointer s = scratch_pointer();
    EXPECT_THROW(reduce(sum, i32, nullptr, out, s), logic_error);              // input dtype
    EXPECT_THROW(reduce(sum, x, &x, out, s), logic_error);                     // two arrays for one
    EXPECT_THROW(reduce(dot, x, nullptr, out, s), logic_error);                // one array for two
    EXPECT_THROW(reduce(dot, x, &x5, out, s), logic_error);                    // shapes
    EXPECT_THROW(reduce(sum, x[{slice{{}, {}, 2}}], nullptr, out, s), logic_error);  // not contiguous
    EXPECT_THROW(reduce(sum, x, nullptr, out64, s), logic_error);              // output dtype
    EXPECT_THROW(reduce(sum, x, nullptr, out2, s), logic_error);               // output size
    // Element i in memory is not element i of both: C order against Fortran order.
    const ndarray c = x.reshape({2, 3}), f = x.reshape({3, 2}).transpose();
    EXPECT_THROW(reduce(dot, c, &f, out, s), logic_error);
    // Scratch for less than one partial result, or misaligned for it (a float64 accumulator).
    EXPECT_THROW(reduce(sum, x, nullptr, out, cuda::device_pointer(scratch->data(), 4)), logic_error);
    EXPECT_THROW(reduce(sum, x, nullptr, out, cuda::device_pointer(scratch->data() + 4, 64)), logic_error);
}

}  // namespace
