// The array engine's elementwise kernels on the OpenCL backend (PoCL in CI, NVIDIA's OpenCL
// on the GPU machine), each result against the same operation done on the host over the
// same layouts: offset views, reversals, transposes, broadcasts, odd sizes, 0-d and empty
// arrays, every integer type and the floating-point ones.
#include "gpukit/array/array.hpp"  // dtype_of
#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/expression.hpp"
#include "gpukit/array/opencl_backend.hpp"
#include "gpukit/array/reduction.hpp"

#include "opencl_array_test.hpp"
#include "expect_error.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using array::dtype;
using array::param_kind;

using ArrayOnOpencl = gpukit::testing::opencl_array_test;

// The byte offsets of the elements of `l`, in C order of its shape.
std::vector<std::int64_t> element_offsets(const layout& l) {
    std::vector<std::int64_t> offsets;
    std::vector<std::int64_t> index(l.shape().size(), 0);
    for (std::int64_t k = 0; k < l.size(); ++k) {
        std::int64_t at = l.offset();
        for (std::size_t d = 0; d < index.size(); ++d)
            at += index[d] * l.strides()[d];
        offsets.push_back(at);
        for (std::size_t d = index.size(); d-- > 0;) {
            if (++index[d] < l.shape()[d])
                break;
            index[d] = 0;
        }
    }
    return offsets;
}

template <class T>
std::vector<T> iota_values(std::size_t count, T start = T(1)) {
    std::vector<T> values(count);
    for (std::size_t k = 0; k < count; ++k)
        values[k] = static_cast<T>(start + static_cast<T>(k * 3 % 101));
    return values;
}

// z = x * a + y over views x and y of their buffers (z contiguous): the kernel's result
// against the host's, element by element, and z's buffer untouched outside z.
template <class T>
void check_axpy(ArrayOnOpencl& t, dtype type, const layout& x_layout, const layout& y_layout, std::size_t x_count,
                std::size_t y_count, T a) {
    const array::elementwise_spec spec("axpy",
                                       {{"z", type, param_kind::output},
                                        {"x", type, param_kind::input},
                                        {"y", type, param_kind::input},
                                        {"a", type, param_kind::scalar}},
                                       std::string("z[i] = x[i] * a + y[i]"));
    const std::vector<T> xs = iota_values<T>(x_count), ys = iota_values<T>(y_count, T(7));
    const auto x_buffer = t.upload(xs), y_buffer = t.upload(ys);
    const array::ndarray x(x_buffer, type, x_layout), y(y_buffer, type, y_layout);
    const array::ndarray z = array::ndarray::empty(*t.backend, x_layout.shape(), type);
    const std::vector<array::elementwise_arg> args{z, x, y, array::scalar_value::of(a)};
    array::run(spec, args, *t.backend);
    const std::vector<T> got = t.download<T>(*z.buffer());
    const std::vector<std::int64_t> x_at = element_offsets(x_layout), y_at = element_offsets(y_layout);
    ASSERT_EQ(got.size() >= x_at.size(), true);
    for (std::size_t k = 0; k < x_at.size(); ++k) {
        const T want = static_cast<T>(xs[x_at[k] / sizeof(T)] * a + ys[y_at[k] / sizeof(T)]);
        if constexpr (std::is_floating_point_v<T>)
            ASSERT_NEAR(got[k], want, std::abs(want) * 1e-6) << "element " << k;
        else
            ASSERT_EQ(got[k], want) << "element " << k;
    }
}

