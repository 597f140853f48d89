// gpukit's built-in headers for NVRTC: every header, typedef and macro a device program gets
// from nvcc's implicit includes, checked by compiling with NVRTC (no GPU needed).
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/builtin_headers.hpp"
#include "gpukit/rtc/program.hpp"
#include "gpukit/rtc/toolkit.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace gpukit;

rtc::compiled_program compile_ptx(const std::string& source, bool no_extern_c = false,
                                  std::vector<std::string> options = {}) {
    rtc::compile_options o;
    o.arch = "sm_90";
    o.want_ptx = true;
    o.no_extern_c = no_extern_c;
    o.options = std::move(options);
    return rtc::compile(source, o);
}

// Compile-time checks of every value and type, in a translation unit of its own (templates
// cannot have C linkage, so no extern "C" wrapper).
constexpr const char* values = R"(
template <class A, class B> struct same { static constexpr bool value = false; };
template <class A> struct same<A, A> { static constexpr bool value = true; };

static_assert(sizeof(int8_t) == 1 && sizeof(int16_t) == 2 && sizeof(int32_t) == 4 && sizeof(int64_t) == 8, "");
static_assert(sizeof(uint8_t) == 1 && sizeof(uint16_t) == 2 && sizeof(uint32_t) == 4 && sizeof(uint64_t) == 8, "");
static_assert(int8_t(-1) < 0 && uint8_t(-1) == 255 && uint64_t(-1) == 18446744073709551615ull, "");
static_assert(same<int64_t, long long>::value && same<uint64_t, unsigned long long>::value, "");
static_assert(same<intptr_t, long long>::value && same<uintptr_t, unsigned long long>::value, "");
static_assert(same<intmax_t, long long>::value && same<uintmax_t, unsigned long long>::value, "");
static_assert(same<int_least8_t, signed char>::value && same<uint_fast16_t, unsigned short>::value, "");
static_assert(same<int_fast32_t, int>::value && same<uint_least64_t, unsigned long long>::value, "");
static_assert(same<uint, unsigned int>::value && same<ushort, unsigned short>::value, "");
static_assert(same<ulong, unsigned long>::value && same<ssize_t, long>::value, "");
static_assert(same<float_t, float>::value && same<double_t, double>::value, "");
)";

TEST(rtc_builtin_headers, prelude_types_match_glibc_sizes_and_libcu_spellings) {
    GPUKIT_REQUIRE_NVRTC();
    EXPECT_EQ(compile_ptx(values, true).log, "");
}

TEST(rtc_builtin_headers, limits_and_float_macros_have_their_values) {
    GPUKIT_REQUIRE_NVRTC();
    const std::string source = R"(
static_assert(CHAR_BIT == 8 && SCHAR_MIN == -128 && SCHAR_MAX == 127 && UCHAR_MAX == 255, "");
static_assert(CHAR_MIN == -128 && CHAR_MAX == 127, "");
static_assert(SHRT_MIN == -32768 && SHRT_MAX == 32767 && USHRT_MAX == 65535, "");
static_assert(INT_MIN == -2147483647 - 1 && INT_MAX == 2147483647 && UINT_MAX == 4294967295u, "");
static_assert(LONG_MAX == 9223372036854775807 && LONG_MIN == -LONG_MAX - 1, "");
static_assert(ULONG_MAX == 18446744073709551615ull && ULLONG_MAX == 18446744073709551615ull, "");
static_assert(LLONG_MAX == 9223372036854775807 && LLONG_MIN == -LLONG_MAX - 1, "");
static_assert(INT8_MIN == -128 && INT8_MAX == 127 && UINT8_MAX == 255, "");
static_assert(INT16_MIN == -32768 && INT16_MAX == 32767 && UINT16_MAX == 65535, "");
static_assert(INT32_MIN == INT_MIN && INT32_MAX == INT_MAX && UINT32_MAX == 4294967295u, "");
static_assert(INT64_MIN == LLONG_MIN && INT64_MAX == LLONG_MAX && UINT64_MAX == 18446744073709551615ull, "");
static_assert(INTPTR_MAX == INT64_MAX && UINTPTR_MAX == UINT64_MAX && SIZE_MAX == UINT64_MAX, "");
static_assert(INTMAX_MIN == INT64_MIN && UINTMAX_MAX == UINT64_MAX && PTRDIFF_MAX == INT64_MAX, "");
static_assert(INT_LEAST8_MAX == 127 && UINT_FAST32_MAX == 4294967295u && INT_FAST64_MIN == INT64_MIN, "");
static_assert(INT8_C(-5) == -5 && UINT16_C(7) == 7u && INT64_C(1) << 40 == 1099511627776 && UINT64_C(3) == 3u, "");
static_assert(INTMAX_C(9) == 9 && UINTMAX_C(9) == 9u, "");
static_assert(sizeof(PRId64) == 4 && PRIu64[2] == 'u' && PRIx32[0] == 'x' && PRIdPTR[0] == 'l', "");
static_assert(FLT_RADIX == 2 && FLT_MANT_DIG == 24 && DBL_MANT_DIG == 53 && FLT_DIG == 6 && DBL_DIG == 15, "");
static_assert(FLT_MAX == 0x1.fffffep+127f && DBL_MAX == 0x1.fffffffffffffp+1023, "");
static_assert(FLT_MIN == 0x1p-126f && DBL_MIN == 0x1p-1022 && FLT_TRUE_MIN == 0x1p-149f, "");
static_assert(FLT_EPSILON == 0x1p-23f && DBL_EPSILON == 0x1p-52 && DBL_TRUE_MIN == 0x1p-1074, "");
static_assert(FLT_MIN_EXP == -125 && FLT_MAX_EXP == 128 && DBL_MIN_10_EXP == -307 && DBL_MAX_10_EXP == 308, "");
static_assert(FLT_EVAL_METHOD == 0 && FLT_ROUNDS == 1 && FLT_DECIMAL_DIG == 9 && DBL_DECIMAL_DIG == 17, "");
#if INT_MAX != 2147483647 || UINT32_MAX != 0xffffffff || LONG_MAX != 0x7fffffffffffffff || !defined(SIZE_MAX)
#error the limits must work in #if as well
#endif
__global__ void k(int *x) { x[0] = INT_MAX; }
)";
    const rtc::compiled_program program = compile_ptx(source);
    EXPECT_EQ(program.log, "");
    EXPECT_NE(program.ptx.find(".entry k("), std::string::npos) << "extern \"C\" keeps the plain name";
}

