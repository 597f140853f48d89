#include "compile_request.hpp"

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

rtc::compile_request generated_kernel_request(std::vector<std::string> options, std::string arch,
                                              std::vector<std::string> include_dirs,
                                              std::vector<std::string> system_include_dirs, const std::string& compiler,
                                              std::string nvcc) {
    return make_compile_request({}, std::move(options), std::move(arch), std::move(include_dirs),
                                std::move(system_include_dirs), true, compiler, std::move(nvcc), "cubin", false);
}

}  // namespace gpukit::python
