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

namespace gpukit::cuda {

using device_memory_pool = memory::memory_pool<device_allocator>;

// Device memory from a pool, with the context it belongs to.
struct pooled_device_memory {
    context_state_ptr context;  // declared first, so the block goes back before it is let go
    memory::pooled_allocation<device_allocator> block;
};

// `bytes` from the default pool of the current context: logic_error when no context is
// current, memory_error when the device is out of memory even after the pool released the
// blocks it held.
pooled_device_memory allocate_from_default_pool(std::size_t bytes);

// Drops the default pool of every live context: the blocks they hold are freed, blocks
// still in use go back to the device when freed. New pools are made when next needed.
void release_default_pools() noexcept;

}  // namespace gpukit::cuda
