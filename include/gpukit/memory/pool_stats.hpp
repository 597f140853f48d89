// What a memory pool reports about itself: a snapshot of its counters, and the events a
// trace hook receives. Kept apart from the pool so tools that only read statistics need not
// see the pool template.
#pragma once

#include <cstddef>

namespace gpukit::memory {

// A consistent snapshot, taken under the pool's lock.
struct pool_stats {
    std::size_t hits = 0;                   // allocations served from a held block
    std::size_t misses = 0;                 // allocations that found their bin empty
    std::size_t allocator_allocations = 0;  // blocks the allocator handed out
    std::size_t allocator_failures = 0;     // memory_errors the allocator raised
    std::size_t releases = 0;               // blocks handed back to the allocator
    std::size_t held_blocks = 0;            // free blocks kept for reuse
    std::size_t active_blocks = 0;          // blocks the application is using
    std::size_t held_bytes = 0;             // block sizes of the held blocks
    std::size_t active_bytes = 0;           // sizes the application asked for, of the active blocks
    std::size_t managed_bytes = 0;          // block sizes of held and active blocks together

    // Equal when every counter is equal.
    bool operator==(const pool_stats&) const = default;
};

// What happened in a pool_event.
enum class pool_event_kind {
    hit,            // allocate reused a held block
    miss,           // allocate got a new block from the allocator
    hold,           // a freed block was kept for reuse
    release,        // a block went back to the allocator (free, free_held, the cap, out-of-memory)
    out_of_memory,  // the allocator raised memory_error; the pool releases a held block and
                    // retries, or gives up when it holds none
};

// One thing that happened in a pool, as the trace hook receives it.
struct pool_event {
    pool_event_kind kind;    // what happened
    std::size_t size;        // bytes the application asked for; the block size for release
    std::size_t block_size;  // size of the block (the bin's alloc_size)
};

// Called after the pool has dropped its lock, on the thread that caused the event. It must
// not throw; it may call back into the pool.
using pool_trace_hook = void (*)(void* user_data, const pool_event& event) noexcept;

}  // namespace gpukit::memory
