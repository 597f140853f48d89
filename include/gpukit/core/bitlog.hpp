// Bit arithmetic for size classes. The memory pool sorts sizes into bins by their highest
// set bit and the few bits after it; these helpers are that arithmetic, kept constexpr so
// the bin layout can be checked at compile time and costs a handful of instructions at
// run time.
#pragma once

#include <bit>
#include <cstdint>

namespace gpukit {

// floor(log2(value)), the index of the highest set bit: bitlog2(1) == 0, bitlog2(4096) == 12,
// bitlog2(4097) == 12. Zero has no set bit; bitlog2(0) is defined as 0, the same as
// bitlog2(1), so callers that treat 0 like the smallest size need no special case.
constexpr unsigned bitlog2(std::uint64_t value) noexcept {
    return value == 0 ? 0u : static_cast<unsigned>(std::bit_width(value)) - 1u;
}

// A mask of the `count` lowest bits; count >= 64 gives all ones (where 1 << 64 would be
// undefined).
constexpr std::uint64_t low_bits_mask(unsigned count) noexcept {
    return count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1u;
}

// value * 2^shift for a shift of either sign: positive shifts left, negative shifts right.
// Shifting by 64 or more in either direction gives 0 (the built-in shift would be undefined).
constexpr std::uint64_t signed_shift(std::uint64_t value, int shift) noexcept {
    if (shift >= 64 || shift <= -64)
        return 0;
    return shift >= 0 ? value << shift : value >> -shift;
}

}  // namespace gpukit
