// gpukit.driver.Stream and gpukit.driver.Event.
#include "common/bindings.hpp"
#include "common/host_holds.hpp"
#include "common/int_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/cuda/event.hpp"
#include "gpukit/cuda/stream.hpp"

#include <nanobind/stl/string.h>

namespace gpukit::python {

using namespace nb::literals;
using cuda::event;
using cuda::stream;

void bind_stream(nb::module_& m) {
    nb::class_<stream>(m, "Stream", nb::dynamic_attr(), "A queue of operations that run in order.")
        .def(
            "__init__",
            [](stream* self, int_arg<unsigned int> flags, int_arg<int> priority) {
                new (self) stream(stream::create(flags.get("Stream(flags)"), priority.get("Stream(priority)")));
            },
            "flags"_a.none() = 0, "priority"_a.none() = 0)
        .def("synchronize",
             [](const stream& s) {
                 {
                     release_gil release;
                     s.synchronize();
                 }
                 release_finished_holds();  // the host memory of this stream's copies is free now
             })
        .def("is_done", &stream::is_done)
        .def("wait_for_event", &stream::wait_for_event, "evt"_a)
        .def_prop_ro("handle", [](const stream& s) { return reinterpret_cast<std::uintptr_t>(s.handle()); })
        .def_prop_ro("priority", &stream::priority)
        .def_prop_ro("flags", &stream::flags)
        .def(
            "__cuda_stream__",
            [](const stream& s) -> nb::typed<nb::tuple, int, int> {
                return nb::make_tuple(0, reinterpret_cast<std::uintptr_t>(s.handle()));
            },
            "The CUDA stream protocol: (version, handle).");

    // For streams named by other libraries (the "stream" of __cuda_array_interface__).
    m.def(
        "_synchronize_stream_handle",
        [](std::uintptr_t handle) { cuda::stream_view(reinterpret_cast<CUstream>(handle)).synchronize(); }, "handle"_a,
        nb::call_guard<release_gil>(), "Wait for a CUstream given by its address.");

    nb::class_<event>(m, "Event", nb::dynamic_attr(), "A marker in a stream, for waiting and timing.")
        .def(
            "__init__",
            [](event* self, int_arg<unsigned int> flags) {
                new (self) event(event::create(flags.get("Event(flags)")));
            },
            "flags"_a.none() = 0)
        .def(
            "record",
            [](nb::handle self, nb::handle s) {
                nb::cast<event&>(self).record(stream_arg(s));
                return self;
            },
            "stream"_a.none() = nb::none(),
            "Record the event in `stream` (the default stream when None). Returns self.")
        .def(
            "synchronize",
            [](nb::handle self) {
                const event& e = nb::cast<const event&>(self);
                {
                    release_gil release;
                    e.synchronize();
                }
                return self;
            },
            "Wait until the event has been reached. Returns self.")
        .def("query", &event::query)
        .def("time_since", &event::time_since, "event"_a, "Milliseconds from `event` to self.")
        .def("time_till", &event::time_till, "event"_a, "Milliseconds from self to `event`.")
        .def("ipc_handle", [](const event& e) { return ipc_handle_bytes(e.ipc_handle()); })
        .def_static(
            "from_ipc_handle",
            [](nb::bytes handle) {
                return event::from_ipc_handle(
                    ipc_handle_from_bytes<CUipcEventHandle>(handle, "Event.from_ipc_handle()", "Event.ipc_handle()"));
            },
            "handle"_a)
        .def_prop_ro("handle", [](const event& e) { return reinterpret_cast<std::uintptr_t>(e.handle()); })
        .def_prop_ro("flags", &event::flags);
}

}  // namespace gpukit::python
