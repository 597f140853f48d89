// Shared by the tests that compile with NVRTC: skip (with the reason) where it is missing.
#pragma once

#include "gpukit/core/error.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/program.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#define GPUKIT_REQUIRE_NVRTC()                                      \
    do {                                                            \
        if (!::gpukit::rtc::nvrtc_available())                      \
            GTEST_SKIP() << "NVRTC (libnvrtc.so) is not installed"; \
    } while (false)

namespace gpukit::test {

// Whether the bytes of a compiled image (PTX, CUBIN, LTO-IR) hold `needle`.
inline bool image_contains(const std::vector<char>& bytes, const std::string& needle) {
    return std::search(bytes.begin(), bytes.end(), needle.begin(), needle.end()) != bytes.end();
}

// Compiling for sm_90, which needs no GPU; nothing else set.
inline rtc::compile_options sm90_options() {
    rtc::compile_options options;
    options.arch = "sm_90";
    return options;
}

// The options gpukit's kernel cache compiles its generated kernels with, for sm_90.
inline rtc::compile_options generated_kernel_options() {
    rtc::compile_options options = sm90_options();
    options.options = {"--std=c++17", "-default-device"};
    options.no_extern_c = true;
    return options;
}

// Compiles a generated kernel's source as the kernel cache does; a failure shows the log and
// the source.
inline void expect_generated_kernel_compiles(const std::string& source) {
    try {
        EXPECT_FALSE(rtc::compile(source, generated_kernel_options()).cubin.empty());
    } catch (const compile_error& e) {
        ADD_FAILURE() << e.what() << "\n" << e.log() << "\n" << source;
    }
}

}  // namespace gpukit::test
