// curandom without a GPU: every generated kernel compiled by NVRTC for sm_90, the search for
// cuRAND's headers, and cuRAND's Sobol tables checked against Joe and Kuo's definition.
#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/random/curand_headers.hpp"
#include "gpukit/random/curand_library.hpp"
#include "gpukit/random/generator_source.hpp"
#include "gpukit/random/philox.hpp"
#include "gpukit/rtc/program.hpp"
#include "nvrtc_test.hpp"
#include "random/philox_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::random;
namespace fs = std::filesystem;

const generator_kind all_kinds[] = {generator_kind::xorwow,  generator_kind::mrg32k3a,
                                    generator_kind::sobol32, generator_kind::scrambled_sobol32,
                                    generator_kind::sobol64, generator_kind::scrambled_sobol64};

// The image of `source` for sm_90, or an empty one after reporting the failure.
std::string compile_for_sm90(const std::string& source, std::vector<std::string> options) {
    rtc::compile_options o;
    o.arch = "sm_90";
    o.options = std::move(options);
    o.no_extern_c = true;
    try {
        const auto program = rtc::compile(source, o);
        EXPECT_EQ(program.log, "");
        return std::string(program.cubin.begin(), program.cubin.end());
    } catch (const compile_error& e) {
        ADD_FAILURE() << e.what() << "\n" << e.log();
        return {};
    }
}

TEST(RandomSource, RandKernelsCompile) {
    GPUKIT_REQUIRE_NVRTC();
    // As the array kernel cache compiles gpukit's own kernels.
    const std::string image = compile_for_sm90(rand_source(), {"--std=c++17", "-default-device"});
    for (const char* name : {"gk_rand_float32", "gk_rand_float64", "gk_rand_bits32"})
        EXPECT_NE(image.find(name), std::string::npos) << name;
}

TEST(RandomSource, EveryGeneratorModuleCompilesWithItsKernels) {
    GPUKIT_REQUIRE_NVRTC();
    if (!find_curand_headers())
        GTEST_SKIP() << "cuRAND's headers (curand_kernel.h) are not installed";
    for (generator_kind kind : all_kinds) {
        SCOPED_TRACE(std::string(name(kind)));
        const std::string source = generator_source(kind);
        EXPECT_NE(source.find(std::string("typedef ") + std::string(state_type(kind)) + " gk_state;"),
                  std::string::npos);
        const std::string image = compile_for_sm90(source, {"--std=c++17"});
        ASSERT_FALSE(image.empty());
        EXPECT_NE(image.find(state_size_variable), std::string::npos);
        for (int k = 0; k < generator_kernel_count; ++k) {
            const auto kernel = static_cast<generator_kernel>(k);
            // The kernel names are unique up to a suffix: look for the name and its end.
            const std::string symbol = std::string(kernel_name(kernel)) + '\0';
            EXPECT_EQ(image.find(symbol) != std::string::npos, has_kernel(kind, kernel)) << kernel_name(kernel);
        }
    }
}

TEST(RandomSource, KernelsOfEachKind) {
    EXPECT_TRUE(has_kernel(generator_kind::sobol64, generator_kernel::uniform_bits64));
    EXPECT_FALSE(has_kernel(generator_kind::xorwow, generator_kernel::uniform_bits64));
    EXPECT_TRUE(has_kernel(generator_kind::xorwow, generator_kernel::skip_ahead_sequence));
    EXPECT_FALSE(has_kernel(generator_kind::xorwow, generator_kernel::skip_ahead_subsequence_array));
    EXPECT_TRUE(has_kernel(generator_kind::mrg32k3a, generator_kernel::skip_ahead_subsequence_array));
    EXPECT_FALSE(has_kernel(generator_kind::scrambled_sobol32, generator_kernel::skip_ahead_sequence_array));
    EXPECT_EQ(skip_bits(generator_kind::sobol32), 32);
    EXPECT_EQ(skip_bits(generator_kind::xorwow), 64);
    EXPECT_EQ(draw_bits(generator_kind::scrambled_sobol64), 64);
    EXPECT_EQ(draw_bits(generator_kind::mrg32k3a), 32);
    // Sobol modules draw one element per chunk, the others a 16-byte word.
    EXPECT_NE(generator_source(generator_kind::sobol32).find("#define GK_QUASI 1"), std::string::npos);
    EXPECT_NE(generator_source(generator_kind::xorwow).find("#define GK_QUASI 0"), std::string::npos);
    EXPECT_NE(generator_source(generator_kind::xorwow).find("curand_normal2(s)"), std::string::npos);
}

