// gpukit.driver.Graph and GraphExec, and the capture calls StreamCapture (driver.py) wraps.
#include "bindings.hpp"

#include "gpukit/cuda/graph.hpp"
#include "memory_args.hpp"

namespace gpukit::python {

using namespace nb::literals;

void bind_graph(nb::module_& m) {
    nb::enum_<cuda::capture_mode>(m, "capture_mode", "What other threads may do during a stream capture.")
        .value("GLOBAL", cuda::capture_mode::global)
        .value("THREAD_LOCAL", cuda::capture_mode::thread_local_)
        .value("RELAXED", cuda::capture_mode::relaxed);

    nb::class_<cuda::graph>(m, "Graph", "Work recorded from a stream; make one with StreamCapture.")
        .def("instantiate", &cuda::graph::instantiate, "An executable GraphExec, ready to launch.")
        .def_prop_ro("node_count", &cuda::graph::node_count, "How many operations were recorded.")
        .def_prop_ro("handle", [](const cuda::graph& g) { return reinterpret_cast<std::uintptr_t>(g.handle()); });

    nb::class_<cuda::graph_exec>(m, "GraphExec", "An instantiated Graph; launch() replays all its work.")
        .def("launch", [](const cuda::graph_exec& g, nb::handle stream) { g.launch(stream_arg(stream)); },
             "stream"_a = nb::none(), "Queue one replay of the graph on `stream` (None: the default stream).")
        .def_prop_ro("handle",
                     [](const cuda::graph_exec& g) { return reinterpret_cast<std::uintptr_t>(g.handle()); });

    m.def("_begin_capture", [](nb::handle stream, cuda::capture_mode mode) {
        cuda::begin_capture(stream_arg(stream), mode);
    }, "stream"_a.none(), "mode"_a);
    m.def("_end_capture", [](nb::handle stream) { return cuda::end_capture(stream_arg(stream)); }, "stream"_a.none());
    m.def("_is_capturing", [](nb::handle stream) { return cuda::is_capturing(stream_arg(stream)); },
          "stream"_a.none());
}

}  // namespace gpukit::python
