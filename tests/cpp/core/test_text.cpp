// The locale-free text helpers that replace C++ streams in gpukit's own code.
#include "gpukit/core/text.hpp"

#include "forked_process.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <climits>
#include <cstdint>
#include <filesystem>
#include <unistd.h>

namespace {

using gpukit::text_builder;
using V = std::vector<std::string_view>;

TEST(Text, BuilderFormatsStringsCharsAndIntegers) {
    text_builder b;
    b << "n=" << 42 << ' ' << std::string("x") << std::string_view("y") << -7 << ' '
      << std::size_t{18446744073709551615u} << ' ' << std::int64_t{LLONG_MIN} << ' ' << static_cast<unsigned char>(200);
    EXPECT_EQ(b.str(), "n=42 xy-7 18446744073709551615 -9223372036854775808 200");
    EXPECT_EQ(text_builder().str(), "");
}

TEST(Text, Splitting) {
    EXPECT_EQ(gpukit::split_lines("a\nbb\r\n\nc"), (V{"a", "bb", "", "c"}));
    EXPECT_EQ(gpukit::split_lines("a\n"), (V{"a"}));
    EXPECT_TRUE(gpukit::split_lines("").empty());
    EXPECT_EQ(gpukit::split("float a, float *x,", ','), (V{"float a", " float *x", ""}));
    EXPECT_EQ(gpukit::split("", ','), (V{""}));
    EXPECT_EQ(gpukit::split_words("  a.o: b.h \\\n\tc.h  "), (V{"a.o:", "b.h", "\\", "c.h"}));
    EXPECT_TRUE(gpukit::split_words(" \t\n").empty());
}

TEST(Text, FilesRoundTripAndMissingFilesAreNullopt) {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("gpukit-text-" + std::to_string(::getpid()));
    std::string content(200000, '\0');  // larger than one read, with NUL bytes
    for (std::size_t i = 0; i < content.size(); ++i)
        content[i] = static_cast<char>(i * 7);
    ASSERT_TRUE(gpukit::write_file(path.string(), content));
    EXPECT_EQ(gpukit::read_file(path.string()), content);
    ASSERT_TRUE(gpukit::write_file(path.string(), "short"));  // truncates
    EXPECT_EQ(gpukit::read_file(path.string()), "short");
    std::filesystem::remove(path);
    EXPECT_FALSE(gpukit::read_file(path.string()));
    EXPECT_FALSE(gpukit::write_file((path / "no" / "such" / "dir").string(), "x"));
}

// Each case runs in a child that an alarm ends: what used to hang fails instead.
TEST(Text, ReadRegularFileReadsOnlyRegularFilesWithinTheBound) {
    using gpukit::testing::exit_status_of_forked;
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("gpukit-text-regular-" + std::to_string(::getpid()));
    fs::create_directory(dir);
    std::string content(200000, 'r');  // larger than one read
    ASSERT_TRUE(gpukit::write_file((dir / "file").string(), content));
    fs::create_symlink(dir / "file", dir / "link to file");
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", dir / "link to dev zero");
    fs::create_symlink(dir / "missing", dir / "dangling link");
    const auto reads = [&](const char* name, std::size_t bound) {
        return exit_status_of_forked(
            [&] {
                const std::optional<std::string> read = gpukit::read_regular_file((dir / name).string(), bound);
                return !read ? 0 : *read == content ? 1 : 2;
            },
            10);
    };
    EXPECT_EQ(reads("file", content.size()), 1);  // a file of exactly the bound is read
    EXPECT_EQ(reads("link to file", content.size()), 1);
    EXPECT_EQ(reads("file", content.size() - 1), 0);
    EXPECT_EQ(reads("fifo", content.size()), 0);
    EXPECT_EQ(reads("link to dev zero", content.size()), 0);
    EXPECT_EQ(reads("dangling link", content.size()), 0);
    EXPECT_EQ(reads("missing", content.size()), 0);
    EXPECT_EQ(reads(".", content.size()), 0);  // a directory
    // read_file, for paths users name (headers, module files), is the same without a bound.
    const auto reads_unbounded = [&](const char* name) {
        return exit_status_of_forked(
            [&] {
                const std::optional<std::string> read = gpukit::read_file((dir / name).string());
                return !read ? 0 : *read == content ? 1 : 2;
            },
            10);
    };
    EXPECT_EQ(reads_unbounded("link to file"), 1);
    EXPECT_EQ(reads_unbounded("fifo"), 0);
    EXPECT_EQ(reads_unbounded("link to dev zero"), 0);
    fs::remove_all(dir);
}

}  // namespace