TEST_F(ArrayOnOpencl, ContiguousArraysOfOddSizesAndEveryIntegerType) {
    for (std::int64_t n : {1, 7, 255, 256, 257, 1000, 4099}) {
        const layout l = layout::contiguous({n}, 4);
        check_axpy<float>(*this, dtype::float32, l, l, n, n, 2.5f);
        check_axpy<std::int32_t>(*this, dtype::int32, l, l, n, n, -3);
        check_axpy<std::uint32_t>(*this, dtype::uint32, l, l, n, n, 4000000000u);  // wraps, as numpy's
    }
    const layout l8 = layout::contiguous({1001}, 8), l1 = layout::contiguous({1001}, 1),
                 l2 = layout::contiguous({1001}, 2);
    check_axpy<std::int64_t>(*this, dtype::int64, l8, l8, 1001, 1001, std::int64_t(1) << 40);
    check_axpy<std::uint64_t>(*this, dtype::uint64, l8, l8, 1001, 1001, ~std::uint64_t(0));
    check_axpy<std::int8_t>(*this, dtype::int8, l1, l1, 1001, 1001, 5);
    check_axpy<std::uint8_t>(*this, dtype::uint8, l1, l1, 1001, 1001, 200);
    check_axpy<std::int16_t>(*this, dtype::int16, l2, l2, 1001, 1001, -300);
    check_axpy<std::uint16_t>(*this, dtype::uint16, l2, l2, 1001, 1001, 60000);
}

TEST_F(ArrayOnOpencl, Float64WhereTheDeviceHasIt) {
    if (!backend->type_problem(dtype::float64).empty()) {
        // The refusal names the missing extension before any kernel is built.
        const layout l = layout::contiguous({5}, 8);
        gpukit::test::expect_error<logic_error>([&] { check_axpy<double>(*this, dtype::float64, l, l, 5, 5, 0.5); },
                                                "cl_khr_fp64");
        GTEST_SKIP() << "the device has no float64 (cl_khr_fp64)";
    }
    const layout l = layout::contiguous({3001}, 8);
    check_axpy<double>(*this, dtype::float64, l, l, 3001, 3001, 1.0 / 3.0);
}

TEST_F(ArrayOnOpencl, ViewsWithOffsetsReversalsTransposesAndBroadcasts) {
    // x[3:3+n] and y reversed, in buffers larger than the views.
    const std::int64_t n = 517;
    const layout base = layout::contiguous({n + 10}, 4);
    const layout offset_view = base.index({slice{3, 3 + n, {}}});
    const layout reversed = base.index({slice{n + 2, 2, -1}});
    ASSERT_EQ(reversed.shape(), std::vector<std::int64_t>{n});
    check_axpy<float>(*this, dtype::float32, offset_view, reversed, n + 10, n + 10, 3.0f);
    // Every other element of both.
    const layout stepped = base.index({slice{1, {}, 2}});
    check_axpy<std::int32_t>(*this, dtype::int32, stepped, stepped, n + 10, n + 10, 7);
    // A transposed 2-d array with a C-order one: the strided variant over two axes.
    const layout matrix = layout::contiguous({33, 47}, 4);
    const layout transposed = layout::contiguous({47, 33}, 4).transpose();
    check_axpy<float>(*this, dtype::float32, transposed, matrix, 33 * 47, 33 * 47, -1.5f);
    // A row broadcast down a matrix (stride 0), and a 3-d view with a reversed middle axis.
    const layout row = layout::contiguous({47}, 4).broadcast_to({33, 47});
    check_axpy<std::int32_t>(*this, dtype::int32, row, matrix, 47, 33 * 47, 2);
    const layout cube = layout::contiguous({5, 6, 7}, 4);
    const layout flipped = cube.index({slice{}, slice{{}, {}, -1}, slice{}});
    check_axpy<float>(*this, dtype::float32, flipped, cube, 210, 210, 0.5f);
}

TEST_F(ArrayOnOpencl, ZeroDimensionalAndEmptyArrays) {
    const layout scalar_layout = layout::contiguous({}, 4);
    check_axpy<float>(*this, dtype::float32, scalar_layout, scalar_layout, 1, 1, 4.0f);
    // An empty array launches nothing and is no error.
    const layout empty = layout::contiguous({0}, 4);
    check_axpy<float>(*this, dtype::float32, empty, empty, 0, 0, 1.0f);
}

