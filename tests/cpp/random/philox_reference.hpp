// Philox4x32-10 on the host, the reference the tests hold gpukit's rand kernels to (itself
// checked against Random123's known-answer vectors in test_random.cpp).
#pragma once

#include <array>
#include <cstdint>

namespace gpukit::testing {

inline std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> c, std::array<std::uint32_t, 2> k) {
    for (int round = 0; round < 10; ++round) {
        const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c[0], p1 = std::uint64_t{0xCD9E8D57u} * c[2];
        c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
             static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
        k = {k[0] + 0x9E3779B9u, k[1] + 0xBB67AE85u};
    }
    return c;
}

// The words of block b of rand() under `key` (philox.hpp).
inline std::array<std::uint32_t, 4> rand_block(std::uint64_t b, std::uint64_t key) {
    return philox4x32_10({static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), 0, 0},
                         {static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)});
}

}  // namespace gpukit::testing