TEST(rtc_builtin_headers, math_constants_infinity_and_nan_are_constant_expressions) {
    GPUKIT_REQUIRE_NVRTC();
    const std::string source = R"(
static_assert(M_PI == 0x1.921fb54442d18p+1 && M_PI_2 == 0x1.921fb54442d18p+0 && M_PI_4 == 0x1.921fb54442d18p-1, "");
static_assert(M_E == 0x1.5bf0a8b145769p+1 && M_LN2 == 0x1.62e42fefa39efp-1 && M_LN10 == 0x1.26bb1bbb55516p+1, "");
static_assert(M_LOG2E == 0x1.71547652b82fep+0 && M_LOG10E == 0x1.bcb7b1526e50ep-2, "");
static_assert(M_1_PI == 0x1.45f306dc9c883p-2 && M_2_PI == 0x1.45f306dc9c883p-1, "");
static_assert(M_2_SQRTPI == 0x1.20dd750429b6dp+0 && M_SQRT2 == 0x1.6a09e667f3bcdp+0, "");
static_assert(M_SQRT1_2 == 0x1.6a09e667f3bcdp-1, "");
static_assert(M_PIf == 0x1.921fb6p+1f && M_Ef == 0x1.5bf0a8p+1f && M_SQRT2f == 0x1.6a09e6p+0f, "");
static_assert(M_PIl > 3.14159 && M_PIl < 3.14160, "");
constexpr float inf = INFINITY;
constexpr double huge = HUGE_VAL;
static_assert(inf > FLT_MAX && HUGE_VALF == inf && huge > DBL_MAX && -inf < -FLT_MAX, "");
static_assert(NAN != NAN, "");
static_assert(MAXFLOAT == FLT_MAX, "");
static_assert(FP_NAN == 0 && FP_INFINITE == 1 && FP_ZERO == 2 && FP_SUBNORMAL == 3 && FP_NORMAL == 4, "");
static_assert(EXIT_SUCCESS == 0 && EXIT_FAILURE == 1 && RAND_MAX == 2147483647, "");
static_assert(MATH_ERRNO == 1 && MATH_ERREXCEPT == 2, "");
struct pair { int a; double b; struct { short s; int c[3]; } n; };
static_assert(offsetof(pair, b) == 8 && offsetof(pair, n.c[2]) == 28, "offsetof is a constant expression");
__global__ void k(double *x, unsigned long *y) {
    x[0] = M_PI; x[1] = isinf(INFINITY) + isnan(NAN); y[0] = offsetof(pair, b) * 1000003;
}
)";
    const rtc::compiled_program program = compile_ptx(source);
    EXPECT_EQ(program.log, "");
    // M_PI stored as its bits, 0x400921FB54442D18.
    EXPECT_NE(program.ptx.find("4614256656552045848"), std::string::npos) << program.ptx;
    EXPECT_NE(program.ptx.find("8000024"), std::string::npos) << "offsetof(pair, b) == 8";
}

