// The size classes ("bins") of the memory pool, as PyOpenCL and PyCUDA document them.
//
// A size is described by its highest set bit (the exponent) and the `leading_bits` bits right
// after it (the mantissa). All sizes that share those leading bits share a bin, and the
// bin's blocks have the largest of those sizes: the same leading bits followed by all ones.
// So a freed block can serve any later request of its bin, and a block is larger than its
// request by less than 1 / 2^leading_bits of the request. Sizes below 2^(leading_bits + 1)
// have no bits below the mantissa and are allocated exactly.
//
//   bin number = exponent * 2^leading_bits + mantissa
//   1000 = 0b11111'01000 -> bin 9 * 16 + 0b1111 = 159, blocks of 0b11111'11111 = 1023 bytes
//   4096 = 0b10000'0000000 -> bin 192, blocks of 0b10000'11111111 = 4351 bytes
//
// Bin numbers grow with size, and fit a flat array of bin_count() entries, which is what
// lets the pool find a bin with no search. docs/memory-pool.md has a worked example.
#pragma once

#include "gpukit/core/bitlog.hpp"
#include "gpukit/core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace gpukit::memory {

// The bin arithmetic for one choice of leading_bits: which bin a size falls into, and how
// large that bin's blocks are. A small value type; the pool keeps one and never changes it.
class bin_layout {
public:
    // More leading bits mean finer bins but a larger bin table (64 << leading_bits entries);
    // beyond 8 the table costs more than the rounding it saves.
    static constexpr unsigned max_leading_bits = 8;

    // Precondition: leading_bits <= max_leading_bits (the pool checks it).
    constexpr explicit bin_layout(unsigned leading_bits) noexcept : leading_bits_(leading_bits) {}

    // The number of bits after the highest set bit that tell bins apart (the mantissa width).
    constexpr unsigned leading_bits() const noexcept { return leading_bits_; }

    // One past the largest bin number. Not every number below it names a bin: for small
    // exponents some mantissas cannot occur (see is_bin).
    constexpr std::size_t bin_count() const noexcept { return std::size_t{size_bits} << leading_bits_; }

    // The bin a request of `size` bytes falls into. bin_number(0) == bin_number(1) == 0.
    // Every size has one: the last bin's blocks are SIZE_MAX bytes.
    constexpr std::size_t bin_number(std::size_t size) const noexcept {
        const unsigned exponent = bitlog2(size);
        const std::uint64_t mantissa =
            signed_shift(size, static_cast<int>(leading_bits_) - static_cast<int>(exponent)) &
            low_bits_mask(leading_bits_);
        return (std::size_t{exponent} << leading_bits_) | mantissa;
    }

    // The size of the blocks in bin `bin`: the largest request that lands there.
    // Precondition: is_bin(bin).
    constexpr std::size_t alloc_size(std::size_t bin) const noexcept {
        const unsigned exponent = static_cast<unsigned>(bin >> leading_bits_);
        const std::uint64_t mantissa = bin & low_bits_mask(leading_bits_);
        const std::uint64_t significand = (std::uint64_t{1} << leading_bits_) | mantissa;
        const int below_mantissa = static_cast<int>(exponent) - static_cast<int>(leading_bits_);
        const std::uint64_t ones_below = below_mantissa > 0 ? low_bits_mask(static_cast<unsigned>(below_mantissa)) : 0;
        return signed_shift(significand, below_mantissa) | ones_below;
    }

    // Whether some size lands in bin `bin`.
    constexpr bool is_bin(std::size_t bin) const noexcept {
        return bin < bin_count() && bin_number(alloc_size(bin)) == bin;
    }

private:
    static constexpr unsigned size_bits = std::numeric_limits<std::size_t>::digits;

    unsigned leading_bits_;
};

// The layout of `leading_bits`; logic_error above bin_layout::max_leading_bits.
inline bin_layout checked_bin_layout(unsigned leading_bits) {
    if (leading_bits > bin_layout::max_leading_bits)
        throw logic_error("memory pool: leading_bits_in_bin_id must be at most " +
                          std::to_string(bin_layout::max_leading_bits) + ", got " + std::to_string(leading_bits));
    return bin_layout(leading_bits);
}

// layout.alloc_size(bin); logic_error when no size falls into `bin`.
inline std::size_t checked_alloc_size(const bin_layout& layout, std::size_t bin) {
    if (!layout.is_bin(bin))
        throw logic_error("memory pool: " + std::to_string(bin) + " is not a bin number");
    return layout.alloc_size(bin);
}

}  // namespace gpukit::memory
