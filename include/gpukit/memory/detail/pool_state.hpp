// The shared, locked state behind a memory_pool and its pooled_allocations.
//
// A pool and the handles it gave out share one pool_state, so a block freed after the pool
// object is gone, or from another thread, still finds its bins. Its lifetime is counted
// under the locks the hot paths take anyway (blocks out in handles, and whether the pool
// object still exists) rather than by a shared_ptr, whose reference count would add two
// atomic operations on one shared cache line to every allocate + free.
//
// Sharding. The state is split into shard_count() shards (a power of two, at most 16), each
// on its own cache lines with its own spin_lock, bins and counters. A thread works on the
// shard picked by a thread_local slot handed out round-robin on the thread's first pool
// operation, so threads on different shards never touch the same lock or counter:
//   - allocate takes a held block from its own shard's bin; when that is empty it tries the
//     same bin of the other shards, one lock at a time ("stealing"), before calling the
//     allocator. A miss is counted once all shards were found empty.
//   - a freed block (handle or raw) goes to the freeing thread's own shard.
// So a block can be allocated on one shard and freed on another. Every counter is therefore
// kept per shard as a plain std::size_t whose per-shard value is meaningless and may wrap
// below zero; only the sum over all shards (modulo 2^64, hence exact) means anything. This
// holds for the pool_stats counters, for each bin's count of active blocks (used by the raw
// double-free checks), and for the count of blocks out in handles (the lifetime).
//
// Pool-wide settings (holding, the held-bytes cap, the trace hook, orphaned) are copied into
// every shard and only written with every shard locked, so a thread reads them under its
// one shard lock. Whoever locks more than one shard at a time locks them all, in index
// order (all_locks); stealing holds one lock at a time. Pool-wide reads (stats, the raw
// double-free checks, finding the largest held block) lock all shards and so see one
// consistent state.
//
// The hot paths (a bin hit, a freed block kept) take one uncontended lock (the thread's own
// shard) and do a vector pop or push plus counter updates. The allocator, and the trace
// hook, are only ever called with no lock held, so a slow cuMemAlloc never stalls other
// threads.
#pragma once

