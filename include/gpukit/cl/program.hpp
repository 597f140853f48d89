// OpenCL programs: OpenCL C source built for the devices of a context.
#pragma once

#include "gpukit/cl/context.hpp"

#include <CL/cl.h>

#include <string>
#include <vector>

namespace gpukit::cl {

// Owns one reference to a cl_program; move-only.
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
    void build(const std::string& options = {});
    // The compiler output for `dev` of the last build.
    std::string build_log(const device& dev) const;
    // The names of the program's kernels; the program must be built.
    std::vector<std::string> kernel_names() const;

private:
    program(cl_program handle, std::vector<device> devices) noexcept
        : handle_(handle), devices_(std::move(devices)) {}
    void release() noexcept;

    cl_program handle_ = nullptr;
    std::vector<device> devices_;
    bool built_ = false;
};

}  // namespace gpukit::cl
