// Class attributes after the closing brace, moved where NVRTC gives nvcc's (GCC's) layout.
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/class_attributes.hpp"
#include "gpukit/rtc/compiler.hpp"
#include "gpukit/rtc/program.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using namespace gpukit;

// `text` with every run of blanks (spaces, tabs, line ends) one space, and none at either end.
std::string squeezed(const std::string& text) {
    std::string out;
    for (char c : text) {
        const bool blank = c == ' ' || c == '\t' || c == '\n';
        if (!blank)
            out += c;
        else if (!out.empty() && out.back() != ' ')
            out += ' ';
    }
    if (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

std::string placed(const std::string& source) { return squeezed(rtc::place_class_attributes(source)); }

TEST(rtc_class_attributes, align_after_a_typedefs_brace_moves_after_the_class_key) {
    EXPECT_EQ(placed("typedef struct S_ { int a; char b; } __align__(16) S;"),
              "typedef struct __align__(16) S_ { int a; char b; } S;");
    EXPECT_EQ(placed("typedef struct { int a; } __attribute__((aligned(16))) S;"),
              "typedef struct __attribute__((aligned(16))) { int a; } S;");
    EXPECT_EQ(placed("union U { int a; char b[5]; } __align__(16);"), "union __align__(16) U { int a; char b[5]; } ;");
    EXPECT_EQ(placed("class C { public: int a; } __attribute__((packed)) c, *p;"),
              "class __attribute__((packed)) C { public: int a; } c, *p;");
}

TEST(rtc_class_attributes, every_attribute_of_the_run_moves_in_order_with_its_arguments_intact) {
    EXPECT_EQ(placed("struct P { char a; int b; } __attribute__((packed)) __align__(8) __attribute((unused));"),
              "struct __attribute__((packed)) __align__(8) __attribute((unused)) P { char a; int b; } ;");
    EXPECT_EQ(placed("struct S { long a; } __attribute__((aligned(sizeof(long)*2)));"),
              "struct __attribute__((aligned(sizeof(long)*2))) S { long a; } ;");
}

TEST(rtc_class_attributes, macros_the_source_defines_as_attributes_move_like_them) {
    // grunnur's prelude and structs.
    EXPECT_EQ(placed("#define ALIGN(bytes) __align__(bytes)\ntypedef struct S_ { int a; } ALIGN(64) S;"),
              "#define ALIGN(bytes) __align__(bytes) typedef struct ALIGN(64) S_ { int a; } S;");
    EXPECT_EQ(placed("#define PACKED __attribute__((packed))\nstruct P { char a; int b; } PACKED;"),
              "#define PACKED __attribute__((packed)) struct PACKED P { char a; int b; } ;");
    // A macro made of other attribute macros; a definition that is empty decides nothing.
    EXPECT_EQ(placed("#define A(n) __align__(n)\n#define B(n) A(n) __attribute__((packed))\n"
                     "#ifdef NO_ATTRIBUTES\n#define B(n)\n#endif\nstruct X { int a; } B(8);"),
              "#define A(n) __align__(n) #define B(n) A(n) __attribute__((packed)) #ifdef NO_ATTRIBUTES #define B(n) "
              "#endif struct B(8) X { int a; } ;");
}

TEST(rtc_class_attributes, what_is_not_known_to_be_a_gnu_attribute_stays) {
    const std::vector<std::string> unchanged = {
        // A macro one definition of which is something else (#if is not evaluated).
        "#ifdef X\n#define ALIGN(n) __align__(n)\n#else\n#define ALIGN(n) int\n#endif\nstruct S { int a; } ALIGN(8) s;",
        // A macro used without the arguments it takes, and one defined after the class.
        "#define ALIGN(n) __align__(n)\nstruct S { int a; } ALIGN;",
        "struct S { int a; } ALIGN(16) s;\n#define ALIGN(n) __align__(n)",
        // Memory spaces and C++11 attributes (GCC and NVRTC both ignore these after the brace).
        "struct S { int a; } __device__ s;",
        "typedef struct S_ { int a; } [[gnu::aligned(16)]] S;",
        // Attributes after the declarator are the typedef's or the variable's in both compilers.
        "typedef struct S_ { int a; } S __align__(16);",
        // Braces that close no class: a function returning a struct, then an attributed function;
        // a lambda; an enum; an initializer; a namespace; extern "C".
        "struct S f(struct S s) { return s; } __attribute__((noinline)) __device__ void g() {}",
        "auto l = [] { return 1; } __attribute__((unused));",
        "enum class E { a, b } __attribute__((packed)); enum struct F { c } __align__(4);",
        "struct S s = { 1, 2 } __attribute__((unused));",
        "namespace n { struct S { int a; }; } __attribute__((unused)) int x;",
        "extern \"C\" { struct S { int a; }; } __align__(4) int y;",
        // Text that only looks like a class: comments and literals.
        "// struct S { int a; } __align__(16) s;\n/* struct S { } __align__(16); */",
        "const char* t = \"struct S { int a; } __align__(16) s;\"; char c = '}';",
        "const char* r = R\"x(struct S { int a; } __align__(16) s;)x\";",
        // Unfinished text.
        "struct S { int a; } __align__(",
        "struct",
        "}",
        "#define",
        "\"open",
        "R\"x(never closed",
        "/* open",
        "struct S { int a; } __attribute__((aligned(16)",
        "#define ALIGN(n\nstruct S {} ALIGN(8);",
    };
    for (const std::string& source : unchanged)
        EXPECT_EQ(rtc::place_class_attributes(source), source) << source;
}

TEST(rtc_class_attributes, nested_templated_and_derived_classes_each_get_their_own) {
    EXPECT_EQ(placed("struct O { char c; struct I { int a; } __align__(16) i; struct { int b; } __align__(8) j; } "
                     "__align__(64);"),
              "struct __align__(64) O { char c; struct __align__(16) I { int a; } i; struct __align__(8) { int b; } "
              "j; } ;");
    EXPECT_EQ(placed("template <class T> struct X<T*> final : public B<(1 > 0)>, C { T a; } __align__(32);"),
              "template <class T> struct __align__(32) X<T*> final : public B<(1 > 0)>, C { T a; } ;");
    EXPECT_EQ(placed("#error don't\n#define ALIGN(n) __align__(n)\nchar c = 'x\nstruct S { int a; } ALIGN(8);"),
              "#error don't #define ALIGN(n) __align__(n) char c = 'x struct ALIGN(8) S { int a; } ;")
        << "a quote left open ends with its line, in a directive or not";
    EXPECT_EQ(placed("struct __device_builtin__ alignas(4) [[nodiscard]] n::S { int a; } __align__(8);"),
              "struct __align__(8) __device_builtin__ alignas(4) [[nodiscard]] n::S { int a; } ;");
}

TEST(rtc_class_attributes, every_line_keeps_its_number) {
    const std::string source = "typedef struct S_ {\n  int a;\n} /* note */ __align__(\n  16) // why\n  S;\nint x;";
    const std::string out = rtc::place_class_attributes(source);
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(source.begin(), source.end(), '\n'));
    EXPECT_EQ(out.substr(0, out.find('\n')), "typedef struct __align__( 16) S_ {");
    EXPECT_EQ(out.substr(out.rfind('\n') + 1), "int x;");
    // Comments stay where they were; the attribute's line breaks become spaces.
    EXPECT_EQ(squeezed(out), "typedef struct __align__( 16) S_ { int a; } /* note */ // why S; int x;");
}

TEST(rtc_class_attributes, a_source_without_them_is_returned_as_it_is) {
    const std::string source = "struct __align__(16) S { int a; char b; };\n__global__ void k(S* s) { s->a = 1; }\n";
    EXPECT_EQ(rtc::place_class_attributes(source), source);
}

// grunnur's struct for numpy's dtype(names=[val1, val2, nested], formats=[int32, int16,
// dtype(names=[val1, pad], formats=[int32, int8], offsets=[0, 4], itemsize=16)],
// offsets=[0, 4, 16], itemsize=64): grunnur.dtypes' text, each struct on one line; the
// asserts hold numpy's itemsizes and offsets.
constexpr const char* grunnur_struct = R"(
#define ALIGN(bytes) __align__(bytes)
typedef struct _mod__module_1__ { int val1; char pad; } ALIGN(16) _mod__module_1_;
typedef struct _mod__module_0__ { int val1; short val2; _mod__module_1_ nested; } ALIGN(64) _mod__module_0_;
static_assert(sizeof(_mod__module_1_) == 16, "inner itemsize");
static_assert(sizeof(struct _mod__module_1__) == 16, "inner itemsize through the tag");
static_assert(offsetof(_mod__module_1_, pad) == 4, "inner pad");
static_assert(sizeof(_mod__module_0_) == 64, "outer itemsize");
static_assert(offsetof(_mod__module_0_, val2) == 4, "val2");
static_assert(offsetof(_mod__module_0_, nested) == 16, "nested");
static_assert(offsetof(_mod__module_0_, nested.pad) == 20, "nested.pad");
static_assert(sizeof(_mod__module_0_[3]) == 3 * 64, "array stride");
static_assert(alignof(_mod__module_0_) == 64 && alignof(_mod__module_1_) == 16, "alignments");
__global__ void offsets(int* dest) {
    _mod__module_0_ temp;
    dest[0] = (int)((size_t)&temp.nested.pad - (size_t)&temp);
    dest[1] = sizeof(_mod__module_0_);
}
)";

