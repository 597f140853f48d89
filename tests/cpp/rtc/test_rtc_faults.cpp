// NVRTC failures injected through its function table: each is a clear error, and NVRTC works
// again afterwards (no GPU needed).
#include "expect_error.hpp"
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

nvrtcResult no_memory_to_create(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*) {
    return NVRTC_ERROR_OUT_OF_MEMORY;
}

nvrtcResult builtin_failure(nvrtcProgram, int, const char* const*) { return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE; }

nvrtcResult no_cubin(nvrtcProgram, char*) { return NVRTC_ERROR_INTERNAL_ERROR; }

TEST(rtc_faults, every_failure_is_a_clear_error_and_nvrtc_works_afterwards) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::nvrtc_api& table = rtc::mutable_api();
    const auto compile_source = [] { rtc::compile(source, test::sm90_options()); };
    {
        api_override fail(table.nvrtcCreateProgram, &no_memory_to_create);
        test::expect_error<runtime_error>(compile_source, "nvrtcCreateProgram", "NVRTC_ERROR_OUT_OF_MEMORY");
    }
    {
        api_override fail(table.nvrtcCompileProgram, &builtin_failure);
        test::expect_error<compile_error>(compile_source, "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE");
    }
    {
        api_override fail(table.nvrtcGetCUBIN, &no_cubin);
        test::expect_error<runtime_error>(compile_source, "nvrtcGetCUBIN");
    }
    EXPECT_FALSE(rtc::compile(source, test::sm90_options()).cubin.empty());
}

}  // namespace
