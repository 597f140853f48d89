// The linking half of gpukit.compiler: _Linker (nvJitLink) behind DynamicModule.
#include "common/bindings.hpp"
#include "common/path_args.hpp"

#include "gpukit/rtc/linker.hpp"
#include "gpukit/rtc/nvjitlink.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace gpukit::python {

using namespace nb::literals;

void bind_link(nb::module_& m) {
    m.def("nvjitlink_available", &rtc::nvjitlink_available, "True when libnvJitLink can be loaded.");
    m.def("_nvjitlink_version", &rtc::nvjitlink_version,
          "nvJitLink's (major, minor) version; RuntimeError when it cannot be loaded.");
    m.def(
        "_nvjitlink_library_path", [] { return path_text(rtc::nvjitlink_library_path()); },
        "The file of the nvJitLink library in use, links resolved; RuntimeError when none can be loaded.");
    m.def(
        "_find_device_library",
        [](const std::string& name, path_arg libdir) {
            return path_text(rtc::find_device_library(name, libdir.get("DynamicModule(cuda_libdir)")));
        },
        "name"_a, "libdir"_a.none(),
        "The path of lib<name>.a in libdir, else in CUDA_HOME/lib64 or /usr/local/cuda/lib64.");
    nb::class_<rtc::linker>(m, "_Linker", "nvJitLink: add device code, then complete() once for a cubin.")
        .def(nb::init<const std::string&, const std::vector<std::string>&>(), "arch"_a, "options"_a)
        .def(
            "add_data",
            [](rtc::linker& self, nb::bytes data, const std::string& kind, const std::string& name) {
                self.add_data(data.c_str(), data.size(), rtc::link_input_from_name(kind), name);
            },
            "data"_a, "kind"_a, "name"_a)
        .def(
            "add_file",
            [](rtc::linker& self, path_arg path, const std::string& kind) {
                self.add_file(path.get("DynamicModule.add_file(filename)"), rtc::link_input_from_name(kind));
            },
            "path"_a.none(), "kind"_a)
        .def("complete",
             [](rtc::linker& self) {
                 std::vector<char> cubin;
                 {
                     release_gil release;
                     cubin = self.complete();
                 }
                 return nb::bytes(cubin.data(), cubin.size());
             })
        .def_prop_ro("arch", &rtc::linker::arch)
        .def_prop_ro("info_log", [](const rtc::linker& self) { return message_text(self.info_log()); });
}

}  // namespace gpukit::python
