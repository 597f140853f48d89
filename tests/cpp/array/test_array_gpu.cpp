// Elementwise kernels and reductions (gpukit's specs and ReductionKernel's) on a real device,
// checked against the CPU.
#include "gpukit/array/cuda_backend.hpp"
#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/reduction.hpp"
#include "gpukit/array/reduction_kernel.hpp"
#include "gpukit/cuda/context_cache.hpp"
#include "gpukit/cuda/copy.hpp"
#include "device_arrays.hpp"
#include "gpu_test.hpp"
#include "random_data.hpp"

#include <cmath>
#include <complex>
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

using test::download;
using test::upload;

// Values in [-2, 3): small enough for the tests' absolute tolerances.
std::vector<float> random_floats(std::size_t n) { return gpukit::testing::random_floats(n, 42, -2.0f, 3.0f); }

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
            EXPECT_EQ(choose_variant(args),
                      start == 0 ? elementwise_variant::vectorized : elementwise_variant::contiguous);
            run(axpy, args);
            const auto result = download<float>(y);
            for (std::size_t i = 0; i < n; ++i)
                // The GPU fuses the multiply-add, the host rounds twice: near zero they differ
                // by more than a few ulps, never by more than this.
                ASSERT_NEAR(result[i + start], 2.5f * host[i + start] + 1.0f, 1e-6f) << "n " << n << " i " << i;
        }
    }
}

