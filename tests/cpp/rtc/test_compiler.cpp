// Which compiler compiles a request: NVRTC with nvcc's options translated, -default-device
// for host-only complaints, nvcc when NVRTC cannot; keep, targets and output kinds.
#include "gpukit/core/error.hpp"
#include "gpukit/core/process.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/rtc/compiler.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

using namespace gpukit;
namespace fs = std::filesystem;

bool has_note(const rtc::compile_outcome& outcome, const std::string& phrase) {
    return std::any_of(outcome.notes.begin(), outcome.notes.end(),
                       [&](const std::string& note) { return note.find(phrase) != std::string::npos; });
}

rtc::compile_request request(const std::string& source, rtc::compiler_kind kind = rtc::compiler_kind::automatic) {
    rtc::compile_request r;
    r.source = source;
    r.options.arch = "sm_90";
    r.compiler = kind;
    return r;
}

#define GPUKIT_REQUIRE_NVCC()                        \
    do {                                             \
        if (rtc::find_nvcc().empty())                \
            GTEST_SKIP() << "nvcc is not installed"; \
    } while (false)

// Host code NVRTC cannot compile even as device code: std::vector needs nvcc.
constexpr const char* host_helper = R"(#include <vector>
int host_sum(int n) { std::vector<int> v(n, 1); int s = 0; for (int x : v) s += x; return s; }
__global__ void k(float *x) { x[0] = 1; }
)";

TEST(rtc_compiler, nvrtc_compiles_nvcc_options_and_says_what_it_dropped) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_request r = request("__global__ void k(float *x) { x[0] = 2; }");
    r.options.options = {"-O3", "-g", "-m64", "-lineinfo", "-Xcompiler", "-Wall"};
    const rtc::compile_outcome outcome = rtc::compile(r);
    EXPECT_EQ(outcome.compiled_by, "nvrtc");
    EXPECT_EQ(std::string(outcome.image.data(), 4),
              "\x7f"
              "ELF");
    EXPECT_TRUE(has_note(outcome, "-O3: dropped"));
    EXPECT_TRUE(has_note(outcome, "-Xcompiler -Wall: dropped"));
    EXPECT_FALSE(has_note(outcome, "-lineinfo"));
}

TEST(rtc_compiler, unannotated_functions_are_retried_with_default_device) {
    GPUKIT_REQUIRE_NVRTC();
    for (auto kind : {rtc::compiler_kind::automatic, rtc::compiler_kind::nvrtc}) {
        const rtc::compile_outcome outcome =
            rtc::compile(request("constexpr float twice(float v) { return 2 * v; }\nint counter = 3;\n"
                                 "__global__ void k(float *x) { x[0] = twice(x[0]); }",
                                 kind));
        EXPECT_EQ(outcome.compiled_by, "nvrtc");
        EXPECT_TRUE(has_note(outcome, "-default-device"));
    }
}

TEST(rtc_compiler, host_code_falls_back_to_nvcc) {
    GPUKIT_REQUIRE_NVRTC();
    GPUKIT_REQUIRE_NVCC();
    const rtc::compile_outcome outcome = rtc::compile(request(host_helper));
    EXPECT_EQ(outcome.compiled_by, "nvcc");
    EXPECT_TRUE(has_note(outcome, "compiled with nvcc")) << outcome.notes.front();
    EXPECT_TRUE(has_note(outcome, "NVRTC has no header \"vector\""));
    EXPECT_EQ(std::string(outcome.image.data(), 4),
              "\x7f"
              "ELF");
}

TEST(rtc_compiler, explicit_nvrtc_does_not_fall_back) {
    GPUKIT_REQUIRE_NVRTC();
    try {
        rtc::compile(request("__host__ int h() { return 1; }\n__global__ void k(float *x) { x[0] = 1; }",
                             rtc::compiler_kind::nvrtc));
        FAIL() << "NVRTC compiled a __host__ function";
    } catch (const compile_error& e) {
        EXPECT_NE(std::string(e.what()).find("host code"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("compiler='nvcc'"), std::string::npos) << e.what();
    }
}

TEST(rtc_compiler, a_source_error_is_not_retried_with_nvcc) {
    GPUKIT_REQUIRE_NVRTC();
    try {
        rtc::compile(request("__global__ void k(float *x) { x[0] = undeclared; }"));
        FAIL() << "compiled an undeclared name";
    } catch (const compile_error& e) {
        EXPECT_EQ(std::string(e.what()).find("nvcc"), std::string::npos) << e.what();
        EXPECT_NE(e.log().find("undeclared"), std::string::npos);
    }
}

TEST(rtc_compiler, when_nvcc_fails_too_both_errors_are_shown) {
    GPUKIT_REQUIRE_NVRTC();
    GPUKIT_REQUIRE_NVCC();
    try {
        rtc::compile(
            request("#include <vector>\nint h() { return undeclared_host_name; }\n"
                    "__global__ void k(float *x) { x[0] = 1; }"));
        FAIL() << "compiled an undeclared name";
    } catch (const compile_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("NVRTC found no header \"vector\""), std::string::npos) << what;
        EXPECT_NE(what.find("failed too"), std::string::npos) << what;
        EXPECT_NE(e.log().find("NVRTC:"), std::string::npos);
        EXPECT_NE(e.log().find("undeclared_host_name"), std::string::npos) << e.log();
    }
}

