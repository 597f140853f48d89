#include "gpukit/cuda/launch_staging.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <utility>

namespace gpukit::cuda {

staging_buffer::staging_buffer(void* host, std::size_t bytes, bool copy_in, bool copy_out, stream_view s)
    : host_(host), bytes_(bytes), copy_out_(copy_out), stream_(s) {
    context_ = context::current_or_throw("staging an In/Out/InOut argument").state();
    if (bytes_ == 0)
        return;  // an empty array is passed as a null pointer: there is nothing to copy
    const CUresult result = api().cuMemAlloc(&device_, bytes_);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuMemAlloc", "device copy of a " + std::to_string(bytes_) +
                                                   "-byte In/Out/InOut argument");
    if (copy_in) {
        // Ordered on the launch stream, so the kernel sees the data even on a non-blocking stream.
        const CUresult copied = api().cuMemcpyHtoDAsync(device_, host_, bytes_, stream_.handle());
        if (copied != CUDA_SUCCESS) {
            api().cuMemFree(device_);
            throw_cuda_error(copied, "cuMemcpyHtoDAsync");
        }
    }
}

staging_buffer::staging_buffer(staging_buffer&& other) noexcept
    : host_(other.host_), bytes_(other.bytes_), copy_out_(other.copy_out_), stream_(other.stream_),
      device_(std::exchange(other.device_, 0)), context_(std::move(other.context_)) {}

void staging_buffer::finish() {
    if (device_ == 0 || !copy_out_)
        return;
    // Into pageable memory this returns once the bytes have arrived, after the kernel.
    GPUKIT_CU(cuMemcpyDtoHAsync, host_, device_, bytes_, stream_.handle());
}

staging_buffer::~staging_buffer() {
    if (device_ == 0)
        return;
    scoped_context in(*context_, std::nothrow);
    try {
        // The kernel may still read an In buffer: wait for the stream before freeing it.
        api().cuStreamSynchronize(stream_.handle());
        report_release_failure(api().cuMemFree(device_), "cuMemFree");
    } catch (...) {
    }
}

}  // namespace gpukit::cuda
