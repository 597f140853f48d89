// OpenCL programs: OpenCL C source built for the devices of a context.
#pragma once

#include "gpukit/cl/context.hpp"
#include "gpukit/cl/detail/retained.hpp"

#include <CL/cl.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gpukit::cl {

namespace detail {
class declared_types;
}

// Owns one reference to a cl_program; move-only. Safe to share between threads: building,
// reading the build's results and creating kernels take turns (OpenCL implementations crash
// or fail when one thread builds a program that another builds or reads).
class program {
public:
    // std::invalid_argument for a source holding a NUL character (OpenCL compilers stop there).
    static program create_with_source(const context& ctx, const std::string& source);
    // A program of the executables `binaries` (as binaries() gives them), one per device of
    // `devices`, which must be devices of `ctx`; build() then readies it. cl::logic_error for
    // counts that differ, an empty binary, or one OpenCL refuses (naming its device).
    static program create_with_binary(const context& ctx, std::span<const device> devices,
                                      std::span<const std::vector<std::byte>> binaries);
    // Another owner of the existing program `handle`, as context::wrap. It counts as built for
    // the devices OpenCL reports an executable for, with the options OpenCL reports for the
    // first of them (less the -cl-kernel-arg-info build() adds).
    static program wrap(cl_program handle, bool retain = true);

    // Takes over the other program's reference and build state; the other's handle becomes null.
    program(program&&) noexcept = default;
    // Drops this program's reference and build state and takes over the other's.
    program& operator=(program&&) noexcept = default;

    // The cl_program handle (not a new reference); null once moved from.
    cl_program handle() const noexcept { return handle_.get(); }
    // The devices of the program's context, which it may be built for.
    const std::vector<device>& devices() const noexcept { return devices_; }
    // Whether the program has an executable for at least one device.
    bool built() const noexcept { return build_ && build_->built; }
    // Whether the program has an executable for `dev`, from a successful build().
    bool built_for(const device& dev) const;

    // Builds for `devices` (empty: every device of the context), each of which must be one of
    // devices(), with compiler `options` ("-D N=4 -cl-fast-relaxed-math") and
    // -cl-kernel-arg-info, which lets kernels check their arguments (kernel.hpp). A build
    // replaces the executables of the one before: afterwards the program has them for exactly
    // these devices (PoCL drops the others' even where OpenCL still reports them built). A
    // failed compilation throws cl::build_error, whose message and log() hold the build logs
    // of these devices, and leaves no executable. When every device named has been built with
    // `options` already, this does nothing (so threads that each build before use agree);
    // building anew is refused by OpenCL once kernels of the program exist (cl::logic_error).
    // std::invalid_argument for options holding a NUL character (a C string ends there).
    // A source whose #include would make the compiler read a FIFO, socket or device (an
    // absolute name, a quoted one in the current directory, one in an -I directory of
    // `options`, or in a header found there) is a build_error before OpenCL sees it: PoCL
    // blocks for ever on a FIFO.
    void build(const std::string& options = {}, std::span<const device> devices = {});
    // OpenCL 1.2's separate compilation: compiles the source for `devices` (empty: all) into an
    // object that link() joins with others. `headers` are other programs whose source an
    // `#include "name"` of this one reads (they must stay unchanged meanwhile). A failed
    // compilation throws cl::build_error with the logs, as build().
    void compile(const std::string& options = {}, std::span<const device> devices = {},
                 std::span<const std::pair<std::string, const program*>> headers = {});
    // The executable linked from the compiled `programs` for `devices` (empty: all of the
    // context's); a failed link throws cl::build_error with the logs.
    static program link(const context& ctx, std::span<const program* const> programs, const std::string& options = {},
                        std::span<const device> devices = {});
    // The compiler output for `dev` of the last build.
    std::string build_log(const device& dev) const;
    // The names of the program's kernels; the program must be built.
    std::vector<std::string> kernel_names() const;
    // Any clGetProgramBuildInfo parameter (CL_PROGRAM_BUILD_*) for `dev`: the raw bytes.
    std::vector<std::byte> build_info_bytes(const device& dev, cl_program_build_info param) const;
    // Any clGetProgramInfo parameter (CL_PROGRAM_*): the raw bytes of the answer.
    std::vector<std::byte> info_bytes(cl_program_info param) const;
    // The executable of each device of the program (CL_PROGRAM_BINARIES), in the order of
    // CL_PROGRAM_DEVICES; empty for a device it was not built for.
    std::vector<std::vector<std::byte>> binaries() const;

private:
    friend class kernel;  // creates kernels holding lock()

    // What the threads sharing the program take turns on; on the heap, so that the program can move.
    struct build_state {
        std::mutex mutex;  // taken around every OpenCL call on the program
        std::atomic<bool> built = false;
        std::string options;                // of the last successful build
        std::vector<size_t> built_devices;  // of the last successful build: indexes into devices_
        // The types the last successful build declares, shared by its kernels (parameter_types.hpp).
        std::shared_ptr<detail::declared_types> types;
    };

    program(detail::retained<cl_program> handle, std::vector<device> devices)
        : handle_(std::move(handle)), devices_(std::move(devices)), build_(std::make_unique<build_state>()) {}
    // Indexes into devices_ of `requested` (all when empty), without repeats; throws
    // cl::logic_error naming a device that is not one of them.
    std::vector<size_t> device_indexes(std::span<const device> requested) const;
    std::string unlocked_build_log(const device& dev) const;
    // The devices with an executable; the caller holds lock().
    std::vector<device> unlocked_built_devices() const;
    // The devices of the program `handle`, and the indexes into them of those OpenCL reports an
    // executable of it for.
    static std::vector<device> devices_of(cl_program handle);
    static std::vector<size_t> reported_executables(cl_program handle, const std::vector<device>& devices);
    // "'name', 'name'": the devices of `indexes`, for messages.
    std::string device_names(const std::vector<size_t>& indexes) const;
    std::unique_lock<std::mutex> lock() const { return std::unique_lock(build_->mutex); }

    detail::retained<cl_program> handle_;
    std::vector<device> devices_;
    std::unique_ptr<build_state> build_;
};

}  // namespace gpukit::cl
