// page_runs(): the whole pages host ranges span, as registered_host_pages registers them
// (pure address arithmetic, no driver).
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/host_memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using gpukit::cuda::host_range;
using gpukit::cuda::page_runs;

constexpr std::size_t page = 4096;

host_range at(std::uintptr_t address, std::size_t bytes) { return {reinterpret_cast<const void*>(address), bytes}; }

// Each run as (first address, bytes).
std::vector<std::pair<std::uintptr_t, std::size_t>> runs(const std::vector<host_range>& ranges) {
    std::vector<std::pair<std::uintptr_t, std::size_t>> out;
    for (const host_range& r : page_runs(ranges, page))
        out.emplace_back(reinterpret_cast<std::uintptr_t>(r.data), r.bytes);
    return out;
}

using run_list = std::vector<std::pair<std::uintptr_t, std::size_t>>;

TEST(PageRuns, RangesAreRoundedOutToWholePages) {
    EXPECT_EQ(runs({at(0x10000, page)}), (run_list{{0x10000, page}}));
    EXPECT_EQ(runs({at(0x10008, 16)}), (run_list{{0x10000, page}}));
    EXPECT_EQ(runs({at(0x10ff8, 16)}), (run_list{{0x10000, 2 * page}}));  // straddles a page boundary
    EXPECT_EQ(runs({at(0x10001, 3 * page)}), (run_list{{0x10000, 4 * page}}));
}

TEST(PageRuns, RangesSharingAPageAreOneRunOthersStaySeparate) {
    // Two arrays on one page, and a third one page further on: two runs, sorted.
    EXPECT_EQ(runs({at(0x13010, 8), at(0x10100, 64), at(0x10800, 64)}), (run_list{{0x10000, page}, {0x13000, page}}));
    // Overlapping and nested ranges (an array and a view of it) merge.
    EXPECT_EQ(runs({at(0x10000, 3 * page), at(0x11000, 8), at(0x12ff0, 2 * page)}), (run_list{{0x10000, 5 * page}}));
    // Ranges on neighbouring pages share none: registered separately.
    EXPECT_EQ(runs({at(0x10000, page), at(0x11000, page)}), (run_list{{0x10000, page}, {0x11000, page}}));
    EXPECT_EQ(runs({at(0x10000, 8), at(0x10000, 8)}), (run_list{{0x10000, page}}));  // the same array twice
}

TEST(PageRuns, EmptyRangesAndBadArgumentsAreHandled) {
    EXPECT_TRUE(runs({}).empty());
    EXPECT_TRUE(runs({at(0x10008, 0)}).empty());
    EXPECT_EQ(runs({at(0x10008, 0), at(0x20000, 1)}), (run_list{{0x20000, page}}));
    EXPECT_THROW(page_runs(std::vector<host_range>{at(0x10000, 8)}, 0), gpukit::logic_error);
    EXPECT_THROW(page_runs(std::vector<host_range>{at(UINTPTR_MAX - 100, 200)}, page), gpukit::logic_error);
}

}  // namespace
