// The cuRAND generators gpukit offers (PyCUDA's curandom classes) and what sets them apart.
#pragma once

#include <string_view>

namespace gpukit::random {

// The generator kinds: PyCUDA's XORWOW, MRG32k3a, Sobol32, ScrambledSobol32, Sobol64 and
// ScrambledSobol64 random number generators.
enum class generator_kind { xorwow, mrg32k3a, sobol32, scrambled_sobol32, sobol64, scrambled_sobol64 };

// PyCUDA's class name without "RandomNumberGenerator": "XORWOW", "ScrambledSobol64", ...
std::string_view name(generator_kind k) noexcept;

// The cuRAND device API's state type: "curandStateXORWOW_t", ...
std::string_view state_type(generator_kind k) noexcept;

// Sobol generators give quasirandom points (one dimension per generator); XORWOW and
// MRG32k3a pseudorandom numbers, seeded.
constexpr bool is_quasi(generator_kind k) noexcept {
    return k != generator_kind::xorwow && k != generator_kind::mrg32k3a;
}

// Whether `k` is a scrambled Sobol generator, which takes scramble constants besides direction vectors.
constexpr bool is_scrambled(generator_kind k) noexcept {
    return k == generator_kind::scrambled_sobol32 || k == generator_kind::scrambled_sobol64;
}

// Bits of one raw draw, of a skip-ahead count and of a direction vector entry or scramble
// constant: 64 for the 64-bit Sobol generators and for XORWOW and MRG32k3a skip counts
// (cuRAND's skipahead takes unsigned long long there), 32 for the 32-bit Sobol ones.
constexpr int skip_bits(generator_kind k) noexcept {
    return k == generator_kind::sobol32 || k == generator_kind::scrambled_sobol32 ? 32 : 64;
}
// Bits of one raw draw: 64 for the 64-bit Sobol generators, 32 for the others.
constexpr int draw_bits(generator_kind k) noexcept {
    return k == generator_kind::sobol64 || k == generator_kind::scrambled_sobol64 ? 64 : 32;
}

// Whole subsequences can be skipped (skipahead_sequence) by XORWOW and MRG32k3a, and the
// shorter subsequences of MRG32k3a (skipahead_subsequence) by MRG32k3a only.
constexpr bool has_sequences(generator_kind k) noexcept { return !is_quasi(k); }
// Whether `k` can skip subsequences of 2^76 draws (skipahead_subsequence): MRG32k3a only.
constexpr bool has_subsequences(generator_kind k) noexcept { return k == generator_kind::mrg32k3a; }

}  // namespace gpukit::random
