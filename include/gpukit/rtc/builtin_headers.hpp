// The headers gpukit hands NVRTC with every compilation (NVIDIA jitify's approach).
//
// nvcc compiles a source after an implicit #include "cuda_runtime.h", which brings in the C
// library's math.h, stdlib.h, limits.h and sys/types.h and C++'s <cmath>; NVRTC has none of
// those headers. So every NVRTC compilation gets, through nvrtcCreateProgram's headers:
//   - the prelude, pre-included before the source (and before its extern "C" wrapper): what
//     that implicit include gives a device program (uint, int8_t, M_PI, INFINITY, INT_MAX,
//     std::sin, std::size_t, offsetof, ...), and what device code takes from the other
//     standard headers: the fixed-width integer types with their limits and std:: names
//     (UINT32_MAX, INT64_C, PRId64, std::uint32_t) and float.h's FLT_* / DBL_* macros;
//   - named headers for the C and C++ standard headers device code includes (stdio.h,
//     cmath, cstdint, float.h, assert.h, ...), so those #include lines compile. They add
//     nothing to the prelude, except assert.h, which re-reads NDEBUG as the C library's does.
// Types follow NVRTC's own libcu++ (<cuda/std/cstdint> under NVRTC) and the toolkit headers
// it compiles: 64-bit types are long long, where glibc uses long. Macros libcu++ spells
// (INT_MAX, INT32_MAX, ...) are spelled as it spells them, so a toolkit header included
// after the prelude redefines them identically instead of warning. A source that defines one
// of these macros itself, spelled otherwise, gets NVRTC's "incompatible redefinition" warning
// (as nvcc gives for the macros it defines implicitly); it still compiles.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gpukit::rtc {

// One built-in header: the name NVRTC knows it by and its contents.
struct builtin_header {
    std::string_view name;  // as written in #include <...>
    std::string_view text;  // the header's contents
};

// The prelude's header name; NVRTC pre-includes it (--pre-include).
inline constexpr std::string_view prelude_header_name = "gpukit_nvrtc_prelude.h";

// Every built-in header, the prelude first.
std::span<const builtin_header> builtin_headers();

// True when `name` (as written in #include) is a built-in header other than the prelude.
bool is_builtin_header(std::string_view name);

// The SHA-256 (hex) of every built-in header's name and text, computed once: what the
// compilation cache key holds for them.
const std::string& builtin_headers_digest();

}  // namespace gpukit::rtc
