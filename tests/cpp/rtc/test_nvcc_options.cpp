// nvcc's options translated for NVRTC: the table of nvcc_options.cpp, option by option, and
// NVRTC accepting every translation (no GPU needed).
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/nvcc_options.hpp"
#include "gpukit/rtc/program.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using strings = std::vector<std::string>;

// The note about `option`, or "" when there is none.
std::string note_for(const std::vector<rtc::option_note>& notes, const std::string& option) {
    for (const auto& n : notes)
        if (n.option == option)
            return n.note;
    return {};
}

// The options a case gives, comma-joined: its name in test listings.
void print_options(const strings& given, std::ostream* os) {
    for (std::size_t i = 0; i < given.size(); ++i)
        *os << (i ? "," : "") << given[i];
}

struct passed_case {
    strings given;
    strings nvrtc;
};

void PrintTo(const passed_case& c, std::ostream* os) { print_options(c.given, os); }

class nvcc_options_passed : public ::testing::TestWithParam<passed_case> {};

// Options NVRTC has: passed in NVRTC's spelling, to nvcc as given, without a note.
TEST_P(nvcc_options_passed, with_nvrtcs_spelling) {
    const rtc::translated_options t = rtc::translate_nvcc_options(GetParam().given);
    EXPECT_EQ(t.nvrtc, GetParam().nvrtc);
    EXPECT_EQ(t.nvcc, GetParam().given);
    EXPECT_TRUE(t.nvrtc_notes.empty());
    EXPECT_TRUE(t.nvcc_notes.empty());
}

INSTANTIATE_TEST_SUITE_P(
    table, nvcc_options_passed,
    ::testing::Values(
        passed_case{{"-G"}, {"-G"}}, passed_case{{"--device-debug"}, {"-G"}}, passed_case{{"-lineinfo"}, {"-lineinfo"}},
        passed_case{{"--generate-line-info"}, {"-lineinfo"}}, passed_case{{"-use_fast_math"}, {"-use_fast_math"}},
        passed_case{{"--use_fast_math"}, {"-use_fast_math"}}, passed_case{{"-Xptxas", "-v"}, {"-Xptxas=-v"}},
        passed_case{{"-Xptxas=-v,-O2"}, {"-Xptxas=-v", "-Xptxas=-O2"}},
        passed_case{{"--ptxas-options", "-dlcm=cg"}, {"-Xptxas=-dlcm=cg"}}, passed_case{{"-rdc=true"}, {"-rdc=true"}},
        passed_case{{"-rdc", "true"}, {"-rdc=true"}},
        passed_case{{"--relocatable-device-code", "false"}, {"-rdc=false"}}, passed_case{{"-dc"}, {"-dc"}},
        passed_case{{"-maxrregcount", "32"}, {"-maxrregcount=32"}},
        passed_case{{"--maxrregcount=64"}, {"-maxrregcount=64"}}, passed_case{{"-std", "c++17"}, {"-std=c++17"}},
        passed_case{{"--std=c++14"}, {"-std=c++14"}}, passed_case{{"-DN=4"}, {"-DN=4"}},
        passed_case{{"-D", "A=1,B"}, {"-DA=1", "-DB"}}, passed_case{{"--define-macro=X"}, {"-DX"}},
        passed_case{{"-UX"}, {"-UX"}}, passed_case{{"-ftz=true"}, {"-ftz=true"}},
        passed_case{{"--fmad", "false"}, {"-fmad=false"}}, passed_case{{"-prec-div=false"}, {"-prec-div=false"}},
        passed_case{{"--prec-sqrt=false"}, {"-prec-sqrt=false"}},
        passed_case{{"-include", "cuda_fp16.h"}, {"--pre-include=cuda_fp16.h"}},
        passed_case{{"--Ofast-compile=max"}, {"-Ofc=max"}}, passed_case{{"-dopt", "on"}, {"-dopt=on"}},
        passed_case{{"--diag-suppress", "177,550"}, {"-diag-suppress=177,550"}},
        // Unknown here, and NVRTC's own: as given.
        passed_case{{"-w"}, {"-w"}}, passed_case{{"-restrict"}, {"-restrict"}}, passed_case{{"-ewp"}, {"-ewp"}},
        passed_case{{"-default-device"}, {"-default-device"}},
        passed_case{{"--extra-device-vectorization"}, {"--extra-device-vectorization"}}));

struct dropped_case {
    strings given;
    std::string written;  // the note's option
    std::string because;  // a phrase of the note
};

void PrintTo(const dropped_case& c, std::ostream* os) { print_options(c.given, os); }

class nvcc_options_dropped : public ::testing::TestWithParam<dropped_case> {};

