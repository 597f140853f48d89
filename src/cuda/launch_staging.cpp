#include "gpukit/cuda/launch_staging.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <string>

namespace gpukit::cuda {

CUresult detail::staged_memory_traits::release(staged_memory memory) {
    api().cuStreamSynchronize(memory.stream);  // its failure is the launch's, reported there
    return api().cuMemFree(memory.device);
}

staging_buffer::staging_buffer(void* host, std::size_t bytes, bool copy_in, bool copy_out, stream_view s)
    : host_(host), bytes_(bytes), copy_out_(copy_out) {
    const context ctx = context::current_or_throw("staging an In/Out/InOut argument");
    if (bytes_ == 0)
        return;  // an empty array is passed as a null pointer: there is nothing to copy
    CUdeviceptr device = 0;
    const CUresult result = api().cuMemAlloc(&device, bytes_);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuMemAlloc",
                         "device copy of a " + std::to_string(bytes_) + "-byte In/Out/InOut argument");
    memory_ = {{device, s.handle()}, ctx.state()};  // freed by memory_ should the copy below fail
    // Ordered on the launch stream, so the kernel sees the data even on a non-blocking stream.
    if (copy_in)
        GPUKIT_CU(cuMemcpyHtoDAsync, device, host_, bytes_, s.handle());
}

void staging_buffer::finish() {
    if (memory_.empty() || !copy_out_)
        return;
    // Into pageable memory this returns once the bytes have arrived, after the kernel.
    const detail::staged_memory& m = memory_.handle();
    GPUKIT_CU(cuMemcpyDtoHAsync, host_, m.device, bytes_, m.stream);
}

}  // namespace gpukit::cuda
