#include "gpukit/core/process.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace gpukit {
namespace {

std::string read_and_remove(const std::string& path) {
    std::string text = read_file(path).value_or(std::string{});
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return text;
}

// Destroys the spawn file actions on every path out of run_process().
struct spawn_actions {
    posix_spawn_file_actions_t actions;
    spawn_actions() { posix_spawn_file_actions_init(&actions); }
    ~spawn_actions() { posix_spawn_file_actions_destroy(&actions); }
    spawn_actions(const spawn_actions&) = delete;
    spawn_actions& operator=(const spawn_actions&) = delete;
};

}  // namespace

std::string command_line(const std::vector<std::string>& argv) {
    std::string text;
    for (const auto& arg : argv) {
        if (!text.empty())
            text += ' ';
        text += arg.find(' ') == std::string::npos ? arg : "'" + arg + "'";
    }
    return text;
}

process_result run_process(const std::vector<std::string>& argv, const std::string& working_dir) {
    for (const std::string& arg : argv)
        require_c_string(arg, "a command-line argument");
    require_c_string(working_dir, "the working directory");
    const std::string out_path = working_dir + "/.gpukit-stdout";
    const std::string err_path = working_dir + "/.gpukit-stderr";
    spawn_actions files;
    posix_spawn_file_actions_addopen(&files.actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&files.actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    // nvcc writes its intermediate files to the working directory, so the child starts in
    // `working_dir` (addchdir_np: glibc 2.29+) rather than changing this process's directory.
    posix_spawn_file_actions_addchdir_np(&files.actions, working_dir.c_str());

    std::vector<char*> args;
    for (const auto& arg : argv)
        args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);

    pid_t pid = 0;
    if (const int failed = posix_spawnp(&pid, args[0], &files.actions, nullptr, args.data(), environ); failed != 0)
        throw runtime_error("could not run " + argv[0] + ": " + std::strerror(failed), 0, "posix_spawnp");
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            throw runtime_error("waiting for " + argv[0] + " failed: " + std::strerror(errno), 0, "waitpid");
    }
    process_result result;
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
