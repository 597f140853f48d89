#include "gpukit/memory/bins.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using gpukit::memory::bin_layout;

constexpr std::size_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// The worked example of docs/memory-pool.md, checked at compile time.
constexpr bin_layout four_bits(4);
static_assert(four_bits.bin_number(1 * MiB) == 20 * 16 + 0);
static_assert(four_bits.alloc_size(320) == 1 * MiB);
static_assert(four_bits.bin_number(MiB + MiB / 2) == 20 * 16 + 8);
static_assert(four_bits.alloc_size(328) == MiB + MiB / 2);
static_assert(four_bits.bin_number(MiB + 1) == 321);
static_assert(four_bits.alloc_size(321) == MiB + 64 * KiB);
static_assert(four_bits.bin_count() == 1024);

TEST(Bins, ZeroAndOneShareTheFirstBin) {
    for (unsigned bits = 0; bits <= bin_layout::max_leading_bits; ++bits) {
        const bin_layout layout(bits);
        EXPECT_EQ(layout.bin_number(0), 0u);
        EXPECT_EQ(layout.bin_number(1), 0u);
        EXPECT_EQ(layout.alloc_size(0), 1u);
        EXPECT_TRUE(layout.is_bin(0));
    }
}

// Walks every bin of every layout: the valid bins, in order, have strictly growing sizes,
// and every size between two neighbours lands in the upper one.
TEST(Bins, EverySizeClassOfEveryLayout) {
    for (unsigned bits = 0; bits <= bin_layout::max_leading_bits; ++bits) {
        const bin_layout layout(bits);
        std::size_t previous_size = 0, previous_bin = 0;
        std::vector<std::size_t> bins_per_exponent(64, 0);
        for (std::size_t bin = 0; bin < layout.bin_count(); ++bin) {
            if (!layout.is_bin(bin))
                continue;
            ++bins_per_exponent[bin >> bits];
            const std::size_t size = layout.alloc_size(bin);
            ASSERT_GT(size, previous_size) << "bits " << bits << " bin " << bin;
            EXPECT_EQ(layout.bin_number(size), bin);
            EXPECT_EQ(layout.bin_number(previous_size + 1), bin);
            if (previous_size > 0) {
                EXPECT_EQ(layout.bin_number(previous_size), previous_bin);
            }
            previous_size = size;
            previous_bin = bin;
        }
        // Exponent e holds 2^min(e, bits) bins: small sizes are exact, larger ones keep `bits` bits.
        for (unsigned exponent = 0; exponent < 64; ++exponent)
            EXPECT_EQ(bins_per_exponent[exponent], std::size_t{1} << std::min(exponent, bits))
                << "bits " << bits << " exponent " << exponent;
        EXPECT_EQ(previous_size, layout.max_size());
        EXPECT_EQ(layout.bin_number(layout.max_size()), layout.bin_count() - 1);
        EXPECT_FALSE(layout.is_bin(layout.bin_count()));
    }
}

TEST(Bins, SmallSizesAreExact) {
    for (unsigned bits = 0; bits <= bin_layout::max_leading_bits; ++bits) {
        const bin_layout layout(bits);
        for (std::size_t size = 1; size < (std::size_t{2} << bits); ++size)
            EXPECT_EQ(layout.alloc_size(layout.bin_number(size)), size) << "bits " << bits;
    }
}

// Rounding up wastes less than 1 / 2^bits of the request, and never rounds down.
TEST(Bins, RoundingWastesLessThanOneOverTwoToTheBits) {
    std::mt19937_64 random(7);
    for (unsigned bits = 0; bits <= bin_layout::max_leading_bits; ++bits) {
        const bin_layout layout(bits);
        for (int i = 0; i < 20000; ++i) {
            const unsigned exponent = static_cast<unsigned>(random() % 63);
            const std::size_t size = (random() & ((std::size_t{2} << exponent) - 1)) | 1;
            const std::size_t block = layout.alloc_size(layout.bin_number(size));
            ASSERT_GE(block, size);
            ASSERT_LT(block - size, std::max<std::size_t>(size >> bits, 1)) << "bits " << bits << " size " << size;
        }
    }
}

TEST(Bins, HugeSizes) {
    const bin_layout layout(4);
    EXPECT_EQ(layout.alloc_size(layout.bin_number(4 * GiB)), 4 * GiB);
    EXPECT_EQ(layout.alloc_size(layout.bin_number(4 * GiB + 1)), 4 * GiB + 256 * MiB);
    EXPECT_EQ(layout.bin_number(4 * GiB), 32u * 16u);
    EXPECT_EQ(layout.alloc_size(layout.bin_number(std::size_t{1} << 63)), std::size_t{1} << 63);
    EXPECT_EQ(layout.max_size(), std::numeric_limits<std::size_t>::max() - ((std::size_t{1} << 59) - 1));
    EXPECT_EQ(layout.bin_number(layout.max_size() - 1), layout.bin_count() - 1);
}

}  // namespace
