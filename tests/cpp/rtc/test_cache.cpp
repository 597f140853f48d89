// The compilation cache and its keys; NVRTC and nvcc run for real where installed (no GPU
// is needed to compile).
#include "gpukit/core/error.hpp"
#include "gpukit/core/process.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/cache.hpp"
#include "gpukit/rtc/compiler.hpp"
#include "gpukit/rtc/includes.hpp"
#include "forked_process.hpp"
#include "nvrtc_test.hpp"
#include "temp_dir_test.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

#include <filesystem>
#include <fstream>

namespace {

using namespace gpukit;
namespace fs = std::filesystem;

class cache_test : public test::temp_dir_test {
protected:
    rtc::compile_request request(const std::string& source) const {
        rtc::compile_request r;
        r.source = source;
        r.options.arch = "sm_90";
        return r;
    }
};

constexpr const char* kernel = "__global__ void k(int *a) { a[0] = 42; }";

TEST_F(cache_test, stores_and_loads_a_payload) {
    rtc::compile_cache cache(dir / "sub");
    EXPECT_FALSE(cache.load("abc"));
    cache.store("abc", {'x', 'y', '\0', 'z'});
    const auto loaded = cache.load("abc");
    ASSERT_TRUE(loaded);
    EXPECT_EQ(*loaded, (std::vector<char>{'x', 'y', '\0', 'z'}));
    // No temporary file is left behind.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "sub"), fs::directory_iterator()), 1);
}

// The warnings the cache gives, caught for the test.
std::vector<std::string> warnings_said;
void catch_warning(const std::string& message) { warnings_said.push_back(message); }

unsigned mode_of(const fs::path& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
}

TEST_F(cache_test, a_new_directory_and_its_entries_are_the_users_only) {
    rtc::compile_cache cache(dir / "made" / "here");
    cache.store("abc", {'x'});
    EXPECT_EQ(mode_of(dir / "made" / "here"), 0700u);
    EXPECT_EQ(mode_of(cache.entry_path("abc")), 0600u);
}

TEST_F(cache_test, a_directory_others_can_write_is_not_used_and_said_once) {
    warnings_said.clear();
    set_cleanup_warning_hook(&catch_warning);
    rtc::compile_cache cache(dir / "shared");
    cache.store("abc", {'x'});
    ASSERT_TRUE(cache.load("abc"));
    fs::permissions(dir / "shared", fs::perms::all);  // 0777: anyone could have planted the entry
    EXPECT_NE(cache.distrust().find("others can write to it (mode 0777)"), std::string::npos) << cache.distrust();
    EXPECT_FALSE(cache.load("abc"));
    cache.store("def", {'y'});
    EXPECT_FALSE(fs::exists(cache.entry_path("def")));
    EXPECT_FALSE(cache.load("abc"));
    set_cleanup_warning_hook(nullptr);
    ASSERT_EQ(warnings_said.size(), 1u);
    EXPECT_NE(warnings_said[0].find("the compilation cache " + (dir / "shared").string() + " is not used: others "),
              std::string::npos)
        << warnings_said[0];
}

TEST_F(cache_test, an_entry_others_can_write_is_a_miss_and_replaced) {
    warnings_said.clear();
    set_cleanup_warning_hook(&catch_warning);
    rtc::compile_cache cache(dir / "mine");
    cache.store("abc", {'x'});
    fs::permissions(cache.entry_path("abc"), fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_write);
    EXPECT_FALSE(cache.load("abc"));
    cache.store("abc", {'z'});
    ASSERT_TRUE(cache.load("abc"));
    EXPECT_EQ(*cache.load("abc"), std::vector<char>{'z'});
    set_cleanup_warning_hook(nullptr);
    ASSERT_EQ(warnings_said.size(), 1u);
    EXPECT_NE(warnings_said[0].find("is not used: others can write to it (mode 0602); it is compiled again"),
              std::string::npos)
        << warnings_said[0];
}

TEST_F(cache_test, a_directory_of_another_user_is_not_used) {
    if (geteuid() != 0)
        GTEST_SKIP() << "giving a directory to another user needs root";
    set_cleanup_warning_hook(&catch_warning);
    rtc::compile_cache cache(dir / "theirs");
    cache.store("abc", {'x'});
    ASSERT_EQ(::chown((dir / "theirs").c_str(), 65534, 65534), 0);
    EXPECT_NE(cache.distrust().find("it is owned by user 65534, not by you (user 0)"), std::string::npos)
        << cache.distrust();
    EXPECT_FALSE(cache.load("abc"));
    set_cleanup_warning_hook(nullptr);
}

// Sets an entry's last use `seconds_ago`.
void used_ago(const rtc::compile_cache& cache, const std::string& key, int seconds_ago) {
    const timespec when[2] = {{time(nullptr) - seconds_ago, 0}, {time(nullptr) - seconds_ago, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, cache.entry_path(key).c_str(), when, 0), 0);
}

TEST_F(cache_test, prune_removes_the_least_recently_used_entries_first) {
    rtc::compile_cache cache(dir / "lru");
    for (const char* key : {"a", "b", "c", "d"})
        cache.store(key, std::vector<char>(100, 'x'));  // 148 bytes each on disk
    used_ago(cache, "a", 400);
    used_ago(cache, "b", 100);
    used_ago(cache, "c", 300);
    used_ago(cache, "d", 200);
    ASSERT_TRUE(cache.load("a"));  // a hit makes "a" the most recently used
    const std::vector<rtc::compile_cache::entry_info> listed = cache.entries();
    ASSERT_EQ(listed.size(), 4u);
    EXPECT_EQ(listed[0].key, "c");
    EXPECT_EQ(listed[3].key, "a");
    EXPECT_EQ(listed[0].bytes, 148u);
    const rtc::compile_cache::usage_info removed = cache.prune(2 * 148);
    EXPECT_EQ(removed.entries, 2u);
    EXPECT_EQ(removed.bytes, 2u * 148);
    EXPECT_FALSE(fs::exists(cache.entry_path("c")));
    EXPECT_FALSE(fs::exists(cache.entry_path("d")));
    EXPECT_TRUE(cache.load("a") && cache.load("b"));
    EXPECT_EQ(cache.prune(1u << 20).entries, 0u);
    EXPECT_EQ(cache.clear().entries, 2u);
    EXPECT_EQ(cache.usage().entries, 0u);
}

TEST_F(cache_test, store_keeps_the_cache_under_its_size_limit) {
    rtc::set_cache_size_limit(1000);
    rtc::compile_cache cache(dir / "capped");
    for (int k = 0; k < 20; ++k) {
        cache.store("entry" + std::to_string(k), std::vector<char>(100, 'x'));
        EXPECT_LE(cache.usage().bytes, 1000u) << k;
    }
    EXPECT_TRUE(cache.load("entry19"));  // the newest stay
    rtc::set_cache_size_limit(std::nullopt);
}

TEST(cache_size, the_limit_comes_from_the_setting_the_environment_or_the_default) {
    EXPECT_EQ(rtc::parse_cache_size("4096", "x"), 4096u);
    EXPECT_EQ(rtc::parse_cache_size("512M", "x"), 512u << 20);
    EXPECT_EQ(rtc::parse_cache_size("2g", "x"), 2ull << 30);
    EXPECT_EQ(rtc::parse_cache_size("0", "x"), 0u);
    for (const char* bad : {"", "G", "-1", "1.5G", "12Q", "1 G", "99999999999999999999"})
        EXPECT_THROW(rtc::parse_cache_size(bad, "GPUKIT_CACHE_SIZE"), gpukit::logic_error) << bad;
    try {
        rtc::parse_cache_size("lots", "GPUKIT_CACHE_SIZE");
    } catch (const gpukit::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("GPUKIT_CACHE_SIZE 'lots' is not a size"), std::string::npos) << e.what();
    }
    const char* saved = std::getenv("GPUKIT_CACHE_SIZE");
    const std::string kept = saved ? saved : "";
    ::unsetenv("GPUKIT_CACHE_SIZE");
    EXPECT_EQ(rtc::cache_size_limit(), 1u << 30);
    ::setenv("GPUKIT_CACHE_SIZE", "64K", 1);
    EXPECT_EQ(rtc::cache_size_limit(), 64u << 10);
    rtc::set_cache_size_limit(5);
    EXPECT_EQ(rtc::cache_size_limit(), 5u);
    rtc::set_cache_size_limit(std::nullopt);
    EXPECT_EQ(rtc::cache_size_limit(), 64u << 10);
    if (saved)
        ::setenv("GPUKIT_CACHE_SIZE", kept.c_str(), 1);
    else
        ::unsetenv("GPUKIT_CACHE_SIZE");
}

