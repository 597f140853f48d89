#include "gpukit/cuda/graph.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <string>
#include <vector>

namespace gpukit::cuda {

void begin_capture(stream_view s, capture_mode mode) {
    if (s.handle() == nullptr)
        throw logic_error(
            "begin_capture: the legacy default stream cannot be captured; capture a Stream you "
            "created");
    context::current_or_throw("beginning a stream capture");
    GPUKIT_CU(cuStreamBeginCapture, s.handle(), static_cast<CUstreamCaptureMode>(mode));
}

bool is_capturing(stream_view s) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    GPUKIT_CU(cuStreamIsCapturing, s.handle(), &status);
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

graph end_capture(stream_view s) {
    context ctx = context::current_or_throw("ending a stream capture");
    if (!is_capturing(s))
        throw logic_error("end_capture: the stream is not being captured (call begin_capture first)");
    CUgraph handle = nullptr;
    GPUKIT_CU(cuStreamEndCapture, s.handle(), &handle);
    return graph(handle, ctx.state());
}

capture_info get_capture_info(stream_view s) {
    capture_info info{CU_STREAM_CAPTURE_STATUS_NONE, 0, std::nullopt, {}};
    CUgraph building = nullptr;
    const CUgraphNode* dependencies = nullptr;
    const CUgraphEdgeData* edges = nullptr;  // plain dependencies only: not reported
    std::size_t count = 0;
    GPUKIT_CU(cuStreamGetCaptureInfo, s.handle(), &info.status, &info.id, &building, &dependencies, &edges, &count);
    if (info.status == CU_STREAM_CAPTURE_STATUS_ACTIVE && building) {
        info.graph.emplace(building, context::current_or_throw("a stream capture's graph").state());
        info.dependencies.assign(dependencies, dependencies + count);
    }
    return info;
}

void update_capture_dependencies(stream_view s, std::span<const CUgraphNode> nodes, unsigned flags) {
    std::vector<CUgraphNode> copy(nodes.begin(), nodes.end());  // the driver takes a non-const array
    GPUKIT_CU(cuStreamUpdateCaptureDependencies, s.handle(), copy.data(), nullptr, copy.size(), flags);
}

namespace {

// The node parameters of a kernel launch, checked as launch_packed checks a launch.
CUDA_KERNEL_NODE_PARAMS kernel_node_params(const function& f, const launch_config& config, packed_args args) {
    f.check_launch(config);
    f.check_arguments(args.sizes, args.count);
    if (config.has_cluster() || config.cooperative())
        throw logic_error(
            "graph kernel node: thread-block clusters and cooperative launches are not supported in "
            "nodes added by hand; capture such a launch from a stream instead");
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = f.handle();
    detail::set_launch_shape(p, config);
    p.kernelParams = args.values;  // copied by the driver
    return p;
}

}  // namespace

CUgraphNode graph_view::add_kernel_node(const function& f, const launch_config& config, packed_args args,
                                        std::span<const CUgraphNode> dependencies) const {
    const CUDA_KERNEL_NODE_PARAMS params = kernel_node_params(f, config, args);
    scoped_context in(*context_);
    CUgraphNode node = nullptr;
    GPUKIT_CU(cuGraphAddKernelNode, &node, handle_, dependencies.data(), dependencies.size(), &params);
    return node;
}

CUgraphNode graph_view::add_empty_node(std::span<const CUgraphNode> dependencies) const {
    CUgraphNode node = nullptr;
    GPUKIT_CU(cuGraphAddEmptyNode, &node, handle_, dependencies.data(), dependencies.size());
    return node;
}

CUgraphNode graph_view::add_child_graph_node(const graph_view& child, std::span<const CUgraphNode> dependencies) const {
    CUgraphNode node = nullptr;
    GPUKIT_CU(cuGraphAddChildGraphNode, &node, handle_, dependencies.data(), dependencies.size(), child.handle());
    return node;
}

void graph_view::add_dependencies(std::span<const CUgraphNode> from, std::span<const CUgraphNode> to) const {
    if (from.size() != to.size())
        throw logic_error("add_dependencies: " + std::to_string(from.size()) + " 'from' nodes but " +
                          std::to_string(to.size()) + " 'to' nodes; each 'from' pairs with one 'to'");
    GPUKIT_CU(cuGraphAddDependencies, handle_, from.data(), to.data(), nullptr, from.size());
}

std::size_t graph_view::node_count() const {
    std::size_t count = 0;
    GPUKIT_CU(cuGraphGetNodes, handle_, nullptr, &count);
    return count;
}

graph_exec graph_view::instantiate() const {
    scoped_context in(*context_);
    CUgraphExec exec = nullptr;
    GPUKIT_CU(cuGraphInstantiateWithFlags, &exec, handle_, 0);
    return graph_exec(exec, context_);
}

void graph_view::debug_dot_print(const std::string& path, unsigned flags) const {
    require_c_string(path, "Graph.debug_dot_print: the path");
    GPUKIT_CU(cuGraphDebugDotPrint, handle_, path.c_str(), flags);
}

graph graph::create() {
    context ctx = context::current_or_throw("creating a Graph");
    CUgraph handle = nullptr;
    GPUKIT_CU(cuGraphCreate, &handle, 0);
    return graph(handle, ctx.state());
}

void graph_exec::launch(stream_view s) const { GPUKIT_CU(cuGraphLaunch, handle(), s.handle()); }

void graph_exec::set_kernel_node_params(CUgraphNode node, const function& f, const launch_config& config,
                                        packed_args args) const {
    const CUDA_KERNEL_NODE_PARAMS params = kernel_node_params(f, config, args);
    GPUKIT_CU(cuGraphExecKernelNodeSetParams, handle(), node, &params);
}

}  // namespace gpukit::cuda
