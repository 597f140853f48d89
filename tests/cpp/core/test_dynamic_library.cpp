// Loading a library's function table and naming the file it came from
// (core/detail/dynamic_library.hpp).
#include "gpukit/core/detail/dynamic_library.hpp"
#include "gpukit/core/detail/nvidia_packages.hpp"

#include <gtest/gtest.h>

#include <gnu/libc-version.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

TEST(library_file, names_the_resolved_file_holding_a_symbol) {
    // gnu_get_libc_version lives in the C library, loaded into every process; unlike strlen,
    // the sanitizers do not intercept it, so its address is libc's under ASan too.
    const std::string path = gpukit::detail::library_file(reinterpret_cast<const void*>(&gnu_get_libc_version));
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

struct libc_table {
    std::size_t (*strlen)(const char*) = nullptr;
};

gpukit::detail::loaded_library<libc_table> load_libc_from(const std::vector<std::string>& candidates) {
    return gpukit::detail::load_from_candidates<libc_table>(
        candidates,
        [](void* library, libc_table& table, std::string& missing) {
            gpukit::detail::resolve_symbol(library, "strlen", table.strlen, missing);
        },
        "the C library is needed.");
}

TEST(loaded_library, takes_the_first_candidate_offering_every_symbol) {
    auto loaded = load_libc_from({"libgpukit_missing.so.99", "libc.so.6"});
    ASSERT_EQ(loaded.load_failure, "");
    EXPECT_EQ(loaded.path, "libc.so.6");
    EXPECT_EQ(gpukit::detail::table_of(loaded).strlen("four"), 4u);
}

TEST(loaded_library, a_failure_says_why_it_is_needed_and_what_each_candidate_lacked) {
    auto loaded = load_libc_from({"libgpukit_missing.so.99"});
    EXPECT_EQ(loaded.load_failure, "the C library is needed. Tried:\n  libgpukit_missing.so.99: not found");
    EXPECT_EQ(loaded.table.strlen, nullptr);
    try {
        gpukit::detail::table_of(loaded);
        ADD_FAILURE() << "a failed library gave its table";
    } catch (const gpukit::runtime_error& e) {
        EXPECT_EQ(e.routine(), "dlopen");
        EXPECT_EQ(std::string(e.what()), loaded.load_failure);
    }
}

gpukit::detail::loaded_library<libc_table> load_nothing() { return load_libc_from({"libgpukit_missing.so.99"}); }

TEST(loaded_library, the_instance_is_made_once_and_availability_never_throws) {
    using loaded = gpukit::detail::loaded_library<libc_table>;
    loaded& first = gpukit::detail::leaked_instance<loaded, load_nothing>();
    EXPECT_EQ(&first, &(gpukit::detail::leaked_instance<loaded, load_nothing>()));
    EXPECT_FALSE((gpukit::detail::loads_without_failure<loaded, load_nothing>()));
}

TEST(library_candidates, every_directory_then_every_name_in_order) {
    EXPECT_EQ(gpukit::detail::library_candidates({"", "/a/"}, {"x.so.2", "x.so"}),
              (std::vector<std::string>{"x.so.2", "x.so", "/a/x.so.2", "/a/x.so"}));
}

// Sets LD_LIBRARY_PATH to `value` (nullptr: unset) for one test, then puts the old back.
class ld_library_path : public ::testing::Test {
protected:
    void SetUp() override {
        if (const char* old = std::getenv("LD_LIBRARY_PATH"))
            saved_ = old;
    }
    void TearDown() override {
        if (saved_)
            setenv("LD_LIBRARY_PATH", saved_->c_str(), 1);
        else
            unsetenv("LD_LIBRARY_PATH");
    }
    std::optional<std::string> saved_;
};

TEST_F(ld_library_path, its_directories_in_order_without_empty_entries) {
    setenv("LD_LIBRARY_PATH", ":/a::/b/c:", 1);
    EXPECT_EQ(gpukit::detail::ld_library_path_dirs(), (std::vector<std::string>{"/a/", "/b/c/"}));
    setenv("LD_LIBRARY_PATH", "/only", 1);
    EXPECT_EQ(gpukit::detail::ld_library_path_dirs(), (std::vector<std::string>{"/only/"}));
    setenv("LD_LIBRARY_PATH", "", 1);
    EXPECT_TRUE(gpukit::detail::ld_library_path_dirs().empty());
    unsetenv("LD_LIBRARY_PATH");
    EXPECT_TRUE(gpukit::detail::ld_library_path_dirs().empty());
}

}  // namespace

TEST(nvidia_packages, library_dirs_follow_the_package_dirs_set) {
    const std::vector<std::string> before = gpukit::detail::nvidia_package_dirs();
    gpukit::detail::set_nvidia_package_dirs({"/a/nvidia", "/b/nvidia"});
    EXPECT_EQ(gpukit::detail::nvidia_package_dirs(), (std::vector<std::string>{"/a/nvidia", "/b/nvidia"}));
    EXPECT_EQ(gpukit::detail::nvidia_package_library_dirs({"nccl", "cu13"}),
              (std::vector<std::string>{"/a/nvidia/nccl/lib/", "/a/nvidia/cu13/lib/", "/b/nvidia/nccl/lib/",
                                        "/b/nvidia/cu13/lib/"}));
    gpukit::detail::set_nvidia_package_dirs({});
    EXPECT_TRUE(gpukit::detail::nvidia_package_library_dirs({"curand"}).empty());
    gpukit::detail::set_nvidia_package_dirs(before);
}