TEST_F(cache_test, usage_counts_entries_and_their_bytes_only) {
    rtc::compile_cache cache(dir);
    EXPECT_EQ(rtc::compile_cache(dir / "missing").usage().entries, 0u);
    EXPECT_EQ(rtc::compile_cache(dir / "missing").usage().bytes, 0u);
    cache.store("one", std::vector<char>(10, 'a'));
    cache.store("two", std::vector<char>(1000, 'b'));
    // Neither a stray file, a temporary file nor a directory is an entry.
    write(dir / "notes.txt", "not an entry");
    write(dir / ".three.123.0.tmp", "a write in progress");
    fs::create_directory(dir / "four.gpukit-cache");
    const rtc::compile_cache::usage_info usage = cache.usage();
    EXPECT_EQ(usage.entries, 2u);
    // Each entry is its payload behind a 48-byte header (magic, size, SHA-256).
    EXPECT_EQ(usage.bytes, (10u + 48u) + (1000u + 48u));
    EXPECT_EQ(usage.bytes, fs::file_size(cache.entry_path("one")) + fs::file_size(cache.entry_path("two")));
}

TEST_F(cache_test, corrupt_and_truncated_entries_are_misses) {
    rtc::compile_cache cache(dir);
    cache.store("key", std::vector<char>(1000, 'p'));
    const fs::path entry = cache.entry_path("key");
    {
        std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(500);
        f.put('q');
    }
    EXPECT_FALSE(cache.load("key"));
    cache.store("key", std::vector<char>(1000, 'p'));
    ASSERT_TRUE(cache.load("key"));
    fs::resize_file(entry, 700);
    EXPECT_FALSE(cache.load("key"));
    fs::resize_file(entry, 10);
    EXPECT_FALSE(cache.load("key"));
}

