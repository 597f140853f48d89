// Generic scans (generic_scan.hpp) run on the OpenCL backend (PoCL in CI, NVIDIA's OpenCL on
// the GPU machine), each against a scan done on the host: sizes around the pass and interval
// boundaries, inclusive and exclusive (prev_item), segments that start anywhere (also at an
// interval's first element), last_item, fetches of the previous element, a struct scan type,
// and an output that writes over its own input. The CUDA C of the same specs is compiled by
// test_generic_scan_source.cpp.
#include "gpukit/array/generic_scan.hpp"
#include "gpukit/array/opencl_backend.hpp"

#include "opencl_array_test.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

using namespace gpukit;
using array::dtype;
using array::param_kind;

using GenericScanOnOpencl = gpukit::testing::opencl_array_test;

std::vector<std::int32_t> random_ints(std::size_t n, int high, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> pick(0, high);
    std::vector<std::int32_t> v(n);
    for (auto& x : v)
        x = pick(gen);
    return v;
}

// Sizes below one pass of 1024, at and around pass and interval boundaries, and ones that
// need the most intervals with a partial last one.
const std::int64_t sizes[] = {1, 10, 127, 1023, 1024, 1025, 4097, 131072, 131073, 1000003};

TEST_F(GenericScanOnOpencl, InclusiveAndExclusiveSumsOfEverySize) {
    const array::generic_scan_spec spec("sums", "int", 4,
                                        {{"x", dtype::int32, param_kind::input},
                                         {"inc", dtype::int32, param_kind::output},
                                         {"exc", dtype::int32, param_kind::output}},
                                        "x[i]", "a + b", "0", "inc[i] = item; exc[i] = prev_item;");
    for (std::int64_t n : sizes) {
        const std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), 9, 1);
        const array::ndarray dx = upload(x, dtype::int32);
        const array::ndarray inc = upload(std::vector<std::int32_t>(x.size()), dtype::int32);
        const array::ndarray exc = upload(std::vector<std::int32_t>(x.size()), dtype::int32);
        const std::vector<array::elementwise_arg> args{dx, inc, exc};
        array::run(spec, args, n, *backend);
        const std::vector<std::int32_t> got_inc = download<std::int32_t>(inc), got_exc = download<std::int32_t>(exc);
        std::int32_t sum = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_EQ(got_exc[i], sum) << "n = " << n << ", i = " << i;
            sum += x[i];
            ASSERT_EQ(got_inc[i], sum) << "n = " << n << ", i = " << i;
        }
    }
}

TEST_F(GenericScanOnOpencl, SegmentsRestartTheScanWhereverTheyStart) {
    const array::generic_scan_spec spec("segsums", "int", 4,
                                        {{"x", dtype::int32, param_kind::input},
                                         {"starts", dtype::uint8, param_kind::input},
                                         {"inc", dtype::int32, param_kind::output},
                                         {"exc", dtype::int32, param_kind::output}},
                                        "x[i]", "across_seg_boundary ? b : a + b", "0",
                                        "inc[i] = item; exc[i] = prev_item;", "starts[i]");
    for (std::int64_t n : sizes) {
        const std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), 9, 2);
        std::vector<std::uint8_t> starts(x.size(), 0);
        std::mt19937 gen(3);
        for (int k = 0; k < 40; ++k)
            starts[gen() % x.size()] = 1;
        if (n > 8192)
            starts[8192] = 1;  // the first element of an interval (intervals are whole passes of 1024)
        starts[0] = static_cast<std::uint8_t>(n % 2);  // a start at 0 changes nothing
        const std::vector<array::elementwise_arg> args{upload(x, dtype::int32), upload(starts, dtype::uint8),
                                                       upload(std::vector<std::int32_t>(x.size()), dtype::int32),
                                                       upload(std::vector<std::int32_t>(x.size()), dtype::int32)};
        array::run(spec, args, n, *backend);
        const auto got_inc = download<std::int32_t>(std::get<array::ndarray>(args[2]));
        const auto got_exc = download<std::int32_t>(std::get<array::ndarray>(args[3]));
        std::int32_t sum = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (starts[i])
                sum = 0;
            ASSERT_EQ(got_exc[i], sum) << "n = " << n << ", i = " << i;
            sum += x[i];
            ASSERT_EQ(got_inc[i], sum) << "n = " << n << ", i = " << i;
        }
    }
}

TEST_F(GenericScanOnOpencl, LastItemFetchesAndScalarsReachTheStatements) {
    // out[i] = (number of positions j <= i where x[j] differs from x[j - 1]) * scale,
    // and total gets the count over all elements (last_item).
    const array::generic_scan_spec spec("changes", "long", 8,
                                        {{"x", dtype::int16, param_kind::input},
                                         {"scale", dtype::int64, param_kind::scalar},
                                         {"out", dtype::int64, param_kind::output},
                                         {"total", dtype::int64, param_kind::output}},
                                        "(i == 0 || x_prev != x[i]) ? 1 : 0", "a + b", "0",
                                        "out[i] = item * scale; if (i == 0) total[0] = last_item;", "",
                                        {{"x_prev", "x", -1}});
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{999}, std::int64_t{300001}}) {
        std::vector<std::int16_t> x(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = static_cast<std::int16_t>(i / 3 + (i % 7 == 0));
        const std::int64_t scale = 3;
        const std::vector<array::elementwise_arg> args{upload(x, dtype::int16), array::scalar_value::of(scale),
                                                       upload(std::vector<std::int64_t>(x.size()), dtype::int64),
                                                       upload(std::vector<std::int64_t>(1), dtype::int64)};
        array::run(spec, args, n, *backend);
        const auto out = download<std::int64_t>(std::get<array::ndarray>(args[2]));
        const auto total = download<std::int64_t>(std::get<array::ndarray>(args[3]));
        std::int64_t count = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            count += (i == 0 || x[i] != x[i - 1]) ? 1 : 0;
            ASSERT_EQ(out[i], count * scale) << "n = " << n << ", i = " << i;
        }
        EXPECT_EQ(total[0], count);
    }
}

