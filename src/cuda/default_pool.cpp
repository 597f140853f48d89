#include "gpukit/cuda/default_pool.hpp"

#include "gpukit/cuda/context_cache.hpp"

namespace gpukit::cuda {
namespace {

// The context cache: a pool whose allocator borrows the context it belongs to.
struct default_pool {
    explicit default_pool(detail::context_state& state) : pool(device_allocator(borrowed(state))) {}
    device_memory_pool pool;
};

}  // namespace

pooled_device_memory allocate_from_default_pool(std::size_t bytes) {
    const context ctx = context::current_or_throw("the default memory pool");
    const std::shared_ptr<default_pool> cache = context_cache<default_pool>(*ctx.state());
    return pooled_device_memory{ctx.state(), cache->pool.allocate(bytes)};
}

void release_default_pools() noexcept { clear_context_cache<default_pool>(); }

}  // namespace gpukit::cuda
