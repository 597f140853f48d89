// An allocator that allocates nothing: it hands out made-up addresses and keeps a ledger of
// them. It lets the pool's bookkeeping be tested, and timed, on a machine with no GPU, and
// it can simulate a full device to exercise the pool's out-of-memory recovery.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace gpukit::memory {

// Copies share one ledger, so a test can keep a copy to watch the one a pool owns.
// Thread-safe, as the allocator concept requires.
class null_allocator {
public:
    // Addresses are distinct among live blocks and never 0, but nothing can be stored there.
    using pointer_type = std::uint64_t;

    // What the ledger has counted since the allocator was made (count() returns a copy).
    struct counters {
        std::size_t allocations = 0;         // successful allocate calls
        std::size_t failed_allocations = 0;  // allocate calls that threw memory_error
        std::size_t frees = 0;               // valid free calls
        std::size_t invalid_frees = 0;       // frees of an unknown address, or with the wrong size
        std::size_t live_blocks = 0;         // blocks handed out and not yet freed
        std::size_t live_bytes = 0;          // sizes of the live blocks together
    };

    // With a capacity, allocate throws memory_error when the live bytes would exceed it,
    // the way a full device does; without one it never fails.
    explicit null_allocator(std::optional<std::size_t> capacity_bytes = std::nullopt);

    // Throws memory_error when the block would not fit in the capacity.
    pointer_type allocate(std::size_t size);
    // Never throws: a block it did not hand out, or a wrong size, is counted as invalid.
    void free(pointer_type block, std::size_t size) noexcept;

    // Changes the capacity (std::nullopt: none) for later allocate calls; live blocks stay
    // live even when they already exceed the new capacity.
    void set_capacity(std::optional<std::size_t> capacity_bytes);
    // A snapshot of the counters, taken under the ledger's lock.
    counters count() const;

private:
    struct ledger;
    std::shared_ptr<ledger> ledger_;
};

}  // namespace gpukit::memory
