#include "cuda/compile_request.hpp"

namespace gpukit::python {

rtc::compile_request make_compile_request(std::string source, std::vector<std::string> options, std::string arch,
                                          std::vector<std::string> include_dirs,
                                          std::vector<std::string> system_include_dirs, bool no_extern_c,
                                          const std::string& compiler, std::string nvcc, const std::string& output,
                                          bool keep) {
    rtc::compile_request r;
    r.source = std::move(source);
    r.options.options = std::move(options);
    r.options.arch = std::move(arch);
    r.options.include_dirs = std::move(include_dirs);
    r.options.system_include_dirs = std::move(system_include_dirs);
    r.options.no_extern_c = no_extern_c;
    r.compiler = rtc::compiler_kind_from_name(compiler);
    r.output = rtc::output_kind_from_name(output);
    r.nvcc = std::move(nvcc);
    r.keep = keep;
    return r;
}

namespace {

std::string argument(std::string_view kernel, const char* name) { return std::string(kernel) + "(" + name + ")"; }

}  // namespace

rtc::compile_request generated_kernel_request(std::vector<std::string> options, std::string arch,
                                              const path_list_arg& include_dirs,
                                              const path_list_arg& system_include_dirs, const std::string& compiler,
                                              const path_arg& nvcc, std::string_view kernel) {
    return make_compile_request({}, std::move(options), std::move(arch),
                                include_dirs.get(argument(kernel, "include_dirs").c_str()),
                                system_include_dirs.get(argument(kernel, "system_include_dirs").c_str()), true,
                                compiler, nvcc.get(argument(kernel, "nvcc").c_str()), "cubin", false);
}

std::optional<std::filesystem::path> cache_dir_path(const path_arg& cache_dir, std::string_view kernel) {
    std::optional<std::string> dir = cache_dir.get_optional(argument(kernel, "cache_dir").c_str());
    if (!dir)
        return std::nullopt;
    return std::filesystem::path(std::move(*dir));
}

}  // namespace gpukit::python