// Options without meaning for NVRTC: dropped with the reason, passed to nvcc as given.
TEST_P(nvcc_options_dropped, with_a_reason) {
    const rtc::translated_options t = rtc::translate_nvcc_options(GetParam().given);
    EXPECT_TRUE(t.nvrtc.empty()) << t.nvrtc.front();
    EXPECT_EQ(t.nvcc, GetParam().given);
    const std::string note = note_for(t.nvrtc_notes, GetParam().written);
    EXPECT_EQ(note.rfind("dropped: ", 0), 0u) << GetParam().written << ": " << note;
    EXPECT_NE(note.find(GetParam().because), std::string::npos) << note;
}

INSTANTIATE_TEST_SUITE_P(
    table, nvcc_options_dropped,
    ::testing::Values(
        dropped_case{{"-O3"}, "-O3", "host code's optimisation"}, dropped_case{{"-O0"}, "-O0", "host code"},
        dropped_case{{"-O", "2"}, "-O 2", "host code"}, dropped_case{{"--optimize=1"}, "--optimize=1", "host code"},
        dropped_case{{"-g"}, "-g", "host debug"}, dropped_case{{"--debug"}, "--debug", "-G"},
        dropped_case{{"-m64"}, "-m64", "64-bit"}, dropped_case{{"--machine", "64"}, "--machine 64", "64-bit"},
        dropped_case{{"-Xcompiler", "-Wall,-O2"}, "-Xcompiler -Wall,-O2", "host code"},
        dropped_case{{"--compiler-options=-fPIC"}, "--compiler-options=-fPIC", "host code"},
        dropped_case{{"-ccbin", "gcc-12"}, "-ccbin gcc-12", "host code"},
        dropped_case{{"--compiler-bindir=/usr/bin"}, "--compiler-bindir=/usr/bin", "host code"},
        dropped_case{{"-lcudadevrt"}, "-lcudadevrt", "link step"}, dropped_case{{"-l", "m"}, "-l m", "link step"},
        dropped_case{{"-L/usr/local/cuda/lib64"}, "-L/usr/local/cuda/lib64", "DynamicSourceModule links cudadevrt"},
        dropped_case{{"-Xnvlink", "-v"}, "-Xnvlink -v", "link step"},
        dropped_case{{"-cudart", "static"}, "-cudart static", "link step"},
        dropped_case{{"-dlto"}, "-dlto", "link-time"}, dropped_case{{"-lto"}, "-lto", "link-time"},
        dropped_case{{"-src-in-ptx"}, "-src-in-ptx", "PTX listing"},
        dropped_case{{"--source-in-ptx"}, "--source-in-ptx", "PTX listing"},
        dropped_case{{"--expt-extended-lambda"}, "--expt-extended-lambda", "lambdas"},
        dropped_case{{"--extended-lambda"}, "--extended-lambda", "lambdas"},
        dropped_case{{"-Werror", "cross-execution-space-call"},
                     "-Werror cross-execution-space-call",
                     "-Werror=all-warnings"},
        dropped_case{{"-Xcudafe", "--some_front_end_flag"}, "-Xcudafe --some_front_end_flag", "front end"},
        dropped_case{{"-Wno-deprecated-gpu-targets"}, "-Wno-deprecated-gpu-targets", "nvcc's own warning"},
        dropped_case{{"-Wno-deprecated-declarations"}, "-Wno-deprecated-declarations", "warning control"},
        dropped_case{{"-v"}, "-v", "nvcc's driver"}, dropped_case{{"--threads", "4"}, "--threads 4", "driver"},
        dropped_case{{"-t4"}, "-t4", "driver"},
        dropped_case{{"-default-stream", "per-thread"}, "-default-stream per-thread", "host code"},
        dropped_case{{"-x", "cu"}, "-x cu", "CUDA C++ only"}, dropped_case{{"-pg"}, "-pg", "host code"}));

TEST(nvcc_options, translated_where_nvrtc_has_another_option_with_the_same_effect) {
    const rtc::translated_options t =
        rtc::translate_nvcc_options({"-res-usage", "--expt-relaxed-constexpr", "-Xcudafe", "--diag_suppress=177",
                                     "-Xcudafe", "--display_error_number", "--resource-usage"});
    EXPECT_EQ(t.nvrtc,
              (strings{"-Xptxas=-v", "-default-device", "-diag-suppress=177", "--display-error-number", "-Xptxas=-v"}));
    EXPECT_NE(note_for(t.nvrtc_notes, "-res-usage").find("translated to -Xptxas=-v"), std::string::npos);
    EXPECT_NE(note_for(t.nvrtc_notes, "--expt-relaxed-constexpr").find("translated to -default-device"),
              std::string::npos);
    EXPECT_EQ(t.nvcc.size(), 7u);
}

