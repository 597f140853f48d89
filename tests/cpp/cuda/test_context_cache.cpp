// Context caches without a device: a borrowed context state (which releases nothing of
// its own) stands in for a real context.
#include "gpukit/cuda/context_cache.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace {

using namespace gpukit::cuda;

struct counts {
    int made = 0;
    int destroyed = 0;
};
counts pool_counts, kernel_counts;

// Two cache types that count their lives and keep a borrowed pointer to their context,
// as real caches do.
struct fake_pool {
    explicit fake_pool(detail::context_state& s) : owner(borrowed(s)) { ++pool_counts.made; }
    ~fake_pool() { ++pool_counts.destroyed; }
    context_state_ptr owner;
};
struct fake_kernels {
    // Made while another cache of the same context is looked up: the lookup must not
    // hold a lock the nested one needs.
    explicit fake_kernels(detail::context_state& s) : pool(context_cache<fake_pool>(s)) { ++kernel_counts.made; }
    ~fake_kernels() { ++kernel_counts.destroyed; }
    std::shared_ptr<fake_pool> pool;
};

context_state_ptr counted_fake_context() {
    pool_counts = kernel_counts = {};
    return std::make_shared<detail::context_state>(nullptr, 0, detail::context_state::ownership::borrowed);
}

TEST(ContextCache, OneCachePerTypeMadeOnFirstUse) {
    const context_state_ptr state = counted_fake_context();
    const auto a = context_cache<fake_pool>(*state);
    const auto b = context_cache<fake_pool>(*state);
    EXPECT_EQ(a, b);
    EXPECT_EQ(pool_counts.made, 1);
    EXPECT_EQ(a->owner.get(), state.get());
}

TEST(ContextCache, BorrowedPointersDoNotOwnTheContext) {
    const context_state_ptr state = counted_fake_context();
    const auto cache = context_cache<fake_kernels>(*state);  // makes a fake_pool too
    EXPECT_EQ(state.use_count(), 1);
    EXPECT_EQ(kernel_counts.made, 1);
    EXPECT_EQ(pool_counts.made, 1);
}

TEST(ContextCache, TheContextDestroysItsCaches) {
    std::weak_ptr<detail::context_state> watch;
    {
        context_state_ptr state = counted_fake_context();
        watch = state;
        context_cache<fake_kernels>(*state);
    }
    EXPECT_TRUE(watch.expired());
    EXPECT_EQ(kernel_counts.destroyed, 1);
    EXPECT_EQ(pool_counts.destroyed, 1);
}

TEST(ContextCache, DroppingOneTypeKeepsTheOthers) {
    const context_state_ptr state = counted_fake_context();
    context_cache<fake_pool>(*state);
    const auto kernels = context_cache<fake_kernels>(*state);
    detail::drop_caches(*state, &detail::cache_tag<fake_kernels>);
    EXPECT_EQ(kernel_counts.destroyed, 0);                    // still held here
    EXPECT_NE(context_cache<fake_kernels>(*state), kernels);  // a new one is made
    EXPECT_EQ(kernel_counts.made, 2);
    EXPECT_EQ(pool_counts.made, 1);  // the pool cache was kept
}

TEST(ContextCache, DroppingAllReleasesEverything) {
    const context_state_ptr state = counted_fake_context();
    context_cache<fake_kernels>(*state);
    detail::drop_caches(*state, nullptr);
    EXPECT_EQ(kernel_counts.destroyed, 1);
    EXPECT_EQ(pool_counts.destroyed, 1);
}

}  // namespace
