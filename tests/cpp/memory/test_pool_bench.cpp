// The pool benchmark baseline runs and reports sensible numbers. No timing is asserted:
// timings belong to the benchmark harness, not to CI.
#include "pool_bench.hpp"

#include "gpukit/core/error.hpp"

#include <gtest/gtest.h>

namespace {

TEST(PoolBench, ReportsOnePositiveTimePerRepeat) {
    for (int threads : {1, 3}) {
        const std::vector<double> seconds = gpukit::bench::pool_pair_seconds(1 << 20, 2000, 3, threads);
        ASSERT_EQ(seconds.size(), 3u);
        for (double s : seconds) {
            EXPECT_GT(s, 0.0);
            EXPECT_LT(s, 0.01);  // 10 ms per pair would mean something is badly broken
        }
    }
}

TEST(PoolBench, RejectsNonsense) {
    EXPECT_THROW(gpukit::bench::pool_pair_seconds(0, 10, 1, 1), gpukit::logic_error);
    EXPECT_THROW(gpukit::bench::pool_pair_seconds(64, 10, 1, 0), gpukit::logic_error);
}

}  // namespace
