#include "gpukit/memory/null_allocator.hpp"

#include "gpukit/core/error.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>

namespace gpukit::memory {

struct null_allocator::ledger {
    std::mutex mutex;
    std::optional<std::size_t> capacity;
    std::uint64_t last_address = 0;
    std::unordered_map<pointer_type, std::size_t> live;  // address -> size
    counters count;
};

null_allocator::null_allocator(std::optional<std::size_t> capacity_bytes) : ledger_(std::make_shared<ledger>()) {
    ledger_->capacity = capacity_bytes;
}

null_allocator::pointer_type null_allocator::allocate(std::size_t size) {
    std::lock_guard lock(ledger_->mutex);
    counters& count = ledger_->count;
    if (ledger_->capacity && size > *ledger_->capacity - std::min(count.live_bytes, *ledger_->capacity)) {
        ++count.failed_allocations;
        throw memory_error("null allocator: out of memory allocating " + std::to_string(size) + " bytes (" +
                               std::to_string(count.live_bytes) + " of " + std::to_string(*ledger_->capacity) +
                               " bytes in use)",
                           0, "null_allocator::allocate");
    }
    // Page-sized steps make the addresses look like real ones in traces; sizes are not
    // reflected, so huge blocks cannot exhaust the address space.
    const pointer_type address = (++ledger_->last_address) << 12;
    ledger_->live.emplace(address, size);
    ++count.allocations;
    ++count.live_blocks;
    count.live_bytes += size;
    return address;
}

void null_allocator::free(pointer_type block, std::size_t size) noexcept {
    std::lock_guard lock(ledger_->mutex);
    counters& count = ledger_->count;
    const auto found = ledger_->live.find(block);
    if (found == ledger_->live.end() || found->second != size) {
        ++count.invalid_frees;
        return;
    }
    ledger_->live.erase(found);
    ++count.frees;
    --count.live_blocks;
    count.live_bytes -= size;
}

void null_allocator::set_capacity(std::optional<std::size_t> capacity_bytes) {
    std::lock_guard lock(ledger_->mutex);
    ledger_->capacity = capacity_bytes;
}

null_allocator::counters null_allocator::count() const {
    std::lock_guard lock(ledger_->mutex);
    return ledger_->count;
}

}  // namespace gpukit::memory
