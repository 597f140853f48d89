// gpukit's one memory pool (ARCHITECTURE.md rule 5), for every allocator: CUDA device
// memory, page-locked host memory, OpenCL buffers and SVM, and the null allocator of the
// CPU tests.
//
// Allocations are sorted into bins by size (bins.hpp). A freed block is kept in its bin and
// handed out again for the next request of that bin, so a program that allocates the same
// sizes over and over stops calling the real allocator. When the allocator runs out of
// memory the pool releases held blocks, largest first, and retries.
//
//   memory_pool pool(cuda_device_allocator{ctx});
//   pooled_allocation block = pool.allocate(1 << 20);  // returns to the pool when destroyed
//
// Thread-safe: any thread may allocate, free, or read counters at any time, and a block may
// be freed on a different thread than the one that allocated it. The pool is split into
// per-thread shards so that threads do not contend on one lock (detail/pool_state.hpp).
// docs/memory-pool.md has the user-level description.
#pragma once

#include "gpukit/memory/allocator.hpp"
#include "gpukit/memory/detail/pool_state.hpp"
#include "gpukit/memory/pool_stats.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace gpukit::memory {

template <allocator A>
class memory_pool;

// A block from a memory_pool, owned: destroying it or calling free() returns the block to
// its pool. It keeps the pool's state alive, so it may outlive the memory_pool object.
// An empty handle (default-constructed, moved from, freed, or from allocate(0)) has a
// pointer of pointer_type{} and size 0.
template <allocator A>
class pooled_allocation {
public:
    // The allocator's name for a block (a CUdeviceptr, a void*, a cl_mem, ...).
    using pointer_type = typename A::pointer_type;

    pooled_allocation() noexcept = default;
    pooled_allocation(const pooled_allocation&) = delete;
    pooled_allocation& operator=(const pooled_allocation&) = delete;

    // Takes over other's block; other becomes empty.
    pooled_allocation(pooled_allocation&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)), pointer_(std::exchange(other.pointer_, pointer_type{})),
          size_(std::exchange(other.size_, 0)) {}

    // Returns this handle's block to its pool (as free()), then takes over other's block;
    // other becomes empty. Assigning a handle to itself does nothing.
    pooled_allocation& operator=(pooled_allocation&& other) noexcept {
        if (this != &other) {
            free();
            state_ = std::exchange(other.state_, nullptr);
            pointer_ = std::exchange(other.pointer_, pointer_type{});
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }

    ~pooled_allocation() { free(); }

    // Returns the block to its pool now; the handle becomes empty. Freeing an empty handle
    // does nothing.
    void free() noexcept {
        if (!state_)
            return;
        std::exchange(state_, nullptr)->give_back(std::exchange(pointer_, pointer_type{}), std::exchange(size_, 0));
    }

    // The block; pointer_type{} for an empty handle.
    pointer_type pointer() const noexcept { return pointer_; }
    // The size that was asked for; the block itself may be larger (its bin's alloc_size).
    std::size_t size() const noexcept { return size_; }
    // The size of the block itself; 0 for an empty handle.
    std::size_t block_size() const noexcept {
        return state_ ? state_->layout().alloc_size(state_->layout().bin_number(size_)) : 0;
    }
    // Whether the handle owns a block (false when empty).
    explicit operator bool() const noexcept { return state_ != nullptr; }

private:
    friend class memory_pool<A>;

    pooled_allocation(detail::pool_state<A>* state, pointer_type pointer, std::size_t size) noexcept
        : state_(state), pointer_(pointer), size_(size) {}

    // The state outlives every handle: it counts the blocks out in handles and is deleted by
    // whichever of the pool and the last handle goes second (pool_state.hpp).
    detail::pool_state<A>* state_ = nullptr;
    pointer_type pointer_{};
    std::size_t size_ = 0;
};

// Owns a pool. Move-only; a moved-from pool may only be destroyed or assigned to.
// Destroying it stops holding: held blocks go back to the allocator at once, and blocks
// still out in pooled_allocations go back to the allocator when those are freed.
template <allocator A>
class memory_pool {
public:
    // The allocator's name for a block (a CUdeviceptr, a void*, a cl_mem, ...).
    using pointer_type = typename A::pointer_type;
    // The owning handle allocate and allocate_block return.
    using allocation = pooled_allocation<A>;

    // Throws logic_error when leading_bits_in_bin_id > bin_layout::max_leading_bits.
    explicit memory_pool(A allocator, unsigned leading_bits_in_bin_id = 4)
        : state_(new detail::pool_state<A>(std::move(allocator), leading_bits_in_bin_id)) {}

