#include "gpukit/rtc/builtin_headers.hpp"

#include "gpukit/core/sha256.hpp"

#include <algorithm>
#include <array>

namespace gpukit::rtc {
namespace {

// Pre-included into every NVRTC compilation; see builtin_headers.hpp for why each part is here.
constexpr std::string_view prelude = R"(// gpukit's NVRTC prelude: what nvcc's implicit includes give device code.
#ifndef GPUKIT_NVRTC_PRELUDE_H
#define GPUKIT_NVRTC_PRELUDE_H

// Fixed-width integer types, as NVRTC's libcu++ declares them at global scope.
typedef signed char int8_t;
typedef signed short int16_t;
typedef signed int int32_t;
typedef signed long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef int8_t int_least8_t;
typedef int16_t int_least16_t;
typedef int32_t int_least32_t;
typedef int64_t int_least64_t;
typedef uint8_t uint_least8_t;
typedef uint16_t uint_least16_t;
typedef uint32_t uint_least32_t;
typedef uint64_t uint_least64_t;
typedef int8_t int_fast8_t;
typedef int16_t int_fast16_t;
typedef int32_t int_fast32_t;
typedef int64_t int_fast64_t;
typedef uint8_t uint_fast8_t;
typedef uint16_t uint_fast16_t;
typedef uint32_t uint_fast32_t;
typedef uint64_t uint_fast64_t;
typedef int64_t intptr_t;
typedef uint64_t uintptr_t;
typedef int64_t intmax_t;
typedef uint64_t uintmax_t;

// glibc's <sys/types.h> names, which nvcc programs get through <stdlib.h>.
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
typedef long ssize_t;

// <limits.h>, spelled as libcu++'s <cuda/std/climits> spells them under NVRTC.
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-SHRT_MAX - 1)
#define SHRT_MAX 0x7fff
#define USHRT_MAX 0xffff
#define INT_MIN (-INT_MAX - 1)
#define INT_MAX 0x7fffffff
#define UINT_MAX 0xffffffff
#define LONG_MIN (-LONG_MAX - 1)
#define LONG_MAX LLONG_MAX
#define ULONG_MAX ULLONG_MAX
#define LLONG_MIN (-LLONG_MAX - 1)
#define LLONG_MAX 0x7fffffffffffffffLL
#define ULLONG_MAX 0xffffffffffffffffUL

// <stdint.h>'s limits, spelled as libcu++'s <cuda/std/cstdint> spells them under NVRTC, and
// <inttypes.h>'s printf conversions for these types (64-bit types are long long: "ll").
#define GPUKIT_NVRTC_STDINT_H
#define INT8_MIN SCHAR_MIN
#define INT16_MIN SHRT_MIN
#define INT32_MIN INT_MIN
#define INT64_MIN LLONG_MIN
#define INT8_MAX SCHAR_MAX
#define INT16_MAX SHRT_MAX
#define INT32_MAX INT_MAX
#define INT64_MAX LLONG_MAX
#define UINT8_MAX UCHAR_MAX
#define UINT16_MAX USHRT_MAX
#define UINT32_MAX UINT_MAX
#define UINT64_MAX ULLONG_MAX
#define INT_LEAST8_MIN INT8_MIN
#define INT_LEAST16_MIN INT16_MIN
#define INT_LEAST32_MIN INT32_MIN
#define INT_LEAST64_MIN INT64_MIN
#define INT_LEAST8_MAX INT8_MAX
#define INT_LEAST16_MAX INT16_MAX
#define INT_LEAST32_MAX INT32_MAX
#define INT_LEAST64_MAX INT64_MAX
#define UINT_LEAST8_MAX UINT8_MAX
#define UINT_LEAST16_MAX UINT16_MAX
#define UINT_LEAST32_MAX UINT32_MAX
#define UINT_LEAST64_MAX UINT64_MAX
#define INT_FAST8_MIN INT8_MIN
#define INT_FAST16_MIN INT16_MIN
#define INT_FAST32_MIN INT32_MIN
#define INT_FAST64_MIN INT64_MIN
#define INT_FAST8_MAX INT8_MAX
#define INT_FAST16_MAX INT16_MAX
#define INT_FAST32_MAX INT32_MAX
#define INT_FAST64_MAX INT64_MAX
#define UINT_FAST8_MAX UINT8_MAX
#define UINT_FAST16_MAX UINT16_MAX
#define UINT_FAST32_MAX UINT32_MAX
#define UINT_FAST64_MAX UINT64_MAX
#define INTPTR_MIN INT64_MIN
#define INTPTR_MAX INT64_MAX
#define UINTPTR_MAX UINT64_MAX
#define INTMAX_MIN INT64_MIN
#define INTMAX_MAX INT64_MAX
#define UINTMAX_MAX UINT64_MAX
#define PTRDIFF_MIN INT64_MIN
#define PTRDIFF_MAX INT64_MAX
#define SIZE_MAX UINT64_MAX
#define INT8_C(X) ((::int_least8_t)(X))
#define INT16_C(X) ((::int_least16_t)(X))
#define INT32_C(X) ((::int_least32_t)(X))
#define INT64_C(X) ((::int_least64_t)(X))
#define UINT8_C(X) ((::uint_least8_t)(X))
#define UINT16_C(X) ((::uint_least16_t)(X))
#define UINT32_C(X) ((::uint_least32_t)(X))
#define UINT64_C(X) ((::uint_least64_t)(X))
#define INTMAX_C(X) ((::intmax_t)(X))
#define UINTMAX_C(X) ((::uintmax_t)(X))
#define GPUKIT_NVRTC_INTTYPES_H
#define PRId8 "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRId64 "lld"
#define PRIi8 "i"
#define PRIi16 "i"
#define PRIi32 "i"
#define PRIi64 "lli"
#define PRIu8 "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIu64 "llu"
#define PRIo8 "o"
#define PRIo16 "o"
#define PRIo32 "o"
#define PRIo64 "llo"
#define PRIx8 "x"
#define PRIx16 "x"
#define PRIx32 "x"
#define PRIx64 "llx"
#define PRIX8 "X"
#define PRIX16 "X"
#define PRIX32 "X"
#define PRIX64 "llX"
#define PRIdPTR "lld"
#define PRIiPTR "lli"
#define PRIuPTR "llu"
#define PRIxPTR "llx"
#define PRIXPTR "llX"
#define PRIdMAX "lld"
#define PRIiMAX "lli"
#define PRIuMAX "llu"
#define PRIxMAX "llx"
#define PRIXMAX "llX"

// <float.h>: IEEE single and double precision, as gcc on x86-64 defines them.
#define GPUKIT_NVRTC_FLOAT_H
#define FLT_RADIX 2
#define FLT_ROUNDS 1
#define FLT_EVAL_METHOD 0
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_DECIMAL_DIG 9
#define DBL_DECIMAL_DIG 17
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define FLT_MAX 3.40282346638528859811704183484516925e+38F
#define DBL_MAX 1.79769313486231570814527423731704357e+308
#define FLT_MIN 1.17549435082228750796873653722224568e-38F
#define DBL_MIN 2.22507385850720138309023271733240406e-308
#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F
#define DBL_EPSILON 2.22044604925031308084726333618164062e-16
#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F
#define DBL_TRUE_MIN 4.94065645841246544176568792868221372e-324
#define FLT_HAS_SUBNORM 1
#define DBL_HAS_SUBNORM 1

// <stdbool.h>: bool is C++'s own.
#define __bool_true_false_are_defined 1

// <math.h>: glibc's constants (double, float and long double), infinities and NaN as
// constant expressions, and the classification values.
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#define M_Ef 2.7182818284590452354f
#define M_LOG2Ef 1.4426950408889634074f
#define M_LOG10Ef 0.43429448190325182765f
#define M_LN2f 0.69314718055994530942f
#define M_LN10f 2.30258509299404568402f
#define M_PIf 3.14159265358979323846f
#define M_PI_2f 1.57079632679489661923f
#define M_PI_4f 0.78539816339744830962f
#define M_1_PIf 0.31830988618379067154f
#define M_2_PIf 0.63661977236758134308f
#define M_2_SQRTPIf 1.12837916709551257390f
#define M_SQRT2f 1.41421356237309504880f
#define M_SQRT1_2f 0.70710678118654752440f
#define M_El 2.718281828459045235360287471352662498L
#define M_LOG2El 1.442695040888963407359924681001892137L
#define M_LOG10El 0.434294481903251827651128918916605082L
#define M_LN2l 0.693147180559945309417232121458176568L
#define M_LN10l 2.302585092994045684017991454684364208L
#define M_PIl 3.141592653589793238462643383279502884L
#define M_PI_2l 1.570796326794896619231321691639751442L
#define M_PI_4l 0.785398163397448309615660845819875721L
#define M_1_PIl 0.318309886183790671537767526745028724L
#define M_2_PIl 0.636619772367581343075535053490057448L
#define M_2_SQRTPIl 1.128379167095512573896158903121545172L
#define M_SQRT2l 1.414213562373095048801688724209698079L
#define M_SQRT1_2l 0.707106781186547524400844362104849039L
#define INFINITY (__builtin_bit_cast(float, 0x7f800000U))
#define NAN (__builtin_bit_cast(float, 0x7fc00000U))
#define HUGE_VALF (__builtin_bit_cast(float, 0x7f800000U))
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ULL))
#define MAXFLOAT 3.40282347e+38F
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#define MATH_ERRNO 1
#define MATH_ERREXCEPT 2
typedef float float_t;
typedef double double_t;

