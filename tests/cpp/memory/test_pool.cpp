// The memory pool over the null allocator: bins, counters, raw frees, out-of-memory
// recovery, the held-bytes cap, tracing and destruction. Threads are in test_pool_threads.cpp.
#include "gpukit/memory/null_allocator.hpp"
#include "gpukit/memory/pool.hpp"

#include "byte_sizes.hpp"
#include "expect_error.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using gpukit::memory::memory_pool;
using gpukit::memory::null_allocator;
using gpukit::memory::pool_event;
using gpukit::memory::pool_event_kind;
using gpukit::memory::pool_stats;
using pool = memory_pool<null_allocator>;

using gpukit::test::GiB, gpukit::test::KiB, gpukit::test::MiB;

// The block size of the bin `size` falls into with the default four leading bits: a request
// of exactly that size wastes nothing (exact(MiB) == MiB + 64 KiB - 1).
constexpr std::size_t exact(std::size_t size) {
    constexpr gpukit::memory::bin_layout layout(4);
    return layout.alloc_size(layout.bin_number(size));
}

static_assert(gpukit::memory::allocator<null_allocator>);
static_assert(!gpukit::memory::allocator<int>);

// Not an allocator: its free may throw, and the pool relies on free never throwing.
struct throwing_free_allocator {
    using pointer_type = int;
    int allocate(std::size_t);
    void free(int, std::size_t);
};
static_assert(!gpukit::memory::allocator<throwing_free_allocator>);

// A pool over an unlimited null allocator; a test can watch the allocator's ledger through
// `allocator`, which shares it with the pool's copy, or give it a capacity before allocating.
class MemoryPool : public ::testing::Test {
protected:
    null_allocator allocator;
    pool p{allocator};
};

TEST_F(MemoryPool, ConstructionChecksLeadingBits) {
    EXPECT_EQ(pool(null_allocator{}).leading_bits_in_bin_id(), 4u);
    EXPECT_EQ(pool(null_allocator{}, 8).leading_bits_in_bin_id(), 8u);
    EXPECT_THROW(pool(null_allocator{}, 9), gpukit::logic_error);
}

TEST_F(MemoryPool, BinQueriesFollowTheLayout) {
    EXPECT_EQ(p.bin_number(0), 0u);
    EXPECT_EQ(p.bin_number(1), 0u);
    EXPECT_EQ(p.bin_number(1000), 159u);
    EXPECT_EQ(p.alloc_size(159), 1023u);
    EXPECT_EQ(p.bin_number(MiB), 320u);
    EXPECT_EQ(p.alloc_size(320), MiB + 64 * KiB - 1);
    EXPECT_EQ(p.bin_number(MiB + 64 * KiB - 1), 320u);
    EXPECT_THROW(p.alloc_size(1), gpukit::logic_error);  // exponent 0 has only mantissa 0
    EXPECT_THROW(p.alloc_size(1024), gpukit::logic_error);
}

TEST_F(MemoryPool, SizeZeroGivesAnEmptyHandleAndTouchesNothing) {
    pool::allocation empty = p.allocate(0);
    EXPECT_FALSE(empty);
    EXPECT_EQ(empty.pointer(), 0u);
    EXPECT_EQ(empty.size(), 0u);
    empty.free();
    EXPECT_EQ(p.allocate_raw(0), 0u);
    p.free_raw(0, 0);
    EXPECT_EQ(p.stats(), pool_stats{});
    EXPECT_EQ(allocator.count().allocations, 0u);
    EXPECT_THROW(p.free_raw(4096, 0), gpukit::logic_error);
}