TEST_F(ArrayOnOpencl, AnInoutArrayChangesItsViewOnly) {
    // x[::3] += i, on a buffer whose other elements must stay as they were.
    const array::elementwise_spec spec("bump", {{"x", dtype::int32, param_kind::inout}}, "x[i] += (int)i");
    const std::vector<std::int32_t> before = iota_values<std::int32_t>(100);
    const auto buffer = upload(before);
    const layout every_third = layout::contiguous({100}, 4).index({slice{{}, {}, 3}});
    const std::vector<array::elementwise_arg> args{array::ndarray(buffer, dtype::int32, every_third)};
    array::run(spec, args, *backend);
    const std::vector<std::int32_t> after = download<std::int32_t>(*buffer);
    for (std::size_t k = 0; k < 100; ++k)
        EXPECT_EQ(after[k], before[k] + (k % 3 == 0 ? static_cast<std::int32_t>(k / 3) : 0)) << "element " << k;
}

TEST_F(ArrayOnOpencl, APreambleDefinesHelpers) {
    const array::elementwise_spec spec("squared_plus",
                                       {{"z", dtype::int64, param_kind::output},
                                        {"x", dtype::int64, param_kind::input}},
                                       "z[i] = square(x[i]) + n", "long square(long v) { return v * v; }");
    const std::vector<std::int64_t> xs = iota_values<std::int64_t>(300);
    const array::ndarray x(upload(xs), dtype::int64, layout::contiguous({300}, 8));
    const array::ndarray z = array::ndarray::empty(*backend, {300}, dtype::int64);
    const std::vector<array::elementwise_arg> args{z, x};
    array::run(spec, args, *backend);
    const std::vector<std::int64_t> got = download<std::int64_t>(*z.buffer());
    for (std::size_t k = 0; k < 300; ++k)
        ASSERT_EQ(got[k], xs[k] * xs[k] + 300) << "element " << k;
}

TEST_F(ArrayOnOpencl, TypesAndMemoryItCannotTakeAreRefusedBeforeAnythingRuns) {
    const array::ndarray flags = array::ndarray::empty(*backend, {16}, dtype::uint8);
    // CUDA memory (here a made-up address: nothing may touch it) is not the backend's.
    const auto cuda_memory = array::borrow(CUdeviceptr{0x1000}, 16);
    const array::elementwise_spec spec("fill", {{"z", dtype::int32, param_kind::output}}, "z[i] = 1");
    const std::vector<array::elementwise_arg> args{
        array::ndarray(cuda_memory, dtype::int32, layout::contiguous({4}, 4))};
    gpukit::test::expect_error<logic_error>([&] { array::run(spec, args, *backend); }, "is not OpenCL");
    gpukit::test::expect_error<logic_error>([&] { (void)flags.data(); }, "no CUDA address");
    // Copies outside the buffer, or of another backend's memory.
    const array::ndarray four = array::ndarray::empty(*backend, {4}, dtype::uint8);
    std::vector<std::byte> five(5);
    gpukit::test::expect_error<logic_error>([&] { backend->write(*four.buffer(), 0, five); }, "outside a buffer of 4");
    gpukit::test::expect_error<logic_error>([&] { backend->read(*four.buffer(), 2, std::span(five).first(3)); },
                                            "outside a buffer of 4");
    gpukit::test::expect_error<logic_error>([&] { backend->read(*cuda_memory, 0, std::span(five).first(1)); },
                                            "is not OpenCL");
}

TEST_F(ArrayOnOpencl, AKernelBuiltOnceServesEveryLaunch) {
    const array::elementwise_spec spec("count_up", {{"z", dtype::int32, param_kind::output}}, "z[i] = (int)i");
    const array::ndarray z = array::ndarray::empty(*backend, {64}, dtype::int32);
    const std::vector<array::elementwise_arg> args{z};
    array::run(spec, args, *backend);
    const auto first =
        backend->kernel(spec.key() + 128 * static_cast<std::uint64_t>(array::elementwise_variant::contiguous) + 1,
                        "count_up_contig", [] { return std::string("not OpenCL C"); });
    array::run(spec, args, *backend);  // the same kernel: the bad source above was never asked for
    std::vector<std::int32_t> want(64);
    std::iota(want.begin(), want.end(), 0);
    EXPECT_EQ(download<std::int32_t>(*z.buffer()), want);
    EXPECT_EQ(first.language, kernel_language::opencl);
}

