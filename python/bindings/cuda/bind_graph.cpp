// gpukit.driver.Graph, GraphNode and GraphExec (PyCUDA's names), the Stream capture methods,
// and the capture calls StreamCapture (driver.py) wraps.
#include "common/bindings.hpp"
#include "cuda/bound_function.hpp"
#include "common/int_args.hpp"
#include "common/memory_args.hpp"
#include "common/path_args.hpp"
#include "common/stub_types.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/graph.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

// A Python Graph: one made by Graph() or end_capture() owns its CUgraph; the one
// get_capture_info_v2() returns borrows the graph a capture is building (valid until the
// capture ends).
struct graph_object {
    std::optional<cuda::graph> owner;
    cuda::graph_view view;

    explicit graph_object(cuda::graph g) : owner(std::move(g)), view(owner->view()) {}
    explicit graph_object(cuda::graph_view v) : view(std::move(v)) {}
};

// A node of a graph (PyCUDA's GraphNode): a handle the graph owns.
struct graph_node {
    CUgraphNode handle;
};

std::vector<CUgraphNode> node_handles(nb::handle nodes, const char* what) {
    std::vector<CUgraphNode> handles;
    for (nb::handle node : nodes) {
        if (!nb::isinstance<graph_node>(node))
            throw nb::type_error((std::string(what) + " must be GraphNodes (from add_kernel_node, "
                                                      "add_empty_node, ... or get_capture_info_v2)")
                                     .c_str());
        handles.push_back(nb::cast<const graph_node&>(node).handle);
    }
    return handles;
}

cuda::launch_config node_config(nb::handle grid, nb::handle block, std::size_t shared) {
    if (block.is_none())
        throw nb::type_error("block=(x, y, z) is required");
    return cuda::launch_config().grid(to_dim3(grid, "grid")).block(to_dim3(block, "block")).shared_bytes(shared);
}

cuda::packed_args packed(cuda::kernel_args& args) { return {args.pointers(), args.sizes(), args.count()}; }

}  // namespace