TEST(rtc_compiler, an_option_nvrtc_rejects_is_named_and_goes_to_nvcc) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_request r = request("__global__ void k(float *x) { x[0] = 1; }", rtc::compiler_kind::nvrtc);
    r.options.options = {"-lineinfo", "--keep-device-functions"};
    try {
        rtc::compile(r);
        FAIL() << "NVRTC took --keep-device-functions";
    } catch (const compile_error& e) {
        EXPECT_NE(std::string(e.what()).find("NVRTC rejects the option '--keep-device-functions'"), std::string::npos)
            << e.what();
        EXPECT_EQ(std::string(e.what()).find("'-lineinfo'"), std::string::npos) << e.what();
    }
    if (rtc::find_nvcc().empty())
        return;
    r.compiler = rtc::compiler_kind::automatic;
    const rtc::compile_outcome outcome = rtc::compile(r);
    EXPECT_EQ(outcome.compiled_by, "nvcc");
    EXPECT_TRUE(has_note(outcome, "--keep-device-functions"));
}

TEST(rtc_compiler, werror_all_warnings_fails_on_a_warning) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_request r = request("__global__ void k(float *x) { int unused; x[0] = 1; }");
    EXPECT_FALSE(rtc::compile(r).log.empty());
    r.options.options = {"-Werror=all-warnings"};
    EXPECT_THROW(rtc::compile(r), compile_error);
}

TEST(rtc_compiler, the_options_may_name_the_target) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_request r = request("__global__ void k(float *x) { x[0] = 1; }");
    r.options.arch.clear();
    r.options.options = {"-arch", "sm_80"};
    EXPECT_EQ(rtc::compile(r).arch, "sm_80");
    r.options.options = {"-gencode", "arch=compute_75,code=compute_75"};
    const rtc::compile_outcome ptx = rtc::compile(r);
    EXPECT_EQ(ptx.arch, "compute_75");
    EXPECT_EQ(ptx.image.back(), '\0');
    r.options.arch = "sm_90";
    EXPECT_THROW(rtc::compile(r), logic_error) << "two different targets";
}

TEST(rtc_compiler, output_ptx_gives_ptx_of_the_real_architecture) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_request r = request("__global__ void k(float *x) { x[0] = 1; }");
    r.output = rtc::output_kind::ptx;
    const rtc::compile_outcome outcome = rtc::compile(r);
    const std::string text(outcome.image.data());
    EXPECT_NE(text.find(".target sm_90"), std::string::npos);
    EXPECT_EQ(outcome.compiled_by, "nvrtc");
}

TEST(rtc_compiler, output_fatbin_needs_nvcc) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_request r = request("__global__ void k(float *x) { x[0] = 1; }", rtc::compiler_kind::nvrtc);
    r.output = rtc::output_kind::fatbin;
    EXPECT_THROW(rtc::compile(r), logic_error);
    if (rtc::find_nvcc().empty())
        return;
    r.compiler = rtc::compiler_kind::automatic;
    const rtc::compile_outcome outcome = rtc::compile(r);
    EXPECT_EQ(outcome.compiled_by, "nvcc");
    EXPECT_EQ(std::string(outcome.image.data(), 4), std::string("\x50\xed\x55\xba", 4)) << "the fatbin magic";
}