// What else may lie at an entry's path. load() runs in a child that an alarm ends, so what
// used to hang (a FIFO) or read without end (/dev/zero) fails instead of stopping the suite.
TEST_F(cache_test, entries_that_are_not_regular_files_are_misses_and_replaced) {
    rtc::compile_cache cache(dir);
    const std::vector<char> payload(1000, 'p');
    const auto load_misses = [&](const std::string& key) {
        return gpukit::testing::exit_status_of_forked([&] { return cache.load(key) ? 1 : 0; }, 10) == 0;
    };
    ASSERT_EQ(::mkfifo(cache.entry_path("fifo").c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", cache.entry_path("dev-zero"));
    fs::create_symlink(dir / "nowhere", cache.entry_path("dangling"));
    write(cache.entry_path("too-large"), "GPUKITC1");
    fs::resize_file(cache.entry_path("too-large"), (std::uintmax_t(1) << 30) + 1);  // sparse: no disk used
    for (const std::string key : {"fifo", "dev-zero", "dangling", "too-large"}) {
        EXPECT_TRUE(load_misses(key)) << key;
        cache.store(key, payload);  // the caller compiles again and stores
        EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(cache.entry_path(key)))) << key;
        EXPECT_EQ(cache.load(key), payload) << key;
    }
    // A link to a good entry is followed.
    fs::create_symlink(cache.entry_path("fifo"), cache.entry_path("link"));
    EXPECT_EQ(cache.load("link"), payload);
    // A directory cannot be replaced: a miss, and store() says why (compile_cached() warns).
    fs::create_directory(cache.entry_path("directory"));
    EXPECT_TRUE(load_misses("directory"));
    EXPECT_THROW(cache.store("directory", payload), runtime_error);
}

