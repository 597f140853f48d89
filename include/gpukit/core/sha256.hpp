// SHA-256 (FIPS 180-4), used to name compilation cache entries and to check their payloads.
//
// Incremental: update() any number of times, then digest() once. Not for secrets (no
// constant-time guarantees are needed for cache keys).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpukit {

class sha256 {
public:
    using digest_type = std::array<std::uint8_t, 32>;

    sha256() noexcept;

    sha256& update(const void* data, std::size_t size) noexcept;
    sha256& update(std::string_view text) noexcept { return update(text.data(), text.size()); }

    // Finishes the hash; the object must not be updated afterwards.
    digest_type digest() noexcept;
    // digest() as 64 lower-case hex digits.
    std::string hex_digest();

    // One-shot helpers.
    static digest_type of(std::string_view text) noexcept { return sha256().update(text).digest(); }
    static std::string hex_of(std::string_view text) { return sha256().update(text).hex_digest(); }

private:
    void compress(const std::uint8_t* block) noexcept;

    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
};

// Lower-case hex of any bytes.
std::string to_hex(const std::uint8_t* bytes, std::size_t size);

}  // namespace gpukit