TEST_F(GenericScanOnOpencl, AStructScanTypeAndAnOutputOverItsOwnInput) {
    // The running maximum and the index where it was found; the result shifted one place
    // right into x itself (x[i + 1] = item), as PyOpenCL's documented example writes.
    const char* preamble =
        "typedef struct { int value; int at; } best_t;\n"
        "best_t best(best_t a, best_t b) { return b.value > a.value ? b : a; }\n"
        "best_t make_best(int value, int at) { best_t r; r.value = value; r.at = at; return r; }\n";
    const array::generic_scan_spec spec("running_max", "best_t", 8,
                                        {{"x", dtype::int32, param_kind::inout},
                                         {"at", dtype::int32, param_kind::output}},
                                        "make_best(x[i], (int)i)", "best(a, b)", "make_best(-1, -1)",
                                        "if (i + 1 < N) x[i + 1] = item.value; at[i] = item.at;", "", {}, preamble);
    const std::int64_t n = 70001;
    const std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), 1000000, 4);
    const std::vector<array::elementwise_arg> args{upload(x, dtype::int32),
                                                   upload(std::vector<std::int32_t>(x.size()), dtype::int32)};
    array::run(spec, args, n, *backend);
    const auto shifted = download<std::int32_t>(std::get<array::ndarray>(args[0]));
    const auto at = download<std::int32_t>(std::get<array::ndarray>(args[1]));
    std::int32_t best = -1, best_at = -1;
    EXPECT_EQ(shifted[0], x[0]);
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i] > best) {
            best = x[i];
            best_at = static_cast<std::int32_t>(i);
        }
        ASSERT_EQ(at[i], best_at) << i;
        if (i + 1 < x.size())
            ASSERT_EQ(shifted[i + 1], best) << i;
    }
}

TEST_F(GenericScanOnOpencl, BadArgumentsAreRefusedBeforeAnythingRuns) {
    const array::generic_scan_spec spec("plain", "int", 4, {{"x", dtype::int32, param_kind::inout}}, "x[i]", "a + b",
                                        "0", "x[i] = item;");
    const array::ndarray x = upload(std::vector<std::int32_t>{1, 2, 3}, dtype::int32);
    const array::ndarray f = upload(std::vector<float>{1, 2, 3}, dtype::float32);
    const std::vector<array::elementwise_arg> none;
    EXPECT_THROW(array::run(spec, none, 3, *backend), logic_error);
    const std::vector<array::elementwise_arg> wrong_type{f};
    EXPECT_THROW(array::run(spec, wrong_type, 3, *backend), logic_error);
    const std::vector<array::elementwise_arg> scalar{array::scalar_value::of(1)};
    EXPECT_THROW(array::run(spec, scalar, 3, *backend), logic_error);
    const std::vector<array::elementwise_arg> strided{x.view(layout({2}, {8}, 4, 0))};
    EXPECT_THROW(array::run(spec, strided, 2, *backend), logic_error);
    const std::vector<array::elementwise_arg> fine{x};
    EXPECT_THROW(array::run(spec, fine, -1, *backend), logic_error);
    array::run(spec, fine, 0, *backend);  // nothing to do
    EXPECT_EQ(download<std::int32_t>(x), (std::vector<std::int32_t>{1, 2, 3}));
    array::run(spec, fine, 3, *backend);
    EXPECT_EQ(download<std::int32_t>(x), (std::vector<std::int32_t>{1, 3, 6}));
}

TEST(GenericScanSpec, RefusesWhatCannotMakeAKernel) {
    const std::vector<array::param> x{{"x", dtype::int32, param_kind::inout}};
    const auto make = [&](std::vector<array::param> params, const char* input,
                          std::vector<array::scan_fetch> fetches = {}, const char* prefix = "scan") {
        return array::generic_scan_spec(prefix, "int", 4, std::move(params), input, "a + b", "0", "x[i] = item;", "",
                                        std::move(fetches));
    };
    EXPECT_NO_THROW(make(x, "x[i]"));
    EXPECT_THROW(make(x, " "), logic_error);
    EXPECT_THROW(make(x, "x[i]", {}, "two words"), logic_error);
    EXPECT_THROW(make({{"s", dtype::int32, param_kind::scalar}}, "s"), logic_error);  // no array
    EXPECT_THROW(make({{"N", dtype::int32, param_kind::inout}}, "N[i]"), logic_error);
    EXPECT_THROW(make(x, "x[i]", {{"prev", "y", -1}}), logic_error);
    EXPECT_THROW(make(x, "x[i]", {{"prev", "x", 1}}), logic_error);
    EXPECT_THROW(array::generic_scan_spec("scan", "int", 0, x, "x[i]", "a + b", "0", "x[i] = item;"), logic_error);
    EXPECT_THROW(array::generic_scan_spec("scan", "int", 4, x, "x[i]", "a + b", "", "x[i] = item;"), logic_error);
}

}  // namespace
