// parallel_memcpy against std::memcpy at sizes around its piece boundaries, from many
// threads at once.
#include "gpukit/core/parallel_memcpy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <numeric>
#include <thread>
#include <vector>

namespace {

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
    std::vector<std::uint8_t> out(n);
    std::iota(out.begin(), out.end(), seed);
    return out;
}

TEST(ParallelMemcpy, CopiesEverySize) {
    const std::size_t piece = gpukit::parallel_memcpy_min_piece;
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4097}, piece - 1, piece, 2 * piece + 3,
                          9 * piece + 4095, 33 * piece + 1}) {
        const auto src = pattern(n + 1, static_cast<std::uint8_t>(n));
        std::vector<std::uint8_t> dst(n + 2, 0xEE);
        gpukit::parallel_memcpy(dst.data() + 1, src.data() + 1, n);  // unaligned on both sides
        EXPECT_EQ(dst[0], 0xEE) << n;
        EXPECT_EQ(dst[n + 1], 0xEE) << n;
        EXPECT_TRUE(std::equal(src.begin() + 1, src.end(), dst.begin() + 1)) << n;
    }
}

TEST(ParallelMemcpy, ConcurrentCallers) {
    const std::size_t n = 5 * gpukit::parallel_memcpy_min_piece + 17;
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            const auto src = pattern(n, static_cast<std::uint8_t>(t));
            std::vector<std::uint8_t> dst(n);
            for (int repeat = 0; repeat < 5; ++repeat)
                gpukit::parallel_memcpy(dst.data(), src.data(), n);
            ok[t] = dst == src;
        });
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(ok, std::vector<int>(4, 1));
}

TEST(ParallelMemcpy, UsesAtLeastOneThread) { EXPECT_GE(gpukit::parallel_memcpy_threads(), 1u); }

}  // namespace

// The split itself, with as many pieces as a large server uses, whatever this machine has:
// sizes that do not divide evenly must still be copied to the last byte.
TEST(ParallelMemcpy, EveryPieceCountCoversEveryByte) {
    const std::size_t piece = gpukit::parallel_memcpy_min_piece;
    for (auto policy : {gpukit::store_policy::cached, gpukit::store_policy::streaming})
        for (unsigned pieces : {1u, 2u, 3u, 7u, 8u})
            for (std::size_t n : {std::size_t{1}, std::size_t{63}, std::size_t{4097}, 2 * piece + 3, 33 * piece + 1,
                                  std::size_t{8 * 4096 + 7}}) {
                const auto src = pattern(n + 1, static_cast<std::uint8_t>(n + pieces));
                std::vector<std::uint8_t> dst(n + 2, 0xEE);
                gpukit::detail::parallel_memcpy_in_pieces(dst.data() + 1, src.data() + 1, n, pieces, policy);
                const auto where = std::to_string(n) + " in " + std::to_string(pieces);
                EXPECT_EQ(dst[0], 0xEE) << where;
                EXPECT_EQ(dst[n + 1], 0xEE) << where;
                EXPECT_TRUE(std::equal(src.begin() + 1, src.end(), dst.begin() + 1)) << where;
            }
}

// Streaming stores at every destination alignment within a cache line, and source offsets
// that differ from it.
TEST(ParallelMemcpy, StreamingStoresAtEveryAlignment) {
    const auto src = pattern(4096 + 200, 7);
    for (std::size_t dst_offset = 0; dst_offset < 64; ++dst_offset)
        for (std::size_t src_offset : {std::size_t{0}, std::size_t{3}, std::size_t{17}})
            for (std::size_t n :
                 {std::size_t{0}, std::size_t{5}, std::size_t{64}, std::size_t{130}, std::size_t{4096}}) {
                std::vector<std::uint8_t> dst(n + 130, 0xEE);
                gpukit::parallel_memcpy(dst.data() + dst_offset, src.data() + src_offset, n,
                                        gpukit::store_policy::streaming);
                const auto where =
                    std::to_string(dst_offset) + "/" + std::to_string(src_offset) + "/" + std::to_string(n);
                EXPECT_TRUE(
                    std::equal(src.begin() + src_offset, src.begin() + src_offset + n, dst.begin() + dst_offset))
                    << where;
                EXPECT_TRUE(std::all_of(dst.begin(), dst.begin() + dst_offset, [](auto b) { return b == 0xEE; }))
                    << where;
                EXPECT_TRUE(std::all_of(dst.begin() + dst_offset + n, dst.end(), [](auto b) { return b == 0xEE; }))
                    << where;
            }
}
