// The gpukit exception tree (ARCHITECTURE.md rule 3).
//
//   error                      base of everything gpukit throws
//   ├── api_error              carries the failed call's status code and routine name
//   │   ├── cuda_error         a CUDA driver or NVRTC failure, or misuse of a CUDA object
//   │   │   ├── memory_error   allocation failures
//   │   │   ├── logic_error    the caller did something wrong (bad argument, freed object)
//   │   │   ├── launch_error   a kernel launch or a kernel failed
//   │   │   └── runtime_error  the environment failed (no driver, file missing, ...)
//   │   └── cl_error           an OpenCL call failed
//   ├── compile_error          a CUDA C compilation failed; carries the log and command line
//   └── type_error             an operation the operand types do not support (bool - bool,
//                              an operator gpukit's kernels lack for a type); Python's TypeError
#pragma once

#include <stdexcept>
#include <string>

namespace gpukit {

class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An error with the status a library call returned: `code` (a CUresult, nvrtcResult or CL
// status; 0 when the error did not come from a call) and `routine`, the call that failed
// (empty when none did).
class api_error : public error {
public:
    api_error(const std::string& message, int code, std::string routine)
        : error(message), code_(code), routine_(std::move(routine)) {}
    int code() const noexcept { return code_; }
    const std::string& routine() const noexcept { return routine_; }

private:
    int code_;
    std::string routine_;
};

class cuda_error : public api_error {
public:
    cuda_error(const std::string& message, int code = 0, std::string routine = {})
        : api_error(message, code, std::move(routine)) {}
};

class memory_error : public cuda_error {
public:
    using cuda_error::cuda_error;
};
class logic_error : public cuda_error {
public:
    using cuda_error::cuda_error;
};
class launch_error : public cuda_error {
public:
    using cuda_error::cuda_error;
};
class runtime_error : public cuda_error {
public:
    using cuda_error::cuda_error;
};

class compile_error : public error {
public:
    compile_error(const std::string& message, std::string log, std::string command_line, std::string stdout_text = {})
        : error(message), log_(std::move(log)), command_line_(std::move(command_line)),
          stdout_(std::move(stdout_text)) {}
    // The compiler's diagnostics (NVRTC's program log or nvcc's stderr).
    const std::string& log() const noexcept { return log_; }
    // The command line (nvcc) or the option list (NVRTC) the compilation ran with.
    const std::string& command_line() const noexcept { return command_line_; }
    const std::string& stdout_text() const noexcept { return stdout_; }

private:
    std::string log_, command_line_, stdout_;
};

class cl_error : public api_error {
public:
    using api_error::api_error;
};

class type_error : public error {
public:
    using error::error;
};

// Reports a failure in a destructor or at shutdown, where throwing is not allowed.
// The default hook writes one line to stderr; tests and the Python layer may replace it.
using cleanup_warning_hook = void (*)(const std::string& message);
void set_cleanup_warning_hook(cleanup_warning_hook hook) noexcept;
void cleanup_warning(const std::string& message) noexcept;

}  // namespace gpukit
