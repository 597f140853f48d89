// CUDA graphs: record a stream's work once (stream capture) or add nodes by hand, then
// replay everything with one launch.
//
//   cuda::begin_capture(s);             // work queued on s is recorded, not run
//   ... kernels, memsets, copies on s ...
//   cuda::graph g = cuda::end_capture(s);
//   cuda::graph_exec exec = g.instantiate();
//   exec.launch(s);                     // as often as wanted
//
// graph and graph_exec are move-only owners holding their context, like stream (their
// destructors release them in it: detail/context_bound.hpp). A
// graph_view borrows a graph: the one a capture is building (capture_info), or an owner's.
// Nodes (CUgraphNode) belong to their graph and live as long as it does.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"
#include "gpukit/cuda/function.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpukit::cuda {

// What other threads may do while a capture is under way (cuStreamBeginCapture's modes):
// global forbids unsafe calls (cuMalloc, synchronising) in every thread, thread_local_ only
// in the capturing thread, relaxed in none.
enum class capture_mode {
    global = CU_STREAM_CAPTURE_MODE_GLOBAL,               // unsafe calls refused in every thread
    thread_local_ = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,  // unsafe calls refused in the capturing thread
    relaxed = CU_STREAM_CAPTURE_MODE_RELAXED,             // no call refused
};

class graph_view;

// A kernel's packed arguments, as launch_packed takes them.
struct packed_args {
    void** values;             // values[i] points at argument i
    const std::size_t* sizes;  // sizes[i] is the size of argument i in bytes
    std::size_t count;         // how many arguments
};

// An executable graph, made by graph::instantiate: launched as a whole, as often as wanted.
// Move-only; the destructor destroys it in its context.
class graph_exec {
public:
    // The CUgraphExec; null once moved from.
    CUgraphExec handle() const noexcept { return owned_.handle(); }
    // Queues one replay of the whole graph on `s`.
    void launch(stream_view s) const;
    // Gives the kernel node `node` (of the graph this was made from) a new kernel, shape and
    // arguments for later launches; the graph itself is unchanged.
    void set_kernel_node_params(CUgraphNode node, const function& f, const launch_config& config,
                                packed_args args) const;

private:
    friend class graph_view;
    graph_exec(CUgraphExec handle, context_state_ptr ctx) noexcept : owned_(handle, std::move(ctx)) {}

    detail::context_bound<detail::graph_exec_traits> owned_;
};

// A graph someone else owns (a graph's view(), or the graph a capture is building), with
// its context: adds nodes, counts them, instantiates. Copying it copies the handle; it never
// destroys the graph, which must outlive it.
class graph_view {
public:
    // A view of `handle`, a graph in the context `ctx` (which the view holds).
    graph_view(CUgraph handle, context_state_ptr ctx) noexcept : handle_(handle), context_(std::move(ctx)) {}

    // The CUgraph.
    CUgraph handle() const noexcept { return handle_; }
    // The graph's context.
    const context_state_ptr& owner() const noexcept { return context_; }

    // A node that launches `f` with `config`'s grid, block and shared memory (its stream is
    // ignored) and `args`, which are copied into the node; it runs after `dependencies`.
    // logic_error for a shape or arguments `f` cannot take (as launch_packed).
    CUgraphNode add_kernel_node(const function& f, const launch_config& config, packed_args args,
                                std::span<const CUgraphNode> dependencies) const;
    // A node that does nothing: a join point for dependencies.
    CUgraphNode add_empty_node(std::span<const CUgraphNode> dependencies) const;
    // A node that runs a copy of `child`.
    CUgraphNode add_child_graph_node(const graph_view& child, std::span<const CUgraphNode> dependencies) const;
    // Makes to[i] run after from[i]; logic_error unless both have the same length.
    void add_dependencies(std::span<const CUgraphNode> from, std::span<const CUgraphNode> to) const;

    // The number of nodes (kernels, memsets, copies, ...).
    std::size_t node_count() const;
    // An executable graph, ready to launch; the graph itself may be dropped afterwards.
    graph_exec instantiate() const;
    // Writes the graph as Graphviz DOT to `path` (flags: CU_GRAPH_DEBUG_DOT_FLAGS_*).
    void debug_dot_print(const std::string& path, unsigned flags = 0) const;

private:
    CUgraph handle_;
    context_state_ptr context_;
};

// A CUDA graph: made empty by create() (add nodes through view()) or by end_capture.
// Move-only; the destructor destroys it in its context.
class graph {
public:
    // An empty graph in the current context (logic_error without one).
    static graph create();

    // The CUgraph; null once moved from.
    CUgraph handle() const noexcept { return owned_.handle(); }
    // The graph's context; null once moved from.
    const context_state_ptr& owner() const noexcept { return owned_.context(); }
    // A view of this graph, to add nodes through; valid while the graph lives.
    graph_view view() const { return graph_view(handle(), owner()); }
    // The number of nodes (kernels, memsets, copies, ...).
    std::size_t node_count() const { return view().node_count(); }
    // An executable graph, ready to launch; this graph may be dropped afterwards.
    graph_exec instantiate() const { return view().instantiate(); }

private:
    friend graph end_capture(stream_view s);
    graph(CUgraph handle, context_state_ptr ctx) noexcept : owned_(handle, std::move(ctx)) {}

    detail::context_bound<detail::graph_traits> owned_;
};

// Starts recording `s` (not the legacy default stream, which cannot be captured: a
// logic_error says so). Needs a current context.
void begin_capture(stream_view s, capture_mode mode = capture_mode::global);
// Stops recording `s` and returns what was recorded. logic_error when `s` was not being
// captured; the driver's error when the capture was invalidated (an unsafe call during it).
graph end_capture(stream_view s);
// True while `s` is being captured.
bool is_capturing(stream_view s);

// Where a capture of `s` stands: its status, its unique id, the graph it is building and
// the nodes the next captured work will depend on (no graph and no nodes when none is
// under way).
struct capture_info {
    CUstreamCaptureStatus status;           // CU_STREAM_CAPTURE_STATUS_NONE, _ACTIVE or _INVALIDATED
    std::uint64_t id;                       // the capture's id, unique for the process's lifetime
    std::optional<graph_view> graph;        // the graph being built, while the capture is active
    std::vector<CUgraphNode> dependencies;  // what the next captured work will depend on
};
// Where a capture of `s` stands. logic_error when a capture is active but no context is
// current (the graph's view takes the current one).
capture_info get_capture_info(stream_view s);

// Makes the next captured work on `s` depend on `nodes` as well as (add) or instead of
// (set) what it depended on (flags: CU_STREAM_ADD/SET_CAPTURE_DEPENDENCIES).
void update_capture_dependencies(stream_view s, std::span<const CUgraphNode> nodes, unsigned flags);

}  // namespace gpukit::cuda
