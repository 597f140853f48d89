// Scan kernels (gpukit::array::scan_spec, scan_source) and the other kernels written once for
// CUDA C and OpenCL C (generic scans, sort passes, the portable indexed copy): the spec's checks, the tile shapes,
// NVRTC compiling every kind and variant for sm_90 with built-in, vector, struct and complex
// element types, and what scan() refuses before it needs a device (no GPU needed). The scans themselves are checked on
// a GPU by test_scan_gpu.cpp and tests/python/test_scan.py.
#include "gpukit/array/generic_scan.hpp"
#include "gpukit/array/scan.hpp"
#include "gpukit/array/indexing.hpp"
#include "gpukit/array/sort.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/program.hpp"
#include "array_test.hpp"
#include "expect_error.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using namespace gpukit;
using namespace gpukit::array;
using test::contains;

void expect_compiles(const scan_spec& spec) {
    for (const scan_variant variant : {scan_variant::vectorized, scan_variant::strided}) {
        test::expect_user_kernel_compiles(scan_source(spec, variant));
    }
}

scan_spec sum(scan_kind kind, const char* c_type, std::size_t size, const char* neutral = "0") {
    return scan_spec(kind, c_type, size, "a + b", std::string(neutral));
}

TEST(ScanSpec, KeepsWhatItIsGivenAndNamesItsKernel) {
    const scan_spec s(scan_kind::exclusive, "int", 4, "a * b", std::string("1"), "products", "// helpers");
    EXPECT_EQ(s.kind(), scan_kind::exclusive);
    EXPECT_EQ(s.c_type(), "int");
    EXPECT_EQ(s.item_size(), 4u);
    EXPECT_EQ(s.scan_expr(), "a * b");
    EXPECT_EQ(s.neutral(), std::optional<std::string>("1"));
    EXPECT_EQ(s.kernel_name(), "products_tiles");
    EXPECT_NE(s.key(), sum(scan_kind::exclusive, "int", 4).key());  // a key per spec, never by text
}

TEST(ScanSpec, RefusesWhatCannotMakeAKernel) {
    EXPECT_THROW(scan_spec(scan_kind::inclusive, "int", 4, "a + b", std::nullopt, "two words"), logic_error);
    EXPECT_THROW(scan_spec(scan_kind::inclusive, "int", 4, "a + b", std::nullopt, "9lives"), logic_error);
    EXPECT_THROW(scan_spec(scan_kind::inclusive, "int", 4, "", std::nullopt), logic_error);
    EXPECT_THROW(scan_spec(scan_kind::inclusive, "", 4, "a + b", std::nullopt), logic_error);
    EXPECT_THROW(scan_spec(scan_kind::inclusive, "int", 0, "a + b", std::nullopt), logic_error);
    EXPECT_THROW(scan_spec(scan_kind::inclusive, "int", 4, "a + b", std::string()), logic_error);
    EXPECT_THROW(scan_spec(scan_kind::inclusive, "int", 4, " \n ", std::nullopt), logic_error);  // blank
    EXPECT_THROW(scan_spec(scan_kind::inclusive, "int", 4, "a + b", std::string("  ")), logic_error);
    try {
        scan_spec(scan_kind::exclusive, "int", 4, "a + b", std::nullopt);
        ADD_FAILURE() << "an exclusive scan without a neutral element was accepted";
    } catch (const logic_error& e) {
        EXPECT_TRUE(contains(e.what(), "neutral")) << e.what();
    }
    EXPECT_NO_THROW(scan_spec(scan_kind::inclusive, "int", 4, "a + b", std::nullopt));
    EXPECT_NO_THROW(scan_spec(scan_kind::inclusive, "int", 4, "a + b", std::nullopt, "if"));  // kernel if_tiles
}

// Text with a NUL would be cut short where the first launch hands it to the compiler: the
// spec refuses it when made, naming the text.
TEST(ScanSpec, RefusesTextHoldingANul) {
    using namespace std::string_literals;
    using test::expect_error;
    constexpr scan_kind inclusive = scan_kind::inclusive;
    expect_error<std::invalid_argument>([] { scan_spec(inclusive, "int", 4, "a + b\0junk"s, std::nullopt); },
                                        "scan_expr");
    expect_error<std::invalid_argument>([] { scan_spec(scan_kind::exclusive, "int", 4, "a + b", "0\0junk"s); },
                                        "neutral");
    expect_error<std::invalid_argument>(
        [] { scan_spec(inclusive, "int", 4, "a + b", std::nullopt, "scan", "// x\0y"s); }, "preamble");
    expect_error<std::invalid_argument>([] { scan_spec(inclusive, "int\0"s, 4, "a + b", std::nullopt); },
                                        "element type");
    rtc::compile_request request;
    request.options.options = {"-DX=1\0junk"s};
    expect_error<std::invalid_argument>(
        [&] { scan_spec(inclusive, "int", 4, "a + b", std::nullopt, "scan", "", request); }, "compile option");
}

