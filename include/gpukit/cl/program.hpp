// OpenCL programs: OpenCL C source built for the devices of a context.
#pragma once

#include "gpukit/cl/context.hpp"

#include <CL/cl.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gpukit::cl {

// Owns one reference to a cl_program; move-only. Safe to share between threads: building,
// reading the build's results and creating kernels take turns (OpenCL implementations crash
// or fail when one thread builds a program that another builds or reads).
class program {
public:
    static program create_with_source(const context& ctx, const std::string& source);

    program(program&& other) noexcept;
    program& operator=(program&& other) noexcept;
    ~program();

    cl_program handle() const noexcept { return handle_; }
    bool built() const noexcept { return built_; }

    // Builds for every device of the context with compiler `options` ("-D N=4 -cl-fast-relaxed-math"),
    // and -cl-kernel-arg-info, which lets kernels check their arguments (kernel.hpp).
    // A failed compilation throws cl::build_error, whose message and log() hold the build log.
    // Building again with the options of the last successful build does nothing (so threads
    // that each build before use agree); with other options it rebuilds, which OpenCL refuses
    // once kernels of the program exist (cl::logic_error).
    void build(const std::string& options = {});
    // The compiler output for `dev` of the last build.
    std::string build_log(const device& dev) const;
    // The names of the program's kernels; the program must be built.
    std::vector<std::string> kernel_names() const;

private:
    friend class kernel;  // creates kernels holding lock()

    program(cl_program handle, std::vector<device> devices)
        : handle_(handle), devices_(std::move(devices)), mutex_(std::make_unique<std::mutex>()) {}
    void release() noexcept;
    std::string unlocked_build_log(const device& dev) const;
    // Taken around every OpenCL call on the program.
    std::unique_lock<std::mutex> lock() const { return std::unique_lock(*mutex_); }

    cl_program handle_ = nullptr;
    std::vector<device> devices_;
    std::unique_ptr<std::mutex> mutex_;  // a pointer, so that the program can move
    std::atomic<bool> built_ = false;
    std::string built_options_;  // of the last successful build
};

}  // namespace gpukit::cl
