// The shared, locked state behind a memory_pool and its pooled_allocations.
//
// A pool and the handles it gave out share one pool_state, so a block freed after the pool
// object is gone, or from another thread, still finds its bins. Its lifetime is counted
// under the lock the hot paths take anyway (blocks out in handles, and whether the pool
// object still exists) rather than by a shared_ptr, whose reference count would add two
// atomic operations on one shared cache line to every allocate + free.
// One spin_lock guards everything. The hot paths (a bin hit, a freed block kept) take it once
// and do a vector pop or push plus counter updates; the allocator, and the trace hook, are
// only ever called with the lock released, so a slow cuMemAlloc never stalls other threads.
#pragma once

#include "gpukit/core/error.hpp"
#include "gpukit/core/spin_lock.hpp"
#include "gpukit/memory/allocator.hpp"
#include "gpukit/memory/bins.hpp"
#include "gpukit/memory/pool_stats.hpp"

#include <cstddef>
#include <limits>
#include <mutex>  // std::lock_guard
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpukit::memory::detail {

template <allocator A>
class pool_state {
public:
    using pointer_type = typename A::pointer_type;

    pool_state(A allocator, unsigned leading_bits)
        : allocator_(std::move(allocator)), layout_(checked_leading_bits(leading_bits)),
          bins_(layout_.bin_count()) {}

    pool_state(const pool_state&) = delete;
    pool_state& operator=(const pool_state&) = delete;

    // Nobody can allocate or free through this state any more: give back what is held.
    ~pool_state() { release_held_down_to(0); }

    const bin_layout& layout() const noexcept { return layout_; }

    // A block of at least `size` bytes (size >= 1): a held block of the same bin if there is
    // one, otherwise a new one from the allocator, after releasing held blocks (largest
    // first) for as long as the allocator reports out-of-memory.
    pointer_type allocate(std::size_t size, bool for_handle) {
        if (size > layout_.max_size())
            throw memory_error("memory pool: cannot allocate " + std::to_string(size) +
                               " bytes: larger than the largest block size");
        const std::size_t bin = layout_.bin_number(size);
        const std::size_t block_size = layout_.alloc_size(bin);
        trace_target trace;
        if (std::optional<pointer_type> reused = take_held(bin, size, block_size, for_handle, trace)) {
            trace.emit(pool_event_kind::hit, size, block_size);
            return *reused;
        }
        const pointer_type block = allocate_from_allocator(size, block_size);
        {
            std::lock_guard lock(mutex_);
            handle_blocks_ += for_handle;
            ++bins_[bin].active;
            ++active_blocks_;
            active_bytes_ += size;
            managed_bytes_ += block_size;
            ++allocator_allocations_;
            trace = trace_;
        }
        trace.emit(pool_event_kind::miss, size, block_size);
        return block;
    }

    // Takes back a block from a pooled_allocation, which cannot free twice: no checks. The
    // state may be deleted on the way out (the pool is gone and this was the last handle).
    void give_back(pointer_type block, std::size_t size) noexcept {
        if (return_block<false>(block, size, /*from_handle=*/true))
            delete this;
    }

    // The pool object is gone: stop holding, and delete the state now unless handles still
    // have blocks out (then the last of them deletes it).
    void orphan() noexcept {
        stop_holding();
        bool last = false;
        {
            std::lock_guard lock(mutex_);
            orphaned_ = true;
            last = handle_blocks_ == 0;
        }
        if (last)
            delete this;
    }

    // Takes back a block from the raw interface, which can be misused. Throws logic_error,
    // changing nothing, when the block cannot be active: a size no block has, a bin with no
    // active block, or a block already held in its bin (the usual double free). A second free
    // of a block that was released to the allocator while another block of its bin is still
    // active goes unnoticed: catching that would need a set of all active blocks, which the
    // hot path cannot afford.
    void free_checked(pointer_type block, std::size_t size) {
        if (size == 0 || size > layout_.max_size())
            throw logic_error("memory pool: cannot free a block of " + std::to_string(size) +
                              " bytes: the pool never allocated one");
        return_block<true>(block, size, /*from_handle=*/false);
    }

    void free_held() noexcept { release_held_down_to(0); }

    void stop_holding() noexcept {
        {
            std::lock_guard lock(mutex_);
            holding_ = false;
        }
        release_held_down_to(0);
    }

    // A cap on held bytes: a freed block that would push held_bytes above it is released
    // instead of kept. Lowering the cap releases held blocks, largest first, down to it.
    void set_max_held_bytes(std::optional<std::size_t> cap) noexcept {
        const std::size_t limit = cap.value_or(no_cap);
        {
            std::lock_guard lock(mutex_);
            max_held_bytes_ = limit;
        }
        release_held_down_to(limit);
    }

    std::optional<std::size_t> max_held_bytes() const {
        std::lock_guard lock(mutex_);
        return max_held_bytes_ == no_cap ? std::nullopt : std::optional<std::size_t>(max_held_bytes_);
    }

    void set_trace_hook(pool_trace_hook hook, void* user_data) noexcept {
        std::lock_guard lock(mutex_);
        trace_ = trace_target{hook, user_data};
    }

    pool_stats stats() const {
        std::lock_guard lock(mutex_);
        return pool_stats{hits_,        misses_,        allocator_allocations_, allocator_failures_,
                          releases_,    held_blocks_,   active_blocks_,         held_bytes_,
                          active_bytes_, managed_bytes_};
    }

private:
    static constexpr std::size_t no_cap = std::numeric_limits<std::size_t>::max();

    struct bin_slot {
        std::vector<pointer_type> held;  // free blocks of this bin, reused last-in first-out
        std::size_t active = 0;          // blocks of this bin the application is using
    };

    struct trace_target {
        pool_trace_hook hook = nullptr;
        void* user_data = nullptr;

        void emit(pool_event_kind kind, std::size_t size, std::size_t block_size) const noexcept {
            if (hook)
                hook(user_data, pool_event{kind, size, block_size});
        }
    };

    static unsigned checked_leading_bits(unsigned leading_bits) {
        if (leading_bits > bin_layout::max_leading_bits)
            throw logic_error("memory pool: leading_bits_in_bin_id must be at most " +
                              std::to_string(bin_layout::max_leading_bits) + ", got " +
                              std::to_string(leading_bits));
        return leading_bits;
    }

    std::optional<pointer_type> take_held(std::size_t bin, std::size_t size, std::size_t block_size,
                                          bool for_handle, trace_target& trace) {
        std::lock_guard lock(mutex_);
        trace = trace_;
        bin_slot& slot = bins_[bin];
        if (slot.held.empty()) {
            ++misses_;
            return std::nullopt;
        }
        handle_blocks_ += for_handle;
        const pointer_type block = slot.held.back();
        slot.held.pop_back();
        --held_blocks_;
        held_bytes_ -= block_size;
        ++slot.active;
        ++active_blocks_;
        active_bytes_ += size;
        ++hits_;
        return block;
    }

    pointer_type allocate_from_allocator(std::size_t size, std::size_t block_size) {
        for (;;) {
            try {
                return allocator_.allocate(block_size);
            } catch (const memory_error& failure) {
                trace_target trace;
                {
                    std::lock_guard lock(mutex_);
                    ++allocator_failures_;
                    trace = trace_;
                }
                trace.emit(pool_event_kind::out_of_memory, size, block_size);
                if (!release_largest_held())
                    throw memory_error("memory pool: allocating a block of " + std::to_string(block_size) +
                                           " bytes failed with no held blocks left to release: " + failure.what(),
                                       failure.code(), failure.routine());
            }
        }
    }

    // Returns true when the state must now be deleted (the pool is gone and the block was
    // the last one out in a handle). A handle's share of the state is dropped as the very last
    // access to it, since the pool may be deleting itself on another thread at any moment
    // after that.
    template <bool Checked>
    bool return_block(pointer_type block, std::size_t size, bool from_handle) noexcept(!Checked) {
        const std::size_t bin = layout_.bin_number(size);
        const std::size_t block_size = layout_.alloc_size(bin);
        trace_target trace;
        bool kept = false;
        {
            std::lock_guard lock(mutex_);
            bin_slot& slot = bins_[bin];
            if constexpr (Checked)
                check_active(slot, block, size);
            --slot.active;
            --active_blocks_;
            active_bytes_ -= size;
            kept = try_hold(slot, block, block_size);
            if (!kept) {
                managed_bytes_ -= block_size;
                ++releases_;
            }
            trace = trace_;
            if (kept && !trace.hook) {
                // The hot path: nothing touches the state after this section. (A kept block
                // means the pool still holds, so it is not orphaned: this is never the last.)
                handle_blocks_ -= from_handle;
                return false;
            }
        }
        if (!kept)
            allocator_.free(block, block_size);
        trace.emit(kept ? pool_event_kind::hold : pool_event_kind::release, size, block_size);
        if (!from_handle)
            return false;
        std::lock_guard lock(mutex_);
        --handle_blocks_;
        return orphaned_ && handle_blocks_ == 0;
    }

    // Called with the lock held.
    void check_active(const bin_slot& slot, pointer_type block, std::size_t size) const {
        if (slot.active == 0)
            throw logic_error("memory pool: freeing a block of " + std::to_string(size) +
                              " bytes, but no block of that size is active (double free?)");
        for (const pointer_type& held : slot.held)
            if (held == block)
                throw logic_error("memory pool: freeing a block of " + std::to_string(size) +
                                  " bytes that was already freed (double free)");
    }

    // Called with the lock held. Keeps the block unless the pool stopped holding or the cap
    // forbids it.
    bool try_hold(bin_slot& slot, pointer_type block, std::size_t block_size) noexcept {
        if (!holding_ || held_bytes_ > max_held_bytes_ || block_size > max_held_bytes_ - held_bytes_)
            return false;
        try {
            slot.held.push_back(block);
        } catch (const std::bad_alloc&) {
            return false;  // no room to remember it: releasing is always correct
        }
        ++held_blocks_;
        held_bytes_ += block_size;
        return true;
    }

    // Releases held blocks, largest first, until held_bytes <= limit. One block per locking,
    // so no thread waits behind a slow allocator free and nothing is allocated on the way.
    void release_held_down_to(std::size_t limit) noexcept {
        for (;;) {
            {
                std::lock_guard lock(mutex_);
                if (held_bytes_ <= limit)
                    return;
            }
            if (!release_largest_held())
                return;
        }
    }

    // Gives the largest held block back to the allocator; false when none is held.
    bool release_largest_held() noexcept {
        pointer_type block{};
        std::size_t block_size = 0;
        trace_target trace;
        {
            std::lock_guard lock(mutex_);
            std::size_t bin = bins_.size();
            while (bin > 0 && bins_[bin - 1].held.empty())
                --bin;
            if (bin == 0)
                return false;
            bin_slot& slot = bins_[bin - 1];
            block = slot.held.back();
            slot.held.pop_back();
            block_size = layout_.alloc_size(bin - 1);
            --held_blocks_;
            held_bytes_ -= block_size;
            managed_bytes_ -= block_size;
            ++releases_;
            trace = trace_;
        }
        allocator_.free(block, block_size);
        trace.emit(pool_event_kind::release, block_size, block_size);
        return true;
    }

    A allocator_;
    const bin_layout layout_;
    mutable spin_lock mutex_;
    std::size_t handle_blocks_ = 0;  // blocks out in pooled_allocation handles
    bool orphaned_ = false;          // the memory_pool object is gone
    std::vector<bin_slot> bins_;  // indexed by bin number
    bool holding_ = true;
    std::size_t max_held_bytes_ = no_cap;
    trace_target trace_;
    std::size_t hits_ = 0, misses_ = 0, allocator_allocations_ = 0, allocator_failures_ = 0, releases_ = 0;
    std::size_t held_blocks_ = 0, active_blocks_ = 0, held_bytes_ = 0, active_bytes_ = 0, managed_bytes_ = 0;
};

}  // namespace gpukit::memory::detail