TEST(ScanTileShape, SixteenByteGroupsAboutTwoHundredFiftySixBytesAThread) {
    // At most 64 elements, 16 chunks and 128 bytes of chunk totals a thread.
    const struct {
        std::size_t size;
        int per_group, chunks;
    } expected[] = {{1, 16, 4}, {2, 8, 8},  {4, 4, 16}, {8, 2, 16}, {16, 1, 8}, {12, 1, 10},
                    {3, 1, 16}, {24, 1, 5}, {32, 1, 4}, {48, 1, 2}, {256, 1, 1}};
    for (const auto& e : expected) {
        const scan_tile_shape shape = scan_tile_shape_of(e.size);
        EXPECT_EQ(shape.per_group, e.per_group) << e.size;
        EXPECT_EQ(shape.chunks, e.chunks) << e.size;
        EXPECT_EQ(shape.items(), static_cast<std::int64_t>(scan_threads) * e.per_group * e.chunks) << e.size;
    }
}

TEST(ScanSource, DeclaresTheElementTheOperatorAndTheKernel) {
    const scan_spec s(scan_kind::inclusive, "float", 4, "a + b", std::nullopt, "scan", "// preamble here");
    const std::string source = scan_source(s, scan_variant::vectorized);
    EXPECT_TRUE(contains(source, "// preamble here"));
    EXPECT_TRUE(contains(source, "typedef float scan_type;"));
    EXPECT_TRUE(contains(source, "static_assert(sizeof(scan_type) == 4"));
    EXPECT_TRUE(contains(source, "return (a + b);"));
    EXPECT_TRUE(contains(source, "across_seg_boundary"));
    EXPECT_TRUE(contains(source, "extern \"C\" __global__ void __launch_bounds__(gk_threads) scan_tiles("));
    EXPECT_TRUE(contains(source, "#define GK_SCAN_VECTORIZED 1"));
    EXPECT_TRUE(contains(scan_source(s, scan_variant::strided), "#define GK_SCAN_VECTORIZED 0"));
    EXPECT_FALSE(contains(source, "gk_neutral"));  // none given, none needed
    EXPECT_TRUE(contains(scan_source(sum(scan_kind::inclusive, "float", 4), scan_variant::strided),
                         "scan_type gk_neutral() { return (0); }"));
}

TEST(ScanSource, BuiltInTypesCompileForSm90) {
    GPUKIT_REQUIRE_NVRTC();
    for (const scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        expect_compiles(sum(kind, "float", 4));
        expect_compiles(sum(kind, "double", 8));
        expect_compiles(sum(kind, "int", 4));
        expect_compiles(sum(kind, "long long", 8));
        expect_compiles(sum(kind, "unsigned int", 4));
        expect_compiles(scan_spec(kind, "unsigned char", 1, "(a + b) & 0b11111111", std::string("0")));
        expect_compiles(scan_spec(kind, "short", 2, "a > b ? a : b", std::string("-32768")));
        expect_compiles(scan_spec(kind, "bool", 1, "a || b", std::string("false")));
    }
}

TEST(ScanSource, VectorStructAndComplexTypesCompileForSm90) {
    GPUKIT_REQUIRE_NVRTC();
    // (x, y) as the affine map t -> x * t + y; a then b is b after a: not commutative.
    const char* affine =
        "__device__ float2 then(float2 a, float2 b) { return make_float2(a.x * b.x, b.x * a.y + b.y); }";
    const char* matrix =
        "struct mat2 { int a, b, c, d; };\n"
        "__device__ mat2 mul(mat2 p, mat2 q) {\n"
        "    return {p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d, p.c * q.a + p.d * q.c,\n"
        "            p.c * q.b + p.d * q.d};\n"
        "}\n";
    for (const scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        expect_compiles(scan_spec(kind, "float2", 8, "then(a, b)", std::string("make_float2(1, 0)"), "affine", affine));
        expect_compiles(scan_spec(kind, "float3", 12, "make_float3(a.x + b.x, a.y + b.y, a.z + b.z)",
                                  std::string("make_float3(0, 0, 0)")));
        expect_compiles(scan_spec(kind, "double2", 16, "make_double2(a.x + b.x, fmax(a.y, b.y))",
                                  std::string("make_double2(0, -1.0 / 0.0)")));
        expect_compiles(scan_spec(kind, "mat2", 16, "mul(a, b)", std::string("mat2{1, 0, 0, 1}"), "matrices", matrix));
        expect_compiles(scan_spec(kind, "char3", 3, "make_char3(a.x + b.x, a.y + b.y, a.z + b.z)",
                                  std::string("make_char3(0, 0, 0)")));
        expect_compiles(scan_spec(kind, "pycuda::complex<double>", 16, "a * b", std::string("1"), "complex_products",
                                  "#include <pycuda-complex.hpp>"));
    }
}

TEST(ScanSource, AnElementTypeOfAnotherSizeIsACompileError) {
    GPUKIT_REQUIRE_NVRTC();
    const scan_spec s(scan_kind::inclusive, "double", 4, "a + b", std::nullopt);  // the arrays hold 4-byte elements
    const std::string error = test::user_kernel_compile_error(scan_source(s, scan_variant::strided));
    EXPECT_TRUE(contains(error, "is not 4 bytes")) << error;
}