// The programs and kernels a backend built go with it (they once held each other in a cycle of
// shared pointers and were never freed).
// The backends of one context and device share their kernels (a backend per queue or per
// allocator builds nothing again); the kernels go with the last of them.
TEST_F(ArrayOnOpencl, BackendsOfOneContextShareKernelsThatGoWithTheLast) {
    const auto source = [] { return std::string("__kernel void gk_free() {}"); };
    const std::uint64_t key = std::uint64_t{1} << 60;
    std::weak_ptr<const void> kernel;
    {
        const cl::context own_context = cl::context::create(std::span<const cl::device>(&*dev, 1));
        const cl::queue first_queue = cl::queue::create(own_context, *dev);
        const cl::queue second_queue = cl::queue::create(own_context, *dev);
        array::opencl_backend first(first_queue);
        const array::loaded_kernel k = first.kernel(key, "gk_free", source);
        kernel = k.handle;
        {
            array::opencl_backend second(second_queue);
            EXPECT_EQ(second.kernel(key, "gk_free", source).handle, k.handle);
        }
        EXPECT_NE(backend->kernel(key, "gk_free", source).handle, k.handle) << "another context's kernel";
        EXPECT_FALSE(kernel.expired());
    }
    EXPECT_TRUE(kernel.expired());
}

// A backend with a buffer source takes its memory from there, and refuses what does not fit.
TEST_F(ArrayOnOpencl, ABufferSourceGivesTheMemory) {
    std::vector<std::size_t> asked;
    const auto buffer_of = [&](const cl::context& c, std::size_t bytes) {
        return array::borrow(std::make_shared<const cl::buffer>(cl::buffer::create(c, CL_MEM_READ_WRITE, bytes)));
    };
    array::opencl_backend pooled(*q, [&](std::size_t bytes) {
        asked.push_back(bytes);
        return buffer_of(*ctx, bytes + 8);
    });
    const auto a = pooled.allocate(12);
    const auto empty = pooled.allocate(0);
    EXPECT_EQ(asked, (std::vector<std::size_t>{12, 1}));
    EXPECT_EQ(a->size, 20u);
    const std::vector<int> values{1, 2, 3};
    pooled.write(*a, 0, std::as_bytes(std::span(values)));

    array::opencl_backend short_one(*q, [&](std::size_t bytes) { return buffer_of(*ctx, bytes - 1 + 1 / bytes); });
    gpukit::test::expect_error<logic_error>([&] { (void)short_one.allocate(16); }, "gave 15 bytes for 16 asked");
    array::opencl_backend nothing(*q, [](std::size_t) { return std::shared_ptr<const array::device_buffer>(); });
    gpukit::test::expect_error<logic_error>([&] { (void)nothing.allocate(4); }, "gave no memory");
    const cl::context other = cl::context::create(std::span<const cl::device>(&*dev, 1));
    array::opencl_backend foreign(*q, [&](std::size_t bytes) { return buffer_of(other, bytes); });
    gpukit::test::expect_error<logic_error>([&] { (void)foreign.allocate(4); }, "another context");
    // CUDA memory is not OpenCL memory.
    array::opencl_backend cuda_memory(*q, [](std::size_t bytes) {
        return std::make_shared<const array::device_buffer>(
            array::device_buffer{0x1000, bytes, {}, array::memory_space::cuda});
    });
    gpukit::test::expect_error<logic_error>([&] { (void)cuda_memory.allocate(4); }, "not OpenCL memory");
}

TEST(ArrayOpenclSource, TheVariantsOpenclLacksAreRefused) {
    const array::elementwise_spec spec("k", {{"z", dtype::float32, param_kind::output}}, "z[i] = 1.0f");
    for (auto v : {array::elementwise_variant::vectorized, array::elementwise_variant::rows})
        gpukit::test::expect_error<logic_error>(
            [&] { (void)array::elementwise_source(spec, v, 2, kernel_language::opencl); }, "contiguous and strided");
    const std::string strided =
        array::elementwise_source(spec, array::elementwise_variant::strided, 3, kernel_language::opencl);
    EXPECT_NE(strided.find("__kernel void k_strided("), std::string::npos) << strided;
    EXPECT_NE(strided.find("long e[3]"), std::string::npos) << strided;
    EXPECT_EQ(strided.find("cl_khr_fp64"), std::string::npos) << "no double, no extension: " << strided;
}

