// The size classes ("bins") of the memory pool.
//
// A size is described by its highest set bit (the exponent) and the `leading_bits` bits right
// after it (the mantissa). Every size is rounded up to the nearest value that has no set bits
// below those, so a freed block can serve any later request in the same bin, and rounding
// wastes less than 1 / 2^leading_bits of the request. Sizes below 2^(leading_bits + 1) need
// no rounding at all.
//
//   bin number = exponent * 2^leading_bits + mantissa
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

class bin_layout {
public:
    // More leading bits mean finer bins but a larger bin table (64 << leading_bits entries);
    // beyond 8 the table costs more than the rounding it saves.
    static constexpr unsigned max_leading_bits = 8;

    // Precondition: leading_bits <= max_leading_bits (the pool checks it).
    constexpr explicit bin_layout(unsigned leading_bits) noexcept : leading_bits_(leading_bits) {}

    constexpr unsigned leading_bits() const noexcept { return leading_bits_; }

    // One past the largest bin number. Not every number below it names a bin: for small
    // exponents some mantissas cannot occur (see is_bin).
    constexpr std::size_t bin_count() const noexcept { return std::size_t{size_bits} << leading_bits_; }

    // The largest size a bin can hold; larger sizes would round past the top of size_t.
    constexpr std::size_t max_size() const noexcept { return alloc_size(bin_count() - 1); }

    // The bin a request of `size` bytes falls into. bin_number(0) == bin_number(1) == 0.
    // Precondition: size <= max_size().
    constexpr std::size_t bin_number(std::size_t size) const noexcept {
        const std::uint64_t block = round_up(size);
        const unsigned exponent = bitlog2(block);
        const std::uint64_t mantissa =
            signed_shift(block, static_cast<int>(leading_bits_) - static_cast<int>(exponent)) &
            low_bits_mask(leading_bits_);
        return (std::size_t{exponent} << leading_bits_) | mantissa;
    }

    // The size of the blocks in bin `bin`: the largest request that lands there.
    // Precondition: is_bin(bin).
    constexpr std::size_t alloc_size(std::size_t bin) const noexcept {
        const unsigned exponent = static_cast<unsigned>(bin >> leading_bits_);
        const std::uint64_t mantissa = bin & low_bits_mask(leading_bits_);
        const std::uint64_t significand = (std::uint64_t{1} << leading_bits_) | mantissa;
        return signed_shift(significand, static_cast<int>(exponent) - static_cast<int>(leading_bits_));
    }

    // Whether some size lands in bin `bin`.
    constexpr bool is_bin(std::size_t bin) const noexcept {
        return bin < bin_count() && bin_number(alloc_size(bin)) == bin;
    }

private:
    static constexpr unsigned size_bits = std::numeric_limits<std::size_t>::digits;

    // Clears the bits below the mantissa by rounding up. Precondition: size <= max_size().
    constexpr std::uint64_t round_up(std::uint64_t size) const noexcept {
        const unsigned exponent = bitlog2(size);
        if (exponent <= leading_bits_)
            return size;
        const std::uint64_t below_mantissa = low_bits_mask(exponent - leading_bits_);
        return (size + below_mantissa) & ~below_mantissa;
    }

    unsigned leading_bits_;
};

// The layout of `leading_bits`; logic_error above bin_layout::max_leading_bits.
inline bin_layout checked_bin_layout(unsigned leading_bits) {
    if (leading_bits > bin_layout::max_leading_bits)
        throw logic_error("memory pool: leading_bits_in_bin_id must be at most " +
                          std::to_string(bin_layout::max_leading_bits) + ", got " + std::to_string(leading_bits));
    return bin_layout(leading_bits);
}

// layout.bin_number(size); logic_error when size > layout.max_size().
inline std::size_t checked_bin_number(const bin_layout& layout, std::size_t size) {
    if (size > layout.max_size())
        throw logic_error("memory pool: " + std::to_string(size) + " bytes is larger than the largest bin");
    return layout.bin_number(size);
}

// layout.alloc_size(bin); logic_error when no size falls into `bin`.
inline std::size_t checked_alloc_size(const bin_layout& layout, std::size_t bin) {
    if (!layout.is_bin(bin))
        throw logic_error("memory pool: " + std::to_string(bin) + " is not a bin number");
    return layout.alloc_size(bin);
}

}  // namespace gpukit::memory
