// Versions, initialisation and devices (gpukit.driver.Device), plus the default-device
// rules used by gpukit.tools.
#include "common/bindings.hpp"
#include "common/path_args.hpp"
#include "common/int_args.hpp"
#include "common/stub_types.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/constants.hpp"
#include "gpukit/cuda/default_device.hpp"
#include "gpukit/cuda/device.hpp"
#include "gpukit/version.hpp"

#include <nanobind/stl/function.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cctype>

namespace gpukit::python {

using namespace nb::literals;
using cuda::device;

namespace {

std::string upper(std::string text) {
    for (char& c : text)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

// {device_attribute member: value}.
nb::typed<nb::dict, python_type<"gpukit._gpukit.device_attribute">, int> all_attributes(const device& dev) {
    nb::object cls = constant_class("device_attribute");
    nb::dict result;
    for (const cuda::named_constant& c : cuda::all_constants()) {
        if (std::string_view(c.group) != "device_attribute" || std::string_view(c.name) == "MAX")
            continue;
        int value = 0;
        // Attributes the driver no longer answers (retired ones kept in the header) are left out.
        if (cuda::api().cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(c.value), dev.handle()) ==
            CUDA_SUCCESS)
            result[cls(c.value)] = value;
    }
    return result;
}

// What the compiler knew when it built this module, for `python -m gpukit info`.
// GPUKIT_BUILD_TYPE is the CMake build type, defined for the module by python/CMakeLists.txt.
// Values of several types, one per key (str, int, tuples of int): typing.Any.
nb::typed<nb::dict, nb::str, nb::any> build_info() {
    nb::dict info;
#if defined(__clang__)
    std::string compiler = std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
    std::string compiler = std::string("GCC ") + __VERSION__;
#else
    std::string compiler = "unknown compiler";
#endif
    while (!compiler.empty() && compiler.back() == ' ')  // __clang_version__ ends in a space
        compiler.pop_back();
    info["compiler"] = compiler;
    info["cxx_standard"] = static_cast<long>(__cplusplus);
    info["build_type"] = GPUKIT_BUILD_TYPE;
    info["cuda_headers"] = nb::make_tuple(CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10);
    info["nanobind"] = nb::make_tuple(NB_VERSION_MAJOR, NB_VERSION_MINOR, NB_VERSION_PATCH);
    info["python"] = PY_VERSION;
    return info;
}

}  // namespace

void bind_device(nb::module_& m) {
    m.attr("VERSION") = nb::make_tuple(gpukit::version_major, gpukit::version_minor, gpukit::version_patch);
    m.attr("VERSION_STATUS") = gpukit::version_status;
    m.attr("VERSION_TEXT") = gpukit::version_text;

    m.def(
        "get_version",
        []() -> nb::typed<nb::tuple, int, int, int> {
            return nb::make_tuple(CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10, CUDA_VERSION % 10);
        },
        "The CUDA version gpukit was built against, as (major, minor, revision).");
    m.def(
        "get_driver_version",
        [] {
            int version = 0;
            GPUKIT_CU(cuDriverGetVersion, &version);
            return version;
        },
        "The CUDA version of the installed driver, as an integer (13000 for 13.0).");
    m.def(
        "init",
        [](int_arg<unsigned int> flags_arg) {
            const unsigned int flags = flags_arg.get("init(flags)");
            if (flags != 0)
                throw logic_error("init(flags): CUDA requires flags=0, got " + std::to_string(flags));
            (void)cuda::api();  // loads the driver and runs cuInit once
        },
        "flags"_a.none() = 0, "Initialise CUDA. gpukit also does this by itself on first use.");
    m.def("driver_available", &cuda::driver_available, "True when libcuda.so.1 can be loaded.");
    m.def(
        "_driver_library_path", [] { return path_text(cuda::driver_library_path()); },
        "The file libcuda.so.1 was loaded from, links resolved; RuntimeError when there is no driver.");
    m.def("_build_info", &build_info,
          "How this module was built: compiler, cxx_standard, build_type, cuda_headers (major, minor), "
          "nanobind (major, minor, patch) and the python it was built for.");

    nb::class_<device>(m, "Device", nb::dynamic_attr(), "A CUDA device, chosen by number or by PCI bus id.")
        .def(
            "__init__",
            [](device* self, nb::handle number_or_pci_bus_id) {
                if (nb::isinstance<nb::str>(number_or_pci_bus_id))
                    new (self) device(device::from_pci_bus_id(nb::cast<std::string>(number_or_pci_bus_id)));
                else
                    new (self) device(device::get(integer_arg<int>(number_or_pci_bus_id, "Device(number)")));
            },
            "number"_a.none(), "A device number, or a PCI bus id string such as '0000:65:00.0'.")
        .def_static("count", &device::count, "The number of CUDA devices (0 when there are none).")
        .def("name", &device::name)
        .def("pci_bus_id", &device::pci_bus_id)
        .def("compute_capability", &device::compute_capability)
        .def("total_memory", &device::total_memory)
        .def(
            "get_attribute",
            [](const device& d, int_arg<int> attr) {
                return d.attribute(static_cast<CUdevice_attribute>(attr.get("Device.get_attribute(attr)")));
            },
            "attr"_a.none())
        .def("get_attributes", &all_attributes, "A dict of every device_attribute the driver reports.")
        .def(
            "uuid",
            [](const device& d) {
                auto bytes = d.uuid();
                return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
            },
            "The device's 16-byte UUID.")
        .def(
            "make_context",
            [](const device& d, int_arg<unsigned int> flags) {
                return d.make_context(flags.get("Device.make_context(flags)"));
            },
            "flags"_a.none() = 0)
        .def("retain_primary_context", &device::retain_primary_context)
        .def("can_access_peer", &device::can_access_peer, "dev"_a)
        .def("__getattr__",
             [](const device& d, const std::string& name) {
                 auto attr = cuda::find_constant("device_attribute", upper(name));
                 if (!attr || name.empty() || !std::islower(static_cast<unsigned char>(name[0])))
                     throw nb::attribute_error(("'Device' object has no attribute '" + name + "'").c_str());
                 return d.attribute(static_cast<CUdevice_attribute>(*attr));
             })
        .def("__eq__",
             [](const device& a, nb::handle b) { return nb::isinstance<device>(b) && a == nb::cast<const device&>(b); })
        .def("__ne__", [](const device& a,
                          nb::handle b) { return !(nb::isinstance<device>(b) && a == nb::cast<const device&>(b)); })
        .def("__hash__", [](const device& d) { return std::hash<int>{}(d.ordinal()); })
        .def("__int__", &device::ordinal)
        .def("__repr__", [](const device& d) { return "<gpukit.driver.Device " + std::to_string(d.ordinal()) + ">"; });

    m.def("_configured_device", []() -> nb::object {
        auto choice = cuda::configured_device();
        if (!choice)
            return nb::none();
        return nb::make_tuple(choice->number, choice->source);
    });
    m.def(
        "_get_default_device",
        [](int_arg<int> fallback) { return cuda::default_device(fallback.get("get_default_device(default)")); },
        "default"_a.none() = 0);
    m.def(
        "_make_default_context",
        [](std::function<cuda::context(const device&)> maker) { return cuda::make_default_context(maker); },
        "ctx_maker"_a.none() = nb::none());
}

}  // namespace gpukit::python
