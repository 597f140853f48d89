#include "gpukit/core/bitlog.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace {

using gpukit::bitlog2;
using gpukit::low_bits_mask;
using gpukit::signed_shift;

constexpr std::uint64_t all_ones = std::numeric_limits<std::uint64_t>::max();

static_assert(bitlog2(0) == 0);
static_assert(bitlog2(1) == 0);
static_assert(bitlog2(4096) == 12);
static_assert(bitlog2(4097) == 12);
static_assert(bitlog2(all_ones) == 63);
static_assert(low_bits_mask(4) == 15);
static_assert(signed_shift(3, -1) == 1);

TEST(Bitlog, Bitlog2IsTheIndexOfTheHighestBit) {
    EXPECT_EQ(bitlog2(0), 0u);  // defined like bitlog2(1)
    for (unsigned k = 0; k < 64; ++k) {
        const std::uint64_t power = std::uint64_t{1} << k;
        EXPECT_EQ(bitlog2(power), k);
        EXPECT_EQ(bitlog2(power | (power - 1)), k) << "all bits up to " << k;
        if (k > 0) {
            EXPECT_EQ(bitlog2(power - 1), k - 1);
        }
    }
}

TEST(Bitlog, LowBitsMask) {
    EXPECT_EQ(low_bits_mask(0), 0u);
    EXPECT_EQ(low_bits_mask(1), 1u);
    EXPECT_EQ(low_bits_mask(63), all_ones >> 1);
    EXPECT_EQ(low_bits_mask(64), all_ones);
    EXPECT_EQ(low_bits_mask(100), all_ones);
}

TEST(Bitlog, SignedShiftGoesBothWays) {
    EXPECT_EQ(signed_shift(1, 3), 8u);
    EXPECT_EQ(signed_shift(8, -3), 1u);
    EXPECT_EQ(signed_shift(12345, 0), 12345u);
    EXPECT_EQ(signed_shift(1, 63), std::uint64_t{1} << 63);
    EXPECT_EQ(signed_shift(all_ones, -63), 1u);
    EXPECT_EQ(signed_shift(all_ones, 64), 0u);
    EXPECT_EQ(signed_shift(all_ones, -64), 0u);
    EXPECT_EQ(signed_shift(all_ones, -1000), 0u);
}

}  // namespace
