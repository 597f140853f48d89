// The default memory pool of each context: where arrays made without an allocator take
// their memory, so that temporaries reuse freed blocks instead of calling cuMemAlloc and
// cuMemFree (which synchronizes) every time.
//
// The pool is a context cache (context_cache.hpp): the context owns it and frees what it
// holds when the context goes; the pool never keeps its context alive. Each block handed
// out holds the context, so the pool outlives every block.
#pragma once

#include "gpukit/cuda/allocators.hpp"
#include "gpukit/memory/pool.hpp"

#include <cstddef>
#include <utility>

namespace gpukit::cuda {

// A memory pool of device memory in one context (memory/pool.hpp).
using device_memory_pool = memory::memory_pool<device_allocator>;

// Device memory from a pool, with the context it belongs to. The block always goes back to
// its pool before the context is let go (the pool may belong to the context).
struct pooled_device_memory {
    context_state_ptr context;  // declared first: destroyed after the block
    // The memory; it goes back to its pool when destroyed.
    memory::pooled_allocation<device_allocator> block;

    // Holds nothing.
    pooled_device_memory() noexcept = default;
    // Takes `b`, a block of a pool in the context `ctx`, and holds `ctx`.
    pooled_device_memory(context_state_ptr ctx, memory::pooled_allocation<device_allocator> b) noexcept
        : context(std::move(ctx)), block(std::move(b)) {}
    // Takes over the other object's block and context, leaving it empty.
    pooled_device_memory(pooled_device_memory&&) noexcept = default;
    // Gives this object's block back to its pool, then takes over `other`'s block and context.
    pooled_device_memory& operator=(pooled_device_memory&& other) noexcept {
        // Frees this object's block while its context is still held.
        block = std::move(other.block);
        context = std::move(other.context);
        return *this;
    }
};

// `bytes` from the default pool of the current context: logic_error when no context is
// current, memory_error when the device is out of memory even after the pool released the
// blocks it held.
pooled_device_memory allocate_from_default_pool(std::size_t bytes);

// Drops the default pool of every live context: the blocks they hold are freed, blocks
// still in use go back to the device when freed. New pools are made when next needed.
void release_default_pools() noexcept;

}  // namespace gpukit::cuda
