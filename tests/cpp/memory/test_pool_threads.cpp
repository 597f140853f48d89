// The memory pool under concurrency: many threads allocating and freeing at once, blocks
// freed on another thread than the one that allocated them, and maintenance (free_held,
// the cap) racing with both. After the threads join, the counters must add up exactly.
// The pool is sharded per thread (pool_state.hpp); the ShardedPool tests force several
// shards, so stealing and cross-shard frees are exercised on any machine.
#include "gpukit/memory/detail/pool_state.hpp"
#include "gpukit/memory/null_allocator.hpp"
#include "gpukit/memory/pool.hpp"

#include "byte_sizes.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using gpukit::memory::bin_layout;
using gpukit::memory::memory_pool;
using gpukit::memory::null_allocator;
using pool = memory_pool<null_allocator>;

using state = gpukit::memory::detail::pool_state<null_allocator>;

constexpr int thread_count = 8;
using gpukit::test::MiB;
constexpr std::size_t sizes[] = {100, 1000, 4096, 65536, 1 << 20, (1 << 20) + 1, 3 << 20};

template <class Pool>
void expect_consistent(const Pool& p, const null_allocator& allocator) {
    const auto s = p.stats();
    const auto a = allocator.count();
    EXPECT_EQ(s.active_blocks, 0u);
    EXPECT_EQ(s.active_bytes, 0u);
    EXPECT_EQ(s.managed_bytes, s.held_bytes);
    EXPECT_EQ(a.live_blocks, s.held_blocks);
    EXPECT_EQ(a.live_bytes, s.held_bytes);
    EXPECT_EQ(a.allocations, s.allocator_allocations);
    EXPECT_EQ(a.frees, s.releases);
    EXPECT_EQ(a.failed_allocations, s.allocator_failures);
    EXPECT_EQ(a.invalid_frees, 0u);
}

TEST(MemoryPoolThreads, ManyThreadsAllocateAndFree) {
    null_allocator allocator;
    pool p(allocator);
    constexpr int rounds = 5000;
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t)
        threads.emplace_back([&p, t] {
            std::vector<pool::allocation> live;
            for (int i = 0; i < rounds; ++i) {
                live.push_back(p.allocate(sizes[(i + t) % std::size(sizes)]));
                if (live.size() > 4)
                    live.erase(live.begin() + (i % live.size()));
            }
        });
    for (std::thread& thread : threads)
        thread.join();
    const auto s = p.stats();
    EXPECT_EQ(s.hits + s.misses, std::size_t{thread_count} * rounds);
    EXPECT_GT(s.hits, s.misses);
    expect_consistent(p, allocator);
}

TEST(MemoryPoolThreads, BlocksFreedOnAnotherThreadReturnToTheirPool) {
    null_allocator allocator;
    pool p(allocator);
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<pool::allocation> handed_over;
    bool done = false;
    constexpr int blocks = 20000;

    std::thread consumer([&] {
        for (;;) {
            std::unique_lock lock(mutex);
            ready.wait(lock, [&] { return done || !handed_over.empty(); });
            if (handed_over.empty())
                return;
            pool::allocation block = std::move(handed_over.front());
            handed_over.pop_front();
            lock.unlock();
            block.free();
        }
    });
    for (int i = 0; i < blocks; ++i) {
        pool::allocation block = p.allocate(sizes[i % std::size(sizes)]);
        {
            std::lock_guard lock(mutex);
            handed_over.push_back(std::move(block));
        }
        ready.notify_one();
    }
    {
        std::lock_guard lock(mutex);
        done = true;
    }
    ready.notify_one();
    consumer.join();
    EXPECT_EQ(p.stats().hits + p.stats().misses, std::size_t{blocks});
    expect_consistent(p, allocator);
}