// ---- reductions

// numpy's `op` of the elements of `l` over `values`, reduced on the device into one T.
template <class T, class Out = T>
Out device_reduction(ArrayOnOpencl& t, array::reduction_op op, const std::vector<T>& values, const layout& l,
                     std::optional<dtype> out_type = std::nullopt) {
    const dtype type = array::dtype_of<T>();
    const array::reduction_spec& spec =
        array::reduction_spec_for(op, "test", type, std::nullopt, std::nullopt, out_type, kernel_language::opencl);
    const array::ndarray a(t.upload(values), type, l);
    const array::ndarray out = array::ndarray::empty(*t.backend, {}, array::dtype_of<Out>());
    const std::vector<array::elementwise_arg> args{a};
    array::reduce(spec, args, out, *t.backend);
    return t.download<Out>(*out.buffer()).front();
}

TEST_F(ArrayOnOpencl, SumsMinimaAndMaximaOverViewsAgainstTheHost) {
    // Sizes below one group, of one group, and past a device-filling grid (stage 2 runs).
    for (std::int64_t n : {1, 5, 256, 257, 1000, 100003}) {
        std::vector<std::int32_t> values(static_cast<std::size_t>(n) + 5);
        for (std::size_t k = 0; k < values.size(); ++k)
            values[k] = static_cast<std::int32_t>((k * 7919) % 2003) - 1000;
        const layout base = layout::contiguous({n + 5}, 4);
        for (const layout& l : {base.index({slice{2, 2 + n, {}}}), base.index({slice{n + 1, 1, -1}})}) {
            std::int64_t sum = 0;
            std::int32_t low = std::numeric_limits<std::int32_t>::max(),
                         high = std::numeric_limits<std::int32_t>::min();
            for (std::int64_t at : element_offsets(l)) {
                const std::int32_t v = values[static_cast<std::size_t>(at / 4)];
                sum += v;
                low = std::min(low, v);
                high = std::max(high, v);
            }
            EXPECT_EQ((device_reduction<std::int32_t, std::int64_t>(*this, array::reduction_op::sum, values, l)), sum)
                << "n " << n;
            EXPECT_EQ(device_reduction(*this, array::reduction_op::min, values, l), low) << "n " << n;
            EXPECT_EQ(device_reduction(*this, array::reduction_op::max, values, l), high) << "n " << n;
        }
    }
}

TEST_F(ArrayOnOpencl, ReductionsOfTransposedAndBroadcastViewsAndOfFloats) {
    std::vector<float> values(37 * 41);
    for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = static_cast<float>((k * 31) % 97) * 0.25f - 7.0f;
    const layout transposed = layout::contiguous({41, 37}, 4).transpose();
    const layout row_down = layout::contiguous({41}, 4).broadcast_to({37, 41});
    for (const layout& l : {transposed, row_down}) {
        double sum = 0;
        float low = INFINITY;
        for (std::int64_t at : element_offsets(l)) {
            sum += values[static_cast<std::size_t>(at / 4)];
            low = std::min(low, values[static_cast<std::size_t>(at / 4)]);
        }
        // float32 sums accumulate in float64, as numpy's default type would not: exact here.
        EXPECT_EQ(device_reduction(*this, array::reduction_op::sum, values, l), static_cast<float>(sum));
        EXPECT_EQ(device_reduction(*this, array::reduction_op::min, values, l), low);
    }
    // NaN wins min and max, as in numpy.
    values[500] = NAN;
    const layout all = layout::contiguous({37 * 41}, 4);
    EXPECT_TRUE(std::isnan(device_reduction(*this, array::reduction_op::min, values, all)));
    EXPECT_TRUE(std::isnan(device_reduction(*this, array::reduction_op::max, values, all)));
}

