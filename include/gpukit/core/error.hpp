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

// The base of gpukit's exception classes; what() is the message. Bad arguments to the helpers
// that check them (layouts, C strings) are std::invalid_argument, std::out_of_range or
// std::length_error instead, as their headers say.
class error : public std::runtime_error {
public:
    // An error with the message `what` (a std::string or a C string).
    using std::runtime_error::runtime_error;
};

// An error with the status a library call returned: `code` (a CUresult, nvrtcResult or CL
// status; 0 when the error did not come from a call) and `routine`, the call that failed
// (empty when none did).
class api_error : public error {
public:
    // An error with the text `message` (what()), the status `code` the call returned and the
    // name of the call, `routine` ("cuMemAlloc_v2", "clBuildProgram").
    api_error(const std::string& message, int code, std::string routine)
        : error(message), code_(code), routine_(std::move(routine)) {}
    // The status the failed call returned (a CUresult, nvrtcResult or CL status); 0 when the
    // error did not come from a library call.
    int code() const noexcept { return code_; }
    // The name of the library call that failed; empty when the error did not come from one.
    const std::string& routine() const noexcept { return routine_; }

private:
    int code_;
    std::string routine_;
};

// A CUDA driver or NVRTC call failed, or a CUDA object was misused; the subclasses say which
// kind of failure it was. Catch it for any CUDA-side failure.
class cuda_error : public api_error {
public:
    // An error with the text `message`; `code` and `routine` as for api_error, 0 and empty
    // when no library call failed.
    cuda_error(const std::string& message, int code = 0, std::string routine = {})
        : api_error(message, code, std::move(routine)) {}
};

// An allocation failed: the device or the host had no memory for it (CUDA_ERROR_OUT_OF_MEMORY,
// host memory that could not be mapped, an allocator's capacity reached). Memory pools catch
// it to give cached blocks back and try again.
class memory_error : public cuda_error {
public:
    // Inherits cuda_error's constructor: (message, code = 0, routine = "").
    using cuda_error::cuda_error;
};
// The caller did something wrong: a bad argument, an object used after it was freed, a call
// in the wrong state. Python's LogicError.
class logic_error : public cuda_error {
public:
    // Inherits cuda_error's constructor: (message, code = 0, routine = "").
    using cuda_error::cuda_error;
};
// A kernel launch failed (too many resources asked for, a timeout), or a kernel failed while
// running (an illegal address, a failed assert).
class launch_error : public cuda_error {
public:
    // Inherits cuda_error's constructor: (message, code = 0, routine = "").
    using cuda_error::cuda_error;
};
// The environment failed: no driver or device, a library or file missing, a program that
// could not be started.
class runtime_error : public cuda_error {
public:
    // Inherits cuda_error's constructor: (message, code = 0, routine = "").
    using cuda_error::cuda_error;
};

// Compiling or linking device code failed (NVRTC, nvcc, nvJitLink, or an `#include` that could
// not be resolved); it carries what the compiler printed and how it was run, for the user to read.
class compile_error : public error {
public:
    // An error with the text `message`, the compiler's diagnostics `log`, the command line or
    // option list it ran with, and what it printed to stdout (nvcc only).
    compile_error(const std::string& message, std::string log, std::string command_line, std::string stdout_text = {})
        : error(message), log_(std::move(log)), command_line_(std::move(command_line)),
          stdout_(std::move(stdout_text)) {}
    // The compiler's diagnostics (NVRTC's program log or nvcc's stderr).
    const std::string& log() const noexcept { return log_; }
    // The command line (nvcc) or the option list (NVRTC) the compilation ran with.
    const std::string& command_line() const noexcept { return command_line_; }
    // What nvcc printed to stdout; empty when the failure was not nvcc's.
    const std::string& stdout_text() const noexcept { return stdout_; }

private:
    std::string log_, command_line_, stdout_;
};

// An OpenCL call failed; code() is the CL status (CL_OUT_OF_RESOURCES, ...). gpukit::cl
// throws its own subclasses of it.
class cl_error : public api_error {
public:
    // Inherits api_error's constructor: (message, code, routine).
    using api_error::api_error;
};

// The operand types do not support an operation (bool - bool, an operator gpukit's kernels
// lack for a type). Python's TypeError.
class type_error : public error {
public:
    // Inherits error's constructor: (message).
    using error::error;
};

// Reports a failure in a destructor or at shutdown, where throwing is not allowed.
// The default hook writes one line to stderr; tests and the Python layer may replace it.
using cleanup_warning_hook = void (*)(const std::string& message);
// Makes `hook` receive every cleanup warning from now on; nullptr restores the default hook,
// which writes the message to stderr as one line starting with "gpukit warning: ". Thread-safe.
void set_cleanup_warning_hook(cleanup_warning_hook hook) noexcept;
// Hands `message` to the current hook. Never throws: an exception from the hook is swallowed.
void cleanup_warning(const std::string& message) noexcept;

}  // namespace gpukit
