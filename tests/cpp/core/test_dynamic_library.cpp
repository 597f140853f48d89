// Naming the file a loaded library came from (core/detail/dynamic_library.hpp).
#include "gpukit/core/detail/dynamic_library.hpp"

#include <gtest/gtest.h>

#include <gnu/libc-version.h>

#include <filesystem>

namespace {

namespace fs = std::filesystem;

TEST(library_file, names_the_resolved_file_holding_a_symbol) {
    // gnu_get_libc_version lives in the C library, loaded into every process; unlike strlen,
    // the sanitizers do not intercept it, so its address is libc's under ASan too.
    const std::string path =
        gpukit::detail::library_file(reinterpret_cast<const void*>(&gnu_get_libc_version));
    ASSERT_FALSE(path.empty());
    EXPECT_TRUE(fs::path(path).is_absolute()) << path;
    EXPECT_EQ(fs::path(path).filename().string().rfind("libc", 0), 0u) << path;
    EXPECT_FALSE(fs::is_symlink(path)) << path;  // links are resolved
}

TEST(library_file, is_empty_for_what_no_library_holds) {
    EXPECT_EQ(gpukit::detail::library_file(nullptr), "");
    const int on_the_stack = 0;
    EXPECT_EQ(gpukit::detail::library_file(&on_the_stack), "");
}

}  // namespace