// PyOpenCL's pools give a block even for 0 bytes: bin 0's, of 1 byte, counted as 0 active bytes.
TEST_F(MemoryPool, AllocateBlockServesSizeZeroFromBinZero) {
    pool::allocation zero = p.allocate_block(0);
    ASSERT_TRUE(zero);
    EXPECT_NE(zero.pointer(), 0u);
    EXPECT_EQ(zero.size(), 0u);
    EXPECT_EQ(zero.block_size(), 1u);
    EXPECT_EQ(p.stats(), (pool_stats{.misses = 1, .allocator_allocations = 1, .active_blocks = 1, .managed_bytes = 1}));
    const auto address = zero.pointer();
    zero.free();
    EXPECT_EQ(zero.block_size(), 0u);
    EXPECT_EQ(p.held_blocks(), 1u);
    pool::allocation one = p.allocate_block(1);  // the same bin
    EXPECT_EQ(one.pointer(), address);
    EXPECT_EQ(p.allocate_block(1000).block_size(), 1023u);
    one.free();
    EXPECT_EQ(allocator.count().invalid_frees, 0u);
}

TEST_F(MemoryPool, CountersThroughAllocateFreeAndReuse) {
    pool::allocation first = p.allocate(1000);  // 0b11111'01000: a block of 0b11111'11111 = 1023
    ASSERT_TRUE(first);
    EXPECT_NE(first.pointer(), 0u);
    EXPECT_EQ(first.size(), 1000u);
    EXPECT_EQ(p.stats(), (pool_stats{.misses = 1,
                                     .allocator_allocations = 1,
                                     .active_blocks = 1,
                                     .active_bytes = 1000,
                                     .managed_bytes = 1023}));
    EXPECT_EQ(allocator.count().live_bytes, 1023u);

    const null_allocator::pointer_type address = first.pointer();
    first.free();
    EXPECT_FALSE(first);
    first.free();  // freeing an empty handle does nothing
    EXPECT_EQ(p.stats(), (pool_stats{.misses = 1,
                                     .allocator_allocations = 1,
                                     .held_blocks = 1,
                                     .held_bytes = 1023,
                                     .managed_bytes = 1023}));

    pool::allocation again = p.allocate(1010);  // same bin: the held block comes back
    EXPECT_EQ(again.pointer(), address);
    EXPECT_EQ(p.active_bytes(), 1010u);
    EXPECT_EQ(p.held_blocks(), 0u);

    pool::allocation other_bin = p.allocate(1100);  // 0b10001'001100: a block of 0b10001'111111 = 1151
    EXPECT_NE(other_bin.pointer(), address);

    const pool_stats s = p.stats();
    EXPECT_EQ(s.hits, 1u);
    EXPECT_EQ(s.misses, 2u);
    EXPECT_EQ(s.allocator_allocations, 2u);
    EXPECT_EQ(s.releases, 0u);
    EXPECT_EQ(s.managed_bytes, 1023u + 1151u);
    EXPECT_EQ(allocator.count().allocations, 2u);
}

TEST_F(MemoryPool, HandlesMoveAndFreeOnce) {
    pool::allocation a = p.allocate(MiB);
    const auto address = a.pointer();
    pool::allocation b = std::move(a);
    EXPECT_FALSE(a);
    EXPECT_EQ(b.pointer(), address);
    EXPECT_EQ(b.size(), MiB);
    pool::allocation c = p.allocate(2 * MiB);
    c = std::move(b);  // c's 2 MiB block goes back to the pool
    EXPECT_EQ(c.pointer(), address);
    EXPECT_EQ(p.active_blocks(), 1u);
    EXPECT_EQ(p.held_blocks(), 1u);
    c = pool::allocation{};
    EXPECT_EQ(p.active_blocks(), 0u);
    EXPECT_EQ(p.held_blocks(), 2u);
    EXPECT_EQ(allocator.count().invalid_frees, 0u);
}

