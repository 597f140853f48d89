// Running an external program (nvcc) and collecting what it printed.
#pragma once

#include <string>
#include <vector>

namespace gpukit {

struct process_result {
    int exit_code = -1;  // the program's exit status; 128 + n when signal n ended it
    std::string stdout_text;
    std::string stderr_text;
};

// Runs argv[0] (searched on PATH when it has no '/') with the arguments argv[1..] in the
// directory `working_dir`, waits for it and returns its exit status and output. stdout and
// stderr go to files in `working_dir` (named .gpukit-stdout/.gpukit-stderr, removed after
// reading), which avoids the pipe deadlock of reading two streams from one thread.
// Throws runtime_error when the program cannot be started, std::invalid_argument when an
// argument or the directory holds a NUL character (core/c_text.hpp).
process_result run_process(const std::vector<std::string>& argv, const std::string& working_dir);

// " "-joined argv, with arguments holding spaces in single quotes (for messages).
std::string command_line(const std::vector<std::string>& argv);

// A fresh directory under $TMPDIR (else /tmp) named <prefix>XXXXXX; runtime_error on failure.
std::string make_temp_dir(const std::string& prefix);

}  // namespace gpukit
