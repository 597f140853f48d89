// The memory pool over real CUDA device memory, with out-of-memory injected through the
// driver table: the pool must release held blocks and retry before giving up.
#include "gpu_test.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/allocators.hpp"
#include "gpukit/cuda/default_pool.hpp"
#include "gpukit/memory/pool.hpp"

#include <atomic>

namespace {

using gpukit::cuda::device_allocator;
using pool = gpukit::memory::memory_pool<device_allocator>;
using CudaPool = gpukit::testing::gpu_test;

// A fake device of `budget` live allocations in front of the real cuMemAlloc.
std::atomic<int> live_allocations{0};
int budget = 0;
decltype(gpukit::cuda::driver_api::cuMemAlloc) real_alloc = nullptr;
decltype(gpukit::cuda::driver_api::cuMemFree) real_free = nullptr;

CUresult limited_alloc(CUdeviceptr* p, std::size_t bytes) {
    if (live_allocations.load() >= budget)
        return CUDA_ERROR_OUT_OF_MEMORY;
    const CUresult r = real_alloc(p, bytes);
    if (r == CUDA_SUCCESS)
        ++live_allocations;
    return r;
}
CUresult counted_free(CUdeviceptr p) {
    const CUresult r = real_free(p);
    if (r == CUDA_SUCCESS)
        --live_allocations;
    return r;
}

TEST_F(CudaPool, ReusesBlocksOfTheSameBin) {
    pool p(device_allocator::for_current_context());
    CUdeviceptr first = 0;
    {
        auto a = p.allocate(1 << 20);
        first = a.pointer();
        EXPECT_EQ(p.active_blocks(), 1u);
    }
    EXPECT_EQ(p.held_blocks(), 1u);
    auto b = p.allocate((1 << 20) + 1000);  // the same bin: 1 MiB up to 1 MiB + 64 KiB - 1
    EXPECT_EQ(b.pointer(), first);
    EXPECT_EQ(p.stats().hits, 1u);
    const CUdeviceptr raw = p.allocate_raw(1 << 20);
    p.free_raw(raw, 1 << 20);
    EXPECT_THROW(p.free_raw(raw, 1 << 20), gpukit::logic_error);  // already back in the pool
}

TEST_F(CudaPool, OutOfMemoryReleasesHeldBlocksAndRetries) {
    auto& table = gpukit::cuda::mutable_api();
    real_alloc = table.cuMemAlloc;
    real_free = table.cuMemFree;
    live_allocations = 0;
    budget = 2;
    gpukit::cuda::api_override alloc(table.cuMemAlloc, &limited_alloc);
    gpukit::cuda::api_override free(table.cuMemFree, &counted_free);
    {
        pool p(device_allocator::for_current_context());
        { auto a = p.allocate(1 << 20), b = p.allocate(1 << 21); }  // both held now
        EXPECT_EQ(p.held_blocks(), 2u);
        auto c = p.allocate(1 << 22);  // no budget left: a held block must go first
        EXPECT_EQ(p.stats().allocator_failures, 1u);
        EXPECT_EQ(p.held_blocks(), 1u);
        auto d = p.allocate(1 << 23);  // releases the last held block
        EXPECT_EQ(p.held_blocks(), 0u);
        EXPECT_THROW(p.allocate(1 << 24), gpukit::memory_error);  // nothing left to release
        EXPECT_EQ(p.active_blocks(), 2u);
    }
    EXPECT_EQ(live_allocations.load(), 0);  // the pool gave everything back
}

}  // namespace

namespace {

using gpukit::cuda::allocate_from_default_pool;

// The default pool belongs to its context: its blocks hold the context, the pool does not.
TEST_F(CudaPool, DefaultPoolBlocksHoldTheContextThePoolDoesNot) {
    std::weak_ptr<gpukit::cuda::detail::context_state> watch;
    gpukit::cuda::pooled_device_memory block;
    {
        gpukit::cuda::context other = gpukit::cuda::device::get(0).make_context();  // current from here
        block = allocate_from_default_pool(1 << 20);
        ASSERT_NE(block.block.pointer(), 0u);
        watch = other.state();
        other.detach();  // the test's own context is current again
    }
    EXPECT_FALSE(watch.expired());  // the block still needs it
    block = {};
    EXPECT_TRUE(watch.expired());
}

TEST_F(CudaPool, DefaultPoolReusesFreedBlocksAndReleaseFreesThem) {
    CUdeviceptr first = 0;
    {
        auto block = allocate_from_default_pool(1000);
        first = block.block.pointer();
    }
    EXPECT_EQ(allocate_from_default_pool(1000).block.pointer(), first);
    auto kept = allocate_from_default_pool(4096);
    gpukit::cuda::release_default_pools();  // a block still out stays valid and goes back later
    EXPECT_EQ(gpukit::cuda::api().cuMemsetD8(kept.block.pointer(), 0, 4096), CUDA_SUCCESS);
    kept = {};
    EXPECT_NE(allocate_from_default_pool(1000).block.pointer(), 0u);
}

}  // namespace
