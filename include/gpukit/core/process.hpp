// Running an external program (nvcc) and collecting what it printed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit {

// Bounds on a program run_process() starts and on every program that one starts in turn:
// a compiler must not read a device without end or wait on a FIFO for ever.
struct process_limits {
    // Wall-clock seconds after which the program and everything it started are killed
    // (SIGKILL to its process group); 0: no limit.
    unsigned seconds = 0;
    // The address space (RLIMIT_AS) of each of those processes, in bytes; 0: no limit. An
    // allocation beyond it fails, which the program reports as it does running out of memory.
    std::uint64_t memory_bytes = 0;
};

// What run_process() reports of a program that ran: how it ended and what it printed.
struct process_result {
    int exit_code = -1;  // the program's exit status; 128 + n when signal n ended it
    // Everything the program wrote to its standard output.
    std::string stdout_text;
    // Everything the program wrote to its standard error.
    std::string stderr_text;
    bool timed_out = false;  // the time limit was reached and the program killed
};

// Runs argv[0] (searched on PATH when it has no '/') with the arguments argv[1..] in the
// directory `working_dir`, waits for it and returns its exit status and output. stdout and
// stderr go to files in `working_dir` (named .gpukit-stdout/.gpukit-stderr, removed after
// reading), which avoids the pipe deadlock of reading two streams from one thread. With a
// time limit the program runs in a process group of its own, so that what it started dies
// with it; with a memory limit it is started through /bin/sh's `ulimit -v`, the only way to
// set a limit in the child before it runs (posix_spawn has no such attribute, and limiting the
// child after it started races with the programs it starts).
// Throws runtime_error when the program cannot be found or started, std::invalid_argument
// when an argument or the directory holds a NUL character (core/c_text.hpp).
process_result run_process(const std::vector<std::string>& argv, const std::string& working_dir,
                           const process_limits& limits = {});

// " "-joined argv, with arguments holding spaces in single quotes (for messages).
std::string command_line(const std::vector<std::string>& argv);

// A fresh directory under $TMPDIR (else /tmp) named `<prefix>XXXXXX`; runtime_error on failure.
std::string make_temp_dir(const std::string& prefix);

// Whether `path` is a regular file this process may execute.
bool is_executable(const std::string& path);

// The first executable `name` in the ':'-separated directories of `path`; empty when none.
std::string find_on_path(const std::string& name, std::string_view path);

}  // namespace gpukit
