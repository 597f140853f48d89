// The NVRTC half of gpukit.compiler: _nvrtc_compile and friends (compiler.py wraps them).
#include "bindings.hpp"

#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/program.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace gpukit::python {

using namespace nb::literals;

void bind_rtc(nb::module_& m) {
    m.def("nvrtc_available", &rtc::nvrtc_available, "True when libnvrtc can be loaded.");
    m.def("nvrtc_version", &rtc::version, "NVRTC's (major, minor) version.");
    m.def("nvrtc_default_arch", &rtc::default_arch,
          "The architecture compiled for when none is given: the current device's, else sm_90.");
    m.def("_nvrtc_compile", [](const std::string& source, std::vector<std::string> options, const std::string& arch,
                               std::vector<std::string> include_dirs, bool no_extern_c, bool want_ptx) {
        rtc::compile_options o;
        o.arch = arch;
        o.options = std::move(options);
        o.include_dirs = std::move(include_dirs);
        o.no_extern_c = no_extern_c;
        o.want_ptx = want_ptx;
        rtc::compiled_program program;
        {
            nb::gil_scoped_release release;
            program = rtc::compile(source, o);
        }
        const std::vector<char> image = program.image();
        return nb::make_tuple(nb::bytes(image.data(), image.size()), program.arch, program.ptx, program.log,
                              program.options);
    }, "source"_a, "options"_a, "arch"_a, "include_dirs"_a, "no_extern_c"_a, "want_ptx"_a,
       "Compile with NVRTC: (image bytes, arch, ptx, log, option list).");
}

}  // namespace gpukit::python
