// A test fixture with a fresh temporary directory, removed with all it holds afterwards.
#pragma once

#include "gpukit/core/process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gpukit::test {

class temp_dir_test : public ::testing::Test {
protected:
    void SetUp() override { dir = make_temp_dir("gpukit-test-"); }
    void TearDown() override { std::filesystem::remove_all(dir); }

    // Writes `text` to `path`, taken relative to dir (an absolute path as it is).
    void write(const std::filesystem::path& path, const std::string& text) const { std::ofstream(dir / path) << text; }

    std::filesystem::path dir;
};

}  // namespace gpukit::test
