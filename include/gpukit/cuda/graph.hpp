// CUDA graphs by stream capture: record a stream's work once, replay it with one launch.
//
//   cuda::begin_capture(s);             // work queued on s is recorded, not run
//   ... kernels, memsets, copies on s ...
//   cuda::graph g = cuda::end_capture(s);
//   cuda::graph_exec exec = g.instantiate();
//   exec.launch(s);                     // as often as wanted
//
// graph and graph_exec are move-only owners holding their context, like stream.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>

namespace gpukit::cuda {

// What other threads may do while a capture is under way (cuStreamBeginCapture's modes):
// global forbids unsafe calls (cuMalloc, synchronising) in every thread, thread_local_ only
// in the capturing thread, relaxed in none.
enum class capture_mode {
    global = CU_STREAM_CAPTURE_MODE_GLOBAL,
    thread_local_ = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
    relaxed = CU_STREAM_CAPTURE_MODE_RELAXED,
};

class graph_exec;

class graph {
public:
    graph(graph&& other) noexcept;
    graph& operator=(graph&& other) noexcept;
    graph(const graph&) = delete;
    graph& operator=(const graph&) = delete;
    ~graph();

    CUgraph handle() const noexcept { return handle_; }
    const context_state_ptr& owner() const noexcept { return context_; }
    // The number of nodes (kernels, memsets, copies, ...) recorded.
    std::size_t node_count() const;
    // An executable graph, ready to launch; the graph itself may be dropped afterwards.
    graph_exec instantiate() const;

private:
    friend graph end_capture(stream_view s);
    graph(CUgraph handle, context_state_ptr ctx) noexcept : handle_(handle), context_(std::move(ctx)) {}
    void release() noexcept;

    CUgraph handle_ = nullptr;
    context_state_ptr context_;
};

class graph_exec {
public:
    graph_exec(graph_exec&& other) noexcept;
    graph_exec& operator=(graph_exec&& other) noexcept;
    graph_exec(const graph_exec&) = delete;
    graph_exec& operator=(const graph_exec&) = delete;
    ~graph_exec();

    CUgraphExec handle() const noexcept { return handle_; }
    // Queues one replay of the whole graph on `s`.
    void launch(stream_view s) const;

private:
    friend class graph;
    graph_exec(CUgraphExec handle, context_state_ptr ctx) noexcept : handle_(handle), context_(std::move(ctx)) {}
    void release() noexcept;

    CUgraphExec handle_ = nullptr;
    context_state_ptr context_;
};

// Starts recording `s` (not the legacy default stream, which cannot be captured: a
// logic_error says so). Needs a current context.
void begin_capture(stream_view s, capture_mode mode = capture_mode::global);
// Stops recording `s` and returns what was recorded. logic_error when `s` was not being
// captured; the driver's error when the capture was invalidated (an unsafe call during it).
graph end_capture(stream_view s);
// True while `s` is being captured.
bool is_capturing(stream_view s);

}  // namespace gpukit::cuda
