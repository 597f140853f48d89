// Text that crosses into C (core/c_text.hpp): NUL characters refused with the text's name,
// offset and line; kernel and parameter names that are keywords of the kernel's language.
#include "gpukit/core/c_text.hpp"
#include "gpukit/core/process.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using namespace gpukit;
using namespace std::string_literals;

std::string nul_message(const std::string& text, const char* what) {
    try {
        require_c_string(text, what);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return {};
}

TEST(CText, TextWithoutNulPasses) {
    EXPECT_NO_THROW(require_c_string("-DX=1", "compile option"));
    EXPECT_NO_THROW(require_c_string("", "compile option"));
}

TEST(CText, ANulAnywhereIsRefusedWithNameOffsetAndLine) {
    const std::string option = "-DX=1\0junk"s;
    const std::string message = nul_message(option, "compile option");
    EXPECT_NE(message.find("compile option '-DX=1\\0junk'"), std::string::npos) << message;
    EXPECT_NE(message.find("offset 5 (line 1)"), std::string::npos) << message;
    EXPECT_NE(nul_message("\0"s, "name").find("offset 0"), std::string::npos);
    EXPECT_NE(nul_message("end\0"s, "name").find("offset 3"), std::string::npos);
    // A long text (a source) is not quoted; the line of the NUL is given.
    const std::string source = std::string(200, 'x') + "\n\nint a;\0 int b;"s;
    const std::string long_message = nul_message(source, "the source");
    EXPECT_EQ(long_message.find("xxxx"), std::string::npos) << long_message;
    EXPECT_NE(long_message.find("the source: a NUL character at offset 208 (line 3)"), std::string::npos)
        << long_message;
}

// A child's argument is a C string too (nvcc's command line).
TEST(CText, ACommandLineArgumentHoldingANulIsRefused) {
    EXPECT_THROW(run_process({"echo", "a\0b"s}, "/tmp"), std::invalid_argument);
    EXPECT_THROW(run_process({"echo", "a"}, "/tmp\0x"s), std::invalid_argument);
}

TEST(CText, IdentifiersAreLettersDigitsAndUnderscores) {
    for (const char* name : {"x", "_x", "x1", "X_y_2", "__x"})
        EXPECT_TRUE(is_c_identifier(name)) << name;
    for (const std::string name : {""s, "1x"s, "x y"s, "x-y"s, "x\0y"s, "é"s, "$x"s})
        EXPECT_FALSE(is_c_identifier(name)) << name;
}

TEST(CText, KeywordsOfEachLanguageAreNoNames) {
    using enum kernel_language;
    const auto problem = [](const char* name, kernel_language language) { return kernel_name_problem(name, language); };
    for (const kernel_language language : {cuda, opencl}) {
        for (const char* fine : {"x", "values", "in", "out", "result", "n2"})
            EXPECT_EQ(problem(fine, language), "") << fine;
        for (const char* c_word : {"if", "for", "float", "int", "struct", "restrict", "_Bool", "sizeof", "void"})
            EXPECT_EQ(problem(c_word, language), "'"s + c_word + "' is a keyword of C") << c_word;
        EXPECT_NE(problem("two words", language).find("is not a C identifier"), std::string::npos);
    }
    // C++ and CUDA words are names in OpenCL C, and OpenCL C's are names in CUDA C++.
    for (const char* cpp_word : {"class", "new", "template", "this", "and", "namespace"}) {
        EXPECT_NE(problem(cpp_word, cuda).find("keyword of C++"), std::string::npos) << cpp_word;
        EXPECT_EQ(problem(cpp_word, opencl), "") << cpp_word;
    }
    for (const char* cuda_word : {"__global__", "__shared__", "__restrict__"})
        EXPECT_NE(problem(cuda_word, cuda).find("CUDA C++ qualifier"), std::string::npos) << cuda_word;
    for (const char* variable : {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"})
        EXPECT_NE(problem(variable, cuda).find("variable CUDA defines"), std::string::npos) << variable;
    for (const char* opencl_word : {"kernel", "__kernel", "global", "local", "constant", "read_only", "pipe"}) {
        EXPECT_NE(problem(opencl_word, opencl).find("keyword of OpenCL C"), std::string::npos) << opencl_word;
        EXPECT_EQ(problem(opencl_word, cuda), "") << opencl_word;
    }
    EXPECT_NE(problem("private", opencl).find("keyword of OpenCL C"), std::string::npos);  // and of C++
    for (const char* type : {"uint", "half", "float4", "uchar16", "double3", "image2d_t", "sampler_t", "size_t"})
        EXPECT_NE(problem(type, opencl).find("type name of OpenCL C"), std::string::npos) << type;
    for (const char* not_a_type : {"float5", "float44", "int1", "floats"})
        EXPECT_EQ(problem(not_a_type, opencl), "") << not_a_type;
}

TEST(CText, ALogIsCutAtItsFirstNul) {
    std::string log("ptxas info    : Used 8 registers\n\0\0", 35);
    gpukit::cut_at_nul(log);
    EXPECT_EQ(log, "ptxas info    : Used 8 registers\n");
    std::string whole = "no NUL";
    gpukit::cut_at_nul(whole);
    EXPECT_EQ(whole, "no NUL");
}

}  // namespace
