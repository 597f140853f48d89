// The device-selection rules, checked without a GPU: only the parsing of CUDA_DEVICE and
// ~/.cuda-device is exercised here (the GPU tests check the chosen device exists).
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/default_device.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using gpukit::cuda::configured_device;

class DefaultDevice : public ::testing::Test {
protected:
    void SetUp() override {
        if (const char* old = std::getenv("HOME"))
            saved_home = old;
        if (const char* old = std::getenv("CUDA_DEVICE"))
            saved_device = old;
        home = fs::temp_directory_path() / ("gpukit-home-" + std::to_string(::getpid()));
        fs::create_directories(home);
        setenv("HOME", home.c_str(), 1);
        unsetenv("CUDA_DEVICE");
    }
    void TearDown() override {
        fs::remove_all(home);
        setenv("HOME", saved_home.c_str(), 1);
        if (saved_device.empty())
            unsetenv("CUDA_DEVICE");
        else
            setenv("CUDA_DEVICE", saved_device.c_str(), 1);
    }
    void write_home_file(const char* name, const char* text) { std::ofstream(home / name) << text; }

    fs::path home;
    std::string saved_home, saved_device;
};

TEST_F(DefaultDevice, NothingConfigured) { EXPECT_FALSE(configured_device()); }

TEST_F(DefaultDevice, EnvironmentVariableWins) {
    write_home_file(".cuda-device", "3");
    setenv("CUDA_DEVICE", " 1\n", 1);
    auto choice = configured_device();
    ASSERT_TRUE(choice);
    EXPECT_EQ(choice->number, 1);
    EXPECT_EQ(choice->source, "CUDA_DEVICE");
}

TEST_F(DefaultDevice, HomeFileBothSpellings) {
    write_home_file(".cuda_device", "2\n");
    ASSERT_TRUE(configured_device());
    EXPECT_EQ(configured_device()->number, 2);
    write_home_file(".cuda-device", "4");  // the seed's spelling is read first
    EXPECT_EQ(configured_device()->number, 4);
}

TEST_F(DefaultDevice, MalformedValuesAreClearErrors) {
    for (const char* bad : {"abc", "", "1.5", "0x1", "2 3"}) {
        setenv("CUDA_DEVICE", bad, 1);
        try {
            configured_device();
            ADD_FAILURE() << "accepted CUDA_DEVICE='" << bad << "'";
        } catch (const gpukit::logic_error& e) {
            EXPECT_NE(std::string(e.what()).find("CUDA_DEVICE"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("not an integer"), std::string::npos) << e.what();
        }
    }
    unsetenv("CUDA_DEVICE");
    write_home_file(".cuda-device", "gpu0");
    EXPECT_THROW(configured_device(), gpukit::logic_error);
}

}  // namespace
