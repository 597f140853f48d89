#include "gpukit/core/process.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

extern char** environ;

namespace gpukit {
namespace {

std::string read_and_remove(const std::string& path) {
    std::string text = read_file(path).value_or(std::string{});
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return text;
}

// Destroys the spawn attributes and file actions on every path out of run_process().
struct spawn_setup {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    spawn_setup() {
        posix_spawn_file_actions_init(&actions);
        posix_spawnattr_init(&attributes);
    }
    ~spawn_setup() {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
    }
    spawn_setup(const spawn_setup&) = delete;
    spawn_setup& operator=(const spawn_setup&) = delete;
};

// The file to run for `name`: itself when it holds a '/', else the first on $PATH, as
// posix_spawnp would find it. Found here, since with a memory limit the shell runs it, and a
// shell that cannot run it only exits with 127, as the program itself might.
std::string program_path(const std::string& name) {
    if (name.find('/') != std::string::npos) {
        if (!is_executable(name))
            throw runtime_error("could not run " + name + ": no executable file there", 0, "posix_spawn");
        return name;
    }
    const char* path = std::getenv("PATH");
    std::string found = find_on_path(name, path ? path : "/bin:/usr/bin");
    if (found.empty())
        throw runtime_error("could not run " + name + ": no executable of that name on PATH", 0, "posix_spawn");
    return found;
}

// The address-space limit for ulimit -v (KiB), or 0 when the limit this process passes on
// is as tight already.
std::uint64_t memory_limit_kib(std::uint64_t bytes) {
    rlimit current{};
    if (bytes == 0 ||
        (getrlimit(RLIMIT_AS, &current) == 0 && current.rlim_cur != RLIM_INFINITY && current.rlim_cur <= bytes))
        return 0;
    return std::max<std::uint64_t>(bytes / 1024, 1);
}

// `argv` with its program resolved, started through /bin/sh when a memory limit applies.
std::vector<std::string> command_for(const std::vector<std::string>& argv, const process_limits& limits) {
    std::vector<std::string> command = argv;
    command[0] = program_path(argv[0]);
    if (const std::uint64_t kib = memory_limit_kib(limits.memory_bytes))
        command.insert(command.begin(),
                       {"/bin/sh", "-c", "ulimit -S -v " + std::to_string(kib) + " && exec \"$0\" \"$@\""});
    return command;
}

void wait_failed(const std::string& program) {
    if (errno != EINTR)
        throw runtime_error("waiting for " + program + " failed: " + std::strerror(errno), 0, "waitpid");
}

// Waits for `pid` and returns its wait status. With a time limit, `pid` leads a process group:
// when it exits, or when `seconds` have passed (then `timed_out` is set), the whole group is
// killed, before `pid` is reaped so that the group's id cannot have been reused meanwhile.
int wait_for(pid_t pid, unsigned seconds, const std::string& program, bool& timed_out) {
    if (seconds > 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        auto pause = std::chrono::milliseconds(1);
        for (;;) {
            siginfo_t info{};
            if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
                wait_failed(program);
            else if (info.si_pid == pid)
                break;
            if (std::chrono::steady_clock::now() >= deadline) {
                timed_out = true;
                break;
            }
            std::this_thread::sleep_for(pause);
            pause = std::min(pause * 2, std::chrono::milliseconds(50));
        }
        ::kill(-pid, SIGKILL);  // on a timeout everything; else what outlived the program
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        wait_failed(program);
    return status;
}

}  // namespace

bool is_executable(const std::string& path) {
    std::error_code ignored;
    return std::filesystem::is_regular_file(path, ignored) && ::access(path.c_str(), X_OK) == 0;
}

std::string find_on_path(const std::string& name, std::string_view path) {
    for (std::string_view dir : split(path, ':')) {
        if (dir.empty())
            continue;
        const std::string candidate = std::string(dir) + "/" + name;
        if (is_executable(candidate))
            return candidate;
    }
    return {};
}

std::string command_line(const std::vector<std::string>& argv) {
    std::string text;
    for (const auto& arg : argv) {
        if (!text.empty())
            text += ' ';
        text += arg.find(' ') == std::string::npos ? arg : "'" + arg + "'";
    }
    return text;
}

process_result run_process(const std::vector<std::string>& argv, const std::string& working_dir,
                           const process_limits& limits) {
    for (const std::string& arg : argv)
        require_c_string(arg, "a command-line argument");
    require_c_string(working_dir, "the working directory");
    const std::vector<std::string> command = command_for(argv, limits);
    const std::string out_path = working_dir + "/.gpukit-stdout";
    const std::string err_path = working_dir + "/.gpukit-stderr";
    spawn_setup setup;
    posix_spawn_file_actions_addopen(&setup.actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&setup.actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    // nvcc writes its intermediate files to the working directory, so the child starts in
    // `working_dir` (addchdir_np: glibc 2.29+) rather than changing this process's directory.
    posix_spawn_file_actions_addchdir_np(&setup.actions, working_dir.c_str());
    if (limits.seconds > 0) {
        posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&setup.attributes, 0);  // a group of its own, led by the child
    }

    std::vector<char*> args;
    for (const auto& arg : command)
        args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);

    pid_t pid = 0;
    if (const int failed = posix_spawn(&pid, args[0], &setup.actions, &setup.attributes, args.data(), environ);
        failed != 0)
        throw runtime_error("could not run " + argv[0] + ": " + std::strerror(failed), 0, "posix_spawn");
    process_result result;
    const int status = wait_for(pid, limits.seconds, argv[0], result.timed_out);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.stdout_text = read_and_remove(out_path);
    result.stderr_text = read_and_remove(err_path);
    return result;
}

std::string make_temp_dir(const std::string& prefix) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "XXXXXX";
    if (!mkdtemp(pattern.data()))
        throw runtime_error("could not create a temporary directory " + pattern + ": " + std::strerror(errno), 0,
                            "mkdtemp");
    return pattern;
}

}  // namespace gpukit
