#include "gpukit/cuda/stream.hpp"

#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/event.hpp"

namespace gpukit::cuda {

void stream_view::synchronize() const { GPUKIT_CU(cuStreamSynchronize, handle()); }

bool stream_view::is_done() const { return is_ready(api().cuStreamQuery(handle()), "cuStreamQuery"); }

void stream_view::wait_for_event(event_view e) const { GPUKIT_CU(cuStreamWaitEvent, handle(), e.handle(), 0); }

CUcontext stream_view::context() const {
    CUcontext owner = nullptr;
    GPUKIT_CU(cuStreamGetCtx, handle(), &owner);
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

void stream::wait_for_event(const event& e) const { view().wait_for_event(e); }

int stream::priority() const {
    int value = 0;
    GPUKIT_CU(cuStreamGetPriority, handle(), &value);
    return value;
}

unsigned int stream::flags() const {
    unsigned int value = 0;
    GPUKIT_CU(cuStreamGetFlags, handle(), &value);
    return value;
}

}  // namespace gpukit::cuda
