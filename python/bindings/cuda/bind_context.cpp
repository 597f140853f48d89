// gpukit.driver.Context. Methods the seed declares static act on the current context.
#include "common/bindings.hpp"
#include "common/host_holds.hpp"
#include "common/int_args.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/context_cache.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <string>

namespace gpukit::python {

using namespace nb::literals;
using cuda::context;

namespace {

context current(const char* what) { return context::current_or_throw(what); }

}  // namespace

void bind_context(nb::module_& m) {
    m.def(
        "_clear_context_caches", [] { cuda::clear_context_caches(); },
        "Drop what gpukit keeps in every live context for its own use (loaded array kernels, the default "
        "memory pool, copy staging buffers).");

    nb::class_<context>(m, "Context", nb::dynamic_attr(), "A CUDA context; make one with Device.make_context().")
        .def("push", &context::push, "Make this context current on the calling thread.")
        .def_static("pop", &context::pop, "Pop the current context off this thread's stack.")
        .def_static("get_current", &context::current, "The context current on this thread, or None.")
        .def_static(
            "attach",
            [](int_arg<unsigned int> flags_arg) {
                const unsigned int flags = flags_arg.get("Context.attach(flags)");
                if (flags != 0)
                    throw logic_error("Context.attach(flags=" + std::to_string(flags) +
                                      "): CUDA defines no flags for "
                                      "attaching; pass 0");
                return current("Context.attach()");
            },
            "flags"_a.none() = 0,
            "A new handle to the current context, keeping it alive until detach() (PyCUDA's attach).")
        .def("detach", &context::detach,
             "Give up this handle (popping the context if it is current); the context is destroyed when "
             "nothing else uses it.")
        .def_static("get_device", [] { return current("Context.get_device()").get_device(); })
        .def_static("synchronize",
                    [] {
                        const context ctx = current("Context.synchronize()");
                        {
                            release_gil release;
                            ctx.synchronize();
                        }
                        release_finished_holds();  // the host memory of every finished copy is free now
                    })
        .def_static(
            "set_cache_config",
            [](int_arg<int> cc) {
                const int config = cc.get("Context.set_cache_config(cc)");
                current("Context.set_cache_config()").set_cache_config(static_cast<CUfunc_cache>(config));
            },
            "cc"_a.none())
        .def_static("get_cache_config",
                    [] {
                        return constant_class("func_cache")(
                            static_cast<int>(current("Context.get_cache_config()").cache_config()));
                    })
        .def_static(
            "set_shared_config",
            [](int_arg<int> sc) {
                const int config = sc.get("Context.set_shared_config(sc)");
                current("Context.set_shared_config()").set_shared_config(static_cast<CUsharedconfig>(config));
            },
            "sc"_a.none())
        .def_static("get_shared_config",
                    [] {
                        return constant_class("shared_config")(
                            static_cast<int>(current("Context.get_shared_config()").shared_config()));
                    })
        .def_static(
            "set_limit",
            [](int_arg<int> limit, int_arg<std::size_t> value) {
                const int which = limit.get("Context.set_limit(limit)");
                const std::size_t bytes = value.get("Context.set_limit(value)");
                current("Context.set_limit()").set_limit(static_cast<CUlimit>(which), bytes);
            },
            "limit"_a.none(), "value"_a.none())
        .def_static(
            "get_limit",
            [](int_arg<int> limit) {
                const int which = limit.get("Context.get_limit(limit)");
                return current("Context.get_limit()").limit(static_cast<CUlimit>(which));
            },
            "limit"_a.none())
        .def("get_api_version", &context::api_version)
        .def("get_flags", &context::flags)
        .def("get_stream_priority_range", &context::stream_priority_range,
             "(least, greatest) stream priority; lower numbers run first.")
        .def(
            "enable_peer_access",
            [](const context& self, const context& peer, int_arg<unsigned int> flags) {
                self.enable_peer_access(peer, flags.get("enable_peer_access(flags)"));
            },
            "peer"_a, "flags"_a.none() = 0)
        .def(
            "disable_peer_access",
            [](const context& self, const context& peer, int_arg<unsigned int> flags_arg) {
                const unsigned int flags = flags_arg.get("disable_peer_access(flags)");
                if (flags != 0)
                    throw logic_error("disable_peer_access(flags=" + std::to_string(flags) +
                                      "): CUDA defines no flags "
                                      "for it; pass 0");
                self.disable_peer_access(peer);
            },
            "peer"_a, "flags"_a.none() = 0)
        .def_prop_ro("handle", [](const context& c) { return reinterpret_cast<std::uintptr_t>(c.handle()); })
        .def_prop_ro("is_detached", &context::is_detached)
        // Any other object, None included, is simply not equal (PyCUDA's exit hooks compare
        // with None).
        .def(
            "__eq__",
            [](const context& a, nb::handle b) {
                return nb::isinstance<context>(b) && a == nb::cast<const context&>(b);
            },
            "other"_a.none())
        .def(
            "__ne__",
            [](const context& a, nb::handle b) {
                return !(nb::isinstance<context>(b) && a == nb::cast<const context&>(b));
            },
            "other"_a.none())
        .def("__hash__", [](const context& c) { return std::hash<const void*>{}(c.handle()); })
        .def("__repr__", [](const context& c) {
            if (c.is_detached())
                return std::string("<gpukit.driver.Context (detached)>");
            char text[64];
            std::snprintf(text, sizeof text, "<gpukit.driver.Context %p>", static_cast<void*>(c.handle()));
            return std::string(text);
        });
}

}  // namespace gpukit::python