// Paths are bytes on Linux: a cache directory and an include directory whose names are no
// UTF-8 work as any other (Python passes such names on as their bytes).
TEST_F(cache_test, directories_whose_names_are_no_utf8_work) {
    GPUKIT_REQUIRE_NVRTC();
    const fs::path odd = dir / "odd\xff\xfe";
    fs::create_directories(odd / "include");
    write(odd / "include" / "value.h", "#define VALUE 5\n");
    rtc::compile_request r = request("#include \"value.h\"\n__global__ void k(int *a) { a[0] = VALUE; }");
    r.options.include_dirs = {(odd / "include").string()};
    const rtc::compile_outcome first = rtc::compile_cached(r, odd / "cache");
    EXPECT_FALSE(first.from_cache);
    const rtc::compile_outcome second = rtc::compile_cached(r, odd / "cache");
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.image, first.image);
    EXPECT_EQ(std::distance(fs::directory_iterator(odd / "cache"), fs::directory_iterator()), 1);
}

TEST_F(cache_test, key_follows_source_options_arch_and_headers) {
    GPUKIT_REQUIRE_NVRTC();
    write(dir / "scale.h", "#define SCALE 2\n#include \"inner.h\"\n");
    write(dir / "inner.h", "#define INNER 1\n");
    rtc::compile_request base = request("#include \"scale.h\"\n__global__ void k(int *a) { a[0] = SCALE; }");
    base.options.include_dirs = {dir.string()};
    const std::string key = rtc::cache_key(base);
    EXPECT_EQ(key.size(), 64u);
    EXPECT_EQ(rtc::cache_key(base), key);

    rtc::compile_request changed = base;
    changed.source += " ";
    EXPECT_NE(rtc::cache_key(changed), key);
    changed = base;
    changed.options.options = {"-DX=1"};
    EXPECT_NE(rtc::cache_key(changed), key);
    changed = base;
    changed.options.arch = "sm_80";
    EXPECT_NE(rtc::cache_key(changed), key);
    changed = base;
    changed.options.no_extern_c = true;
    EXPECT_NE(rtc::cache_key(changed), key);

    // Another NVRTC library (path, size or mtime: see file_identity) is another key.
    EXPECT_EQ(rtc::detail::cache_key(base, rtc::nvrtc_identity()), key);
    EXPECT_NE(rtc::detail::cache_key(base, rtc::nvrtc_identity() + " rebuilt"), key);

    // A header included by a header counts too.
    write(dir / "inner.h", "#define INNER 2\n");
    EXPECT_NE(rtc::cache_key(base), key);
    const std::vector<fs::path> headers = rtc::find_included_headers(base.source, fs::current_path(), {dir});
    ASSERT_EQ(headers.size(), 2u);
    EXPECT_EQ(headers[0].filename(), "scale.h");
    EXPECT_EQ(headers[1].filename(), "inner.h");
}

TEST_F(cache_test, compile_cached_misses_then_hits_and_recompiles_a_bad_entry) {
    GPUKIT_REQUIRE_NVRTC();
    const rtc::compile_request r = request(kernel);
    const rtc::compile_outcome first = rtc::compile_cached(r, dir);
    EXPECT_FALSE(first.from_cache);
    EXPECT_EQ(std::string(first.image.data(), 4),
              "\x7f"
              "ELF");
    const rtc::compile_outcome second = rtc::compile_cached(r, dir);
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.key, first.key);
    EXPECT_EQ(second.image, first.image);

    fs::resize_file(rtc::compile_cache(dir).entry_path(first.key), 100);
    const rtc::compile_outcome third = rtc::compile_cached(r, dir);
    EXPECT_FALSE(third.from_cache);
    EXPECT_EQ(third.image, first.image);
    EXPECT_TRUE(rtc::compile_cached(r, dir).from_cache);  // rewritten
}

TEST_F(cache_test, a_prepared_request_keys_once_and_compiles_with_that_key) {
    GPUKIT_REQUIRE_NVRTC();
    rtc::compile_request r = request(kernel);
    r.options.options = {"-DX=1", "--keep"};
    const rtc::prepared_compile keeping(r);
    EXPECT_TRUE(keeping.keeps_files());  // from the options, translated when prepared
    r.options.options = {"-DX=1"};
    const rtc::prepared_compile p(r);
    EXPECT_FALSE(p.keeps_files());
    EXPECT_EQ(p.arch(), "sm_90");
    EXPECT_EQ(p.request().source, r.source);
    const std::string& key = p.key();
    EXPECT_EQ(key, rtc::cache_key(r));
    EXPECT_EQ(&p.key(), &key);  // kept, not worked out again
    const rtc::compile_outcome first = p.compile_cached(dir);
    EXPECT_FALSE(first.from_cache);
    EXPECT_EQ(first.key, key);
    const rtc::compile_outcome second = rtc::prepared_compile(r).compile_cached(dir);
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.image, first.image);
    EXPECT_EQ(p.compile().image, first.image);  // no cache
    // Checked when prepared: a NUL in an option is refused before anything runs.
    r.options.options = {std::string("-DX=1\0junk", 11)};
    EXPECT_THROW(rtc::prepared_compile{r}, std::invalid_argument);
}

