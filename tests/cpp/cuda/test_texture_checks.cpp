// The checks texture objects make before calling the driver: they need no GPU.
#include "expect_error.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/texture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace gpukit::cuda;

using gpukit::test::expect_logic_error;

TEST(TextureChecks, FormatAndChannels) {
    EXPECT_NO_THROW(check_texture_format("t", CU_AD_FORMAT_FLOAT, 4));
    expect_logic_error([] { check_texture_format("t", CU_AD_FORMAT_FLOAT, 3); }, "1, 2 or 4");
    expect_logic_error([] { check_texture_format("t", static_cast<CUarray_format>(0x7777), 1); }, "not supported");
}

TEST(TextureChecks, Description) {
    texture_desc desc;
    desc.filter_mode = CU_TR_FILTER_MODE_LINEAR;
    desc.flags = CU_TRSF_READ_AS_INTEGER;
    EXPECT_NO_THROW(check_texture_desc("t", desc, CU_AD_FORMAT_FLOAT));
    expect_logic_error([&] { check_texture_desc("t", desc, CU_AD_FORMAT_SIGNED_INT32); }, "linear filtering");
    texture_desc wrap;
    wrap.address_mode[1] = CU_TR_ADDRESS_MODE_WRAP;
    expect_logic_error([&] { check_texture_desc("t", wrap, CU_AD_FORMAT_FLOAT); }, "NORMALIZED_COORDINATES");
    wrap.flags = CU_TRSF_NORMALIZED_COORDINATES;
    EXPECT_NO_THROW(check_texture_desc("t", wrap, CU_AD_FORMAT_FLOAT));
}

TEST(TextureChecks, Linear) {
    const device_pointer memory(0x10000, 1024);
    EXPECT_NO_THROW(check_linear_texture(memory, CU_AD_FORMAT_FLOAT, 2, 1024, 512));
    expect_logic_error([&] { check_linear_texture(memory, CU_AD_FORMAT_FLOAT, 2, 1032, 512); }, "exceeds");
    expect_logic_error([&] { check_linear_texture(memory, CU_AD_FORMAT_FLOAT, 2, 12, 512); }, "multiple of the 8");
    expect_logic_error([&] { check_linear_texture(memory, CU_AD_FORMAT_FLOAT, 1, 0, 512); }, "positive");
    expect_logic_error([] { check_linear_texture(device_pointer(0x10004), CU_AD_FORMAT_FLOAT, 1, 16, 512); },
                       "texture alignment");
    expect_logic_error([] { check_linear_texture(device_pointer(0), CU_AD_FORMAT_FLOAT, 1, 16, 512); }, "null");
}

TEST(TextureChecks, Pitch2d) {
    const device_pointer memory(0x10000, 32 * 512);
    EXPECT_NO_THROW(check_pitch2d_texture(memory, CU_AD_FORMAT_FLOAT, 1, 100, 32, 512, 512, 32));
    expect_logic_error([&] { check_pitch2d_texture(memory, CU_AD_FORMAT_FLOAT, 1, 200, 32, 512, 512, 32); },
                       "shorter than a row");
    expect_logic_error([&] { check_pitch2d_texture(memory, CU_AD_FORMAT_FLOAT, 1, 100, 32, 528, 512, 32); },
                       "pitch alignment");
    expect_logic_error([&] { check_pitch2d_texture(memory, CU_AD_FORMAT_FLOAT, 1, 100, 33, 512, 512, 32); }, "need");
    expect_logic_error([&] { check_pitch2d_texture(memory, CU_AD_FORMAT_FLOAT, 1, 0, 32, 512, 512, 32); },
                       "at least 1");
    // Sizes whose products wrap past 2**64 must not pass as small ones.
    expect_logic_error(
        [&] { check_pitch2d_texture(memory, CU_AD_FORMAT_FLOAT, 4, std::size_t{1} << 60, 1, 512, 512, 32); },
        "beyond 64 bits");
    expect_logic_error(
        [&] { check_pitch2d_texture(memory, CU_AD_FORMAT_FLOAT, 1, 100, std::size_t{1} << 56, 1024, 512, 32); },
        "beyond 64 bits");
}

}  // namespace