TEST(nvcc_options, target_options_pick_the_one_target) {
    EXPECT_EQ(target_of(rtc::translate_nvcc_options({"-arch", "sm_80"})), "sm_80");
    EXPECT_EQ(target_of(rtc::translate_nvcc_options({"-arch=compute_75"})), "compute_75");
    EXPECT_EQ(target_of(rtc::translate_nvcc_options({"--gpu-architecture=sm_90a"})), "sm_90a");
    // nvcc's usual pair: PTX of the virtual architecture compiled into -code's real one.
    const rtc::translated_options both =
        rtc::translate_nvcc_options({"-arch", "compute_80", "-code", "sm_80,compute_80"});
    EXPECT_EQ(both.arch, "compute_80");
    EXPECT_EQ(both.code, "sm_80");
    EXPECT_EQ(target_of(both), "sm_80");
}

TEST(nvcc_options, several_different_targets_are_an_error) {
    EXPECT_THROW(rtc::translate_nvcc_options({"-arch", "sm_80", "-arch", "sm_90"}), logic_error);
    EXPECT_THROW(rtc::translate_nvcc_options(
                     {"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"}),
                 logic_error);
    EXPECT_THROW(rtc::translate_nvcc_options({"-arch=all"}), logic_error);
    EXPECT_THROW(rtc::translate_nvcc_options({"-arch", "all-major"}), logic_error);
    EXPECT_THROW(rtc::translate_nvcc_options({"-arch", "volta"}), logic_error);
}

TEST(nvcc_options, code_and_gencode_name_the_target_and_go_to_neither_compiler) {
    rtc::translated_options t = rtc::translate_nvcc_options({"-code", "sm_86,compute_86", "-O3"});
    EXPECT_EQ(target_of(t), "sm_86");
    EXPECT_EQ(t.nvcc, strings{"-O3"});
    EXPECT_NE(note_for(t.nvcc_notes, "-code sm_86,compute_86").find("target is sm_86"), std::string::npos);
    t = rtc::translate_nvcc_options({"-gencode", "arch=compute_80,code=[sm_80,compute_80]"});
    EXPECT_EQ(target_of(t), "sm_80");
    t = rtc::translate_nvcc_options({"-gencode=arch=compute_75,code=compute_75"});
    EXPECT_EQ(target_of(t), "compute_75");
    t = rtc::translate_nvcc_options({"-arch=native", "-arch=sm_80", "-arch", "sm_80"});
    EXPECT_EQ(t.arch, "sm_80") << "native is the default; the same target twice is one";
    EXPECT_TRUE(t.nvrtc.empty());
    EXPECT_TRUE(t.nvcc.empty());
}

TEST(nvcc_options, output_kind_options_go_to_neither_compiler) {
    const rtc::translated_options t =
        rtc::translate_nvcc_options({"--cubin", "-ptx", "--fatbin", "-c", "-o", "out.cubin", "--output-file=x"});
    EXPECT_TRUE(t.nvrtc.empty());
    EXPECT_TRUE(t.nvcc.empty());
    EXPECT_EQ(t.nvrtc_notes.size(), 6u);
    EXPECT_NE(note_for(t.nvcc_notes, "-o out.cubin").find("gpukit chooses"), std::string::npos);
}

TEST(nvcc_options, keep_and_werror_are_gpukits) {
    rtc::translated_options t = rtc::translate_nvcc_options({"--keep", "--keep-dir", "/tmp/kept"});
    EXPECT_TRUE(t.keep);
    EXPECT_EQ(t.keep_dir, "/tmp/kept");
    EXPECT_TRUE(t.nvrtc.empty());
    EXPECT_TRUE(t.nvcc.empty()) << "gpukit passes --keep to nvcc itself";
    EXPECT_TRUE(rtc::translate_nvcc_options({"-keep"}).keep);
    EXPECT_TRUE(rtc::translate_nvcc_options({"-save-temps"}).keep);
    t = rtc::translate_nvcc_options({"-Werror", "all-warnings"});
    EXPECT_TRUE(t.warnings_are_errors);
    EXPECT_TRUE(t.nvrtc.empty());
    EXPECT_EQ(t.nvcc, (strings{"-Werror", "all-warnings"}));
    EXPECT_TRUE(rtc::translate_nvcc_options({"-Werror=reorder,all-warnings"}).warnings_are_errors);
}

