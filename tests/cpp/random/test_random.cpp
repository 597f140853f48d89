// curandom without a GPU: every generated kernel compiled by NVRTC for sm_90.
#include "gpukit/core/error.hpp"
#include "gpukit/random/philox.hpp"
#include "gpukit/rtc/program.hpp"
#include "nvrtc_test.hpp"
#include "random/philox_reference.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::random;

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

}  // namespace
