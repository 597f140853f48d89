// run_process(): its output, and the time and memory bounds a compiler child runs within.
#include "gpukit/core/error.hpp"
#include "gpukit/core/process.hpp"

#include "expect_error.hpp"
#include "temp_dir_test.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>

namespace {

using namespace gpukit;
using process_test = test::temp_dir_test;

TEST_F(process_test, runs_in_the_working_directory_and_collects_both_streams) {
    const process_result run = run_process({"sh", "-c", "pwd; echo oops >&2; exit 3"}, dir.string());
    EXPECT_EQ(run.exit_code, 3);
    EXPECT_EQ(run.stdout_text, std::filesystem::canonical(dir).string() + "\n");
    EXPECT_EQ(run.stderr_text, "oops\n");
    EXPECT_FALSE(run.timed_out);
}

TEST_F(process_test, a_program_that_is_not_found_is_a_runtime_error) {
    test::expect_error<runtime_error>([&] { run_process({"gpukit-no-such-program"}, dir.string()); },
                                      "could not run gpukit-no-such-program");
    test::expect_error<runtime_error>([&] { run_process({"/nonexistent/program"}, dir.string()); },
                                      "could not run /nonexistent/program");
}

// A compiler reading a FIFO waits for ever: the time bound kills it, and what it started.
TEST_F(process_test, the_time_limit_kills_the_program_and_its_children) {
    const auto start = std::chrono::steady_clock::now();
    const process_result run =
        run_process({"sh", "-c", "sleep 30 & echo $! > child; wait"}, dir.string(), {.seconds = 1});
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_TRUE(run.timed_out);
    EXPECT_EQ(run.exit_code, 128 + SIGKILL);
    EXPECT_LT(took, std::chrono::seconds(10));
    pid_t child = 0;
    std::ifstream(dir / "child") >> child;
    ASSERT_GT(child, 0);
    // Killed too: gone, or a zombie until init reaps it.
    std::string state = "gone";
    for (int tries = 0; tries < 100 && ::kill(child, 0) == 0; ++tries) {
        std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
        std::string pid_field, name;
        stat >> pid_field >> name >> state;
        if (state == "Z")
            break;
        ::usleep(10000);
    }
    EXPECT_TRUE(state == "gone" || state == "Z") << "the child of the timed-out program is still running: " << state;
}

TEST_F(process_test, a_program_within_its_time_limit_is_not_stopped) {
    const process_result run = run_process({"sh", "-c", "echo done"}, dir.string(), {.seconds = 30});
    EXPECT_FALSE(run.timed_out);
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_EQ(run.stdout_text, "done\n");
}

// A compiler reading /dev/zero grows without end: the memory bound is in place before it runs.
TEST_F(process_test, the_memory_limit_is_set_before_the_program_runs) {
    const process_result run = run_process({"sh", "-c", "ulimit -S -v; echo \"$1\"", "sh", "an argument"}, dir.string(),
                                           {.memory_bytes = std::uint64_t(512) << 20});
    EXPECT_EQ(run.stdout_text, "524288\nan argument\n") << run.stderr_text;
    EXPECT_EQ(run.exit_code, 0);
    const process_result unlimited = run_process({"sh", "-c", "ulimit -S -v"}, dir.string());
    EXPECT_NE(unlimited.stdout_text, "524288\n");
}

TEST_F(process_test, an_allocation_beyond_the_memory_limit_fails_in_the_program) {
    // The shell reads 64 MiB into a variable: within 16 MiB it cannot (without a limit it can).
    const process_result run = run_process({"sh", "-c", "x=$(head -c 67108864 /dev/zero | tr '\\0' x); echo ${#x}"},
                                           dir.string(), {.seconds = 60, .memory_bytes = std::uint64_t(16) << 20});
    EXPECT_FALSE(run.timed_out);
    EXPECT_NE(run.exit_code, 0);
    EXPECT_NE(run.stdout_text, "67108864\n");
}

TEST(process, find_on_path_takes_the_first_executable) {
    EXPECT_EQ(find_on_path("sh", "/nonexistent:/bin:/usr/bin").substr(0, 1), "/");
    EXPECT_EQ(find_on_path("sh", ""), "");
    EXPECT_TRUE(is_executable(find_on_path("sh", "/bin:/usr/bin")));
    EXPECT_FALSE(is_executable("/etc/passwd"));
}

}  // namespace
