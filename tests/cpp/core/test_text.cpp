// The locale-free text helpers that replace C++ streams in gpukit's own code.
#include "gpukit/core/text.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <filesystem>
#include <unistd.h>

namespace {

using gpukit::text_builder;
using V = std::vector<std::string_view>;

TEST(Text, BuilderFormatsStringsCharsAndIntegers) {
    text_builder b;
    b << "n=" << 42 << ' ' << std::string("x") << std::string_view("y") << -7 << ' ' << std::size_t{18446744073709551615u}
      << ' ' << std::int64_t{LLONG_MIN} << ' ' << static_cast<unsigned char>(200);
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

}  // namespace