// <stdlib.h> and <stddef.h> (NVRTC itself declares malloc, free, abs, size_t and NULL).
// offsetof is a constant expression, as nvcc's __builtin_offsetof is (static_assert,
// template arguments): NVRTC has no __builtin_offsetof, but its front end's __INTADDR__ makes
// the member's address from a null pointer an integer constant.
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
#ifndef offsetof
#define offsetof(type, member) ((::size_t) __INTADDR__(&(((type*) 0)->member)))
#endif

// What <cmath>, <cstdlib>, <cstdint>, <cstddef>, <cstdio> and <cstring> put in std.
namespace std {
using ::int8_t;
using ::int16_t;
using ::int32_t;
using ::int64_t;
using ::uint8_t;
using ::uint16_t;
using ::uint32_t;
using ::uint64_t;
using ::int_least8_t;
using ::int_least16_t;
using ::int_least32_t;
using ::int_least64_t;
using ::uint_least8_t;
using ::uint_least16_t;
using ::uint_least32_t;
using ::uint_least64_t;
using ::int_fast8_t;
using ::int_fast16_t;
using ::int_fast32_t;
using ::int_fast64_t;
using ::uint_fast8_t;
using ::uint_fast16_t;
using ::uint_fast32_t;
using ::uint_fast64_t;
using ::intptr_t;
using ::uintptr_t;
using ::intmax_t;
using ::uintmax_t;
using ::size_t;
using ::ptrdiff_t;
typedef decltype(nullptr) nullptr_t;
using ::float_t;
using ::double_t;
using ::abs;
using ::labs;
using ::llabs;
using ::fabs;
using ::fmod;
using ::remainder;
using ::remquo;
using ::fma;
using ::fmax;
using ::fmin;
using ::fdim;
using ::nan;
using ::exp;
using ::exp2;
using ::expm1;
using ::log;
using ::log10;
using ::log2;
using ::log1p;
using ::pow;
using ::sqrt;
using ::cbrt;
using ::hypot;
using ::sin;
using ::cos;
using ::tan;
using ::asin;
using ::acos;
using ::atan;
using ::atan2;
using ::sinh;
using ::cosh;
using ::tanh;
using ::asinh;
using ::acosh;
using ::atanh;
using ::erf;
using ::erfc;
using ::tgamma;
using ::lgamma;
using ::ceil;
using ::floor;
using ::trunc;
using ::round;
using ::lround;
using ::llround;
using ::nearbyint;
using ::rint;
using ::lrint;
using ::llrint;
using ::frexp;
using ::ldexp;
using ::modf;
using ::scalbn;
using ::scalbln;
using ::ilogb;
using ::logb;
using ::nextafter;
using ::copysign;
using ::isfinite;
using ::isinf;
using ::isnan;
using ::signbit;
using ::malloc;
using ::free;
using ::memcpy;
using ::memset;
using ::printf;
}  // namespace std

