#include "gpukit/core/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string last_warning;
void remember(const std::string& message) { last_warning = message; }

TEST(Error, HierarchyMirrorsTheSeed) {
    try {
        throw gpukit::memory_error("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory", 2, "cuMemAlloc");
    } catch (const gpukit::cuda_error& e) {
        EXPECT_EQ(e.code(), 2);
        EXPECT_EQ(e.routine(), "cuMemAlloc");
        EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos);
    }
    EXPECT_THROW(throw gpukit::logic_error("x"), gpukit::error);
    EXPECT_THROW(throw gpukit::launch_error("x"), gpukit::cuda_error);
    EXPECT_THROW(throw gpukit::runtime_error("x"), std::runtime_error);
    EXPECT_THROW(throw gpukit::cl_error("x", -5, "clCreateBuffer"), gpukit::error);
}

TEST(Error, CudaAndOpenClErrorsShareTheCallStatus) {
    // Code that only reports which call failed catches both as api_error.
    for (const auto& thrower : {+[] { throw gpukit::logic_error("bad value", 1, "cuMemcpy"); },
                                +[] { throw gpukit::cl_error("bad buffer", -38, "clEnqueueReadBuffer"); }}) {
        try {
            thrower();
            ADD_FAILURE() << "nothing was thrown";
        } catch (const gpukit::api_error& e) {
            EXPECT_TRUE(e.code() == 1 || e.code() == -38);
            EXPECT_TRUE(e.routine() == "cuMemcpy" || e.routine() == "clEnqueueReadBuffer");
        }
    }
    EXPECT_EQ(gpukit::cuda_error("no call").code(), 0);
    EXPECT_EQ(gpukit::cuda_error("no call").routine(), "");
}

TEST(Error, CompileErrorCarriesLogAndCommandLine) {
    gpukit::compile_error e("compile failed", "kernel.cu(3): error: x undefined", "--gpu-architecture=sm_90", "out");
    EXPECT_EQ(e.log(), "kernel.cu(3): error: x undefined");
    EXPECT_EQ(e.command_line(), "--gpu-architecture=sm_90");
    EXPECT_EQ(e.stdout_text(), "out");
}

TEST(Error, CleanupWarningsGoThroughTheHook) {
    gpukit::set_cleanup_warning_hook(&remember);
    gpukit::cleanup_warning("cuMemFree failed");
    EXPECT_EQ(last_warning, "cuMemFree failed");
    gpukit::set_cleanup_warning_hook(nullptr);  // back to stderr
    last_warning.clear();
    gpukit::cleanup_warning("to stderr");
    EXPECT_TRUE(last_warning.empty());
}

}  // namespace