void bind_graph(nb::module_& m) {
    nb::enum_<cuda::capture_mode>(m, "capture_mode", "What other threads may do during a stream capture.")
        .value("GLOBAL", cuda::capture_mode::global)
        .value("THREAD_LOCAL", cuda::capture_mode::thread_local_)
        .value("RELAXED", cuda::capture_mode::relaxed);

    nb::class_<graph_node>(m, "GraphNode", nb::dynamic_attr(), "A node of a Graph; the graph owns it.")
        .def(
            "__eq__",
            [](const graph_node& a, nb::handle b) {
                return nb::isinstance<graph_node>(b) && nb::cast<const graph_node&>(b).handle == a.handle;
            },
            "other"_a.none())
        .def("__hash__", [](const graph_node& n) { return std::hash<const void*>{}(n.handle); })
        .def_prop_ro("handle", [](const graph_node& n) { return reinterpret_cast<std::uintptr_t>(n.handle); });

    nb::class_<graph_object>(m, "Graph", nb::dynamic_attr(),
                             "A CUDA graph: made empty by Graph(), or recorded from a stream.")
        .def(
            "__init__", [](graph_object* self) { new (self) graph_object(cuda::graph::create()); },
            "An empty graph in the current context.")
        .def(
            "add_kernel_node",
            [](const graph_object& g, nb::args args, const bound_function& func, nb::handle block, nb::handle grid,
               nb::handle dependencies, int_arg<std::size_t> shared_mem) {
                const std::size_t shared_mem_bytes = shared_mem.get("Graph.add_kernel_node(shared_mem_bytes)");
                cuda::kernel_args values;
                pack_node_arguments(values, func, args);
                const auto deps = node_handles(dependencies, "dependencies");
                return graph_node{
                    g.view.add_kernel_node(func.fn, node_config(grid, block, shared_mem_bytes), packed(values), deps)};
            },
            "args"_a, nb::kw_only(), "func"_a, "block"_a.none(), "grid"_a = nb::make_tuple(1),
            "dependencies"_a = nb::list(), "shared_mem_bytes"_a.none() = 0,
            // nanobind's own signature, with the type of *args, which it does not render.
            nb::sig(
                "def add_kernel_node(self, *args: object, func: gpukit._gpukit.Function, block: object | None, "
                "grid: object = (1,), dependencies: object = [], shared_mem_bytes: typing.SupportsIndex | None = 0) "
                "-> gpukit._gpukit.GraphNode"),
            "A node launching `func` on `args` (converted as a call converts them, and copied), after "
            "`dependencies`.")
        .def(
            "add_empty_node",
            [](const graph_object& g, nb::handle dependencies) {
                return graph_node{g.view.add_empty_node(node_handles(dependencies, "dependencies"))};
            },
            "dependencies"_a = nb::list(), "A node that does nothing: a join point.")
        .def(
            "add_child_graph_node",
            [](const graph_object& g, const graph_object& child, nb::handle dependencies) {
                return graph_node{g.view.add_child_graph_node(child.view, node_handles(dependencies, "dependencies"))};
            },
            "child_graph"_a, "dependencies"_a = nb::list(), "A node that runs a copy of `child_graph`.")
        .def(
            "add_dependencies",
            [](const graph_object& g, nb::handle from, nb::handle to) {
                g.view.add_dependencies(node_handles(from, "from_nodes"), node_handles(to, "to_nodes"));
            },
            "from_nodes"_a, "to_nodes"_a, "Make each to_nodes[i] run after from_nodes[i].")
        .def(
            "instantiate", [](const graph_object& g) { return g.view.instantiate(); },
            "An executable GraphExec, ready to launch.")
        .def(
            "debug_dot_print",
            [](const graph_object& g, path_arg path, int_arg<unsigned> flags) {
                g.view.debug_dot_print(path.get("Graph.debug_dot_print(path)"),
                                       flags.get("Graph.debug_dot_print(flags)"));
            },
            "path"_a.none(), "flags"_a.none() = 0, "Write the graph as Graphviz DOT to `path`.")
        .def_prop_ro(
            "node_count", [](const graph_object& g) { return g.view.node_count(); }, "How many nodes the graph has.")
        .def_prop_ro("handle", [](const graph_object& g) { return reinterpret_cast<std::uintptr_t>(g.view.handle()); })
        .def(
            "__eq__",
            [](const graph_object& a, nb::handle b) {
                return nb::isinstance<graph_object>(b) &&
                       nb::cast<const graph_object&>(b).view.handle() == a.view.handle();
            },
            "other"_a.none())
        .def("__hash__", [](const graph_object& g) { return std::hash<const void*>{}(g.view.handle()); });

    nb::class_<cuda::graph_exec>(m, "GraphExec", nb::dynamic_attr(),
                                 "An instantiated Graph; launch() replays all its work.")
        .def(
            "launch", [](const cuda::graph_exec& g, nb::handle stream) { g.launch(stream_arg(stream)); },
            "stream"_a = nb::none(), "Queue one replay of the graph on `stream` (None: the default stream).")
        .def(
            "kernel_node_set_params",
            [](const cuda::graph_exec& g, nb::args args, const graph_node& kernel_node, const bound_function& func,
               nb::handle block, nb::handle grid, int_arg<std::size_t> shared_mem) {
                const std::size_t shared_mem_bytes =
                    shared_mem.get("GraphExec.kernel_node_set_params(shared_mem_bytes)");
                cuda::kernel_args values;
                pack_node_arguments(values, func, args);
                g.set_kernel_node_params(kernel_node.handle, func.fn, node_config(grid, block, shared_mem_bytes),
                                         packed(values));
            },
            "args"_a, nb::kw_only(), "kernel_node"_a, "func"_a, "block"_a.none(), "grid"_a = nb::make_tuple(1),
            "shared_mem_bytes"_a.none() = 0,
            nb::sig("def kernel_node_set_params(self, *args: object, kernel_node: gpukit._gpukit.GraphNode, "
                    "func: gpukit._gpukit.Function, block: object | None, grid: object = (1,), "
                    "shared_mem_bytes: typing.SupportsIndex | None = 0) -> None"),
            "Give `kernel_node` a new kernel, shape and arguments for the launches that follow.")
        .def_prop_ro("handle", [](const cuda::graph_exec& g) { return reinterpret_cast<std::uintptr_t>(g.handle()); });

    // PyCUDA's capture methods of Stream.
    nb::handle stream_type = nb::type<cuda::stream>();
    const auto stream_method = [&](const char* name, auto&& f, auto&&... extra) {
        stream_type.attr(name) = nb::cpp_function(std::forward<decltype(f)>(f), nb::scope(stream_type), nb::name(name),
                                                  nb::is_method(), extra...);
    };
    stream_method(
        "begin_capture", [](const cuda::stream& s, cuda::capture_mode mode) { cuda::begin_capture(s.view(), mode); },
        "capture_mode"_a = cuda::capture_mode::global);
    stream_method("end_capture", [](const cuda::stream& s) { return graph_object(cuda::end_capture(s.view())); });
    // (capture_status, capture id, the Graph being captured or None, its current dependencies).
    using capture_info_tuple = nb::typed<nb::tuple, python_type<"gpukit._gpukit.capture_status">, std::uint64_t,
                                         std::optional<graph_object>, nb::typed<nb::list, graph_node>>;
    stream_method("get_capture_info_v2", [](const cuda::stream& s) -> capture_info_tuple {
        const cuda::capture_info info = cuda::get_capture_info(s.view());
        nb::list nodes;
        for (CUgraphNode node : info.dependencies)
            nodes.append(graph_node{node});
        nb::object graph = info.graph ? nb::cast(graph_object(*info.graph)) : nb::none();
        return nb::make_tuple(constant_class("capture_status")(static_cast<int>(info.status)), info.id, graph, nodes);
    });
    stream_method(
        "update_capture_dependencies",
        [](const cuda::stream& s, nb::handle dependencies, int_arg<unsigned> flags) {
            const unsigned update_flags = flags.get("Stream.update_capture_dependencies(flags)");
            cuda::update_capture_dependencies(s.view(), node_handles(dependencies, "dependencies"), update_flags);
        },
        "dependencies"_a, "flags"_a.none());

    m.def(
        "_begin_capture",
        [](nb::handle stream, cuda::capture_mode mode) { cuda::begin_capture(stream_arg(stream), mode); },
        "stream"_a.none(), "mode"_a);
    m.def(
        "_end_capture", [](nb::handle stream) { return graph_object(cuda::end_capture(stream_arg(stream))); },
        "stream"_a.none());
    m.def(
        "_is_capturing", [](nb::handle stream) { return cuda::is_capturing(stream_arg(stream)); }, "stream"_a.none());
}

}  // namespace gpukit::python