TEST_F(MemoryPool, FreeHeldAndStopHolding) {
    { pool::allocation a = p.allocate(MiB), b = p.allocate(MiB), c = p.allocate(3 * KiB); }
    EXPECT_EQ(p.held_blocks(), 3u);
    p.free_held();
    EXPECT_EQ(p.held_blocks(), 0u);
    EXPECT_EQ(p.managed_bytes(), 0u);
    EXPECT_EQ(p.stats().releases, 3u);
    EXPECT_EQ(allocator.count().live_blocks, 0u);

    pool::allocation kept = p.allocate(MiB);
    { pool::allocation held = p.allocate(MiB); }
    EXPECT_EQ(p.held_blocks(), 1u);
    p.stop_holding();  // releases what is held
    EXPECT_EQ(p.held_blocks(), 0u);
    EXPECT_EQ(allocator.count().live_blocks, 1u);

    // Allocation still works after stop_holding, but nothing is kept for reuse.
    for (int i = 0; i < 3; ++i) {
        pool::allocation a = p.allocate(MiB);
        EXPECT_TRUE(a);
    }
    kept.free();
    EXPECT_EQ(p.held_blocks(), 0u);
    EXPECT_EQ(p.active_blocks(), 0u);
    EXPECT_EQ(p.managed_bytes(), 0u);
    EXPECT_EQ(allocator.count().live_blocks, 0u);
    EXPECT_EQ(allocator.count().allocations, 3u + 2u + 3u);  // first round, kept and held, after stop
    EXPECT_EQ(p.stats().hits, 0u);
}

TEST_F(MemoryPool, RawDoubleFreeIsALogicErrorAndChangesNothing) {
    const auto a = p.allocate_raw(MiB);
    const auto b = p.allocate_raw(MiB);
    p.free_raw(a, MiB);
    const pool_stats before = p.stats();
    // a is held in its bin while b is still active.
    gpukit::test::expect_logic_error([&] { p.free_raw(a, MiB); }, "double free");
    EXPECT_EQ(p.stats(), before);

    p.free_raw(b, MiB);
    EXPECT_THROW(p.free_raw(b, MiB), gpukit::logic_error);      // no active block in the bin
    EXPECT_THROW(p.free_raw(b, 3 * MiB), gpukit::logic_error);  // a size it never allocated
    EXPECT_THROW(p.free_raw(b, std::numeric_limits<std::size_t>::max()), gpukit::logic_error);
    EXPECT_EQ(p.held_blocks(), 2u);
    EXPECT_EQ(p.active_blocks(), 0u);

    p.stop_holding();
    const auto c = p.allocate_raw(MiB);
    p.free_raw(c, MiB);  // released to the allocator at once
    EXPECT_THROW(p.free_raw(c, MiB), gpukit::logic_error);
    EXPECT_EQ(allocator.count().invalid_frees, 0u);
    EXPECT_EQ(allocator.count().live_blocks, 0u);
}

TEST_F(MemoryPool, OutOfMemoryReleasesHeldBlocksLargestFirstAndRetries) {
    // Room for two blocks of exact(1.5 MiB), not for those and the small one.
    allocator.set_capacity(2 * exact(MiB + MiB / 2));
    { pool::allocation big = p.allocate(exact(2 * MiB)), small = p.allocate(exact(256 * KiB)); }
    EXPECT_EQ(p.held_bytes(), exact(2 * MiB) + exact(256 * KiB));
    // 1.5 MiB fits once the 2 MiB block is released; the small block stays held.
    pool::allocation a = p.allocate(exact(MiB + MiB / 2));
    EXPECT_TRUE(a);
    EXPECT_EQ(p.held_blocks(), 1u);
    EXPECT_EQ(p.held_bytes(), exact(256 * KiB));
    EXPECT_EQ(p.stats().allocator_failures, 1u);
    EXPECT_EQ(p.stats().releases, 1u);

    // 1.5 MiB more needs the small block released too, after one more failure.
    pool::allocation b = p.allocate(exact(MiB + MiB / 2));
    EXPECT_TRUE(b);
    EXPECT_EQ(p.held_blocks(), 0u);
    EXPECT_EQ(p.stats().allocator_failures, 2u);
    EXPECT_EQ(p.stats().releases, 2u);
    EXPECT_EQ(p.managed_bytes(), 2 * exact(MiB + MiB / 2));
}

