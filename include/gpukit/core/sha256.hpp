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

// A SHA-256 hash being computed: feed it bytes with update(), read the result with digest()
// or hex_digest().
class sha256 {
public:
    // The 32 bytes of a SHA-256 digest, in the standard's order.
    using digest_type = std::array<std::uint8_t, 32>;

    // A hash of no bytes yet.
    sha256() noexcept;

    // Adds `size` bytes at `data` to the hashed message; returns `*this`, so calls chain.
    sha256& update(const void* data, std::size_t size) noexcept;
    // Adds the bytes of `text` (no terminating NUL) to the hashed message; returns `*this`.
    sha256& update(std::string_view text) noexcept { return update(text.data(), text.size()); }

    // Finishes the hash; the object must not be updated afterwards.
    digest_type digest() noexcept;
    // digest() as 64 lower-case hex digits.
    std::string hex_digest();

    // The digest of `text`, in one call.
    static digest_type of(std::string_view text) noexcept { return sha256().update(text).digest(); }
    // The digest of `text` as 64 lower-case hex digits, in one call.
    static std::string hex_of(std::string_view text) { return sha256().update(text).hex_digest(); }

private:
    void compress(const std::uint8_t* block) noexcept;

    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
};

// Lower-case hex of any bytes: two digits per byte, in order, `2 * size` characters.
std::string to_hex(const std::uint8_t* bytes, std::size_t size);

}  // namespace gpukit