TEST(rtc_compiler, keep_leaves_nvrtcs_source_ptx_image_and_log) {
    GPUKIT_REQUIRE_NVRTC();
    const fs::path dir = fs::path(make_temp_dir("gpukit-keep-test-")) / "kept";
    rtc::compile_request r = request("#include <cuda_fp16.h>\n__global__ void k(float *x) { x[0] = 1; }");
    r.options.options = {"--keep", "--keep-dir", dir.string()};
    const rtc::compile_outcome outcome = rtc::compile_cached(r, dir.parent_path() / "cache");
    EXPECT_EQ(outcome.kept_dir, dir.string());
    EXPECT_TRUE(outcome.key.empty()) << "keeping bypasses the cache";
    for (const char* name : {"kernel.cu", "kernel.ptx", "kernel.cubin", "kernel.log"})
        EXPECT_TRUE(fs::exists(dir / name)) << name;
    const std::string kept_source = *read_file((dir / "kernel.cu").string());
    EXPECT_NE(kept_source.find("extern \"C++\""), std::string::npos) << "the source as compiled";
    EXPECT_NE(read_file((dir / "kernel.ptx").string())->find(".entry k("), std::string::npos);
    fs::remove_all(dir.parent_path());
}

TEST(rtc_compiler, nvcc_gets_the_options_less_what_gpukit_sets) {
    GPUKIT_REQUIRE_NVCC();
    rtc::compile_request r = request("__global__ void k(float *x) { x[0] = 1; }", rtc::compiler_kind::nvcc);
    r.options.options = {"-O3", "-Xcompiler", "-Wall", "--cubin", "-o", "elsewhere.cubin", "-arch", "sm_90"};
    const rtc::compile_outcome outcome = rtc::compile(r);
    EXPECT_EQ(outcome.compiled_by, "nvcc");
    EXPECT_TRUE(has_note(outcome, "-o elsewhere.cubin: dropped"));
    EXPECT_FALSE(has_note(outcome, "-O3"));
}

// A C string ends at its first NUL: "-DX=1\0junk" would compile as -DX=1 without a word, for
// either compiler. Every text of the request is refused first, before any compiler loads, and
// so is a request only keyed (the generated kernels key theirs when made).
TEST(rtc_compiler, text_holding_a_nul_is_refused_before_compiling) {
    using namespace std::string_literals;
    const std::string kernel = "__global__ void k(float *x) { x[0] = X; }";
    std::vector<std::pair<std::string, rtc::compile_request>> requests;
    const auto add = [&](const std::string& what, auto change) {
        rtc::compile_request r = request(kernel);
        r.options.options = {"-DX=1"};
        change(r);
        requests.emplace_back(what, std::move(r));
    };
    add("compile option '-DX=1\\0junk'", [](rtc::compile_request& r) { r.options.options = {"-DX=1\0junk"s}; });
    add("the source", [&](rtc::compile_request& r) { r.source = kernel + "\0 garbage"s; });
    add("include directory '/usr\\0/include'",
        [](rtc::compile_request& r) { r.options.include_dirs = {"/usr\0/include"s}; });
    add("include directory", [](rtc::compile_request& r) { r.options.system_include_dirs = {"/x\0"s}; });
    add("arch 'sm_90\\0x'", [](rtc::compile_request& r) { r.options.arch = "sm_90\0x"s; });
    add("the source's name", [](rtc::compile_request& r) { r.options.name = "k.cu\0x"s; });
    add("nvcc 'nvcc\\0x'", [](rtc::compile_request& r) { r.nvcc = "nvcc\0x"s; });
    add("keep_dir", [](rtc::compile_request& r) { r.keep_dir = "/tmp/k\0x"s; });
    for (const auto& entry : requests) {
        // Named, not a structured binding: clang 14 cannot capture bindings in lambdas.
        const std::string& what = entry.first;
        const rtc::compile_request& r = entry.second;
        for (const auto& call :
             std::initializer_list<std::function<void()>>{[&] { rtc::compile(r); },
                                                          [&] { rtc::compile_cached(r, fs::temp_directory_path()); },
                                                          [&] { rtc::cache_key(r); },
                                                          [&] { rtc::require_c_strings(r); }}) {
            try {
                call();
                ADD_FAILURE() << what << ": accepted";
            } catch (const std::invalid_argument& e) {
                EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
            }
        }
    }
    // rtc::compile (NVRTC alone) checks its own arguments too.
    rtc::compile_options options;
    options.arch = "sm_90";
    options.options = {"-DX=1\0junk"s};
    EXPECT_THROW(rtc::compile(kernel, options), std::invalid_argument);
    EXPECT_THROW(rtc::compile(kernel + "\0"s), std::invalid_argument);
}

TEST(rtc_compiler, compiler_names) {
    EXPECT_EQ(rtc::compiler_kind_from_name("auto"), rtc::compiler_kind::automatic);
    EXPECT_EQ(rtc::compiler_kind_from_name("nvrtc"), rtc::compiler_kind::nvrtc);
    EXPECT_EQ(rtc::compiler_kind_from_name("nvcc"), rtc::compiler_kind::nvcc);
    EXPECT_THROW(rtc::compiler_kind_from_name("clang"), logic_error);
    EXPECT_EQ(rtc::output_kind_from_name("fatbin"), rtc::output_kind::fatbin);
    EXPECT_THROW(rtc::output_kind_from_name("elf"), logic_error);
}

