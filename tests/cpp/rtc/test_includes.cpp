// #include scanning and PyCUDA's extern "C" wrapper with C++ headers kept out of it.
#include "gpukit/core/error.hpp"
#include "gpukit/core/process.hpp"
#include "gpukit/rtc/includes.hpp"
#include "gpukit/rtc/nvcc.hpp"
#include "gpukit/rtc/program.hpp"
#include "gpukit/rtc/toolkit.hpp"
#include "expect_error.hpp"
#include "nvrtc_test.hpp"
#include "temp_dir_test.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

using namespace gpukit;
namespace fs = std::filesystem;

using includes_test = test::temp_dir_test;

TEST(rtc_includes, finds_both_forms_with_their_line_numbers) {
    const auto found = rtc::find_includes(
        "#include <a.h>\n  #  include \"b/c.h\" // note\nint x;\n#include MACRO\n"
        "#include_next <d.h>\n#include <e.h>");
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].name, "a.h");
    EXPECT_FALSE(found[0].quoted);
    EXPECT_EQ(found[0].line, 1u);
    EXPECT_EQ(found[1].name, "b/c.h");
    EXPECT_TRUE(found[1].quoted);
    EXPECT_EQ(found[1].line, 2u);
    EXPECT_EQ(found[2].name, "e.h");
    EXPECT_EQ(found[2].line, 6u);
}

TEST_F(includes_test, user_headers_are_found_quoted_next_to_the_source_or_in_the_dirs) {
    write("mine.h", "");
    fs::create_directories(dir / "inc");
    std::ofstream(dir / "inc" / "other.h") << "";
    const rtc::include_directive quoted{"mine.h", true, 1}, angled{"mine.h", false, 1};
    EXPECT_EQ(rtc::find_user_header(quoted, dir, {}), dir / "mine.h");
    EXPECT_TRUE(rtc::find_user_header(angled, dir, {}).empty()) << "<...> does not search the source's directory";
    EXPECT_EQ(rtc::find_user_header({"other.h", false, 1}, dir, {dir / "inc"}), dir / "inc" / "other.h");
    write("math.h", "");
    EXPECT_TRUE(rtc::find_user_header({"math.h", true, 1}, dir, {dir}).empty()) << "built-in names are NVRTC's";
}

