// NVRTC failures injected through its function table: each is a clear error, and NVRTC works
// again afterwards (no GPU needed).
#include "gpukit/core/api_override.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/program.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace gpukit;

const char* const source = "__global__ void k(float* x) { x[0] = 1; }";

rtc::compile_options sm90() {
    rtc::compile_options o;
    o.arch = "sm_90";
    return o;
}

nvrtcResult no_memory_to_create(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                const char* const*) {
    return NVRTC_ERROR_OUT_OF_MEMORY;
}

nvrtcResult builtin_failure(nvrtcProgram, int, const char* const*) { return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE; }

nvrtcResult no_cubin(nvrtcProgram, char*) { return NVRTC_ERROR_INTERNAL_ERROR; }

TEST(rtc_faults, every_failure_is_a_clear_error_and_nvrtc_works_afterwards) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::nvrtc_api& table = rtc::mutable_api();
    {
        api_override fail(table.nvrtcCreateProgram, &no_memory_to_create);
        try {
            rtc::compile(source, sm90());
            FAIL() << "expected an error";
        } catch (const runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("nvrtcCreateProgram"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("NVRTC_ERROR_OUT_OF_MEMORY"), std::string::npos) << e.what();
        }
    }
    {
        api_override fail(table.nvrtcCompileProgram, &builtin_failure);
        try {
            rtc::compile(source, sm90());
            FAIL() << "expected an error";
        } catch (const compile_error& e) {
            EXPECT_NE(std::string(e.what()).find("NVRTC_ERROR_BUILTIN_OPERATION_FAILURE"), std::string::npos)
                << e.what();
        }
    }
    {
        api_override fail(table.nvrtcGetCUBIN, &no_cubin);
        try {
            rtc::compile(source, sm90());
            FAIL() << "expected an error";
        } catch (const runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("nvrtcGetCUBIN"), std::string::npos) << e.what();
        }
    }
    EXPECT_FALSE(rtc::compile(source, sm90()).cubin.empty());
}

}  // namespace