TEST_F(MemoryPool, OutOfMemoryWithNothingHeldRaisesMemoryError) {
    allocator.set_capacity(MiB);
    pool::allocation a = p.allocate(512 * KiB);
    const pool_stats before = p.stats();
    try {
        (void)p.allocate(MiB);
        FAIL() << "allocation beyond capacity succeeded";
    } catch (const gpukit::memory_error& e) {
        EXPECT_NE(std::string(e.what()).find("no held blocks"), std::string::npos) << e.what();
        EXPECT_EQ(e.routine(), "null_allocator::allocate");  // the allocator's error is kept
    }
    pool_stats after = p.stats();
    EXPECT_EQ(after.allocator_failures, 1u);
    EXPECT_EQ(after.misses, before.misses + 1);
    after.allocator_failures = before.allocator_failures;
    after.misses = before.misses;
    EXPECT_EQ(after, before);
    EXPECT_THROW((void)p.allocate(std::numeric_limits<std::size_t>::max()), gpukit::memory_error);
}

// An allocator whose failures are not out-of-memory: the pool must not retry them.
struct failing_allocator {
    using pointer_type = int;
    int* calls;
    int allocate(std::size_t) {
        ++*calls;
        throw std::runtime_error("device lost");
    }
    void free(int, std::size_t) noexcept {}
};

TEST_F(MemoryPool, OtherAllocatorErrorsPassThroughWithoutRetry) {
    int calls = 0;
    memory_pool<failing_allocator> failing(failing_allocator{&calls});
    EXPECT_THROW((void)failing.allocate(100), std::runtime_error);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(failing.stats().allocator_failures, 0u);
    EXPECT_EQ(failing.active_blocks(), 0u);
}

TEST_F(MemoryPool, HeldBytesCap) {
    EXPECT_EQ(p.max_held_bytes(), std::nullopt);
    const std::size_t mib = exact(MiB), four_kib = exact(4 * KiB);
    p.set_max_held_bytes(mib + mib / 2);
    EXPECT_EQ(p.max_held_bytes(), mib + mib / 2);
    { pool::allocation a = p.allocate(mib), b = p.allocate(mib); }
    EXPECT_EQ(p.held_blocks(), 1u);  // the second would exceed the cap
    EXPECT_EQ(allocator.count().live_blocks, 1u);

    p.set_max_held_bytes(std::nullopt);
    { pool::allocation a = p.allocate(mib), b = p.allocate(mib), c = p.allocate(four_kib); }
    EXPECT_EQ(p.held_blocks(), 3u);
    p.set_max_held_bytes(mib + four_kib);  // lowering releases, largest first
    EXPECT_EQ(p.held_blocks(), 2u);
    EXPECT_EQ(p.held_bytes(), mib + four_kib);
    p.set_max_held_bytes(0);
    EXPECT_EQ(p.held_blocks(), 0u);
    EXPECT_EQ(allocator.count().live_blocks, 0u);
}

std::vector<pool_event> recorded;
void record(void*, const pool_event& event) noexcept { recorded.push_back(event); }

TEST_F(MemoryPool, TraceHookSeesEveryEvent) {
    recorded.clear();
    allocator.set_capacity(exact(2 * MiB));
    p.set_trace_hook(&record);
    { pool::allocation a = p.allocate(1000); }
    { pool::allocation a = p.allocate(1000); }
    pool::allocation big = p.allocate(exact(2 * MiB));  // fails once, releases the held 1023-byte block
    p.stop_holding();
    big.free();
    p.set_trace_hook(nullptr);
    { pool::allocation a = p.allocate(1000); }

    const std::vector<std::pair<pool_event_kind, std::size_t>> expected{{pool_event_kind::miss, 1000},
                                                                        {pool_event_kind::hold, 1000},
                                                                        {pool_event_kind::hit, 1000},
                                                                        {pool_event_kind::hold, 1000},
                                                                        {pool_event_kind::out_of_memory,
                                                                         exact(2 * MiB)},
                                                                        {pool_event_kind::release, 1023},
                                                                        {pool_event_kind::miss, exact(2 * MiB)},
                                                                        {pool_event_kind::release, exact(2 * MiB)}};
    ASSERT_EQ(recorded.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(recorded[i].kind, expected[i].first) << "event " << i;
        EXPECT_EQ(recorded[i].size, expected[i].second) << "event " << i;
    }
    EXPECT_EQ(recorded[0].block_size, 1023u);
}