// Out-of-memory recovery runs here too: the capacity is below what the threads could hold
// together. An allocation may still fail legitimately (another thread took the last held
// block between the failure and the release), so failures are allowed; the books must
// balance either way.
TEST(MemoryPoolThreads, MaintenanceAndOutOfMemoryRaceWithAllocation) {
    null_allocator allocator(64 << 20);
    pool p(allocator);
    std::atomic<bool> stop{false};
    std::thread maintenance([&] {
        for (int i = 0; !stop.load(); ++i) {
            if (i % 3 == 0)
                p.free_held();
            else
                p.set_max_held_bytes(i % 3 == 1 ? std::optional<std::size_t>(8 << 20) : std::nullopt);
            std::this_thread::yield();
        }
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t)
        threads.emplace_back([&p, t] {
            for (int i = 0; i < 3000; ++i) {
                const std::size_t raw_size = sizes[(i * 7 + t) % std::size(sizes)];
                null_allocator::pointer_type raw = 0;
                pool::allocation handle;
                try {
                    raw = p.allocate_raw(raw_size);
                    handle = p.allocate(sizes[(i + t) % std::size(sizes)]);
                } catch (const gpukit::memory_error&) {
                    // allowed, see above
                }
                if (raw != 0)
                    p.free_raw(raw, raw_size);
            }
        });
    for (std::thread& thread : threads)
        thread.join();
    stop = true;
    maintenance.join();
    p.set_max_held_bytes(std::nullopt);
    expect_consistent(p, allocator);
}

// A pool_state with a given number of shards, orphaned (as a memory_pool would) at the end.
struct sharded_state {
    state* s;
    sharded_state(null_allocator allocator, std::size_t shards) : s(new state(allocator, 4, shards)) {}
    ~sharded_state() { s->orphan(); }
    sharded_state(const sharded_state&) = delete;
    sharded_state& operator=(const sharded_state&) = delete;
    state* operator->() const { return s; }
};

// Runs f on a new thread and waits for it; returns the shard that thread used (its first
// pool operation gives it the next slot, so consecutive threads use consecutive shards).
template <class F>
std::size_t on_new_thread(std::size_t shards, F f) {
    std::size_t shard = 0;
    std::thread([&] {
        f();
        shard = gpukit::memory::detail::pool_thread_slot() & (shards - 1);
    }).join();
    return shard;
}

TEST(MemoryPoolThreads, ABlockFreedOnOneThreadIsReusedOnAnother) {
    null_allocator allocator;
    pool p(allocator);
    std::thread([&] { p.allocate(MiB).free(); }).join();
    std::thread([&] {
        pool::allocation again = p.allocate(MiB);  // from the first thread's shard if it has another
        EXPECT_TRUE(again);
    }).join();
    EXPECT_EQ(p.stats().hits, 1u);
    EXPECT_EQ(p.stats().misses, 1u);
    EXPECT_EQ(allocator.count().allocations, 1u);
    expect_consistent(p, allocator);
}

TEST(ShardedPool, ShardCountIsAPowerOfTwo) {
    EXPECT_THROW(state(null_allocator{}, 4, 3), gpukit::logic_error);
    const std::size_t k = gpukit::memory::detail::default_pool_shard_count();
    EXPECT_GE(k, 1u);
    EXPECT_LE(k, 16u);
    EXPECT_EQ(k & (k - 1), 0u);
}

TEST(ShardedPool, AllocationStealsBlocksHeldByOtherShards) {
    constexpr std::size_t shards = 4;
    null_allocator allocator;
    sharded_state p(allocator, shards);
    std::vector<null_allocator::pointer_type> blocks;
    const std::size_t freer = on_new_thread(shards, [&] {
        for (int i = 0; i < 3; ++i)
            blocks.push_back(p->allocate(MiB, false));
        for (auto block : blocks)
            p->free_checked(block, MiB);
    });
    std::set<null_allocator::pointer_type> reused;
    const std::size_t taker = on_new_thread(shards, [&] {
        for (int i = 0; i < 3; ++i)
            reused.insert(p->allocate(MiB, false));
    });
    ASSERT_NE(freer, taker);
    EXPECT_EQ(reused, std::set<null_allocator::pointer_type>(blocks.begin(), blocks.end()));
    auto s = p->stats();
    EXPECT_EQ(s.hits, 3u);
    EXPECT_EQ(s.misses, 3u);
    EXPECT_EQ(s.held_blocks, 0u);
    EXPECT_EQ(s.active_blocks, 3u);
    EXPECT_EQ(s.active_bytes, 3 * MiB);
    EXPECT_EQ(allocator.count().allocations, 3u);

    // Freed on a third shard: the bin's active count is a sum over shards.
    const std::size_t third = on_new_thread(shards, [&] {
        for (auto block : reused)
            p->free_checked(block, MiB);
    });
    EXPECT_NE(third, taker);
    s = p->stats();
    EXPECT_EQ(s.active_blocks, 0u);
    EXPECT_EQ(s.active_bytes, 0u);
    EXPECT_EQ(s.held_blocks, 3u);
    expect_consistent(*p.s, allocator);
}

TEST(ShardedPool, RawDoubleFreesAreSeenAcrossShards) {
    constexpr std::size_t shards = 4;
    null_allocator allocator;
    sharded_state p(allocator, shards);
    null_allocator::pointer_type a = 0, b = 0;
    on_new_thread(shards, [&] {
        a = p->allocate(MiB, false);
        b = p->allocate(MiB, false);
        p->free_checked(a, MiB);  // held in this thread's shard
    });
    const auto before = p->stats();
    on_new_thread(shards, [&] {
        EXPECT_THROW(p->free_checked(a, MiB), gpukit::logic_error);  // held in another shard
        p->free_checked(b, MiB);
    });
    on_new_thread(shards, [&] {
        // b's active count went up in one shard and down in another: none is active.
        EXPECT_THROW(p->free_checked(b, MiB), gpukit::logic_error);
    });
    EXPECT_EQ(p->stats().active_blocks, 0u);
    EXPECT_EQ(p->stats().held_blocks, before.held_blocks + 1);
    EXPECT_EQ(allocator.count().invalid_frees, 0u);
}

// A pool makes its bins as sizes come (pool_state::make_bins_up_to): blocks of sizes from
// small to the largest bin, each allocated on one shard and freed on another, are all held,
// reused, and a raw free of a size no shard has a bin for yet is a clear error.
TEST(ShardedPool, BinsGrowWithTheSizesServedOnEveryShard) {
    constexpr std::size_t shards = 4;
    null_allocator allocator;
    sharded_state p(allocator, shards);
    const bin_layout layout(4);
    std::vector<std::size_t> sizes;
    for (std::size_t size = 1; size <= (std::size_t{1} << 40); size = size * 5 + 3)
        sizes.push_back(size);
    std::vector<null_allocator::pointer_type> blocks;
    on_new_thread(shards, [&] {
        EXPECT_THROW(p->free_checked(12345, 1 << 20), gpukit::logic_error);  // no bin made: none active
        for (std::size_t size : sizes)
            blocks.push_back(p->allocate(size, false));
    });
    on_new_thread(shards, [&] {
        for (std::size_t k = 0; k < sizes.size(); ++k)
            p->free_checked(blocks[k], sizes[k]);
    });
    EXPECT_EQ(p->stats().held_blocks, sizes.size());
    std::set<null_allocator::pointer_type> reused;
    on_new_thread(shards, [&] {
        for (std::size_t k = sizes.size(); k-- > 0;)  // largest first: each bin found where it is held
            reused.insert(p->allocate(sizes[k], false));
    });
    EXPECT_EQ(reused, std::set<null_allocator::pointer_type>(blocks.begin(), blocks.end()));
    EXPECT_EQ(p->stats().hits, sizes.size());
    EXPECT_EQ(allocator.count().allocations, sizes.size());
    EXPECT_LT(layout.bin_number(sizes.back()), layout.bin_count());
    for (std::size_t k = 0; k < sizes.size(); ++k)
        p->free_checked(blocks[k], sizes[k]);
    expect_consistent(*p.s, allocator);
}

TEST(ShardedPool, HeldBytesCapIsPoolWide) {
    constexpr std::size_t shards = 4;
    null_allocator allocator;
    sharded_state p(allocator, shards);
    const std::size_t mib = bin_layout(4).alloc_size(bin_layout(4).bin_number(MiB));  // allocated exactly
    p->set_max_held_bytes(2 * mib);
    std::vector<null_allocator::pointer_type> blocks;
    for (int i = 0; i < 4; ++i)
        blocks.push_back(p->allocate(mib, false));
    // Freed on four threads, one per shard: only two fit under the cap in total.
    for (auto block : blocks)
        on_new_thread(shards, [&] { p->free_checked(block, mib); });
    EXPECT_EQ(p->stats().held_bytes, 2 * mib);
    EXPECT_EQ(p->stats().releases, 2u);
    p->set_max_held_bytes(mib);  // lowering releases across shards
    EXPECT_EQ(p->stats().held_bytes, mib);
    p->set_max_held_bytes(std::nullopt);
    expect_consistent(*p.s, allocator);
}

// Many threads on few shards, blocks freed on other threads than their own, then the pool
// object goes away while handles are still out and are given back from several threads at
// once: the counters must balance, and exactly one of them deletes the state (ASan and TSan
// watch this one).
TEST(ShardedPool, ManyThreadsThenOrphanWithHandlesOut) {
    for (std::size_t shards : {1u, 2u, 4u}) {
        null_allocator allocator;
        state* p = new state(allocator, 4, shards);
        std::mutex mutex;
        std::vector<std::pair<null_allocator::pointer_type, std::size_t>> shared;  // handed between threads
        std::vector<std::thread> threads;
        for (int t = 0; t < thread_count; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 2000; ++i) {
                    const std::size_t size = sizes[(i + t) % std::size(sizes)];
                    const auto block = p->allocate(size, /*for_handle=*/true);
                    std::pair<null_allocator::pointer_type, std::size_t> other{0, 0};
                    {
                        std::lock_guard lock(mutex);
                        shared.emplace_back(block, size);
                        if (shared.size() > 16) {
                            other = shared[(i * 7 + t) % shared.size()];
                            shared.erase(shared.begin() + (i * 7 + t) % shared.size());
                        }
                    }
                    if (other.second != 0)
                        p->give_back(other.first, other.second);
                    if (i % 5 == 0)
                        p->free_checked(p->allocate(size, false), size);
                }
            });
        for (std::thread& thread : threads)
            thread.join();
        const auto s = p->stats();
        EXPECT_EQ(s.active_blocks, shared.size());
        EXPECT_EQ(s.managed_bytes, allocator.count().live_bytes);
        EXPECT_EQ(allocator.count().live_blocks, s.held_blocks + s.active_blocks);
        EXPECT_EQ(s.hits + s.misses, thread_count * (2000u + 400u));

        p->orphan();  // the handles still out keep the state alive
        EXPECT_EQ(allocator.count().live_blocks, shared.size());
        std::vector<std::thread> returners;
        for (int t = 0; t < 4; ++t)
            returners.emplace_back([&, t] {
                for (std::size_t i = t; i < shared.size(); i += 4)
                    p->give_back(shared[i].first, shared[i].second);
            });
        for (std::thread& thread : returners)
            thread.join();
        EXPECT_EQ(allocator.count().live_blocks, 0u);
        EXPECT_EQ(allocator.count().invalid_frees, 0u);
    }
}

}  // namespace