TEST_F(ArrayOnOpencl, DotsEmptySumsAndWhatReductionsRefuse) {
    std::vector<std::int64_t> a(3001), b(3001);
    std::int64_t want = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
        a[k] = static_cast<std::int64_t>(k) - 1500;
        b[k] = static_cast<std::int64_t>(k % 17);
    }
    // a . b[::-1]
    const layout l = layout::contiguous({3001}, 8);
    const layout reversed = l.index({slice{{}, {}, -1}});
    for (std::size_t k = 0; k < a.size(); ++k)
        want += a[k] * b[a.size() - 1 - k];
    const array::reduction_spec& dot =
        array::reduction_spec_for(array::reduction_op::dot, "dot", dtype::int64, dtype::int64, std::nullopt,
                                  std::nullopt, kernel_language::opencl);
    const array::ndarray out = array::ndarray::empty(*backend, {}, dtype::int64);
    const std::vector<array::elementwise_arg> args{array::ndarray(upload(a), dtype::int64, l),
                                                   array::ndarray(upload(b), dtype::int64, reversed)};
    array::reduce(dot, args, out, *backend);
    EXPECT_EQ(download<std::int64_t>(*out.buffer()).front(), want);
    // A sum of nothing is 0; a min of nothing is an error, as numpy's.
    const std::vector<std::int32_t> none{7};
    EXPECT_EQ((device_reduction<std::int32_t, std::int64_t>(*this, array::reduction_op::sum, none,
                                                            layout::contiguous({0}, 4))),
              0);
    gpukit::test::expect_error<logic_error>(
        [&] { device_reduction(*this, array::reduction_op::min, none, layout::contiguous({0}, 4)); }, "zero-size");
    // any and all give bool (one byte, 0 or 1); NaN counts as true, as in numpy.
    const auto truth_of = [&](array::reduction_op op, const auto& values) {
        using T = typename std::decay_t<decltype(values)>::value_type;
        const dtype type = array::dtype_of<T>();
        const array::reduction_spec& spec = array::reduction_spec_for(op, "truth", type, std::nullopt, std::nullopt,
                                                                      std::nullopt, kernel_language::opencl);
        const array::ndarray out = array::ndarray::empty(*backend, {}, dtype::bool_);
        const std::vector<array::elementwise_arg> args{
            array::ndarray(upload(values), type,
                           layout::contiguous({static_cast<std::int64_t>(values.size())}, sizeof(T)))};
        array::reduce(spec, args, out, *backend);
        return download<std::uint8_t>(*out.buffer()).front();
    };
    const std::vector<std::uint8_t> flags{0, 0, 3, 0};
    EXPECT_EQ(truth_of(array::reduction_op::any, flags), 1);
    EXPECT_EQ(truth_of(array::reduction_op::all, flags), 0);
    EXPECT_EQ(truth_of(array::reduction_op::all, std::vector<float>{1.0f, NAN, -2.0f}), 1);
    EXPECT_EQ(truth_of(array::reduction_op::any, std::vector<float>{0.0f, -0.0f}), 0);
}

TEST_F(ArrayOnOpencl, SubsetSumsWrapTheirIndices) {
    std::vector<float> values(50);
    for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = static_cast<float>(k) * 0.5f;
    const std::vector<std::int32_t> subset{3, -1, 49, 0, 7, -50, 12};
    float want = 0;
    for (std::int32_t j : subset)
        want += values[static_cast<std::size_t>((j % 50 + 50) % 50)];
    const array::reduction_spec& spec =
        array::reduction_spec_for(array::reduction_op::sum, "sum", dtype::float32, std::nullopt, dtype::int32,
                                  dtype::float32, kernel_language::opencl);
    const array::ndarray out = array::ndarray::empty(*backend, {}, dtype::float32);
    const std::int64_t size = 50;
    const std::vector<array::elementwise_arg> args{array::ndarray(upload(subset), dtype::int32,
                                                                  layout::contiguous({7}, 4)),
                                                   array::ndarray(upload(values), dtype::float32,
                                                                  layout::contiguous({50}, 4)),
                                                   array::scalar_value::of(size)};
    array::reduce(spec, args, out, *backend);
    EXPECT_EQ(download<float>(*out.buffer()).front(), want);
}

