#include "gpukit/cl/program.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/info.hpp"

#include <utility>

namespace gpukit::cl {

program program::create_with_source(const context& ctx, const std::string& source) {
    if (source.empty())
        throw logic_error("creating a program: the source is empty; expected OpenCL C code", CL_INVALID_VALUE,
                          "clCreateProgramWithSource");
    const char* text = source.c_str();
    const size_t length = source.size();
    detail::retained<cl_program> handle(
        GPUKIT_CL_CREATE(clCreateProgramWithSource, "", ctx.handle(), 1, &text, &length), detail::adopt);
    return program(std::move(handle), ctx.devices());
}

void program::build(const std::string& options) {
    const auto guard = lock();
    if (build_->built && options == build_->options)
        return;
    // Kernels check their arguments against the parameters this makes OpenCL describe.
    const std::string with_arg_info = options + (options.empty() ? "" : " ") + "-cl-kernel-arg-info";
    cl_int status = api().clBuildProgram(handle(), 0, nullptr, with_arg_info.c_str(), nullptr, nullptr);
    if (status == CL_BUILD_PROGRAM_FAILURE)
        // Some compilers fail on sources they build without it (NVIDIA's, on a kernel without
        // parameters: "ptxas ... syntax error"): then the kernels check argument sizes only.
        status = api().clBuildProgram(handle(), 0, nullptr, options.c_str(), nullptr, nullptr);
    if (status == CL_BUILD_PROGRAM_FAILURE) {
        build_->built = false;
        std::string log;
        for (const device& dev : devices_)
            log += "--- build log for '" + dev.name() + "':\n" + unlocked_build_log(dev) + "\n";
        throw build_error("clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (" + std::to_string(status) +
                              "): the OpenCL C source did not compile with options '" + options + "'\n" + log,
                          status, "clBuildProgram", log);
    }
    if (status == CL_INVALID_OPERATION && build_->built)
        throw logic_error("clBuildProgram failed: CL_INVALID_OPERATION (" + std::to_string(status) +
                              "): the program was built with options '" + build_->options +
                              "' and kernels of it exist, so it cannot be rebuilt with options '" + options +
                              "'; make a new Program for other options",
                          status, "clBuildProgram");
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clBuildProgram", "options '" + options + "'");
    build_->options = options;
    build_->built = true;
}

std::string program::build_log(const device& dev) const {
    const auto guard = lock();
    return unlocked_build_log(dev);
}

std::string program::unlocked_build_log(const device& dev) const {
    return detail::info_string([&](size_t size, void* value, size_t* size_ret) {
        return api().clGetProgramBuildInfo(handle(), dev.handle(), CL_PROGRAM_BUILD_LOG, size, value, size_ret);
    }, "clGetProgramBuildInfo");
}

std::vector<std::string> program::kernel_names() const {
    if (!built())
        throw logic_error("the program's kernel names are known only after build(); call build() first",
                          CL_INVALID_PROGRAM_EXECUTABLE, "clGetProgramInfo");
    const auto guard = lock();
    const std::string joined = detail::info_string([&](size_t size, void* value, size_t* size_ret) {
        return api().clGetProgramInfo(handle(), CL_PROGRAM_KERNEL_NAMES, size, value, size_ret);
    }, "clGetProgramInfo");
    // The names come separated by semicolons.
    std::vector<std::string> names;
    size_t start = 0;
    while (start < joined.size()) {
        const size_t end = std::min(joined.find(';', start), joined.size());
        if (end > start)
            names.push_back(joined.substr(start, end - start));
        start = end + 1;
    }
    return names;
}

}  // namespace gpukit::cl