TEST(rtc_compiler, find_nvcc_takes_paths_and_names) {
    EXPECT_EQ(rtc::find_nvcc("/no/such/nvcc"), "");
    EXPECT_EQ(rtc::find_nvcc("no-such-program-gpukit"), "");
}

// Sets an environment variable for one test, restoring it afterwards.
class scoped_environment {
public:
    scoped_environment(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name))
            old_ = old;
        value ? ::setenv(name, value, 1) : ::unsetenv(name);
    }
    ~scoped_environment() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
    scoped_environment(const scoped_environment&) = delete;
    scoped_environment& operator=(const scoped_environment&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(rtc_compiler, nvcc_limits_come_from_the_environment) {
    {
        scoped_environment timeout("GPUKIT_NVCC_TIMEOUT", nullptr), memory("GPUKIT_NVCC_MEMORY_LIMIT", nullptr);
        const process_limits limits = rtc::nvcc_limits();
        EXPECT_EQ(limits.seconds, 600u);
        EXPECT_GT(limits.memory_bytes, 0u);
        EXPECT_LE(limits.memory_bytes, std::uint64_t(32) << 30);
    }
    {
        scoped_environment timeout("GPUKIT_NVCC_TIMEOUT", "7"), memory("GPUKIT_NVCC_MEMORY_LIMIT", "100");
        EXPECT_EQ(rtc::nvcc_limits().seconds, 7u);
        EXPECT_EQ(rtc::nvcc_limits().memory_bytes, std::uint64_t(100) << 20);
        EXPECT_EQ(rtc::nvcc_settings{}.limits.seconds, 7u) << "nvcc_settings take the environment's limits";
    }
    {
        scoped_environment timeout("GPUKIT_NVCC_TIMEOUT", "0"), memory("GPUKIT_NVCC_MEMORY_LIMIT", "0");
        EXPECT_EQ(rtc::nvcc_limits().seconds, 0u);
        EXPECT_EQ(rtc::nvcc_limits().memory_bytes, 0u);
    }
    for (const char* bad : {"ten", "-1", "5s", " 5"}) {
        scoped_environment timeout("GPUKIT_NVCC_TIMEOUT", bad);
        try {
            rtc::nvcc_limits();
            ADD_FAILURE() << bad << " was accepted";
        } catch (const runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("GPUKIT_NVCC_TIMEOUT must be a whole number of seconds"),
                      std::string::npos)
                << e.what();
        }
    }
}

// #include through a macro is not seen by gpukit's checks (includes.hpp), so nvcc may still
// be made to read a device or a FIFO: its bounds stop it with a message naming them.
TEST(rtc_compiler, nvcc_reading_a_device_stops_at_its_memory_limit) {
    GPUKIT_REQUIRE_NVCC();
    const rtc::nvcc_settings settings{rtc::find_nvcc(), false, {}, {.seconds = 300, .memory_bytes = 1u << 30}};
    try {
        rtc::compile_with_nvcc("#define ZERO </dev/zero>\n#include ZERO\n__global__ void k() {}\n",
                               test::sm90_options(), rtc::output_kind::cubin, settings);
        ADD_FAILURE() << "compiled";
    } catch (const compile_error& e) {
        EXPECT_NE(std::string(e.what()).find("1024 MiB of address space"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("GPUKIT_NVCC_MEMORY_LIMIT"), std::string::npos) << e.what();
    }
}

TEST(rtc_compiler, nvcc_waiting_on_a_fifo_stops_at_its_time_limit) {
    GPUKIT_REQUIRE_NVCC();
    const std::string dir = make_temp_dir("gpukit-fifo-");
    const std::string fifo = dir + "/pipe.h";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const rtc::nvcc_settings settings{rtc::find_nvcc(), false, {}, {.seconds = 2, .memory_bytes = 0}};
    const auto start = std::chrono::steady_clock::now();
    try {
        rtc::compile_with_nvcc("#define PIPE \"" + fifo + "\"\n#include PIPE\n__global__ void k() {}\n",
                               test::sm90_options(), rtc::output_kind::cubin, settings);
        ADD_FAILURE() << "compiled";
    } catch (const compile_error& e) {
        EXPECT_NE(std::string(e.what()).find("within 2 s"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("GPUKIT_NVCC_TIMEOUT"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
    fs::remove_all(dir);
}

}  // namespace
