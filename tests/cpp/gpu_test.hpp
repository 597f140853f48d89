// Shared by the GPU tests: skip (with the reason) when there is no CUDA device, and give
// each test a fresh context of its own.
#pragma once

#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/device.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace gpukit::testing {

inline const char* why_no_gpu() {
    if (!cuda::driver_available())
        return "no CUDA driver (libcuda.so.1) on this machine";
    try {
        if (cuda::device::count() == 0)
            return "the CUDA driver reports no device";
    } catch (const std::exception&) {
        return "the CUDA driver failed to initialise";
    }
    return nullptr;
}

#define GPUKIT_REQUIRE_GPU()                                   \
    do {                                                       \
        if (const char* why = ::gpukit::testing::why_no_gpu()) \
            GTEST_SKIP() << why;                               \
    } while (false)

// A test with a context of its own, made current for the test and released after it.
class gpu_test : public ::testing::Test {
protected:
    void SetUp() override {
        GPUKIT_REQUIRE_GPU();
        ctx.emplace(cuda::device::get(0).make_context());
    }
    void TearDown() override {
        if (ctx) {
            ctx->detach();
            ctx.reset();
        }
    }
    std::optional<cuda::context> ctx;
};

}  // namespace gpukit::testing
