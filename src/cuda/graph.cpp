#include "gpukit/cuda/graph.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <utility>

namespace gpukit::cuda {

void begin_capture(stream_view s, capture_mode mode) {
    if (s.handle() == nullptr)
        throw logic_error("begin_capture: the legacy default stream cannot be captured; capture a Stream you "
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

graph::graph(graph&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), context_(std::move(other.context_)) {}

graph& graph::operator=(graph&& other) noexcept {
    if (this != &other) {
        release();
        handle_ = std::exchange(other.handle_, nullptr);
        context_ = std::move(other.context_);
    }
    return *this;
}

graph::~graph() { release(); }

void graph::release() noexcept {
    if (!handle_)
        return;
    scoped_context in(*context_, std::nothrow);
    try {
        report_release_failure(api().cuGraphDestroy(handle_), "cuGraphDestroy");
    } catch (...) {
    }
    handle_ = nullptr;
}

std::size_t graph::node_count() const {
    std::size_t count = 0;
    GPUKIT_CU(cuGraphGetNodes, handle_, nullptr, &count);
    return count;
}

graph_exec graph::instantiate() const {
    scoped_context in(*context_);
    CUgraphExec exec = nullptr;
    GPUKIT_CU(cuGraphInstantiate, &exec, handle_, 0);
    return graph_exec(exec, context_);
}

graph_exec::graph_exec(graph_exec&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), context_(std::move(other.context_)) {}

graph_exec& graph_exec::operator=(graph_exec&& other) noexcept {
    if (this != &other) {
        release();
        handle_ = std::exchange(other.handle_, nullptr);
        context_ = std::move(other.context_);
    }
    return *this;
}

graph_exec::~graph_exec() { release(); }

void graph_exec::release() noexcept {
    if (!handle_)
        return;
    scoped_context in(*context_, std::nothrow);
    try {
        report_release_failure(api().cuGraphExecDestroy(handle_), "cuGraphExecDestroy");
    } catch (...) {
    }
    handle_ = nullptr;
}

void graph_exec::launch(stream_view s) const { GPUKIT_CU(cuGraphLaunch, handle_, s.handle()); }

}  // namespace gpukit::cuda
