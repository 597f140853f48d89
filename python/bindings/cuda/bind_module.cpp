// gpukit.driver.Module, module_from_buffer, module_from_file and the profiler switches.
#include "common/bindings.hpp"
#include "common/path_args.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/module.hpp"
#include "cuda/bound_function.hpp"
#include "common/memory_args.hpp"

#include <nanobind/stl/string.h>

#include <vector>

namespace gpukit::python {

using namespace nb::literals;
using cuda::module;

namespace {

std::vector<cuda::jit_option_value> jit_options(nb::handle options) {
    std::vector<cuda::jit_option_value> result;
    for (nb::handle item : options) {
        nb::sequence pair = nb::borrow<nb::sequence>(item);
        if (nb::len(pair) != 2)
            throw nb::type_error("module_from_buffer: each option must be a (jit_option, value) pair");
        result.emplace_back(static_cast<CUjit_option>(nb::cast<int>(nb::int_(pair[0]))),
                            nb::cast<std::uintptr_t>(nb::int_(pair[1])));
    }
    return result;
}

// Runs `load(log)` and reports the JIT's messages to the handler, on failure too.
template <class Loader>
module load_reporting(nb::handle message_handler, Loader load) {
    cuda::jit_log log;
    try {
        module m = load(log);
        if (!message_handler.is_none())
            message_handler(true, message_text(log.info), message_text(log.error));
        return m;
    } catch (const cuda_error&) {
        if (!message_handler.is_none())
            message_handler(false, message_text(log.info), message_text(log.error));
        throw;
    }
}

[[noreturn]] void no_references(const char* what, const char* replacement) {
    throw logic_error(std::string("Module.") + what +
                      "(): CUDA 12 removed texture and surface references, so "
                      "modules cannot provide them; declare a cudaTextureObject_t/cudaSurfaceObject_t kernel "
                      "parameter and pass a " +
                      replacement + " instead");
}

}  // namespace

void bind_module(nb::module_& m) {
    nb::class_<module>(m, "Module", nb::dynamic_attr(),
                       "Code loaded on the device; make one with module_from_buffer or SourceModule.",
                       nb::is_weak_referenceable())
        .def(
            "get_function",
            [](const module& self, const std::string& name) { return bound_function(self.get_function(name)); },
            "name"_a, "The kernel `name` (its extern \"C\" or mangled name).")
        .def(
            "get_global",
            [](const module& self, const std::string& name) -> nb::typed<nb::tuple, int, int> {
                const auto [address, size] = self.get_global(name);
                return nb::make_tuple(static_cast<std::uintptr_t>(address), size);
            },
            "name"_a, "(device address, size in bytes) of a __device__ or __constant__ variable.")
        .def(
            "get_texref", [](const module&, nb::handle) { no_references("get_texref", "TextureObject"); }, "name"_a)
        .def(
            "get_surfref", [](const module&, nb::handle) { no_references("get_surfref", "SurfaceObject"); }, "name"_a)
        .def_prop_ro("handle", [](const module& self) { return reinterpret_cast<std::uintptr_t>(self.handle()); });

    m.def(
        "module_from_buffer",
        [](nb::handle buffer, nb::handle options, nb::handle message_handler) {
            Py_buffer view;
            if (!get_plain_buffer(buffer, view, PyBUF_ANY_CONTIGUOUS, "module_from_buffer(buffer)"))
                throw nb::python_error();
            const char* bytes = static_cast<const char*>(view.buf);
            std::vector<char> image(bytes, bytes + view.len);
            PyBuffer_Release(&view);
            // PTX is read as a C string; a cubin or fatbin ignores the extra byte.
            image.push_back('\0');
            const auto opts = jit_options(options);
            return load_reporting(message_handler,
                                  [&](cuda::jit_log& log) { return module::from_image(image, opts, &log); });
        },
        "buffer"_a, "options"_a = nb::list(), "message_handler"_a = nb::none(),
        "Load a cubin, fatbin or PTX image. options: [(jit_option, value)]; message_handler(success, info, errors).");
    m.def(
        "module_from_file",
        [](path_arg path_object, nb::handle options, nb::handle message_handler) {
            const std::string path = path_object.get("module_from_file(path)");
            const auto opts = jit_options(options);
            return load_reporting(message_handler,
                                  [&](cuda::jit_log& log) { return module::from_file(path, opts, &log); });
        },
        "path"_a.none(), "options"_a = nb::list(), "message_handler"_a = nb::none(),
        "Load a cubin, fatbin or PTX file.");

    m.def(
        "start_profiler", [] { GPUKIT_CU(cuProfilerStart); }, "Start collecting profile data (cuProfilerStart).");
    m.def(
        "stop_profiler", [] { GPUKIT_CU(cuProfilerStop); }, "Stop collecting profile data (cuProfilerStop).");
    m.def(
        "initialize_profiler",
        [](nb::handle, nb::handle, nb::handle) {
            throw logic_error(
                "initialize_profiler(): CUDA 12 removed cuProfilerInitialize; configure the profiler "
                "(Nsight Systems / Nsight Compute) from its command line and use start_profiler() and "
                "stop_profiler() to mark the region");
        },
        "config_file"_a, "output_file"_a, "output_mode"_a);
}

}  // namespace gpukit::python