#include "gpukit/core/error.hpp"
#include "gpukit/core/spin_lock.hpp"
#include "gpukit/memory/allocator.hpp"
#include "gpukit/memory/bins.hpp"
#include "gpukit/memory/pool_stats.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <limits>
#include <memory>
#include <mutex>  // std::lock_guard
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gpukit::memory::detail {

// Which shard a thread uses: one number per thread, shared by all pools (shard = slot modulo
// the pool's shard count), handed out round-robin the first time the thread needs one.
inline std::atomic<unsigned> next_pool_thread_slot{0};
inline thread_local unsigned pool_thread_slot_plus_one = 0;  // 0: none yet

inline unsigned pool_thread_slot() noexcept {
    unsigned slot = pool_thread_slot_plus_one;
    if (slot == 0) [[unlikely]] {
        // Kept below 2^16 so it never wraps to the "none yet" value; shard counts divide it.
        slot = (next_pool_thread_slot.fetch_add(1, std::memory_order_relaxed) & 0xffffu) + 1;
        pool_thread_slot_plus_one = slot;
    }
    return slot - 1;
}

// min(16, bit_ceil(hardware threads)), at least 1: enough shards that threads on different
// cores rarely share one, few enough that pool-wide operations (stats, stealing on a miss)
// stay cheap.
inline std::size_t default_pool_shard_count() noexcept {
    static const std::size_t count = [] {
        const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
        return std::min<std::size_t>(16, std::bit_ceil(threads));
    }();
    return count;
}

// Memory on cache lines of its own (64-byte aligned, size rounded up to 64 bytes), for the
// per-shard arrays the hot paths write: the held-block vectors of two shards would otherwise
// often be small neighbouring heap blocks sharing a cache line, which every free and every
// hit on either shard would pull across cores.
template <class T>
struct cache_line_allocator {
    using value_type = T;
    static constexpr std::size_t line = 64;

    cache_line_allocator() noexcept = default;
    template <class U>
    cache_line_allocator(const cache_line_allocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        if (n > (std::numeric_limits<std::size_t>::max() - line) / sizeof(T))
            throw std::bad_alloc();
        return static_cast<T*>(::operator new (bytes(n), std::align_val_t{line}));
    }
    // The unsized aligned delete: the sized one is declared only where sized deallocation is
    // enabled, which clang before 19 does not do by default.
    void deallocate(T* p, std::size_t) noexcept { ::operator delete (p, std::align_val_t{line}); }

    template <class U>
    bool operator==(const cache_line_allocator<U>&) const noexcept {
        return true;
    }

private:
    static std::size_t bytes(std::size_t n) noexcept { return (n * sizeof(T) + line - 1) / line * line; }
};

template <allocator A>
class pool_state {
public:
    using pointer_type = typename A::pointer_type;

    // shard_count 0 means default_pool_shard_count(); otherwise it must be a power of two
    // (tests use it to get several shards on any machine).
    pool_state(A allocator, unsigned leading_bits, std::size_t shard_count = 0)
        : allocator_(std::move(allocator)), layout_(checked_bin_layout(leading_bits)),
          shard_count_(checked_shard_count(shard_count)), shards_(new shard[shard_count_]) {}

    pool_state(const pool_state&) = delete;
    pool_state& operator=(const pool_state&) = delete;

    // Nobody can allocate or free through this state any more: give back what is held.
    ~pool_state() { release_held_down_to(0); }

    const bin_layout& layout() const noexcept { return layout_; }
    std::size_t shard_count() const noexcept { return shard_count_; }
    const A& get_allocator() const noexcept { return allocator_; }

    // A block of at least `size` bytes (size 0 gets bin 0's one-byte block): a held block of the same bin if there is
    // one (the thread's own shard first, then the others), otherwise a new one from the
    // allocator, after releasing held blocks (largest first) for as long as the allocator
    // reports out-of-memory.
    pointer_type allocate(std::size_t size, bool for_handle) {
        const std::size_t bin = layout_.bin_number(size);
        const std::size_t block_size = layout_.alloc_size(bin);
        const std::size_t own = own_shard_index();
        trace_target trace;
        if (std::optional<pointer_type> reused = take_held(own, bin, size, block_size, for_handle, trace)) {
            trace.emit(pool_event_kind::hit, size, block_size);
            return *reused;
        }
        if (bin >= bins_everywhere_.load(std::memory_order_acquire))
            make_bins_up_to(bin);
        const pointer_type block = allocate_from_allocator(own, size, block_size);
        {
            shard& s = shards_[own];
            std::lock_guard lock(s.lock);
            s.handle_blocks += for_handle;
            ++s.bins[bin].active;
            ++s.active_blocks;
            s.active_bytes += size;
            s.managed_bytes += block_size;
            ++s.allocator_allocations;
            trace = s.trace;
        }
        trace.emit(pool_event_kind::miss, size, block_size);
        return block;
    }

    // Takes back a block from a pooled_allocation, which cannot free twice: no checks. The
    // state may be deleted on the way out (the pool is gone and this was the last handle).
    void give_back(pointer_type block, std::size_t size) noexcept {
        if (return_from_handle(block, size))
            delete this;
    }

    // The pool object is gone: stop holding, and delete the state now unless handles still
    // have blocks out (then the last of them deletes it).
    //
    // Why exactly one party deletes, and only after everybody else's last access: orphaned
    // is set, and the handle count summed, in one section holding every shard lock. A
    // handle giving its share back (drop_handle_share) first locks its own shard:
    //   - orphaned not set yet: it decrements its shard's count and unlocks, touching the
    //     state no more. This section then comes later, locks that shard after the unlock,
    //     and its sum includes the decrement.
    //   - orphaned set: this section is over and its sum included this handle, so it was not
    //     the last. The handle then decrements and sums again with every shard locked.
    // Every decision "the count is zero" is thus made with all shards locked, right after
    // (in the same section as) the decrement that made it zero, so exactly one section sees
    // zero; all the others, and every hot-path section, ended with an unlock that the
    // deciding section's lock of that shard waited for.
    void orphan() noexcept {
        stop_holding();
        bool last = false;
        {
            all_locks lock(*this);
            for (std::size_t i = 0; i < shard_count_; ++i)
                shards_[i].orphaned = true;
            last = total_handle_blocks() == 0;
        }
        if (last)
            delete this;
    }

    // Takes back a block from the raw interface, which can be misused. Throws logic_error,
    // changing nothing, when the block cannot be active: a size no block has, a bin with no
    // active block, or a block already held in its bin in any shard (the usual double free).
    // A second free of a block that was released to the allocator while another block of its
    // bin is still active goes unnoticed: catching that would need a set of all active
    // blocks, which the hot path cannot afford. The check and the return happen with every
    // shard locked, since the active count of a bin is a sum over shards.
    void free_checked(pointer_type block, std::size_t size) {
        if (size == 0)
            throw logic_error("memory pool: cannot free a block of " + std::to_string(size) +
                              " bytes: the pool never allocated one");
        const std::size_t bin = layout_.bin_number(size);
        const std::size_t block_size = layout_.alloc_size(bin);
        shard& own = shards_[own_shard_index()];
        trace_target trace;
        bool kept = false;
        {
            all_locks lock(*this);
            check_active(bin, block, size);
            kept = put_back(own, bin, block, size, block_size);
            trace = own.trace;
        }
        if (!kept)
            allocator_.free(block, block_size);
        trace.emit(kept ? pool_event_kind::hold : pool_event_kind::release, size, block_size);
    }

    void free_held() noexcept { release_held_down_to(0); }

    void stop_holding() noexcept {
        {
            all_locks lock(*this);
            for (std::size_t i = 0; i < shard_count_; ++i)
                shards_[i].holding = false;
        }
        release_held_down_to(0);
    }

    // A cap on held bytes, pool-wide and exact: a freed block that would push the pool's
    // held_bytes above it is released instead of kept. Lowering the cap releases held
    // blocks, largest first, down to it.
    //
    // While a cap is set, the held bytes of all shards are also counted in one atomic
    // (capped_held_bytes_), which a block to be kept reserves its bytes in with a
    // compare-exchange, so two threads on different shards cannot both squeeze under the cap.
    // That puts one atomic operation on a shared cache line into every hit and every kept
    // free, so a capped pool scales less well across threads than an uncapped one. Setting
    // the cap happens with every shard locked and recomputes the atomic from the shards, so
    // it is exact whenever a cap is in force.
    void set_max_held_bytes(std::optional<std::size_t> cap) noexcept {
        const std::size_t limit = cap.value_or(no_cap);
        {
            all_locks lock(*this);
            std::size_t held = 0;
            for (std::size_t i = 0; i < shard_count_; ++i) {
                shards_[i].max_held_bytes = limit;
                held += shards_[i].held_bytes;
            }
            capped_held_bytes_.store(held, std::memory_order_relaxed);
        }
        release_held_down_to(limit);
    }

    std::optional<std::size_t> max_held_bytes() const {
        std::lock_guard lock(shards_[0].lock);  // every shard has the same copy
        const std::size_t cap = shards_[0].max_held_bytes;
        return cap == no_cap ? std::nullopt : std::optional<std::size_t>(cap);
    }

    void set_trace_hook(pool_trace_hook hook, void* user_data) noexcept {
        all_locks lock(*this);
        for (std::size_t i = 0; i < shard_count_; ++i)
            shards_[i].trace = trace_target{hook, user_data};
    }

    // With every shard locked, so the numbers are consistent with each other.
    pool_stats stats() const {
        pool_stats total{};
        all_locks lock(*this);
        for (std::size_t i = 0; i < shard_count_; ++i) {
            const shard& s = shards_[i];
            total.hits += s.hits;
            total.misses += s.misses;
            total.allocator_allocations += s.allocator_allocations;
            total.allocator_failures += s.allocator_failures;
            total.releases += s.releases;
            total.held_blocks += s.held_blocks;
            total.active_blocks += s.active_blocks;
            total.held_bytes += s.held_bytes;
            total.active_bytes += s.active_bytes;
            total.managed_bytes += s.managed_bytes;
        }
        return total;
    }

private:
    static constexpr std::size_t no_cap = std::numeric_limits<std::size_t>::max();

    struct bin_slot {
        std::vector<pointer_type, cache_line_allocator<pointer_type>> held;  // reused last-in first-out
        std::size_t active = 0;  // blocks of this bin in use: summed over shards
    };

    struct trace_target {
        pool_trace_hook hook = nullptr;
        void* user_data = nullptr;

        void emit(pool_event_kind kind, std::size_t size, std::size_t block_size) const noexcept {
            if (hook)
                hook(user_data, pool_event{kind, size, block_size});
        }
    };

    // One shard: on cache lines of its own, so threads on different shards share nothing
    // they write. The counters only mean something summed over all shards (see the top).
    struct alignas(64) shard {
        mutable spin_lock lock;
        std::vector<bin_slot, cache_line_allocator<bin_slot>> bins;  // indexed by bin number
        std::size_t top = 0;                                         // no bin at or above this index holds a block
        // Pool-wide settings, one copy per shard, written with every shard locked.
        bool holding = true;
        bool orphaned = false;  // the memory_pool object is gone
        std::size_t max_held_bytes = no_cap;
        trace_target trace;
        std::size_t handle_blocks = 0;  // blocks out in pooled_allocation handles
        std::size_t hits = 0, misses = 0, allocator_allocations = 0, allocator_failures = 0, releases = 0;
        std::size_t held_blocks = 0, active_blocks = 0, held_bytes = 0, active_bytes = 0, managed_bytes = 0;
    };

    // Locks every shard, in index order (the one order any code locking two shards uses),
    // and unlocks them on destruction.
    class all_locks {
    public:
        explicit all_locks(const pool_state& state) noexcept : state_(state) {
            for (std::size_t i = 0; i < state_.shard_count_; ++i)
                state_.shards_[i].lock.lock();
        }
        ~all_locks() {
            for (std::size_t i = state_.shard_count_; i-- > 0;)
                state_.shards_[i].lock.unlock();
        }
        all_locks(const all_locks&) = delete;
        all_locks& operator=(const all_locks&) = delete;

    private:
        const pool_state& state_;
    };

    static std::size_t checked_shard_count(std::size_t count) {
        if (count == 0)
            return default_pool_shard_count();
        if (!std::has_single_bit(count) || count > 0x10000)
            throw logic_error("memory pool: the shard count must be a power of two up to 65536, got " +
                              std::to_string(count));
        return count;
    }

    std::size_t own_shard_index() const noexcept { return pool_thread_slot() & (shard_count_ - 1); }

    // Called with every shard locked.
    std::size_t total_handle_blocks() const noexcept {
        std::size_t total = 0;
        for (std::size_t i = 0; i < shard_count_; ++i)
            total += shards_[i].handle_blocks;
        return total;
    }

    // Called with s locked: held bytes change by +/- block_size.
    void add_held(shard& s, std::size_t block_size) noexcept {
        ++s.held_blocks;
        s.held_bytes += block_size;
    }
    void remove_held(shard& s, std::size_t block_size) noexcept {
        --s.held_blocks;
        s.held_bytes -= block_size;
        if (s.max_held_bytes != no_cap)
            capped_held_bytes_.fetch_sub(block_size, std::memory_order_relaxed);
    }

    // The own shard first, then the others in turn, one lock at a time. The hit and the
    // block's move to active are counted in the shard it came from, the miss in the last
    // shard looked at: only sums mean anything, and this takes no extra lock.
    std::optional<pointer_type> take_held(std::size_t own, std::size_t bin, std::size_t size, std::size_t block_size,
                                          bool for_handle, trace_target& trace) {
        for (std::size_t i = 0; i < shard_count_; ++i) {
            shard& s = shards_[(own + i) & (shard_count_ - 1)];
            std::lock_guard lock(s.lock);
            if (bin >= s.bins.size() || s.bins[bin].held.empty()) {
                if (i + 1 == shard_count_) {
                    ++s.misses;
                    trace = s.trace;
                }
                continue;
            }
            bin_slot& slot = s.bins[bin];
            trace = s.trace;
            s.handle_blocks += for_handle;
            const pointer_type block = slot.held.back();
            slot.held.pop_back();
            remove_held(s, block_size);
            ++slot.active;
            ++s.active_blocks;
            s.active_bytes += size;
            ++s.hits;
            return block;
        }
        return std::nullopt;
    }

    pointer_type allocate_from_allocator(std::size_t own, std::size_t size, std::size_t block_size) {
        for (;;) {
            try {
                return allocator_.allocate(block_size);
            } catch (const memory_error& failure) {
                trace_target trace;
                {
                    shard& s = shards_[own];
                    std::lock_guard lock(s.lock);
                    ++s.allocator_failures;
                    trace = s.trace;
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
    // after that (see orphan()).
    bool return_from_handle(pointer_type block, std::size_t size) noexcept {
        const std::size_t bin = layout_.bin_number(size);
        const std::size_t block_size = layout_.alloc_size(bin);
        shard& own = shards_[own_shard_index()];
        trace_target trace;
        bool kept = false;
        {
            std::lock_guard lock(own.lock);
            kept = put_back(own, bin, block, size, block_size);
            trace = own.trace;
            if (kept && !trace.hook && !own.orphaned) {
                // The hot path: the share is dropped here, and the unlock is the last access.
                --own.handle_blocks;
                return false;
            }
        }
        if (!kept)
            allocator_.free(block, block_size);
        trace.emit(kept ? pool_event_kind::hold : pool_event_kind::release, size, block_size);
        return drop_handle_share(own);
    }

    // See orphan() for why this is the right test for "last".
    bool drop_handle_share(shard& own) noexcept {
        {
            std::lock_guard lock(own.lock);
            if (!own.orphaned) {
                --own.handle_blocks;
                return false;
            }
        }
        all_locks lock(*this);
        --own.handle_blocks;
        return total_handle_blocks() == 0;
    }

    // Called with s locked (and, for a raw free, every other shard too). Moves the block from
    // active to held in s, or out of the pool when it cannot be kept; true when kept.
    bool put_back(shard& s, std::size_t bin, pointer_type block, std::size_t size, std::size_t block_size) noexcept {
        bin_slot& slot = s.bins[bin];
        --slot.active;
        --s.active_blocks;
        s.active_bytes -= size;
        const bool kept = try_hold(s, bin, block, block_size);
        if (!kept) {
            s.managed_bytes -= block_size;
            ++s.releases;
        }
        return kept;
    }

    // Called with every shard locked.
    void check_active(std::size_t bin, pointer_type block, std::size_t size) const {
        std::size_t active = 0;
        for (std::size_t i = 0; i < shard_count_; ++i)
            if (bin < shards_[i].bins.size())
                active += shards_[i].bins[bin].active;
        if (active == 0)
            throw logic_error("memory pool: freeing a block of " + std::to_string(size) +
                              " bytes, but no block of that size is active (double free?)");
        for (std::size_t i = 0; i < shard_count_; ++i)
            for (const pointer_type& held : shards_[i].bins[bin].held)  // every shard has it: one was allocated
                if (held == block)
                    throw logic_error("memory pool: freeing a block of " + std::to_string(size) +
                                      " bytes that was already freed (double free)");
    }

    // Called with s locked. Keeps the block unless the pool stopped holding or the cap
    // forbids it.
    bool try_hold(shard& s, std::size_t bin, pointer_type block, std::size_t block_size) noexcept {
        if (!s.holding)
            return false;
        const bool capped = s.max_held_bytes != no_cap;
        if (capped && !reserve_capped(s.max_held_bytes, block_size))
            return false;
        try {
            s.bins[bin].held.push_back(block);
        } catch (const std::bad_alloc&) {
            if (capped)
                capped_held_bytes_.fetch_sub(block_size, std::memory_order_relaxed);
            return false;  // no room to remember it: releasing is always correct
        }
        if (bin >= s.top)
            s.top = bin + 1;
        add_held(s, block_size);
        return true;
    }

    // Adds block_size to the pool-wide held bytes unless that would exceed cap.
    bool reserve_capped(std::size_t cap, std::size_t block_size) noexcept {
        std::size_t held = capped_held_bytes_.load(std::memory_order_relaxed);
        do {
            if (held > cap || block_size > cap - held)
                return false;
        } while (!capped_held_bytes_.compare_exchange_weak(held, held + block_size, std::memory_order_relaxed));
        return true;
    }

    std::size_t total_held_bytes() const noexcept {
        all_locks lock(*this);
        std::size_t held = 0;
        for (std::size_t i = 0; i < shard_count_; ++i)
            held += shards_[i].held_bytes;
        return held;
    }

    // Releases held blocks until the pool's held_bytes <= limit: largest first (across
    // shards) for a limit above zero, everything, shard by shard, for zero. One block per
    // locking, so no thread waits behind a slow allocator free and nothing is allocated on
    // the way.
    void release_held_down_to(std::size_t limit) noexcept {
        if (limit == 0) {
            for (std::size_t i = 0; i < shard_count_; ++i)
                while (release_largest_held_in(i)) {
                }
            return;
        }
        while (total_held_bytes() > limit)
            if (!release_largest_held())
                return;
    }

    // Gives every shard bins up to `bin` at least (so a block of any allocated bin finds its bin
    // in whichever shard frees it, and freeing never allocates), growing to powers of two: a
    // pool makes only the bins of the sizes it serves, a few times in its life.
    void make_bins_up_to(std::size_t bin) {
        const std::size_t count = std::min(layout_.bin_count(), std::bit_ceil(bin + 1));
        all_locks lock(*this);
        for (std::size_t i = 0; i < shard_count_; ++i)
            if (shards_[i].bins.size() < count)
                shards_[i].bins.resize(count);  // may throw: nothing was allocated yet
        bins_everywhere_.store(count, std::memory_order_release);
    }

    // Called with s locked: the largest bin of s holding a block, or bins.size() if none.
    static std::size_t largest_held_bin(shard& s) noexcept {
        while (s.top > 0 && s.bins[s.top - 1].held.empty())
            --s.top;
        return s.top == 0 ? s.bins.size() : s.top - 1;
    }

    // Called with s locked: takes the block out of bin and the pool.
    pointer_type pop_for_release(shard& s, std::size_t bin, std::size_t block_size, trace_target& trace) noexcept {
        bin_slot& slot = s.bins[bin];
        const pointer_type block = slot.held.back();
        slot.held.pop_back();
        remove_held(s, block_size);
        s.managed_bytes -= block_size;
        ++s.releases;
        trace = s.trace;
        return block;
    }

    void finish_release(pointer_type block, std::size_t block_size, const trace_target& trace) noexcept {
        allocator_.free(block, block_size);
        trace.emit(pool_event_kind::release, block_size, block_size);
    }

    // Gives the largest held block of shard i back to the allocator; false when it holds none.
    bool release_largest_held_in(std::size_t i) noexcept {
        pointer_type block{};
        std::size_t block_size = 0;
        trace_target trace;
        {
            shard& s = shards_[i];
            std::lock_guard lock(s.lock);
            const std::size_t bin = largest_held_bin(s);
            if (bin == s.bins.size())
                return false;
            block_size = layout_.alloc_size(bin);
            block = pop_for_release(s, bin, block_size, trace);
        }
        finish_release(block, block_size, trace);
        return true;
    }

    // Gives the largest held block of the whole pool back to the allocator; false when none
    // is held.
    bool release_largest_held() noexcept {
        pointer_type block{};
        std::size_t block_size = 0;
        trace_target trace;
        {
            all_locks lock(*this);
            std::size_t best_shard = shard_count_, best_bin = 0;
            for (std::size_t i = 0; i < shard_count_; ++i) {
                const std::size_t bin = largest_held_bin(shards_[i]);
                if (bin != shards_[i].bins.size() && (best_shard == shard_count_ || bin > best_bin)) {
                    best_shard = i;
                    best_bin = bin;
                }
            }
            if (best_shard == shard_count_)
                return false;
            block_size = layout_.alloc_size(best_bin);
            block = pop_for_release(shards_[best_shard], best_bin, block_size, trace);
        }
        finish_release(block, block_size, trace);
        return true;
    }

    A allocator_;
    const bin_layout layout_;
    const std::size_t shard_count_;  // a power of two
    const std::unique_ptr<shard[]> shards_;
    // The held bytes of all shards, kept only while a cap is set (see set_max_held_bytes).
    alignas(64) std::atomic<std::size_t> capped_held_bytes_{0};
    // Every shard has at least this many bins (make_bins_up_to); shards may have more.
    std::atomic<std::size_t> bins_everywhere_{0};
};

}  // namespace gpukit::memory::detail