TEST(ArrayOpenclSource, ReductionsHaveTheContiguousAndStridedVariants) {
    const array::reduction_spec& spec = array::sum_spec(dtype::float64, kernel_language::opencl);
    gpukit::test::expect_error<logic_error>(
        [&] { (void)array::reduction_source(spec, array::reduction_variant::vectorized, 1, kernel_language::opencl); },
        "contiguous and strided");
    const std::string strided =
        array::reduction_source(spec, array::reduction_variant::strided, 2, kernel_language::opencl);
    EXPECT_NE(strided.find("__kernel void sum_stage1("), std::string::npos) << strided;
    EXPECT_NE(strided.find("__kernel void sum_stage2("), std::string::npos) << strided;
    EXPECT_NE(strided.find("cl_khr_fp64"), std::string::npos) << strided;
    EXPECT_EQ(strided.find("long long"), std::string::npos) << "no CUDA C type names: " << strided;
}

// ---- numpy's operators (expression kernels)

// `op` of arrays of A and B as numpy types it, on the device; the result's elements as R.
template <class R, class A, class B, class Stored = std::conditional_t<std::is_same_v<R, bool>, std::uint8_t, R>>
std::vector<Stored> device_binary(ArrayOnOpencl& t, array::binary_op op, const std::vector<A>& a,
                                  const std::vector<B>& b) {
    const dtype ta = array::dtype_of<A>(), tb = array::dtype_of<B>();
    const array::binary_types types =
        array::resolve_binary(op, {array::operand::kind::typed, ta, {}}, {array::operand::kind::typed, tb, {}});
    EXPECT_EQ(types.result, array::dtype_of<R>()) << "numpy's result type";
    const array::expression e =
        array::expression::binary(op, array::expression::array(0, ta), array::expression::array(1, tb), types);
    const auto n = static_cast<std::int64_t>(a.size());
    const array::ndarray z = array::ndarray::empty(*t.backend, {n}, types.result);
    const std::vector<array::elementwise_arg> args{array::ndarray(t.upload(a), ta, layout::contiguous({n}, sizeof(A))),
                                                   array::ndarray(t.upload(b), tb, layout::contiguous({n}, sizeof(B))),
                                                   z};
    array::run(array::expression_kernel(e, kernel_language::opencl), args, *t.backend);
    return t.template download<Stored>(*z.buffer());
}

TEST_F(ArrayOnOpencl, NumpysOperatorsWithNumpysTypes) {
    const std::vector<std::int8_t> i8{-128, -1, 0, 1, 127, 100, -100};
    const std::vector<std::uint8_t> u8{255, 0, 1, 200, 7, 128, 3};
    std::vector<std::int16_t> sums;
    for (std::size_t k = 0; k < i8.size(); ++k)
        sums.push_back(static_cast<std::int16_t>(i8[k] + u8[k]));
    EXPECT_EQ((device_binary<std::int16_t>(*this, array::binary_op::add, i8, u8)), sums);  // int8 + uint8: int16

    const std::vector<std::uint32_t> u32{0, 1, 4000000000u, 7, 123456};
    const std::vector<std::int32_t> i32{-5, 2147483647, -2147483647 - 1, 3, -1};
    std::vector<std::int64_t> differences;
    for (std::size_t k = 0; k < u32.size(); ++k)
        differences.push_back(static_cast<std::int64_t>(u32[k]) - i32[k]);
    EXPECT_EQ((device_binary<std::int64_t>(*this, array::binary_op::subtract, u32, i32)), differences);

    // int32 / int32 is float64, as numpy's true division.
    const std::vector<std::int32_t> num{7, -7, 1, 0, 1000000}, den{2, 2, 3, 5, -7};
    std::vector<double> quotients;
    for (std::size_t k = 0; k < num.size(); ++k)
        quotients.push_back(static_cast<double>(num[k]) / den[k]);
    if (backend->type_problem(dtype::float64).empty())
        EXPECT_EQ((device_binary<double>(*this, array::binary_op::true_divide, num, den)), quotients);

    // Integer powers by repeated squaring, wrapping as numpy's; negative exponents of 1 and -1.
    const std::vector<std::int32_t> bases{3, -2, 1, -1, 2, 7}, exponents{4, 3, -5, -3, 31, 0};
    const std::vector<std::int32_t> powers{81, -8, 1, -1, static_cast<std::int32_t>(0x80000000u), 1};
    EXPECT_EQ((device_binary<std::int32_t>(*this, array::binary_op::power, bases, exponents)), powers);

    // minimum and maximum: NaN wins, as numpy's.
    const std::vector<float> x{1.0f, NAN, -3.0f, 2.0f}, y{2.0f, 0.0f, NAN, 2.0f};
    const std::vector<float> low = device_binary<float>(*this, array::binary_op::minimum, x, y);
    const std::vector<float> high = device_binary<float>(*this, array::binary_op::maximum, x, y);
    EXPECT_EQ(low[0], 1.0f);
    EXPECT_TRUE(std::isnan(low[1]) && std::isnan(low[2]));
    EXPECT_EQ(high[0], 2.0f);
    EXPECT_TRUE(std::isnan(high[1]) && std::isnan(high[2]));
    EXPECT_EQ(high[3], 2.0f);

    // Comparisons give bool, one byte of 0 or 1; NaN compares false, as in numpy.
    EXPECT_EQ((device_binary<bool>(*this, array::binary_op::less, x, y)), (std::vector<std::uint8_t>{1, 0, 0, 0}));
    EXPECT_EQ((device_binary<bool>(*this, array::binary_op::not_equal, x, y)), (std::vector<std::uint8_t>{1, 1, 1, 0}));
    // int64 with uint64 compares by value, as numpy's.
    const std::vector<std::int64_t> signed_values{-1, 5, 7};
    const std::vector<std::uint64_t> unsigned_values{~std::uint64_t(0), 5, 6};
    EXPECT_EQ((device_binary<bool>(*this, array::binary_op::less, signed_values, unsigned_values)),
              (std::vector<std::uint8_t>{1, 0, 0}));
}

