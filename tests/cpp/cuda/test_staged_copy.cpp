// Pipelined copies through page-locked staging buffers, on random data at sizes and offsets
// that exercise the tail pieces, compared byte for byte.
#include "gpu_test.hpp"
#include "random_data.hpp"

#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/host_memory.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/staged_copy.hpp"

#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace {

using namespace gpukit::cuda;
using gpukit::testing::random_bytes;
using StagedCopy = gpukit::testing::gpu_test;

constexpr std::size_t MiB = std::size_t{1} << 20;

TEST_F(StagedCopy, PageableIsStagedPageLockedIsNot) {
    std::vector<std::uint8_t> pageable(2 * MiB);
    EXPECT_FALSE(is_driver_memory(pageable.data()));
    EXPECT_TRUE(should_stage(pageable.data(), pageable.size()));
    EXPECT_FALSE(should_stage(pageable.data(), staged_copy_min_bytes - 1));
    auto pinned = pagelocked_host_allocation::allocate(2 * MiB, 0);
    EXPECT_TRUE(is_driver_memory(pinned.data()));
    EXPECT_FALSE(should_stage(pinned.data(), pinned.size()));
}

TEST_F(StagedCopy, RoundTripsOddSizesAndOffsets) {
    for (std::size_t n : {std::size_t{1}, std::size_t{4095}, std::size_t{4097}, MiB - 1, MiB, MiB + 1, 5 * MiB + 7,
                          33 * MiB + 3, 64 * MiB + 4093}) {
        SCOPED_TRACE(n);
        const auto host = random_bytes(n + 3, static_cast<unsigned>(n));
        device_allocation dev = device_allocation::allocate(n + 1);
        // Unaligned on both sides: host offset 3, device offset 1.
        staged_memcpy_htod(dev.get() + 1, host.data() + 3, n);
        std::vector<std::uint8_t> back(n + 5, 0xAB);
        staged_memcpy_dtoh(back.data() + 5, dev.get() + 1, n);
        EXPECT_TRUE(std::equal(host.begin() + 3, host.end(), back.begin() + 5));
        // The public copies agree with the staged ones.
        std::vector<std::uint8_t> again(n, 0);
        memcpy_dtoh(again.data(), device_pointer(dev.get() + 1), n);
        EXPECT_TRUE(std::equal(host.begin() + 3, host.end(), again.begin()));
    }
}

TEST_F(StagedCopy, ConcurrentThreadsInOneContext) {
    const std::size_t n = 20 * MiB + 11;
    std::vector<int> ok(3, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([&, t] {
            ctx->push();
            const auto host = random_bytes(n, 100 + t);
            device_allocation dev = device_allocation::allocate(n);
            memcpy_htod(dev, host.data(), n);
            std::vector<std::uint8_t> back(n);
            memcpy_dtoh(back.data(), dev, n);
            ok[t] = back == host;
            dev.free();
            gpukit::cuda::context::pop();
        });
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(ok, std::vector<int>(3, 1));
}

}  // namespace
