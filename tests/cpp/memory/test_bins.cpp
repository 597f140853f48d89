#include "gpukit/memory/bins.hpp"

#include "byte_sizes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using gpukit::memory::bin_layout;

using gpukit::test::GiB, gpukit::test::KiB, gpukit::test::MiB;

// The worked example of docs/memory-pool.md and the values PyOpenCL's documented scheme gives
// (the largest size sharing the request's leading bits), checked at compile time.
constexpr bin_layout four_bits(4);
static_assert(four_bits.bin_number(1000) == 9 * 16 + 15);
static_assert(four_bits.alloc_size(159) == 1023);
static_assert(four_bits.bin_number(4096) == 12 * 16 + 0);
static_assert(four_bits.alloc_size(192) == 4351);
static_assert(four_bits.bin_number(1 * MiB) == 20 * 16 + 0);
static_assert(four_bits.alloc_size(320) == MiB + 64 * KiB - 1);
static_assert(four_bits.bin_number(MiB + 1) == 320);
static_assert(four_bits.bin_number(MiB + 64 * KiB) == 321);
static_assert(four_bits.bin_number(MiB + MiB / 2) == 20 * 16 + 8);
static_assert(four_bits.alloc_size(328) == MiB + MiB / 2 + 64 * KiB - 1);
static_assert(four_bits.bin_count() == 1024);

// Exact values of PyOpenCL 2026.1's MemoryPool (bin_number, alloc_size) with the default four
// leading bits, and with 0, 2 and 8 for 1000 bytes.
TEST(Bins, ExactValuesOfTheDocumentedScheme) {
    struct row {
        std::size_t size, bin, alloc;
    };
    const row rows[] = {{0, 0, 1},         {1, 0, 1},          {2, 16, 2},        {3, 24, 3},        {15, 62, 15},
                        {16, 64, 16},      {17, 65, 17},       {31, 79, 31},      {32, 80, 33},      {33, 80, 33},
                        {1000, 159, 1023}, {1023, 159, 1023},  {1024, 160, 1087}, {4096, 192, 4351}, {4351, 192, 4351},
                        {4352, 193, 4607}, {MiB, 320, 1114111}};
    for (const row& r : rows) {
        EXPECT_EQ(four_bits.bin_number(r.size), r.bin) << r.size;
        EXPECT_EQ(four_bits.alloc_size(r.bin), r.alloc) << r.size;
    }
    EXPECT_EQ(bin_layout(0).bin_number(1000), 9u);
    EXPECT_EQ(bin_layout(0).alloc_size(9), 1023u);
    EXPECT_EQ(bin_layout(2).bin_number(1000), 39u);
    EXPECT_EQ(bin_layout(8).bin_number(1000), 2548u);
    EXPECT_EQ(bin_layout(8).alloc_size(2548), 1001u);
}

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
        EXPECT_EQ(previous_size, std::numeric_limits<std::size_t>::max());
        EXPECT_EQ(previous_bin, layout.bin_count() - 1);
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
    EXPECT_EQ(layout.bin_number(4 * GiB), 32u * 16u);
    EXPECT_EQ(layout.alloc_size(layout.bin_number(4 * GiB)), 4 * GiB + 256 * MiB - 1);
    EXPECT_EQ(layout.bin_number(4 * GiB + 256 * MiB), 32u * 16u + 1u);
    EXPECT_EQ(layout.alloc_size(layout.bin_number(std::size_t{1} << 63)),
              (std::size_t{1} << 63) + (std::size_t{1} << 59) - 1);
    // Every size has a bin: the largest holds SIZE_MAX.
    const std::size_t largest = std::numeric_limits<std::size_t>::max();
    EXPECT_EQ(layout.bin_number(largest), layout.bin_count() - 1);
    EXPECT_EQ(layout.alloc_size(layout.bin_count() - 1), largest);
}

}  // namespace