TEST(rtc_builtin_headers, std_names_of_cmath_cstdlib_cstdint_cstddef) {
    GPUKIT_REQUIRE_NVRTC();
    const std::string source = R"(
__global__ void k(float *f, double *d, std::uint32_t *u, std::int64_t *i, std::size_t n, std::ptrdiff_t p) {
    std::uint8_t a = 1; std::uint16_t b = 2; std::int8_t c = -3; std::int16_t e = 4; std::int32_t g = 5;
    std::uint64_t h = 6; std::intptr_t ip = 0; std::uintptr_t up = 0; std::intmax_t im = 0; std::uintmax_t um = 0;
    std::uint_fast8_t uf = 0; std::int_least32_t il = 0; std::nullptr_t none = nullptr; n += none == nullptr;
    f[0] = std::sin(f[1]) + std::cos(f[1]) + std::sqrt(f[1]) + std::abs(f[2]) + std::fabs(f[3]) + std::pow(f[1], 2.f);
    f[1] = std::exp(f[0]) + std::log(f[0]) + std::floor(f[0]) + std::ceil(f[0]) + std::fmin(f[0], 1.f);
    f[3] = std::fmax(1.f, f[0]);
    f[2] = std::tanh(f[0]) + std::atan2(f[0], 1.f) + std::erf(f[0]) + std::hypot(f[0], 1.f) + std::fma(f[0], 1.f, 2.f);
    d[0] = std::sin(d[1]) + std::round(d[1]) + std::trunc(d[1]) + std::copysign(1.0, d[1]) + std::cbrt(d[1]);
    u[0] = std::isnan(f[0]) + std::isinf(d[0]) + std::isfinite(f[1]) + std::signbit(d[1]) + std::abs(-7);
    u[1] = std::labs(-8L);
    i[0] = std::llabs(-9LL) + a + b + c + e + g + h + ip + up + im + um + uf + il + n + p;
    float *scratch = (float *)std::malloc(8);
    std::memset(scratch, 0, 8); std::memcpy(scratch, f, 4); std::free(scratch);
    std::printf("%f\n", f[0]);
}
)";
    EXPECT_EQ(compile_ptx(source).log, "");
}

// std::sqrt and std::abs of a float are the float overloads, as with nvcc's <cmath>.
TEST(rtc_builtin_headers, std_math_of_a_float_stays_single_precision) {
    GPUKIT_REQUIRE_NVRTC();
    const rtc::compiled_program program =
        compile_ptx("__global__ void k(float *f) { f[0] = std::sqrt(f[1]) * std::abs(f[2]); }");
    EXPECT_NE(program.ptx.find("sqrt.rn.f32"), std::string::npos);
    EXPECT_EQ(program.ptx.find(".f64"), std::string::npos) << "no double precision: " << program.ptx;
}

TEST(rtc_builtin_headers, every_named_header_can_be_included_in_c_and_cxx_spelling) {
    GPUKIT_REQUIRE_NVRTC();
    std::string includes;
    std::size_t count = 0;
    for (const rtc::builtin_header& header : rtc::builtin_headers()) {
        if (header.name == rtc::prelude_header_name)
            continue;
        EXPECT_TRUE(rtc::is_builtin_header(header.name)) << header.name;
        includes += "#include <" + std::string(header.name) + ">\n";
        ++count;
    }
    for (const char* name : {"stdio.h",  "cstdio",   "math.h",   "cmath",    "stdint.h", "cstdint",  "inttypes.h",
                             "stdlib.h", "cstdlib",  "limits.h", "climits",  "float.h",  "cfloat",   "assert.h",
                             "cassert",  "string.h", "cstring",  "stddef.h", "cstddef",  "stdbool.h"})
        EXPECT_TRUE(rtc::is_builtin_header(name)) << name;
    EXPECT_FALSE(rtc::is_builtin_header(rtc::prelude_header_name));
    EXPECT_FALSE(rtc::is_builtin_header("vector"));
    EXPECT_GE(count, 20u);
    const std::string body = "__global__ void k(float *x) { x[0] = M_PI + FLT_MAX + INT32_MAX; assert(x); }\n";
    for (bool no_extern_c : {false, true}) {
        const rtc::compiled_program program = compile_ptx(includes + body, no_extern_c);
        EXPECT_EQ(program.log, "") << "no_extern_c=" << no_extern_c;
    }
}

TEST(rtc_builtin_headers, device_printf_calls_vprintf) {
    GPUKIT_REQUIRE_NVRTC();
    const rtc::compiled_program program =
        compile_ptx("#include <cstdio>\n__global__ void k() { printf(\"block %d of %d\\n\", blockIdx.x, gridDim.x); }");
    EXPECT_NE(program.ptx.find("call.uni"), std::string::npos) << program.ptx;
    EXPECT_NE(program.ptx.find("\tvprintf,"), std::string::npos) << program.ptx;
}