// Packed structs with the attribute after the brace, one holding an array of the other.
constexpr const char* packed_struct = R"(
typedef struct P_ { char a; int b; double c; } __attribute__((packed)) P;
struct Q { char head; P items[3]; short s; double tail; } __attribute__((packed));
static_assert(sizeof(P) == 13 && offsetof(P, b) == 1 && offsetof(P, c) == 5, "packed");
static_assert(offsetof(Q, items[2].c) == 32 && offsetof(Q, tail) == 42 && sizeof(Q) == 50, "packed array");
__global__ void touch(Q* q) { q->items[1].c = 1.0; }
)";

void expect_compiles(const char* source, bool no_extern_c, const std::vector<std::string>& options) {
    rtc::compile_options compile_options = test::sm90_options();
    compile_options.no_extern_c = no_extern_c;
    compile_options.options = options;
    try {
        EXPECT_FALSE(rtc::compile(source, compile_options).cubin.empty());
    } catch (const compile_error& e) {
        ADD_FAILURE() << "no_extern_c=" << no_extern_c << ": " << e.what() << "\n" << e.log();
    }
}

TEST(rtc_class_attributes, nvrtc_lays_out_grunnurs_aligned_structs_as_numpy_and_nvcc_do) {
    GPUKIT_REQUIRE_NVRTC();
    for (bool no_extern_c : {false, true})
        for (const auto& options : std::vector<std::vector<std::string>>{{}, {"-std=c++17"}, {"-rdc=true"}}) {
            expect_compiles(grunnur_struct, no_extern_c, options);
            expect_compiles(packed_struct, no_extern_c, options);
        }
}

TEST(rtc_class_attributes, the_compile_entry_point_and_its_cache_key_see_the_placed_source) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_request request;
    request.source = grunnur_struct;
    request.options.arch = "sm_90";
    request.options.options = {"-O3", "--use_fast_math"};
    request.compiler = rtc::compiler_kind::nvrtc;
    EXPECT_EQ(rtc::compile(request).compiled_by, "nvrtc");
    // The key holds the source as NVRTC gets it, attributes placed: images cached before
    // gpukit placed them (NVRTC's other layout, keyed by the text as written) are not found.
    rtc::compile_request moved = request;
    moved.source = rtc::place_class_attributes(request.source);
    ASSERT_NE(moved.source, request.source);
    EXPECT_EQ(rtc::detail::cache_key(request, "nvrtc"), rtc::detail::cache_key(moved, "nvrtc"));
}

}  // namespace
