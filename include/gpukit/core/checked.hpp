// Integer arithmetic that reports overflow instead of wrapping. Sizes, strides, offsets and
// byte ranges computed from a caller's numbers go through these, so that a shape such as
// (2**32 + 1, 2**32) is refused instead of silently becoming a small array (and signed
// overflow, undefined behaviour in C++, never happens).
#pragma once

#include <concepts>
#include <optional>

namespace gpukit {

// a + b, or nullopt when the result does not fit in T.
template <std::integral T>
constexpr std::optional<T> checked_add(T a, T b) noexcept {
    T result;
    return __builtin_add_overflow(a, b, &result) ? std::nullopt : std::optional<T>(result);
}

// a * b, or nullopt when the result does not fit in T.
template <std::integral T>
constexpr std::optional<T> checked_mul(T a, T b) noexcept {
    T result;
    return __builtin_mul_overflow(a, b, &result) ? std::nullopt : std::optional<T>(result);
}

// a * b + c, or nullopt when it (or a step of it) does not fit in T.
template <std::integral T>
constexpr std::optional<T> checked_mul_add(T a, T b, T c) noexcept {
    const std::optional<T> product = checked_mul(a, b);
    return product ? checked_add(*product, c) : std::nullopt;
}

}  // namespace gpukit
