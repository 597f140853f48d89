// Shared by the array tests that generate kernel source: every dtype, and compiling a
// kernel as SourceModule compiles a user's (no GPU needed).
#pragma once

#include "gpukit/array/dtype.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/program.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpukit::test {

inline constexpr array::dtype every_dtype[] = {array::dtype::bool_,     array::dtype::int8,    array::dtype::int16,
                                               array::dtype::int32,     array::dtype::int64,   array::dtype::uint8,
                                               array::dtype::uint16,    array::dtype::uint32,  array::dtype::uint64,
                                               array::dtype::float32,   array::dtype::float64, array::dtype::complex64,
                                               array::dtype::complex128};

inline bool contains(const std::string& text, const std::string& piece) {
    return text.find(piece) != std::string::npos;
}

// The compiler's error for `source` compiled as SourceModule compiles a user's kernel, for
// sm_90 with gpukit's device headers (pycuda-complex.hpp) on the include path; empty when
// it compiled.
inline std::string user_kernel_compile_error(const std::string& source) {
    rtc::compile_options options;
    options.arch = "sm_90";
    options.no_extern_c = true;
    options.include_dirs = {GPUKIT_DEVICE_INCLUDE_DIR};
    try {
        EXPECT_FALSE(rtc::compile(source, options).cubin.empty());
        return {};
    } catch (const compile_error& e) {
        return std::string(e.what()) + "\n" + e.log();
    }
}

// The same, as a test failure showing the log and the source.
inline void expect_user_kernel_compiles(const std::string& source) {
    const std::string error = user_kernel_compile_error(source);
    EXPECT_TRUE(error.empty()) << error << "\n" << source;
}

}  // namespace gpukit::test
