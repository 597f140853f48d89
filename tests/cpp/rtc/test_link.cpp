// nvJitLink links without a GPU, so dynamic parallelism is linked for real here; running
// the result is a GPU test (tests/python/test_dynamic_module.py).
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/linker.hpp"
#include "gpukit/rtc/nvjitlink.hpp"
#include "gpukit/rtc/program.hpp"

#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace {

using namespace gpukit;

constexpr const char* parent_and_child = R"(
__global__ void child(int *out, int base) { out[base + threadIdx.x] = base + threadIdx.x; }
__global__ void parent(int *out) { child<<<1, 32>>>(out, blockIdx.x * 32); }
)";

class link_test : public ::testing::Test {
protected:
    void SetUp() override {
        if (!rtc::nvrtc_available() || !rtc::nvjitlink_available())
            GTEST_SKIP() << "NVRTC or nvJitLink is not installed";
    }

    // A linker for sm_90 holding parent_and_child, compiled as relocatable device code.
    static rtc::linker linker_with_parent() {
        rtc::compile_options options;
        options.arch = "sm_90";
        options.options = {"-rdc=true"};
        const rtc::compiled_program program = rtc::compile(parent_and_child, options);
        rtc::linker linker("sm_90");
        linker.add_data(program.cubin.data(), program.cubin.size(), rtc::link_input::cubin, "parent.cubin");
        return linker;
    }
};

TEST_F(link_test, kernel_launching_a_kernel_links_with_cudadevrt) {
    rtc::linker linker = linker_with_parent();
    linker.add_file(rtc::find_device_library("cudadevrt"), rtc::link_input::library);
    const std::vector<char> cubin = linker.complete();
    EXPECT_EQ(std::string(cubin.data(), 4),
              "\x7f"
              "ELF");
    EXPECT_TRUE(gpukit::test::image_contains(cubin, "parent"));
    EXPECT_TRUE(gpukit::test::image_contains(cubin, "child"));
    EXPECT_THROW(linker.complete(), logic_error);
}

TEST_F(link_test, missing_device_runtime_is_a_link_error_naming_the_symbol) {
    rtc::linker linker = linker_with_parent();
    try {
        linker.complete();
        FAIL() << "linked a device launch without cudadevrt";
    } catch (const compile_error& e) {
        EXPECT_NE(e.log().find("Undefined reference"), std::string::npos) << e.log();
        EXPECT_NE(e.command_line().find("-arch=sm_90"), std::string::npos);
    }
}

TEST_F(link_test, bad_inputs_are_clear_errors) {
    EXPECT_THROW(rtc::linker("compute_90"), logic_error);
    EXPECT_THROW(rtc::link_input_from_name("elf"), logic_error);
    EXPECT_THROW(rtc::find_device_library("cudadevrt", "/no/such/dir"), runtime_error);
    rtc::linker linker("sm_90");
    EXPECT_THROW(linker.add_file("/no/such/file.a", rtc::link_input::library), runtime_error);
    const std::string garbage = "not a cubin";
    EXPECT_THROW(linker.add_data(garbage.data(), garbage.size(), rtc::link_input::cubin, "garbage"), compile_error);
}

TEST_F(link_test, text_holding_a_nul_is_refused) {
    using namespace std::string_literals;
    EXPECT_THROW(rtc::linker("sm_90", {"-O3\0-lineinfo"s}), std::invalid_argument);
    rtc::linker linker("sm_90");
    const std::string garbage = "not a cubin";
    EXPECT_THROW(linker.add_data(garbage.data(), garbage.size(), rtc::link_input::cubin, "a\0b"s),
                 std::invalid_argument);
    EXPECT_THROW(linker.add_file(rtc::find_device_library("cudadevrt") + "\0.x"s, rtc::link_input::library),
                 std::invalid_argument);
}

TEST_F(link_test, version_and_library_file_are_known) {
    const auto [major, minor] = rtc::nvjitlink_version();
    EXPECT_GE(major, 12u);
    EXPECT_LT(minor, 100u);
    const std::string path = rtc::nvjitlink_library_path();
    EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path;
    EXPECT_EQ(std::filesystem::path(path).filename().string().rfind("libnvJitLink.so", 0), 0u) << path;
}

}  // namespace