TEST_F(cache_test, no_directory_means_no_cache) {
    GPUKIT_REQUIRE_NVRTC();
    const rtc::compile_outcome outcome = rtc::compile_cached(request(kernel), std::nullopt);
    EXPECT_FALSE(outcome.from_cache);
    EXPECT_TRUE(outcome.key.empty());
    EXPECT_FALSE(outcome.image.empty());
}

TEST(cache_dir, environment_chooses_and_disables) {
    ::setenv("GPUKIT_CACHE_DIR", "/tmp/somewhere", 1);
    EXPECT_EQ(rtc::default_cache_dir(), fs::path("/tmp/somewhere"));
    ::unsetenv("GPUKIT_CACHE_DIR");
    ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    EXPECT_EQ(rtc::default_cache_dir(), fs::path("/tmp/xdg/gpukit"));
    ::setenv("GPUKIT_DISABLE_CACHE", "1", 1);
    EXPECT_TRUE(rtc::cache_disabled_by_environment());
    EXPECT_FALSE(rtc::default_cache_dir());
    ::unsetenv("GPUKIT_DISABLE_CACHE");
    ::unsetenv("XDG_CACHE_HOME");
}

bool have_nvcc() { return fs::exists("/usr/local/cuda/bin/nvcc"); }

TEST_F(cache_test, nvcc_compiles_a_cubin_and_keys_on_its_headers) {
    if (!have_nvcc())
        GTEST_SKIP() << "nvcc is not installed in /usr/local/cuda/bin";
    write(dir / "value.h", "#define VALUE 7\n");
    rtc::compile_request r = request("#include \"value.h\"\n__global__ void k(int *a) { a[0] = VALUE; }");
    r.options.include_dirs = {dir.string()};
    r.compiler = rtc::compiler_kind::nvcc;
    r.nvcc = "/usr/local/cuda/bin/nvcc";
    const rtc::compile_outcome first = rtc::compile_cached(r, dir / "cache");
    EXPECT_EQ(std::string(first.image.data(), 4),
              "\x7f"
              "ELF");
    EXPECT_TRUE(rtc::compile_cached(r, dir / "cache").from_cache);
    write(dir / "value.h", "#define VALUE 8\n");
    EXPECT_NE(rtc::cache_key(r), first.key);
}

TEST_F(cache_test, nvcc_failure_is_a_compile_error_with_the_command_line) {
    if (!have_nvcc())
        GTEST_SKIP() << "nvcc is not installed in /usr/local/cuda/bin";
    rtc::nvcc_settings settings;
    settings.nvcc = "/usr/local/cuda/bin/nvcc";
    rtc::compile_options options;
    options.arch = "sm_90";
    try {
        rtc::compile_with_nvcc("__global__ void k() { undeclared = 1; }", options, rtc::output_kind::cubin, settings);
        FAIL() << "nvcc accepted a broken kernel";
    } catch (const compile_error& e) {
        EXPECT_NE(e.log().find("undeclared"), std::string::npos);
        EXPECT_NE(e.command_line().find("--cubin"), std::string::npos);
        EXPECT_NE(e.command_line().find("sm_90"), std::string::npos);
    }
}

TEST(nvcc, a_missing_nvcc_is_a_runtime_error) {
    rtc::nvcc_settings settings;
    settings.nvcc = "/no/such/nvcc";
    rtc::compile_options options;
    options.arch = "sm_90";
    EXPECT_THROW(rtc::compile_with_nvcc(kernel, options, rtc::output_kind::cubin, settings), runtime_error);
}

}  // namespace
