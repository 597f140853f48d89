// The CUDA toolkit search, on fake directory trees, and the messages that name it.
#include "gpukit/core/error.hpp"
#include "gpukit/core/process.hpp"
#include "gpukit/core/detail/nvidia_packages.hpp"
#include "gpukit/rtc/program.hpp"
#include "gpukit/rtc/toolkit.hpp"
#include "nvrtc_test.hpp"
#include "temp_dir_test.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace {

using namespace gpukit;
namespace fs = std::filesystem;

class toolkit_test : public test::temp_dir_test {
protected:
    void SetUp() override {
        temp_dir_test::SetUp();
        search.system_root = (dir / "no-system-toolkit").string();
    }

    // A toolkit root: <root>/include/cuda_runtime.h, with include/cccl when asked.
    fs::path make_root(const std::string& name, bool with_cccl) const {
        const fs::path include = dir / name / "include";
        fs::create_directories(include);
        std::ofstream(include / "cuda_runtime.h") << "// fake\n";
        if (with_cccl)
            fs::create_directories(include / "cccl");
        return dir / name;
    }

    rtc::toolkit_search search;
};

TEST_F(toolkit_test, cuda_path_comes_first_with_its_cccl_directory) {
    search.cuda_path = make_root("path", true).string();
    search.cuda_home = make_root("home", false).string();
    const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit(search);
    EXPECT_EQ(toolkit.found_via, "CUDA_PATH");
    ASSERT_EQ(toolkit.include_dirs.size(), 2u);
    EXPECT_EQ(toolkit.include_dirs[0], (dir / "path" / "include").string());
    EXPECT_EQ(toolkit.include_dirs[1], (dir / "path" / "include" / "cccl").string());
}

TEST_F(toolkit_test, cuda_home_when_cuda_path_has_no_headers) {
    fs::create_directories(dir / "empty");
    search.cuda_path = (dir / "empty").string();
    search.cuda_home = make_root("home", false).string();
    const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit(search);
    EXPECT_EQ(toolkit.found_via, "CUDA_HOME");
    EXPECT_EQ(toolkit.include_dirs, std::vector<std::string>{(dir / "home" / "include").string()});
    ASSERT_GE(toolkit.looked_in.size(), 2u);
    EXPECT_NE(toolkit.looked_in[0].find("no cuda_runtime.h"), std::string::npos) << toolkit.looked_in[0];
}

TEST_F(toolkit_test, the_nvcc_on_path_names_its_toolkit) {
    const fs::path root = make_root("nvcc-root", true);
    fs::create_directories(root / "bin");
    std::ofstream(root / "bin" / "nvcc") << "#!/bin/sh\n";
    fs::permissions(root / "bin" / "nvcc", fs::perms::owner_exec, fs::perm_options::add);
    search.path = (dir / "nowhere").string() + ":" + (root / "bin").string();
    const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit(search);
    EXPECT_EQ(toolkit.found_via, "nvcc on PATH");
    ASSERT_EQ(toolkit.include_dirs.size(), 2u);
    EXPECT_EQ(toolkit.include_dirs[0], (root / "include").string());
}

TEST_F(toolkit_test, pip_packages_of_cuda_13_use_one_include_directory) {
    const fs::path nvidia = dir / "site-packages" / "nvidia";
    fs::create_directories(nvidia / "cu13" / "include" / "cccl");
    std::ofstream(nvidia / "cu13" / "include" / "cuda_runtime.h") << "// fake\n";
    search.nvidia_package_dirs = {(dir / "elsewhere").string(), nvidia.string()};
    const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit(search);
    EXPECT_EQ(toolkit.found_via, "pip packages");
    EXPECT_EQ(toolkit.include_dirs, (std::vector<std::string>{(nvidia / "cu13" / "include").string(),
                                                              (nvidia / "cu13" / "include" / "cccl").string()}));
}

TEST_F(toolkit_test, pip_packages_of_cuda_12_give_every_component_in_name_order) {
    const fs::path nvidia = dir / "nvidia";
    for (const char* component : {"curand", "cuda_runtime", "cuda_cccl", "cublas"})
        fs::create_directories(nvidia / component / "include");
    fs::create_directories(nvidia / "no_headers" / "lib");
    std::ofstream(nvidia / "cuda_runtime" / "include" / "cuda_runtime.h") << "// fake\n";
    search.nvidia_package_dirs = {nvidia.string()};
    const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit(search);
    EXPECT_EQ(toolkit.found_via, "pip packages");
    EXPECT_EQ(toolkit.include_dirs, (std::vector<std::string>{
                                        (nvidia / "cublas" / "include").string(),
                                        (nvidia / "cuda_cccl" / "include").string(),
                                        (nvidia / "cuda_runtime" / "include").string(),
                                        (nvidia / "curand" / "include").string(),
                                    }));
}