// Random123's known-answer vectors for Philox4x32-10, which the reference must reproduce.
TEST(RandomPhilox, ReferenceGivesTheKnownAnswers) {
    using gpukit::testing::philox4x32_10;
    EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
              (std::array<std::uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
    EXPECT_EQ(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
              (std::array<std::uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
    EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
              (std::array<std::uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(RandomPhilox, SupportedTypes) {
    EXPECT_TRUE(rand_supports(array::dtype::float32));
    EXPECT_TRUE(rand_supports(array::dtype::uint32));
    EXPECT_FALSE(rand_supports(array::dtype::int64));
    EXPECT_FALSE(rand_supports(array::dtype::complex64));
}

// ---- finding the headers

class CurandHeaders : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* test = ::testing::UnitTest::GetInstance();
        root = fs::temp_directory_path() /
               ("gpukit_curand_" + std::to_string(test->random_seed()) + "_" + test->current_test_info()->name());
        fs::remove_all(root);
        fs::create_directories(root);
    }
    void TearDown() override { fs::remove_all(root); }
    fs::path make_dir(const fs::path& relative, std::vector<std::string> files) {
        fs::create_directories(root / relative);
        for (const auto& file : files)
            EXPECT_TRUE(write_file((root / relative / file).string(), "// " + file + "\n"));
        return root / relative;
    }
    fs::path root;
};

TEST_F(CurandHeaders, FoundInTheToolkit) {
    const fs::path include = make_dir("cuda/include", {"cuda_runtime.h", "curand_kernel.h"});
    ASSERT_TRUE(write_file((include / "curand.h").string(),
                           "#define CURAND_VER_MAJOR 10\n#define CURAND_VER_MINOR 4\n#define CURAND_VER_PATCH 0\n"));
    rtc::cuda_toolkit toolkit;
    toolkit.include_dirs = {include.string()};
    const auto found = find_curand_headers(toolkit, {});
    ASSERT_TRUE(found);
    EXPECT_EQ(found->include_dir, include.string());
    EXPECT_TRUE(found->in_toolkit);
    ASSERT_TRUE(found->version);
    EXPECT_EQ(*found->version, (std::array<int, 3>{10, 4, 0}));
}

TEST_F(CurandHeaders, FoundInThePipPackageBesideTheToolkit) {
    const fs::path include = make_dir("cuda/include", {"cuda_runtime.h"});
    const fs::path pip = make_dir("site/nvidia/curand/include", {"curand_kernel.h"});
    rtc::cuda_toolkit toolkit;
    toolkit.include_dirs = {include.string()};
    const auto found = find_curand_headers(toolkit, {(root / "site/nvidia").string()});
    ASSERT_TRUE(found);
    EXPECT_EQ(found->include_dir, pip.string());
    EXPECT_FALSE(found->in_toolkit);
    EXPECT_FALSE(found->version);  // no curand.h beside it
}

TEST_F(CurandHeaders, MissingWithoutAToolkitOrAHeader) {
    make_dir("site/nvidia/curand/include", {"curand_kernel.h"});
    // curand_kernel.h needs the toolkit's cuda_runtime.h: a pip cuRAND alone is not enough.
    EXPECT_FALSE(find_curand_headers(rtc::cuda_toolkit{}, {(root / "site/nvidia").string()}));
    rtc::cuda_toolkit toolkit;
    toolkit.include_dirs = {make_dir("cuda/include", {"cuda_runtime.h"}).string()};
    EXPECT_FALSE(find_curand_headers(toolkit, {}));
}

TEST(CurandHeaderVersion, ReadsTheThreeMacros) {
    EXPECT_EQ(curand_header_version("/* x */\n#define CURAND_VER_MAJOR 11\n#define CURAND_VER_MINOR 2\n"
                                    "#define CURAND_VER_PATCH 37\n#define CURAND_VER_BUILD 1\n"),
              (std::array<int, 3>{11, 2, 37}));
    EXPECT_FALSE(curand_header_version("#define CURAND_VER_MAJOR 11\n#define CURAND_VER_MINOR 2\n"));
    EXPECT_FALSE(
        curand_header_version("#define CURAND_VER_MAJOR x\n#define CURAND_VER_MINOR 2\n"
                              "#define CURAND_VER_PATCH 3\n"));
}

// ---- cuRAND's tables

// Joe and Kuo's primitive polynomials and initial direction numbers (new-joe-kuo-6.21201)
// for dimensions 2 to 8: degree s, coefficients a, m_1..m_s. Dimension 1 has all m = 1 and
// v_k = 2^(w-k).
struct joe_kuo {
    int s, a;
    std::vector<std::uint64_t> m;
};
const joe_kuo dimensions[] = {{1, 0, {1}},          {2, 1, {1, 3}},        {3, 1, {1, 3, 1}},       {3, 2, {1, 1, 1}},
                              {4, 1, {1, 1, 3, 3}}, {4, 4, {1, 3, 5, 13}}, {5, 2, {1, 1, 5, 5, 17}}};

// The w direction vectors of a dimension, by the Sobol recurrence, scaled to w bits.
std::vector<std::uint64_t> sobol_vectors(const joe_kuo* d, int w) {
    std::vector<std::uint64_t> v(static_cast<std::size_t>(w));
    for (int k = 1; k <= w; ++k) {
        if (!d) {
            v[k - 1] = std::uint64_t{1} << (w - k);
        } else if (k <= d->s) {
            v[k - 1] = d->m[k - 1] << (w - k);
        } else {
            std::uint64_t x = v[k - 1 - d->s] ^ (v[k - 1 - d->s] >> d->s);
            for (int j = 1; j < d->s; ++j)
                if ((d->a >> (d->s - 1 - j)) & 1)
                    x ^= v[k - 1 - j];
            v[k - 1] = x;
        }
    }
    return v;
}

#define GPUKIT_REQUIRE_CURAND_LIBRARY()                                         \
    do {                                                                        \
        if (!curand_library_available())                                        \
            GTEST_SKIP() << "cuRAND's library (libcurand.so) is not installed"; \
    } while (false)

TEST(CurandLibrary, DirectionVectorsAreJoeAndKuos) {
    GPUKIT_REQUIRE_CURAND_LIBRARY();
    const std::size_t count = 1 + std::size(dimensions);
    const auto v32 = direction_vectors32(direction_vector_set::vectors_32, count);
    const auto v64 = direction_vectors64(direction_vector_set::vectors_64, count);
    ASSERT_EQ(v32.size(), count * 32);
    ASSERT_EQ(v64.size(), count * 64);
    for (std::size_t d = 0; d < count; ++d) {
        SCOPED_TRACE("dimension " + std::to_string(d + 1));
        const joe_kuo* params = d == 0 ? nullptr : &dimensions[d - 1];
        const auto expected32 = sobol_vectors(params, 32), expected64 = sobol_vectors(params, 64);
        for (int k = 0; k < 32; ++k)
            EXPECT_EQ(v32[d * 32 + k], expected32[k]) << "vector " << k;
        for (int k = 0; k < 64; ++k)
            EXPECT_EQ(v64[d * 64 + k], expected64[k]) << "vector " << k;
    }
}

TEST(CurandLibrary, ScrambledSetsAndConstantsDiffer) {
    GPUKIT_REQUIRE_CURAND_LIBRARY();
    const auto plain = direction_vectors32(direction_vector_set::vectors_32, 100);
    const auto scrambled = direction_vectors32(direction_vector_set::scrambled_vectors_32, 100);
    EXPECT_NE(plain, scrambled);
    const auto c32 = scramble_constants32(sobol_dimensions);
    const auto c64 = scramble_constants64(3);
    EXPECT_EQ(c32.size(), sobol_dimensions);
    EXPECT_EQ(c64.size(), 3u);
    EXPECT_GT(std::count_if(c32.begin(), c32.end(), [](std::uint32_t c) { return c != 0; }), 19000);
    EXPECT_TRUE(direction_vectors64(direction_vector_set::scrambled_vectors_64, 0).empty());
}

TEST(CurandLibrary, RefusesWhatItDoesNotHave) {
    GPUKIT_REQUIRE_CURAND_LIBRARY();
    EXPECT_THROW(direction_vectors32(direction_vector_set::vectors_32, sobol_dimensions + 1), logic_error);
    EXPECT_THROW(scramble_constants64(sobol_dimensions + 1), logic_error);
    EXPECT_THROW(direction_vectors32(direction_vector_set::vectors_64, 1), logic_error);
    EXPECT_THROW(direction_vectors64(direction_vector_set::scrambled_vectors_32, 1), logic_error);
    EXPECT_THROW(direction_vectors32(static_cast<direction_vector_set>(7), 1), logic_error);
}

TEST(CurandLibrary, VersionMatchesTheHeaders) {
    GPUKIT_REQUIRE_CURAND_LIBRARY();
    const auto library = curand_library_version();
    EXPECT_GE(library[0], 10);
    const auto headers = find_curand_headers();
    if (headers && headers->version) {
        EXPECT_EQ(library[0], (*headers->version)[0]);
        EXPECT_EQ(curand_version(), headers->version);  // the headers' version comes first
    } else {
        EXPECT_EQ(curand_version(), library);
    }
}

}  // namespace
