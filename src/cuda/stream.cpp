#include "gpukit/cuda/stream.hpp"

#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/event.hpp"

#include <utility>

namespace gpukit::cuda {

void stream_view::synchronize() const { GPUKIT_CU(cuStreamSynchronize, handle_); }

bool stream_view::is_done() const {
    const CUresult result = api().cuStreamQuery(handle_);
    if (result == CUDA_ERROR_NOT_READY)
        return false;
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuStreamQuery");
    return true;
}

void stream_view::wait_for_event(const event& e) const { GPUKIT_CU(cuStreamWaitEvent, handle_, e.handle(), 0); }

CUcontext stream_view::context() const {
    CUcontext owner = nullptr;
    GPUKIT_CU(cuStreamGetCtx, handle_, &owner);
    return owner;
}

stream stream::create(unsigned int flags, int priority) {
    context ctx = context::current_or_throw("creating a Stream");
    CUstream handle = nullptr;
    const CUresult result = api().cuStreamCreateWithPriority(&handle, flags, priority);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuStreamCreateWithPriority",
                         "flags " + std::to_string(flags) + ", priority " + std::to_string(priority) +
                             "; flags must be 0 (DEFAULT) or 1 (NON_BLOCKING)");
    return stream(handle, ctx.state());
}

stream::stream(stream&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), context_(std::move(other.context_)) {}

stream& stream::operator=(stream&& other) noexcept {
    if (this != &other) {
        release();
        handle_ = std::exchange(other.handle_, nullptr);
        context_ = std::move(other.context_);
    }
    return *this;
}

stream::~stream() { release(); }

void stream::release() noexcept {
    if (!handle_)
        return;
    scoped_context in(*context_, std::nothrow);
    try {
        report_release_failure(api().cuStreamDestroy(handle_), "cuStreamDestroy");
    } catch (...) {
    }
    handle_ = nullptr;
}

int stream::priority() const {
    int value = 0;
    GPUKIT_CU(cuStreamGetPriority, handle_, &value);
    return value;
}

unsigned int stream::flags() const {
    unsigned int value = 0;
    GPUKIT_CU(cuStreamGetFlags, handle_, &value);
    return value;
}

}  // namespace gpukit::cuda