TEST(ScanSource, AnExpressionThatDoesNotCompileIsReported) {
    GPUKIT_REQUIRE_NVRTC();
    EXPECT_FALSE(test::user_kernel_compile_error(
                     scan_source(sum(scan_kind::inclusive, "float", 4, "no_such_name"), scan_variant::strided))
                     .empty());
    EXPECT_FALSE(
        test::user_kernel_compile_error(
            scan_source(scan_spec(scan_kind::inclusive, "float", 4, "a +* b", std::nullopt), scan_variant::strided))
            .empty());
}

TEST(ScanArguments, BadOperandsAreRefusedBeforeAnythingRuns) {
    const scan_spec s = sum(scan_kind::inclusive, "int", 4);
    const auto refuses = [&](scan_operand in, scan_operand out, std::int64_t n, const char* why) {
        try {
            scan(s, in, out, n);
            ADD_FAILURE() << "accepted: " << why;
        } catch (const logic_error& e) {
            EXPECT_TRUE(contains(e.what(), why)) << e.what();
        }
    };
    refuses({0x1000, 4}, {0x2000, 4}, -1, "negative");
    refuses({0x1002, 4}, {0x2000, 4}, 10, "not aligned");
    refuses({0x1000, 4}, {0x2000, 6}, 10, "not aligned");
    refuses({0x1000, 4}, {0x2000, 0}, 2, "stride 0");
    refuses({0x1000, 1LL << 60}, {0x2000, 4}, 1 << 10, "address space");
    EXPECT_NO_THROW(scan(s, {0x1000, 4}, {0x1004, 4}, 0));  // nothing to do: no device needed
}

// The generic scan's CUDA C (its OpenCL C runs in test_generic_scan_opencl.cpp): plain,
// segmented with prev_item, and with fetches, last_item, scalars and a struct scan type.
TEST(GenericScanSource, CompilesAsCudaC) {
    GPUKIT_REQUIRE_NVRTC();
    const generic_scan_spec plain("sums", "int", 4, {{"x", dtype::int32, param_kind::inout}}, "x[i]", "a + b", "0",
                                  "x[i] = item;");
    const generic_scan_spec segmented("segsums", "double", 8,
                                      {{"x", dtype::float64, param_kind::input},
                                       {"starts", dtype::uint8, param_kind::input},
                                       {"out", dtype::float64, param_kind::output}},
                                      "x[i]", "across_seg_boundary ? b : a + b", "0", "out[i] = prev_item;",
                                      "starts[i]");
    const generic_scan_spec structs("best", "best_t", 8,
                                    {{"x", dtype::int16, param_kind::input},
                                     {"scale", dtype::int64, param_kind::scalar},
                                     {"out", dtype::complex64, param_kind::output}},
                                    "make_best(x_prev + x[i], (int)i)", "better(a, b)", "make_best(-1, -1)",
                                    "out[i] = gk_complex<float>(item.value * scale, last_item.at);", "",
                                    {{"x_prev", "x", -1}},
                                    "struct best_t { int value; int at; };\n"
                                    "best_t better(best_t a, best_t b) { return b.value > a.value ? b : a; }\n"
                                    "best_t make_best(int value, int at) { return best_t{value, at}; }\n");
    for (const generic_scan_spec* spec : {&plain, &segmented, &structs})
        test::expect_generated_kernel_compiles(generic_scan_source(*spec, kernel_language::cuda));
}

// The sort pass kernel's CUDA C (its OpenCL C runs in test_sort_opencl.cpp), for integer and
// floating-point keys, without values and with values of every size. (Like the other
// CompilesAsCudaC tests, the sanitizer and clang lanes leave it out: Makefile NVRTC_SWEEPS.)
TEST(SortSource, CompilesAsCudaC) {
    GPUKIT_REQUIRE_NVRTC();
    // The key type and the value size change separate lines of the text: each is varied alone.
    for (const dtype key : {dtype::int8, dtype::uint64, dtype::float32, dtype::float64})
        test::expect_generated_kernel_compiles(sort_source(key, 4, kernel_language::cuda));
    for (const std::size_t value_size : {0, 1, 2, 8, 16})
        test::expect_generated_kernel_compiles(sort_source(dtype::float32, value_size, kernel_language::cuda));
}

// The portable indexed copy's CUDA C (its OpenCL C runs in test_indexing_opencl.cpp), for
// every element size, and with either index array alone or none.
TEST(PortableIndexedCopySource, CompilesAsCudaC) {
    GPUKIT_REQUIRE_NVRTC();
    for (const std::size_t size : {1, 2, 4, 8, 16})
        test::expect_generated_kernel_compiles(
            portable_indexed_copy_source(size, dtype::uint32, dtype::int64, kernel_language::cuda));
    for (const std::optional<dtype> source : {std::optional<dtype>(), std::optional(dtype::bool_)})
        test::expect_generated_kernel_compiles(
            portable_indexed_copy_source(4, source, std::nullopt, kernel_language::cuda));
    test::expect_generated_kernel_compiles(
        portable_indexed_copy_source(4, std::nullopt, dtype::int32, kernel_language::cuda));
}

}  // namespace