TEST_F(MemoryPool, DestroyingThePoolReleasesHeldBlocksAndOutlivingHandlesStillWork) {
    std::optional<pool> destroyed(std::in_place, allocator);
    pool::allocation active = destroyed->allocate(MiB);
    { pool::allocation held = destroyed->allocate(2 * MiB); }
    const auto raw = destroyed->allocate_raw(KiB);
    destroyed->free_raw(raw, KiB);
    EXPECT_EQ(allocator.count().live_blocks, 3u);
    destroyed.reset();
    EXPECT_EQ(allocator.count().live_blocks, 1u);  // only the active block is left
    EXPECT_TRUE(active);
    active.free();  // goes straight to the allocator: no pool holds it any more
    EXPECT_EQ(allocator.count().live_blocks, 0u);
    EXPECT_EQ(allocator.count().invalid_frees, 0u);
}

TEST_F(MemoryPool, LastHandleOutlivesAMovedPool) {
    pool::allocation survivor;
    {
        pool first(allocator);
        pool second = std::move(first);
        survivor = second.allocate(100);
        pool third(null_allocator{});
        third = std::move(second);
        EXPECT_EQ(third.active_blocks(), 1u);
    }
    survivor = pool::allocation{};
    EXPECT_EQ(allocator.count().live_blocks, 0u);
    EXPECT_EQ(allocator.count().invalid_frees, 0u);
}

TEST_F(MemoryPool, HugeSizes) {
    pool::allocation four = p.allocate(4 * GiB);
    pool::allocation over_four = p.allocate(4 * GiB + 1);
    pool::allocation tera = p.allocate(std::size_t{1} << 40);
    // 4 GiB and 4 GiB + 1 share a bin of blocks of 4 GiB + 256 MiB - 1; 2^40 rounds to
    // 2^40 + 2^36 - 1.
    const std::size_t four_gib_block = 4 * GiB + 256 * MiB - 1;
    EXPECT_EQ(p.managed_bytes(), 2 * four_gib_block + (std::size_t{1} << 40) + (std::size_t{1} << 36) - 1);
    EXPECT_EQ(p.active_bytes(), 8 * GiB + 1 + (std::size_t{1} << 40));
    four.free();
    pool::allocation again = p.allocate(four_gib_block);  // same bin as 4 GiB
    EXPECT_EQ(p.stats().hits, 1u);
    again.free();
    over_four.free();
    tera.free();
    p.free_held();
    // The last bin holds SIZE_MAX bytes.
    pool::allocation largest = p.allocate(std::numeric_limits<std::size_t>::max());
    EXPECT_EQ(largest.size(), std::numeric_limits<std::size_t>::max());
    EXPECT_EQ(p.managed_bytes(), std::numeric_limits<std::size_t>::max());
}

// Not a timing: a long run of bin hits, so the sanitizers see the hot path many times over.
TEST_F(MemoryPool, HotPathLoop) {
    constexpr int pairs = 100000;
    for (int i = 0; i < pairs; ++i) {
        pool::allocation a = p.allocate(MiB);
        ASSERT_TRUE(a);
    }
    EXPECT_EQ(p.stats().hits, pairs - 1u);
    EXPECT_EQ(allocator.count().allocations, 1u);
    for (int i = 0; i < pairs; ++i)
        p.free_raw(p.allocate_raw(MiB), MiB);
    EXPECT_EQ(p.stats().hits, 2u * pairs - 1u);
}

}  // namespace