TEST(rtc_builtin_headers, assert_h_rereads_ndebug) {
    GPUKIT_REQUIRE_NVRTC();
    const rtc::compiled_program checked =
        compile_ptx("#include <assert.h>\n__global__ void k(int *x) { assert(x[0] == 1); }");
    EXPECT_NE(checked.ptx.find("__assertfail"), std::string::npos);
    const rtc::compiled_program unchecked =
        compile_ptx("#define NDEBUG\n#include <cassert>\n__global__ void k(int *x) { assert(x[0] == 1); }");
    EXPECT_EQ(unchecked.ptx.find("__assertfail"), std::string::npos);
    const rtc::compiled_program by_option =
        compile_ptx("__global__ void k(int *x) { assert(x[0] == 1); }", false, {"-DNDEBUG"});
    EXPECT_EQ(by_option.ptx.find("__assertfail"), std::string::npos);
}

TEST(rtc_builtin_headers, a_source_may_define_the_same_names_itself) {
    GPUKIT_REQUIRE_NVRTC();
    // Definitions spelled as the prelude (and glibc) spell them, as sources often copy them.
    const rtc::compiled_program program = compile_ptx(R"(
#define M_PI 3.14159265358979323846
#define CHAR_BIT 8
#ifndef FLT_MAX
#define FLT_MAX 3.4e38f
#endif
typedef unsigned int uint;
typedef unsigned char uint8_t;
typedef unsigned long long uint64_t;
typedef int int32_t;
__global__ void k(double *x, uint *y, uint64_t *z) { x[0] = M_PI + FLT_MAX; y[0] = CHAR_BIT; z[0] = 1; }
)");
    EXPECT_EQ(program.log, "");
}

TEST(rtc_builtin_headers, compiles_in_every_language_standard) {
    GPUKIT_REQUIRE_NVRTC();
    for (const char* standard : {"-std=c++11", "-std=c++14", "-std=c++17", "-std=c++20"}) {
        const rtc::compiled_program program = compile_ptx(
            "__global__ void k(float *x) { constexpr float inf = INFINITY; x[0] = inf + M_PI + "
            "std::sin(x[1]) + UINT64_MAX; }",
            false, {standard});
        EXPECT_EQ(program.log, "") << standard;
    }
}

// The toolkit's own headers compile with the prelude in front, wrapped or not, warning-free.
class rtc_toolkit_headers : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        GPUKIT_REQUIRE_NVRTC();
        if (rtc::find_cuda_toolkit().include_dirs.empty())
            GTEST_SKIP() << "no CUDA toolkit headers: " << rtc::describe(rtc::find_cuda_toolkit());
    }
};

TEST_P(rtc_toolkit_headers, compile_after_the_prelude_inside_extern_c) {
    const std::string source = std::string("#include <") + GetParam() +
                               ">\n"
                               "__global__ void k(float *x) { x[0] = M_PI + INFINITY + INT_MAX + FLT_MAX; }\n";
    for (bool no_extern_c : {false, true}) {
        const rtc::compiled_program program = compile_ptx(source, no_extern_c);
        EXPECT_EQ(program.log, "") << GetParam() << " no_extern_c=" << no_extern_c;
        EXPECT_NE(program.ptx.find(no_extern_c ? ".entry _Z1kPf(" : ".entry k("), std::string::npos) << GetParam();
    }
}

INSTANTIATE_TEST_SUITE_P(headers, rtc_toolkit_headers,
                         ::testing::Values("cuda_fp16.h", "cuda_bf16.h", "cuda_runtime.h", "cooperative_groups.h",
                                           "curand_kernel.h", "cuComplex.h", "cub/block/block_reduce.cuh",
                                           "cuda/std/cmath", "cuda/std/cstdint", "cuda/std/climits", "math_constants.h",
                                           "cuda_pipeline.h", "mma.h"));

TEST(rtc_toolkit_headers_fail, cub_cuh_holds_host_code_and_the_error_says_what_to_include) {
    GPUKIT_REQUIRE_NVRTC();
    if (rtc::find_cuda_toolkit().include_dirs.empty())
        GTEST_SKIP() << "no CUDA toolkit headers";
    try {
        compile_ptx("#include <cub/cub.cuh>\n__global__ void k(float *x) { x[0] = 1; }");
        FAIL() << "NVRTC compiled CUB's host code";
    } catch (const compile_error& e) {
        EXPECT_NE(std::string(e.what()).find("cub/block/block_reduce.cuh"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("host code"), std::string::npos) << e.what();
    }
}

}  // namespace