// The backend seam's CUDA side on a stream of its own: copies at an offset, and an
// elementwise kernel over a transposed view run through it, against the host.
TEST_F(ArrayGpu, TheCudaBackendCopiesAndRunsOnItsStream) {
    const cuda::stream s = cuda::stream::create(CU_STREAM_NON_BLOCKING);
    cuda_backend b(s);
    const auto host = random_floats(12 * 13);
    const auto buffer = b.allocate((host.size() + 3) * sizeof(float));
    b.write(*buffer, 3 * sizeof(float), std::as_bytes(std::span(host)));
    // The 12 x 13 matrix written 3 elements in, seen transposed.
    const ndarray shifted(buffer, dtype::float32, gpukit::layout({13, 12}, {4, 13 * 4}, 4, 3 * 4));
    const ndarray y = ndarray::empty(b, {13, 12}, dtype::float32);
    const std::vector<elementwise_arg> args{shifted, scalar_value::of(-2.0f), y};
    run(axpy, args, b);
    std::vector<float> result(13 * 12);
    b.read(*y.buffer(), 0, std::as_writable_bytes(std::span(result)));
    for (std::size_t r = 0; r < 13; ++r)
        for (std::size_t c = 0; c < 12; ++c)
            ASSERT_NEAR(result[r * 12 + c], -2.0f * host[c * 13 + r] + 1.0f, 1e-6f) << r << ", " << c;
    std::vector<float> four(4);
    EXPECT_THROW(b.read(*buffer, buffer->size - 8, std::as_writable_bytes(std::span(four))), logic_error);

    // A reduction through the seam, its partial results in memory of the backend's own.
    const ndarray total = ndarray::empty(b, {}, dtype::float32);
    const std::vector<elementwise_arg> sum_args{shifted};
    reduce(sum_spec(dtype::float32), sum_args, total, b);
    float got = 0;
    b.read(*total.buffer(), 0, std::as_writable_bytes(std::span(&got, 1)));
    double want = 0;
    for (float v : host)
        want += v;
    EXPECT_NEAR(got, want, 1e-3);
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

const dtype real_types[] = {dtype::bool_,  dtype::int8,   dtype::int16,  dtype::int32,   dtype::int64,  dtype::uint8,
                            dtype::uint16, dtype::uint32, dtype::uint64, dtype::float32, dtype::float64};

// Calls f(T{}) with the host type T of real dtype t (bool as one byte holding 0 or 1).
template <class F>
void with_real_host_type(dtype t, F&& f) {
    switch (t) {
    case dtype::bool_:
        return f(std::uint8_t{});
    case dtype::int8:
        return f(std::int8_t{});
    case dtype::int16:
        return f(std::int16_t{});
    case dtype::int32:
        return f(std::int32_t{});
    case dtype::int64:
        return f(std::int64_t{});
    case dtype::uint8:
        return f(std::uint8_t{});
    case dtype::uint16:
        return f(std::uint16_t{});
    case dtype::uint32:
        return f(std::uint32_t{});
    case dtype::uint64:
        return f(std::uint64_t{});
    case dtype::float32:
        return f(float{});
    case dtype::float64:
        return f(double{});
    default:
        FAIL() << "no real host type for " << name(t);
    }
}

// The same for every dtype, complex64 and complex128 as std::complex.
template <class F>
void with_host_type(dtype t, F&& f) {
    if (t == dtype::complex64)
        return f(std::complex<float>{});
    if (t == dtype::complex128)
        return f(std::complex<double>{});
    with_real_host_type(t, f);
}

template <class T>
constexpr bool is_complex_v = false;
template <class T>
constexpr bool is_complex_v<std::complex<T>> = true;

// Small values, so that no integer sum or dot product overflows and every exact result is
// exact in a double too: floats in [-2, 3), integers in [-100, 100] (signed) or [0, 200],
// complex values with both parts in [-2, 3).
template <class T>
std::vector<T> random_values(dtype t, std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::vector<T> v(n);
    for (auto& x : v) {
        if constexpr (is_complex_v<T>) {
            std::uniform_real_distribution<typename T::value_type> d(-2, 3);
            x = T(d(gen), d(gen));
        } else if (t == dtype::bool_)
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

// A host value as a complex double (real types with a zero imaginary part).
template <class T>
std::complex<double> as_complex(T v) {
    if constexpr (is_complex_v<T>)
        return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
    else
        return {static_cast<double>(v), 0.0};
}

// The one element of `out`, as a complex double.
std::complex<double> result_of(const ndarray& out) {
    std::complex<double> value;
    with_host_type(out.type(), [&](auto zero) { value = as_complex(download<decltype(zero)>(out)[0]); });
    return value;
}

// The exact result `exact` converted to real dtype `t` as the kernel converts its
// accumulator (a C cast; integers wrap).
double as_dtype(double exact, dtype t) {
    if (t == dtype::bool_)
        return exact != 0 ? 1 : 0;
    double value = 0;
    with_host_type(t, [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_floating_point_v<T>)
            value = static_cast<double>(static_cast<T>(exact));
        else if constexpr (!is_complex_v<T>)
            value = static_cast<double>(static_cast<T>(static_cast<long long>(exact)));
    });
    return value;
}

// `got` against the exact (host) result: equal for integers; for floating and complex types
// within float64 rounding of a sum of `magnitude` (the sum of the terms' absolute values),
// plus one rounding to single precision for float32 and complex64 results. A single element
// missed or counted twice is far outside.
void expect_result(std::complex<double> got, std::complex<double> exact, double magnitude, dtype out) {
    if (kind(out) != dtype_kind::floating && kind(out) != dtype_kind::complex) {
        EXPECT_EQ(got.real(), as_dtype(exact.real(), out));
        return;
    }
    const bool single = out == dtype::float32 || out == dtype::complex64;
    const double tolerance = 1e-12 * magnitude + (single ? 1.2e-7 * std::abs(exact) : 0.0);
    EXPECT_NEAR(got.real(), exact.real(), tolerance);
    EXPECT_NEAR(got.imag(), exact.imag(), tolerance);
}

// Reductions with a scratch buffer in the test's context.
class ArrayGpuReductions : public ArrayGpu {
protected:
    void SetUp() override {
        ArrayGpu::SetUp();
        if (IsSkipped())
            return;
        scratch.emplace(ndarray::empty({scratch_bytes}, dtype::uint8));
    }
    void TearDown() override {
        scratch.reset();
        ArrayGpu::TearDown();
    }

    cuda::device_pointer scratch_pointer() const { return {scratch->data(), scratch_bytes}; }

    // The result of `spec` over `args`.
    std::complex<double> run(const reduction_spec& spec, std::vector<elementwise_arg> args) {
        EXPECT_LE(reduction_scratch_bytes(spec), static_cast<std::size_t>(scratch_bytes));
        const ndarray out = ndarray::empty({}, *spec.output().dtype);
        reduce(spec, args, out, scratch_pointer());
        return result_of(out);
    }

    static constexpr std::int64_t scratch_bytes = 1 << 20;  // a partial per block of any device, 16 bytes each
    std::optional<ndarray> scratch;
};

ndarray elements(const ndarray& a, std::int64_t start, std::size_t n) {
    return a[{slice{start, start + static_cast<std::int64_t>(n), {}}}];
}

// The sizes: tails of every length below a vector, one block's worth (stage 1 alone), and
// more elements than one sweep of the grid covers, for 1-byte types too.
const std::size_t reduction_sizes[] = {1, 2, 31, 1000, 4097, (1u << 20) + 5, (1u << 23) + 3};

// sum, min, max, dot (with itself), any and all of every real dtype, from an aligned start
// (the vectorized kernel), from element 1 (not 16-byte aligned: the contiguous kernel) and
// every second element backwards (the strided kernel).
TEST_F(ArrayGpuReductions, EveryDtypeMatchesTheHost) {
    for (dtype t : real_types)
        with_real_host_type(t, [&](auto zero) {
            using T = decltype(zero);
            for (std::size_t n : reduction_sizes) {
                const auto host = random_values<T>(t, 2 * n + 1, 7);
                const auto other = random_values<T>(t, 2 * n + 1, 8);
                const ndarray x = upload(host, t), y = upload(other, t);
                // (first element, step) of each view: aligned, unaligned, strided backwards.
                for (const auto [start, step] : {std::pair<std::int64_t, std::int64_t>{0, 1},
                                                 {1, 1},
                                                 {static_cast<std::int64_t>(2 * n - 1), -2}}) {
                    SCOPED_TRACE(std::string(name(t)) + ", " + std::to_string(n) + " elements from " +
                                 std::to_string(start) + " by " + std::to_string(step));
                    double sum = 0, magnitude = 0, dot = 0, dot_magnitude = 0;
                    bool any = false, all = true;
                    T lo = host[start], hi = host[start];
                    for (std::size_t k = 0; k < n; ++k) {
                        const auto i = static_cast<std::size_t>(start + static_cast<std::int64_t>(k) * step);
                        sum += static_cast<double>(host[i]);
                        magnitude += std::abs(static_cast<double>(host[i]));
                        dot += static_cast<double>(host[i]) * static_cast<double>(other[i]);
                        dot_magnitude += std::abs(static_cast<double>(host[i]) * static_cast<double>(other[i]));
                        lo = std::min(lo, host[i]);
                        hi = std::max(hi, host[i]);
                        any = any || host[i] != 0;
                        all = all && host[i] != 0;
                    }
                    // Backwards, the view runs to the array's start (a stop of -1 would mean its end).
                    const slice view =
                        step > 0 ? slice{start, start + static_cast<std::int64_t>(n), step} : slice{start, {}, step};
                    const ndarray xs = x[{view}], ys = y[{view}];
                    ASSERT_EQ(xs.size(), static_cast<std::int64_t>(n));
                    expect_result(run(sum_spec(t), {xs}), sum, magnitude, *sum_spec(t).output().dtype);
                    EXPECT_EQ(run(min_spec(t), {xs}).real(), static_cast<double>(lo));
                    EXPECT_EQ(run(max_spec(t), {xs}).real(), static_cast<double>(hi));
                    expect_result(run(dot_spec(t, t), {xs, ys}), dot, dot_magnitude, *dot_spec(t, t).output().dtype);
                    EXPECT_EQ(run(any_spec(t), {xs}).real(), any ? 1.0 : 0.0);
                    EXPECT_EQ(run(all_spec(t), {xs}).real(), all ? 1.0 : 0.0);
                }
            }
        });
}

// Complex sums accumulate in complex128; dot products do not conjugate (numpy.dot); min and
// max order by real part, then imaginary part.
TEST_F(ArrayGpuReductions, ComplexMatchesTheHost) {
    const auto check = [&](dtype t, auto zero) {
        using T = decltype(zero);
        for (std::size_t n : {std::size_t{1}, std::size_t{1001}, std::size_t{(1u << 20) + 3}}) {
            auto host = random_values<T>(t, n + 1, 3);
            const auto other = random_values<T>(t, n + 1, 4);
            host[n / 2] = T(host[n / 3].real(), 9);  // equal real parts: the imaginary part decides
            const ndarray x = upload(host, t), y = upload(other, t);
            for (std::int64_t start : {0, 1}) {
                SCOPED_TRACE(std::string(name(t)) + ", " + std::to_string(n) + " from " + std::to_string(start));
                std::complex<double> sum, dot;
                double magnitude = 0, dot_magnitude = 0;
                const auto order = [](const T& a, const T& b) {
                    return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
                };
                T lo = host[start], hi = host[start];
                for (std::size_t i = start; i < n + start; ++i) {
                    sum += as_complex(host[i]);
                    magnitude += std::abs(as_complex(host[i]));
                    dot += as_complex(host[i]) * as_complex(other[i]);
                    dot_magnitude += std::abs(as_complex(host[i]) * as_complex(other[i]));
                    lo = order(host[i], lo) ? host[i] : lo;
                    hi = order(hi, host[i]) ? host[i] : hi;
                }
                const ndarray xs = elements(x, start, n), ys = elements(y, start, n);
                expect_result(run(sum_spec(t), {xs}), sum, magnitude, t);
                expect_result(run(dot_spec(t, t), {xs, ys}), dot, dot_magnitude, t);
                EXPECT_EQ(run(min_spec(t), {xs}), as_complex(lo));
                EXPECT_EQ(run(max_spec(t), {xs}), as_complex(hi));
            }
        }
    };
    check(dtype::complex64, std::complex<float>{});
    check(dtype::complex128, std::complex<double>{});
}

// dot of two dtypes: 16-byte loads of the narrower one, wider loads of the other; a C-order
// array with a Fortran-order one (the strided kernel, element i being element i of both).
TEST_F(ArrayGpuReductions, DotOfMixedDtypesAndOrdersMatchesTheHost) {
    const std::pair<dtype, dtype> pairs[] = {{dtype::int8, dtype::float64}, {dtype::float64, dtype::int8},
                                             {dtype::uint16, dtype::int32}, {dtype::bool_, dtype::float32},
                                             {dtype::int64, dtype::uint64}, {dtype::float32, dtype::float64},
                                             {dtype::uint8, dtype::int8}};
    // Named members, not a structured binding: clang before 16 cannot capture bindings in lambdas.
    for (const auto& pair : pairs) {
        const dtype ta = pair.first, tb = pair.second;
        with_real_host_type(ta, [&](auto zero_a) {
            with_real_host_type(tb, [&](auto zero_b) {
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
                        const reduction_spec& spec = dot_spec(ta, tb);
                        expect_result(run(spec, {elements(a, start, n), elements(b, start, n)}), dot, magnitude,
                                      *spec.output().dtype);
                    }
                }
            });
        });
    }
    const auto hc = random_values<float>(dtype::float32, 6 * 5, 13),
               hf = random_values<float>(dtype::float32, 5 * 6, 14);
    const ndarray c = upload(hc, dtype::float32).reshape({6, 5});              // c[r][k] = hc[r * 5 + k]
    const ndarray f = upload(hf, dtype::float32).reshape({5, 6}).transpose();  // f[r][k] = hf[k * 6 + r]
    double dot = 0;
    for (int r = 0; r < 6; ++r)
        for (int k = 0; k < 5; ++k)
            dot += static_cast<double>(hc[r * 5 + k]) * hf[k * 6 + r];
    expect_result(run(dot_spec(dtype::float32, dtype::float32), {c, f}), dot, 100.0, dtype::float32);
}