    memory_pool(const memory_pool&) = delete;
    memory_pool& operator=(const memory_pool&) = delete;
    // Takes over other's pool, with its held blocks and the handles still out; other is left
    // moved-from.
    memory_pool(memory_pool&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
    // Lets go of this pool as the destructor does, then takes over other's; other is left
    // moved-from.
    memory_pool& operator=(memory_pool&& other) noexcept {
        if (this != &other) {
            let_go();
            state_ = std::exchange(other.state_, nullptr);
        }
        return *this;
    }
    ~memory_pool() { let_go(); }

    // A block of at least `size` bytes. Size 0 gives an empty handle without touching the
    // allocator or the counters (there is nothing to pool). Throws memory_error when the
    // allocator is out of memory even after every held block was released.
    allocation allocate(std::size_t size) {
        if (size == 0)
            return allocation{};
        const pointer_type block = state_->allocate(size, /*for_handle=*/true);
        return allocation{state_, block, size};
    }

    // A block for every size: as allocate, but size 0 gets a block of bin 0 (1 byte), counted
    // with 0 active bytes. PyOpenCL's pools hand out a usable object for a zero-byte request.
    allocation allocate_block(std::size_t size) {
        const pointer_type block = state_->allocate(size, /*for_handle=*/true);
        return allocation{state_, block, size};
    }

    // The same without a handle, for callers that manage lifetime themselves (bindings).
    // Size 0 gives pointer_type{}. The block must come back through free_raw with the same
    // size.
    pointer_type allocate_raw(std::size_t size) {
        return size == 0 ? pointer_type{} : state_->allocate(size, /*for_handle=*/false);
    }

    // Returns a block from allocate_raw. free_raw(pointer_type{}, 0) does nothing, matching
    // allocate_raw(0). Throws logic_error, leaving the pool unchanged, for a double free it
    // can see (see pool_state::free_checked for exactly which).
    void free_raw(pointer_type block, std::size_t size) {
        if (size == 0 && block == pointer_type{})
            return;
        state_->free_checked(block, size);
    }

    // The allocator the pool allocates from (its own copy, moved in at construction).
    const A& get_allocator() const noexcept { return state_->get_allocator(); }
    // The bin layout's leading bits, as given to the constructor (bins.hpp).
    unsigned leading_bits_in_bin_id() const noexcept { return state_->layout().leading_bits(); }
    // The bin a request of `size` bytes falls into (bin_layout::bin_number).
    std::size_t bin_number(std::size_t size) const noexcept { return state_->layout().bin_number(size); }

    // Throws logic_error when no size falls into `bin`.
    std::size_t alloc_size(std::size_t bin) const { return checked_alloc_size(state_->layout(), bin); }

    // The number of free blocks the pool keeps for reuse. Each of these single counters takes a
    // whole stats() snapshot; call stats() once to read several that agree with each other.
    std::size_t held_blocks() const { return stats().held_blocks; }
    // The number of blocks out with the application (in handles or from allocate_raw).
    std::size_t active_blocks() const { return stats().active_blocks; }
    // The block sizes of the held blocks together, in bytes.
    std::size_t held_bytes() const { return stats().held_bytes; }
    // The sizes the application asked for, of the active blocks together, in bytes.
    std::size_t active_bytes() const { return stats().active_bytes; }
    // The block sizes of held and active blocks together: what the pool has from the allocator.
    std::size_t managed_bytes() const { return stats().managed_bytes; }
    // A consistent snapshot of all the counters, taken with every shard locked.
    pool_stats stats() const { return state_->stats(); }

    // Releases every held block to the allocator.
    void free_held() noexcept { state_->free_held(); }

    // From now on freed blocks go straight back to the allocator; releases what is held.
    // Allocation keeps working, without reuse.
    void stop_holding() noexcept { state_->stop_holding(); }

    // Caps the bytes the pool holds for reuse: a freed block that would push held_bytes above
    // the cap goes back to the allocator instead, and lowering the cap releases held blocks,
    // largest first, down to it. std::nullopt (the default) means no cap.
    void set_max_held_bytes(std::optional<std::size_t> cap) noexcept { state_->set_max_held_bytes(cap); }
    // The cap set by set_max_held_bytes; std::nullopt when there is none.
    std::optional<std::size_t> max_held_bytes() const { return state_->max_held_bytes(); }

    // Calls hook(user_data, event) for every pool event (pool_stats.hpp); nullptr turns
    // tracing off. A call already under way on another thread may still use the old hook.
    void set_trace_hook(pool_trace_hook hook, void* user_data = nullptr) noexcept {
        state_->set_trace_hook(hook, user_data);
    }

private:
    // Stops holding and hands the state over to the handles still out (the last one
    // deletes it), or deletes it now when there are none.
    void let_go() noexcept {
        if (state_)
            std::exchange(state_, nullptr)->orphan();
    }

    detail::pool_state<A>* state_ = nullptr;
};

}  // namespace gpukit::memory
