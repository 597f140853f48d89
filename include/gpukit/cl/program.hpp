// OpenCL programs: OpenCL C source built for the devices of a context.
#pragma once

#include "gpukit/cl/context.hpp"
#include "gpukit/cl/detail/retained.hpp"

#include <CL/cl.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gpukit::cl {

// Owns one reference to a cl_program; move-only. Safe to share between threads: building,
// reading the build's results and creating kernels take turns (OpenCL implementations crash
// or fail when one thread builds a program that another builds or reads).
class program {
public:
    static program create_with_source(const context& ctx, const std::string& source);

    program(program&&) noexcept = default;
    program& operator=(program&&) noexcept = default;

    cl_program handle() const noexcept { return handle_.get(); }
    bool built() const noexcept { return build_ && build_->built; }

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

    // What the threads sharing the program take turns on; on the heap, so that the program can move.
    struct build_state {
        std::mutex mutex;  // taken around every OpenCL call on the program
        std::atomic<bool> built = false;
        std::string options;  // of the last successful build
    };

    program(detail::retained<cl_program> handle, std::vector<device> devices)
        : handle_(std::move(handle)), devices_(std::move(devices)), build_(std::make_unique<build_state>()) {}
    std::string unlocked_build_log(const device& dev) const;
    std::unique_lock<std::mutex> lock() const { return std::unique_lock(build_->mutex); }

    detail::retained<cl_program> handle_;
    std::vector<device> devices_;
    std::unique_ptr<build_state> build_;
};

}  // namespace gpukit::cl