// NaN anywhere (first, in the middle, in the tail after the vectors) makes min, max and sum
// NaN, as in numpy.
TEST_F(ArrayGpuReductions, NanPropagates) {
    for (dtype t : {dtype::float32, dtype::float64})
        with_real_host_type(t, [&](auto zero) {
            using T = decltype(zero);
            if constexpr (std::is_floating_point_v<T>)
                for (std::size_t n : {std::size_t{5}, std::size_t{4099}})
                    for (std::size_t at : {std::size_t{0}, n / 2, n - 1})
                        for (std::int64_t start : {0, 1}) {
                            SCOPED_TRACE(std::string(name(t)) + ", NaN at " + std::to_string(at) + " of " +
                                         std::to_string(n) + " from " + std::to_string(start));
                            auto host = random_values<T>(t, n + 1, 5);
                            host[at + start] = std::numeric_limits<T>::quiet_NaN();
                            const ndarray x = elements(upload(host, t), start, n);
                            EXPECT_TRUE(std::isnan(run(min_spec(t), {x}).real()));
                            EXPECT_TRUE(std::isnan(run(max_spec(t), {x}).real()));
                            EXPECT_TRUE(std::isnan(run(sum_spec(t), {x}).real()));
                        }
        });
}

TEST_F(ArrayGpuReductions, EmptyInputs) {
    const ndarray empty = ndarray::empty({0}, dtype::float32);
    EXPECT_EQ(run(sum_spec(dtype::float32), {empty}).real(), 0.0);
    EXPECT_EQ(run(dot_spec(dtype::float32, dtype::float32), {empty, empty}).real(), 0.0);
    EXPECT_EQ(run(any_spec(dtype::float32), {empty}).real(), 0.0);
    EXPECT_EQ(run(all_spec(dtype::float32), {empty}).real(), 1.0);
    EXPECT_THROW(run(min_spec(dtype::float32), {empty}), logic_error);
    EXPECT_THROW(run(max_spec(dtype::float32), {empty}), logic_error);
}