TEST_F(toolkit_test, pip_components_without_the_runtime_are_not_a_toolkit) {
    fs::create_directories(dir / "nvidia" / "curand" / "include");
    search.nvidia_package_dirs = {(dir / "nvidia").string()};
    search.system_root = make_root("system", false).string();
    const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit(search);
    EXPECT_EQ(toolkit.found_via, search.system_root);
}

TEST_F(toolkit_test, nothing_found_says_where_it_looked) {
    search.cuda_home = (dir / "missing").string();
    const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit(search);
    EXPECT_TRUE(toolkit.include_dirs.empty());
    EXPECT_TRUE(toolkit.found_via.empty());
    const std::string text = rtc::describe(toolkit);
    EXPECT_NE(text.find("CUDA_PATH: not set"), std::string::npos) << text;
    EXPECT_NE(text.find((dir / "missing" / "include").string()), std::string::npos) << text;
    EXPECT_NE(text.find("pip packages"), std::string::npos) << text;
    EXPECT_NE(text.find("no-system-toolkit"), std::string::npos) << text;
}

TEST_F(toolkit_test, identity_follows_the_version_headers_not_every_header) {
    const fs::path root = make_root("root", true);
    search.cuda_path = root.string();
    std::ofstream(root / "include" / "cuda_runtime_api.h") << "#define CUDART_VERSION 13000\n";
    std::ofstream(root / "include" / "curand.h") << "// one of many headers\n";
    const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit(search);
    const std::string first = rtc::toolkit_identity(toolkit);
    EXPECT_NE(first.find((root / "include").string()), std::string::npos);
    EXPECT_EQ(rtc::toolkit_identity(rtc::find_cuda_toolkit(search)), first);
    // A changed header other than the version headers, in place: not looked at.
    const auto curand_time = fs::last_write_time(root / "include" / "curand.h");
    std::ofstream(root / "include" / "curand.h") << "// edited\n";
    fs::last_write_time(root / "include" / "curand.h", curand_time);
    const auto include_time = fs::last_write_time(root / "include");
    fs::last_write_time(root / "include", include_time);
    EXPECT_EQ(rtc::toolkit_identity(toolkit), first);
    // A new version: another identity.
    std::ofstream(root / "include" / "cuda_runtime_api.h") << "#define CUDART_VERSION 13010 // longer\n";
    EXPECT_NE(rtc::toolkit_identity(toolkit), first);
}

TEST_F(toolkit_test, the_process_search_reads_the_environment_and_package_dirs) {
    ::setenv("CUDA_PATH", make_root("env", false).string().c_str(), 1);
    gpukit::detail::set_nvidia_package_dirs({"/somewhere/nvidia"});
    const rtc::toolkit_search from_env = rtc::toolkit_search_from_environment();
    EXPECT_EQ(from_env.cuda_path, (dir / "env").string());
    EXPECT_EQ(from_env.nvidia_package_dirs, std::vector<std::string>{"/somewhere/nvidia"});
    EXPECT_EQ(rtc::find_cuda_toolkit().found_via, "CUDA_PATH");
    ::unsetenv("CUDA_PATH");
    gpukit::detail::set_nvidia_package_dirs({});
}

TEST_F(toolkit_test, a_missing_header_is_named_with_where_gpukit_looked) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_options options;
    options.arch = "sm_90";
    try {
        rtc::compile("#include <no_such_header_anywhere.h>\n__global__ void k() {}", options);
        FAIL() << "compiled an include of a missing header";
    } catch (const compile_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("\"no_such_header_anywhere.h\""), std::string::npos) << what;
        const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit();
        if (toolkit.include_dirs.empty()) {
            EXPECT_NE(what.find("no CUDA toolkit headers"), std::string::npos) << what;
        } else {
            EXPECT_NE(what.find("not a header NVRTC, gpukit or the CUDA toolkit provides"), std::string::npos) << what;
            EXPECT_NE(what.find(toolkit.include_dirs.front()), std::string::npos) << what;
        }
    }
}

}  // namespace