TEST(nvcc_options, include_directories_are_remembered) {
    const rtc::translated_options t =
        rtc::translate_nvcc_options({"-I/a", "-I", "/b,/c", "--include-path=/d", "-isystem", "/e"});
    EXPECT_EQ(t.include_dirs, (strings{"/a", "/b", "/c", "/d", "/e"}));
    EXPECT_EQ(t.nvrtc, (strings{"-I/a", "-I/b", "-I/c", "-I/d", "-I/e"}));
    EXPECT_NE(note_for(t.nvrtc_notes, "-isystem /e").find("searched like -I"), std::string::npos);
}

TEST(nvcc_options, exact_names_win_over_short_names_with_joined_values) {
    // -lineinfo is not -l "ineinfo", -lto not -l "to", -minimal not -m "inimal", -Ofc not -O "fc".
    const rtc::translated_options t = rtc::translate_nvcc_options({"-lineinfo", "-lto", "-minimal", "-Ofc=0"});
    EXPECT_EQ(t.nvrtc, (strings{"-lineinfo", "-minimal", "-Ofc=0"}));
    EXPECT_NE(note_for(t.nvrtc_notes, "-lto").find("link-time"), std::string::npos);
    EXPECT_EQ(rtc::translate_nvcc_options({"-Ofast"}).nvrtc, strings{"-Ofast"}) << "not a level: unknown";
}

TEST(nvcc_options, bad_options_are_logic_errors) {
    EXPECT_THROW(rtc::translate_nvcc_options({"-m32"}), logic_error);
    EXPECT_THROW(rtc::translate_nvcc_options({"--machine=32"}), logic_error);
    EXPECT_THROW(rtc::translate_nvcc_options({"-Xptxas"}), logic_error);
    EXPECT_THROW(rtc::translate_nvcc_options({"--options-file", "opts.txt"}), logic_error);
    try {
        rtc::translate_nvcc_options({"-maxrregcount"});
    } catch (const logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("-maxrregcount needs a value"), std::string::npos) << e.what();
    }
}

TEST(nvcc_options, unknown_options_pass_as_given) {
    const rtc::translated_options t = rtc::translate_nvcc_options({"--no-such-option", "x"});
    EXPECT_EQ(t.nvrtc, (strings{"--no-such-option", "x"}));
    EXPECT_EQ(t.nvcc, (strings{"--no-such-option", "x"}));
}

// Everything the table passes or translates, NVRTC accepts.
TEST(nvcc_options, nvrtc_accepts_every_translation) {
    GPUKIT_REQUIRE_NVRTC();
    const strings given = {"-G",
                           "-lineinfo",
                           "-use_fast_math",
                           "-Xptxas",
                           "-v,-O2",
                           "-rdc",
                           "true",
                           "-dc",
                           "-maxrregcount",
                           "32",
                           "-std",
                           "c++17",
                           "-D",
                           "A=1,B",
                           "-UB",
                           "-ftz=true",
                           "--fmad",
                           "false",
                           "-prec-div=false",
                           "-prec-sqrt=false",
                           "--Ofast-compile=0",
                           "-dopt",
                           "on",
                           "--diag-suppress",
                           "177",
                           "-res-usage",
                           "--expt-relaxed-constexpr",
                           "-Xcudafe",
                           "--diag_suppress=550",
                           "-I/tmp",
                           "-isystem",
                           "/tmp",
                           "-O3",
                           "-g",
                           "-m64",
                           "-Xcompiler",
                           "-Wall",
                           "-ccbin",
                           "gcc",
                           "-lcudadevrt",
                           "-L/tmp",
                           "-Xnvlink",
                           "-v",
                           "--keep",
                           "-src-in-ptx",
                           "--expt-extended-lambda",
                           "-Werror",
                           "all-warnings",
                           "--cubin",
                           "-o",
                           "x",
                           "-arch",
                           "sm_90",
                           "-w",
                           "-restrict"};
    const rtc::translated_options t = rtc::translate_nvcc_options(given);
    rtc::compile_options options;
    options.arch = target_of(t);
    options.options = t.nvrtc;
    EXPECT_NO_THROW(rtc::compile("__global__ void k(float *x) { x[0] = A; }", options));
    // Every nvcc option with a rule gets a note when NVRTC does not get it as written.
    for (const char* option :
         {"-O3", "-g", "-m64", "-Xcompiler -Wall", "-ccbin gcc", "-lcudadevrt", "-L/tmp", "-Xnvlink -v", "--keep",
          "-src-in-ptx", "--expt-extended-lambda", "-Werror all-warnings", "--cubin", "-o x", "-arch sm_90",
          "-res-usage", "--expt-relaxed-constexpr", "-isystem /tmp"})
        EXPECT_FALSE(note_for(t.nvrtc_notes, option).empty()) << option;
}

}  // namespace