// a[subset[i]] over the subset: repeated and reversed indices, and indices outside the array
// wrapping around (-1 the last element, size + 2 the third).
TEST_F(ArrayGpuReductions, SubsetsGatherAndWrap) {
    for (std::size_t n : {std::size_t{5}, std::size_t{1000}, std::size_t{(1u << 20) + 3}}) {
        SCOPED_TRACE(std::to_string(n) + " elements");
        const auto host = random_values<double>(dtype::float64, n, 21);
        const auto other = random_values<double>(dtype::float64, n, 22);
        std::vector<std::int32_t> subset;
        for (std::size_t k = 0; k < n; ++k)
            subset.push_back(static_cast<std::int32_t>(n - 1 - (k * 7) % n));
        subset.push_back(-1);
        subset.push_back(static_cast<std::int32_t>(n) + 2);
        subset.push_back(0);
        subset.push_back(0);
        const auto wrapped = [&](std::int32_t j) {
            const auto size = static_cast<std::int64_t>(n);
            return static_cast<std::size_t>(((j % size) + size) % size);
        };
        double sum = 0, magnitude = 0, dot = 0, lo = host[wrapped(subset[0])], hi = lo;
        for (std::int32_t j : subset) {
            const double v = host[wrapped(j)];
            sum += v;
            magnitude += std::abs(v);
            dot += v * other[wrapped(j)];
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        const ndarray s = upload(subset, dtype::int32), a = upload(host, dtype::float64),
                      b = upload(other, dtype::float64);
        const scalar_value size = scalar_value::of(static_cast<std::int64_t>(n));
        expect_result(run(subset_sum_spec(dtype::int32, dtype::float64, dtype::float64), {s, a, size}), sum, magnitude,
                      dtype::float64);
        expect_result(run(subset_dot_spec(dtype::int32, dtype::float64, dtype::float64, dtype::float64),
                          {s, a, b, size}),
                      dot, 10 * magnitude, dtype::float64);
        EXPECT_EQ(run(subset_min_spec(dtype::int32, dtype::float64), {s, a, size}).real(), lo);
        EXPECT_EQ(run(subset_max_spec(dtype::int32, dtype::float64), {s, a, size}).real(), hi);
        // A strided subset (every second index, backwards).
        const ndarray every_second = s[{slice{static_cast<std::int64_t>(subset.size()) - 1, {}, -2}}];
        double strided_sum = 0;
        for (std::int64_t k = static_cast<std::int64_t>(subset.size()) - 1; k >= 0; k -= 2)
            strided_sum += host[wrapped(subset[static_cast<std::size_t>(k)])];
        expect_result(run(subset_sum_spec(dtype::int32, dtype::float64, dtype::float64), {every_second, a, size}),
                      strided_sum, magnitude, dtype::float64);
    }
}

// A spec of the user's: a preamble, a scalar, the index i (the position from the array's
// start, in the vector loop and in the tail alike), an output type unlike the accumulator's.
TEST_F(ArrayGpuReductions, UserSpecSeesTheIndexTheScalarAndThePreamble) {
    const reduction_spec weighted{"weighted",
                                  {{"a", dtype::float32, reduction_param_kind::element},
                                   {"scale", dtype::float64, reduction_param_kind::scalar}},
                                  dtype::float64,
                                  dtype::float64,
                                  "0.0",
                                  "scale * weight(i) * a[i]",
                                  "a + b",
                                  "__device__ double weight(long long i) { return (double)i; }"};
    const reduction_spec last_positive{"last_positive", {{"a", dtype::float32, reduction_param_kind::element}},
                                       dtype::int64,    dtype::int32,
                                       "-1LL",          "a[i] > 0 ? i : -1LL",
                                       "a > b ? a : b"};
    for (std::size_t n : {std::size_t{7}, std::size_t{4097}, std::size_t{(1u << 20) + 5}}) {
        auto host = random_floats(n + 1);
        host[n] = -1.0f;  // the last positive element is not the last one
        const ndarray x = upload(host, dtype::float32);
        for (std::int64_t start : {0, 1}) {
            SCOPED_TRACE(std::to_string(n) + " elements from " + std::to_string(start));
            double sum = 0, magnitude = 0;
            long long last = -1;
            for (std::size_t i = 0; i < n; ++i) {
                const double term = 0.5 * static_cast<double>(i) * host[i + start];
                sum += term;
                magnitude += std::abs(term);
                if (host[i + start] > 0)
                    last = static_cast<long long>(i);
            }
            const ndarray xs = elements(x, start, n);
            expect_result(run(weighted, {xs, scalar_value::of(0.5)}), sum, magnitude, dtype::float64);
            EXPECT_EQ(run(last_positive, {xs}).real(), static_cast<double>(last));
        }
    }
}

TEST_F(ArrayGpuReductions, ArgumentsAreChecked) {
    const reduction_spec& sum = sum_spec(dtype::float32);
    const reduction_spec& dot = dot_spec(dtype::float32, dtype::float32);
    const reduction_spec& subset = subset_sum_spec(dtype::int32, dtype::float32, dtype::float32);
    const ndarray x = ndarray::empty({6}, dtype::float32), i32 = ndarray::empty({6}, dtype::int32),
                  x5 = ndarray::empty({5}, dtype::float32);
    const ndarray out = ndarray::empty({}, dtype::float32), out64 = ndarray::empty({}, dtype::float64),
                  out2 = ndarray::empty({2}, dtype::float32);
    const cuda::device_pointer s = scratch_pointer();
    const auto reduced = [&](const reduction_spec& spec, std::vector<elementwise_arg> args, const ndarray& o,
                             cuda::device_pointer scratch) { reduce(spec, args, o, scratch); };
    const scalar_value size = scalar_value::of(std::int64_t{6});
    EXPECT_THROW(reduced(sum, {i32}, out, s), logic_error);                                  // input dtype
    EXPECT_THROW(reduced(sum, {x, x}, out, s), logic_error);                                 // two arrays for one
    EXPECT_THROW(reduced(dot, {x}, out, s), logic_error);                                    // one array for two
    EXPECT_THROW(reduced(dot, {x, x5}, out, s), logic_error);                                // shapes
    EXPECT_THROW(reduced(sum, {scalar_value::of(1.0f)}, out, s), logic_error);               // a scalar for an array
    EXPECT_THROW(reduced(sum, {x}, out64, s), logic_error);                                  // output dtype
    EXPECT_THROW(reduced(sum, {x}, out2, s), logic_error);                                   // output size
    EXPECT_THROW(reduced(subset, {i32, x, scalar_value::of(6)}, out, s), logic_error);       // 4-byte size
    EXPECT_THROW(reduced(subset, {i32, x[{slice{{}, {}, 2}}], size}, out, s), logic_error);  // gathered, strided
    // A strided subset is fine (initialized data: this one runs).
    const ndarray indices = upload(std::vector<std::int32_t>{5, 0, 3, 1, 4, 2}, dtype::int32);
    const ndarray ones = upload(std::vector<float>(6, 1.0f), dtype::float32);
    EXPECT_NO_THROW(reduced(subset, {indices[{slice{{}, {}, 2}}], ones, size}, out, s));
    // Scratch for less than one partial result, or not 16-byte aligned.
    EXPECT_THROW(reduced(sum, {x}, out, cuda::device_pointer(scratch->data(), 4)), logic_error);
    EXPECT_THROW(reduced(sum, {x}, out, cuda::device_pointer(scratch->data() + 8, 64)), logic_error);
}

// PyCUDA's ReductionKernel: pointer arrays read as in C, range as Python's (negative steps
// too), a struct accumulator of the preamble's, the output written where `out` points.
TEST_F(ArrayGpuReductions, ReductionKernelRunsItsRange) {
    rtc::compile_request request;
    request.options.include_dirs = {GPUKIT_DEVICE_INCLUDE_DIR};  // pycuda-complex.hpp
    const value_type f32("float", 4, dtype::float32);
    const reduction_kernel squares(reduction_spec("sumsq",
                                                  {{"x", f32, reduction_param_kind::pointer, "const float *x"}},
                                                  dtype::float64, dtype::float64, "0", "(double)x[i] * x[i]", "a + b"),
                                   request, std::nullopt);
    const reduction_kernel extremes(reduction_spec("extremes", {{"x", f32, reduction_param_kind::pointer, "float *x"}},
                                                   value_type("pair", 8), value_type("pair", 8),
                                                   "pair{3.4e38f, -3.4e38f}", "pair{x[i], x[i]}",
                                                   "pair{fminf(a.lo, b.lo), fmaxf(a.hi, b.hi)}",
                                                   "struct pair { float lo, hi; };"),
                                    request, std::nullopt);
    const std::size_t n = (1u << 20) + 7;
    const auto host = random_floats(n);
    const ndarray x = upload(host, dtype::float32);
    const ndarray out = ndarray::empty({2}, dtype::float64);
    const CUdeviceptr address = x.data();
    const std::span<const std::byte> values[] = {{reinterpret_cast<const std::byte*>(&address), sizeof address}};
    struct range_case {
        long long start, step, count;
    };
    for (const range_case r : {range_case{0, 1, static_cast<long long>(n)}, range_case{5, 3, 1000},
                               range_case{static_cast<long long>(n) - 1, -2, static_cast<long long>(n) / 2},
                               range_case{7, 1, 0}, range_case{100, 1, 1}}) {
        SCOPED_TRACE(std::to_string(r.start) + " by " + std::to_string(r.step) + ", " + std::to_string(r.count));
        double sum = 0;
        float lo = 3.4e38f, hi = -3.4e38f;
        for (long long k = 0; k < r.count; ++k) {
            const float v = host[static_cast<std::size_t>(r.start + k * r.step)];
            sum += static_cast<double>(v) * v;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        squares.run(values, r.start, r.step, r.count, out.data(), scratch_pointer(), {});
        expect_result(download<double>(out)[0], sum, sum, dtype::float64);
        extremes.run(values, r.start, r.step, r.count, out.data(), scratch_pointer(), {});
        const auto pair = download<float>(ndarray(out.buffer(), dtype::float32, layout::contiguous({2}, 4)));
        EXPECT_EQ(pair[0], lo);
        EXPECT_EQ(pair[1], hi);
    }
    const std::span<const std::byte> none[] = {{reinterpret_cast<const std::byte*>(&address), 4}};
    EXPECT_THROW(squares.run(none, 0, 1, 1, out.data(), scratch_pointer(), {}), logic_error);     // 4 address bytes
    EXPECT_THROW(squares.run(values, 0, 1, -1, out.data(), scratch_pointer(), {}), logic_error);  // negative count
}

}  // namespace
