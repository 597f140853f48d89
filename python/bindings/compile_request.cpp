#include "compile_request.hpp"

#include "bindings.hpp"

namespace gpukit::python {

rtc::compile_request make_compile_request(std::string source, std::vector<std::string> options, std::string arch,
                                          std::vector<std::string> include_dirs, bool no_extern_c,
                                          const std::string& compiler, std::string nvcc, bool keep) {
    rtc::compile_request r;
    r.source = std::move(source);
    r.options.options = std::move(options);
    r.options.arch = std::move(arch);
    r.options.include_dirs = std::move(include_dirs);
    r.options.no_extern_c = no_extern_c;
    if (compiler == "nvcc")
        r.compiler = rtc::compiler_kind::nvcc;
    else if (compiler != "nvrtc")
        throw nb::value_error(("compiler must be 'nvrtc' or 'nvcc', got '" + compiler + "'").c_str());
    r.nvcc.nvcc = std::move(nvcc);
    r.nvcc.keep = keep;
    // NVRTC's keep writes its files from Python; PTX is asked for so they include it.
    r.options.want_ptx = keep && r.compiler == rtc::compiler_kind::nvrtc;
    return r;
}

}  // namespace gpukit::python