TEST_F(ArrayOnOpencl, AFusedExpressionWithAScalarAndUnaryOperators) {
    // abs(-(2 * x) + y) for float32 x, y and the Python float 2 (NEP 50: stays float32).
    const std::vector<float> x{0.0f, -0.0f, 1.5f, -2.25f, 3.0f}, y{0.0f, 0.0f, -1.0f, 4.0f, 6.0f};
    const array::operand weak_float{array::operand::kind::python_float, {}, {}};
    const array::operand f32{array::operand::kind::typed, dtype::float32, {}};
    const array::binary_types scaled = array::resolve_binary(array::binary_op::multiply, weak_float, f32);
    ASSERT_EQ(scaled.result, dtype::float32);
    array::expression e =
        array::expression::binary(array::binary_op::multiply, array::expression::scalar(0, dtype::float32),
                                  array::expression::array(1, dtype::float32), scaled);
    e = array::expression::unary(array::unary_op::negative, e, dtype::float32, dtype::float32);
    e = array::expression::binary(array::binary_op::add, e, array::expression::array(2, dtype::float32),
                                  array::resolve_binary(array::binary_op::add, f32, f32));
    e = array::expression::unary(array::unary_op::absolute, e, dtype::float32, dtype::float32);
    const array::ndarray z = array::ndarray::empty(*backend, {5}, dtype::float32);
    const std::vector<array::elementwise_arg> args{array::scalar_value::of(2.0f),
                                                   array::ndarray(upload(x), dtype::float32,
                                                                  layout::contiguous({5}, 4)),
                                                   array::ndarray(upload(y), dtype::float32,
                                                                  layout::contiguous({5}, 4)),
                                                   z};
    array::run(array::expression_kernel(e, kernel_language::opencl), args, *backend);
    const std::vector<float> got = download<float>(*z.buffer());
    for (std::size_t k = 0; k < x.size(); ++k) {
        EXPECT_EQ(got[k], std::fabs(-(2.0f * x[k]) + y[k])) << k;
        EXPECT_FALSE(std::signbit(got[k])) << "abs gives +0.0, as numpy's, at " << k;
    }
    // The OpenCL text names OpenCL C's types and no CUDA helper.
    const std::string text = e.text(kernel_language::opencl);
    EXPECT_EQ(text.find("fabsf"), std::string::npos) << text;
    EXPECT_NE(text.find("fabs("), std::string::npos) << text;
}

}  // namespace