// A FIFO (or device) where the compiler would look for a header is refused before the
// compiler opens it: NVRTC blocked forever on a FIFO without a writer.
TEST_F(includes_test, a_header_that_is_not_a_regular_file_is_a_compile_error) {
    ASSERT_EQ(::mkfifo((dir / "pipe.h").c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", dir / "zero.h");
    fs::create_directories(dir / "folder.h");
    for (const char* name : {"pipe.h", "zero.h"}) {
        try {
            rtc::find_user_header({name, true, 3}, dir, {});
            ADD_FAILURE() << name << " was accepted";
        } catch (const compile_error& e) {
            EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("(line 3)"), std::string::npos) << e.what();
        }
        EXPECT_THROW(rtc::find_user_header({name, false, 1}, "/nonexistent", {dir}), compile_error);
    }
    EXPECT_TRUE(rtc::find_user_header({"folder.h", true, 1}, dir, {dir}).empty()) << "a directory is no header";
    EXPECT_THROW(rtc::find_included_headers("#include \"pipe.h\"\n", dir, {}), compile_error);
}

// An absolute name is checked whatever directories are searched: with none, NVRTC refused
// #include </dev/zero> and the nvcc it fell back to read it without end.
TEST_F(includes_test, an_absolute_include_is_checked_without_include_dirs) {
    ASSERT_EQ(::mkfifo((dir / "pipe.h").c_str(), 0600), 0);
    write("mine.h", "");
    for (const std::string& name : {std::string("/dev/zero"), (dir / "pipe.h").string()}) {
        for (const bool quoted : {false, true})
            test::expect_error<compile_error>(
                [&] {
                    rtc::find_user_header({name, quoted, 2}, "/nonexistent", {});
                },
                "would read '" + name + "', which is not a regular file", "(line 2)");
        for (const auto compiler : {rtc::wrapper_for::nvrtc, rtc::wrapper_for::nvcc})
            test::expect_error<compile_error>(
                [&] { rtc::wrap_source("#include <" + name + ">\n", "kernel.cu", false, compiler, {}); },
                "#include <" + name + "> (line 1)");
    }
    EXPECT_EQ(rtc::find_user_header({(dir / "mine.h").string(), false, 1}, "/nonexistent", {}), dir / "mine.h");
}

// What a header of the user's includes is checked too, before any compiler runs.
TEST_F(includes_test, wrap_source_refuses_a_device_that_a_user_header_includes) {
    write("outer.h", "#include \"inner.h\"\n");
    write("inner.h", "#include </dev/zero>\n");
    for (const auto compiler : {rtc::wrapper_for::nvrtc, rtc::wrapper_for::nvcc})
        test::expect_error<compile_error>(
            [&] { rtc::wrap_source("#include <outer.h>\n", "kernel.cu", true, compiler, {dir}); },
            "would read '/dev/zero'");
}

// Every way into a compiler goes through that check, with or without include directories.
TEST_F(includes_test, nvrtc_and_nvcc_refuse_a_device_include_before_running) {
    ASSERT_EQ(::mkfifo((dir / "pipe.h").c_str(), 0600), 0);
    const std::string fifo_source = "#include \"" + (dir / "pipe.h").string() + "\"\n__global__ void k() {}\n";
    rtc::nvcc_settings no_nvcc;  // refused before nvcc is looked for, so this runs without one
    no_nvcc.nvcc = "/no/such/nvcc";
    for (const std::string& source : {std::string("#include </dev/zero>\n__global__ void k() {}\n"), fifo_source}) {
        test::expect_error<compile_error>(
            [&] { rtc::compile_with_nvcc(source, test::sm90_options(), rtc::output_kind::cubin, no_nvcc); },
            "which is not a regular file");
        if (rtc::nvrtc_available())
            test::expect_error<compile_error>([&] { rtc::compile(source, test::sm90_options()); },
                                              "which is not a regular file");
    }
}

TEST_F(includes_test, included_headers_are_followed_recursively_once) {
    write("a.h", "#include \"b.h\"\n#include <cuda_fp16.h>\n");
    write("b.h", "#include \"a.h\"\n#include <stdio.h>\n");
    const auto headers = rtc::find_included_headers("#include <a.h>\n#include \"a.h\"\n", "/nonexistent", {dir});
    ASSERT_EQ(headers.size(), 2u);
    EXPECT_EQ(headers[0].filename(), "a.h");
    EXPECT_EQ(headers[1].filename(), "b.h");
}

TEST_F(includes_test, toolkit_includes_are_wrapped_in_extern_cxx_and_user_ones_are_not) {
    write("mine.h", "__global__ void from_header(int *x);\n");
    const std::string source = "#include <cuda_fp16.h>\n#include \"mine.h\"\nint line3;\n";
    const std::string nvcc = rtc::wrap_source(source, "kernel.cu", false, rtc::wrapper_for::nvcc, {dir});
    EXPECT_EQ(nvcc,
              "extern \"C\" {\n#line 1 \"kernel.cu\"\n"
              "extern \"C++\" {\n#line 1 \"kernel.cu\"\n#include <cuda_fp16.h>\n}\n#line 2 \"kernel.cu\"\n"
              "#include \"mine.h\"\nint line3;\n\n}\n");
    const std::string nvrtc = rtc::wrap_source(source, "kernel.cu", false, rtc::wrapper_for::nvrtc, {dir});
    EXPECT_EQ(nvrtc,
              "extern \"C\" {\n#line 1 \"kernel.cu\"\n"
              "extern \"C++\" {\n#pragma nv_diagnostic push\n#pragma nv_diag_suppress 47\n"
              "#line 1 \"kernel.cu\"\n"
              "#include <cuda_fp16.h>\n#pragma nv_diagnostic pop\n}\n#line 2 \"kernel.cu\"\n"
              "#include \"mine.h\"\nint line3;\n\n}\n");
}

TEST_F(includes_test, no_extern_c_keeps_the_text_for_nvcc_and_adds_only_the_pragmas_for_nvrtc) {
    const std::string source = "#include <cuda_fp16.h>\n__global__ void k() {}";
    EXPECT_EQ(rtc::wrap_source(source, "kernel.cu", true, rtc::wrapper_for::nvcc, {}), source);
    EXPECT_EQ(rtc::wrap_source(source, "kernel.cu", true, rtc::wrapper_for::nvrtc, {}),
              "#pragma nv_diagnostic push\n#pragma nv_diag_suppress 47\n#line 1 \"kernel.cu\"\n"
              "#include <cuda_fp16.h>\n#pragma nv_diagnostic pop\n#line 2 \"kernel.cu\"\n__global__ void k() {}\n");
    EXPECT_EQ(rtc::wrap_source("__global__ void k() {}", "k.cu", true, rtc::wrapper_for::nvrtc, {}),
              "__global__ void k() {}");
    EXPECT_EQ(rtc::wrap_source("__global__ void k() {}", "k.cu", false, rtc::wrapper_for::nvrtc, {}),
              "extern \"C\" {\n#line 1 \"k.cu\"\n__global__ void k() {}\n}\n");
}

TEST_F(includes_test, cxx_headers_compile_inside_extern_c_and_kernels_keep_plain_names) {
    GPUKIT_REQUIRE_NVRTC();
    if (rtc::find_cuda_toolkit().include_dirs.empty())
        GTEST_SKIP() << "no CUDA toolkit headers";
    write("mine.h", "__global__ void from_header(int *x) { x[0] = 7; }\n");
    rtc::compile_options options;
    options.arch = "sm_90";
    options.want_ptx = true;
    options.include_dirs = {dir.string()};
    const rtc::compiled_program program = rtc::compile(R"(#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cmath>
#include <mine.h>
__global__ void halves(__half *x) {
    cooperative_groups::this_thread_block().sync();
    x[0] = __float2half(std::sin(1.f));
}
)",
                                                       options);
    EXPECT_EQ(program.log, "");
    EXPECT_NE(program.ptx.find(".entry halves("), std::string::npos);
    EXPECT_NE(program.ptx.find(".entry from_header("), std::string::npos) << "the user's header stays extern \"C\"";
}

TEST_F(includes_test, line_numbers_survive_the_wrapping) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_options options;
    options.arch = "sm_90";
    try {
        rtc::compile("#include <stdio.h>\n#include <math.h>\n\n__global__ void k(float *x) {\n  x[0] = nope;\n}\n",
                     options);
        FAIL() << "compiled an undefined name";
    } catch (const compile_error& e) {
        EXPECT_NE(std::string(e.what()).find("kernel.cu(5)"), std::string::npos) << e.what();
    }
}

}  // namespace