#endif  // GPUKIT_NVRTC_PRELUDE_H
)";

// <assert.h>: like the C library's, it re-reads NDEBUG each time it is included (NVRTC's
// own assert was fixed when the compilation started). __assertfail is NVRTC's device hook.
constexpr std::string_view assert_macro = R"(// gpukit: <assert.h> for NVRTC.
#undef assert
#ifdef NDEBUG
#define assert(e) (static_cast<void>(0))
#else
#define assert(e) ((e) ? static_cast<void>(0) : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif
)";

// Headers whose content the prelude already provides.
constexpr std::string_view in_prelude = "// gpukit: provided by gpukit's NVRTC prelude (gpukit_nvrtc_prelude.h).\n";

constexpr std::array<builtin_header, 26> headers = {{
    {prelude_header_name, prelude}, {"stdio.h", in_prelude},  {"cstdio", in_prelude},     {"math.h", in_prelude},
    {"cmath", in_prelude},          {"stdlib.h", in_prelude}, {"cstdlib", in_prelude},    {"limits.h", in_prelude},
    {"climits", in_prelude},        {"string.h", in_prelude}, {"cstring", in_prelude},    {"stddef.h", in_prelude},
    {"cstddef", in_prelude},        {"stdarg.h", in_prelude}, {"cstdarg", in_prelude},    {"sys/types.h", in_prelude},
    {"stdint.h", in_prelude},       {"cstdint", in_prelude},  {"inttypes.h", in_prelude}, {"cinttypes", in_prelude},
    {"float.h", in_prelude},        {"cfloat", in_prelude},   {"assert.h", assert_macro}, {"cassert", assert_macro},
    {"stdbool.h", in_prelude},      {"cstdbool", in_prelude},
}};

}  // namespace

std::span<const builtin_header> builtin_headers() { return headers; }

bool is_builtin_header(std::string_view name) {
    return std::any_of(headers.begin() + 1, headers.end(),
                       [name](const builtin_header& header) { return header.name == name; });
}

const std::string& builtin_headers_digest() {
    // Hashing the ~20 KB of text on every cache lookup would cost more than the rest of it.
    static const std::string digest = [] {
        sha256 hash;
        for (const builtin_header& header : headers)
            hash.update(header.name).update("\0", 1).update(header.text).update("\0", 1);
        return hash.hex_digest();
    }();
    return digest;
}

}  // namespace gpukit::rtc
