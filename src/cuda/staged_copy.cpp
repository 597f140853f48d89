#include "gpukit/cuda/staged_copy.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/parallel_memcpy.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/context_cache.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <string>

namespace gpukit::cuda {
namespace {

// Three buffers keep one being filled by the CPU, one in flight on the bus and one spare,
// so neither side waits for the other in the steady state.
constexpr std::size_t buffer_count = 3;
constexpr std::size_t buffer_bytes = std::size_t{16} << 20;
// Pieces no smaller than this keep per-piece overheads (event, launch of the DMA) small.
constexpr std::size_t min_piece_bytes = std::size_t{1} << 20;

// The page-locked buffers, their events and the copy stream of one context: a context
// cache (context_cache.hpp), used by one copy at a time.
class staging_area {
public:
    explicit staging_area(const detail::context_state& owner) : owner_(owner.handle) {
        try {
            // A blocking stream: it waits for earlier work on the legacy default stream, like
            // the plain cuMemcpyHtoD/DtoH it replaces (and order_after_earlier_work() makes it
            // wait for the other blocking streams too).
            GPUKIT_CU(cuStreamCreateWithPriority, &stream_, CU_STREAM_DEFAULT, 0);
            GPUKIT_CU(cuEventCreate, &earlier_work_, CU_EVENT_DISABLE_TIMING);
            for (std::size_t i = 0; i < buffer_count; ++i) {
                GPUKIT_CU(cuMemHostAlloc, &buffers_[i], buffer_bytes, 0);
                GPUKIT_CU(cuEventCreate, &events_[i], CU_EVENT_DISABLE_TIMING);
            }
        } catch (...) {
            release();
            throw;
        }
    }
    ~staging_area() { release(); }
    staging_area(const staging_area&) = delete;
    staging_area& operator=(const staging_area&) = delete;

    // Held by the copy that uses the buffers.
    std::mutex in_use;

    CUstream stream() const noexcept { return stream_; }
    char* buffer(std::size_t i) const noexcept { return static_cast<char*>(buffers_[i]); }
    CUevent event(std::size_t i) const noexcept { return events_[i]; }

    // The copy stream waits for all earlier work of the context's blocking streams, as the
    // synchronous cuMemcpyHtoD/DtoH it replaces does: a blocking stream waits only for the
    // legacy default stream, but an event recorded there completes after every blocking
    // stream's earlier work (a kernel another stream is still running on the memory).
    void order_after_earlier_work() const {
        GPUKIT_CU(cuEventRecord, earlier_work_, CU_STREAM_LEGACY);
        GPUKIT_CU(cuStreamWaitEvent, stream_, earlier_work_, 0);
    }

private:
    void release() noexcept {
        try {
            const driver_api& driver = api();
            // The context may not be current on the thread that drops the last handle.
            const bool pushed = driver.cuCtxPushCurrent(owner_) == CUDA_SUCCESS;
            if (stream_)
                report_release_failure(driver.cuStreamSynchronize(stream_), "cuStreamSynchronize");
            for (std::size_t i = 0; i < buffer_count; ++i) {
                if (events_[i])
                    report_release_failure(driver.cuEventDestroy(events_[i]), "cuEventDestroy");
                if (buffers_[i])
                    report_release_failure(driver.cuMemFreeHost(buffers_[i]), "cuMemFreeHost");
            }
            if (earlier_work_)
                report_release_failure(driver.cuEventDestroy(earlier_work_), "cuEventDestroy");
            if (stream_)
                report_release_failure(driver.cuStreamDestroy(stream_), "cuStreamDestroy");
            if (pushed) {
                CUcontext popped = nullptr;
                driver.cuCtxPopCurrent(&popped);
            }
        } catch (...) {
        }
    }

    CUcontext owner_;
    CUstream stream_ = nullptr;
    CUevent earlier_work_ = nullptr;
    std::array<void*, buffer_count> buffers_{};
    std::array<CUevent, buffer_count> events_{};
};

// Runs `copy` with the current context's staging area, made on first use; one copy at a
// time per context. On failure the stream is drained first, so no transfer still uses a
// buffer (or the caller's memory) when the error reaches the caller.
template <class Copy>
void with_staging_area(const char* what, Copy copy) {
    const context ctx = context::current_or_throw(what);
    const std::shared_ptr<staging_area> cached = context_cache<staging_area>(*ctx.state());
    staging_area& area = *cached;
    std::lock_guard lock(area.in_use);
    try {
        area.order_after_earlier_work();
        copy(area);
    } catch (...) {
        api().cuStreamSynchronize(area.stream());
        throw;
    }
}

// Piece size for a copy of `bytes`: at least four pieces where possible, so the CPU and
// bus overlap even on moderate sizes, but no piece over a staging buffer.
std::size_t piece_size(std::size_t bytes) { return std::clamp(bytes / 4, min_piece_bytes, buffer_bytes); }

}  // namespace

bool is_driver_memory(const void* p) {
    unsigned int type = 0;
    // The driver answers an error for memory it does not know, that is for pageable memory.
    const CUresult result =
        api().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(p));
    return result == CUDA_SUCCESS;
}

bool should_stage(const void* host, std::size_t bytes) {
    return bytes >= staged_copy_min_bytes && !is_driver_memory(host);
}

void staged_memcpy_htod(CUdeviceptr dst, const void* src, std::size_t bytes) {
    with_staging_area("a staged host-to-device copy", [&](const staging_area& area) {
        const std::size_t piece = piece_size(bytes);
        const auto* from = static_cast<const char*>(src);
        for (std::size_t offset = 0, i = 0; offset < bytes; offset += piece, ++i) {
            const std::size_t n = std::min(piece, bytes - offset);
            const std::size_t b = i % buffer_count;
            // The buffer's previous transfer must be done before the CPU overwrites it.
            GPUKIT_CU(cuEventSynchronize, area.event(b));
            parallel_memcpy(area.buffer(b), from + offset, n);
            GPUKIT_CU(cuMemcpyHtoDAsync, dst + offset, area.buffer(b), n, area.stream());
            GPUKIT_CU(cuEventRecord, area.event(b), area.stream());
        }
        GPUKIT_CU(cuStreamSynchronize, area.stream());
    });
}

void staged_memcpy_dtoh(void* dst, CUdeviceptr src, std::size_t bytes) {
    with_staging_area("a staged device-to-host copy", [&](const staging_area& area) {
        const std::size_t piece = piece_size(bytes);
        const std::size_t pieces = (bytes + piece - 1) / piece;
        auto* to = static_cast<char*>(dst);
        // Piece i travels through buffer i % buffer_count; the bus runs up to buffer_count
        // pieces ahead of the CPU.
        auto start_transfer = [&](std::size_t i) {
            const std::size_t offset = i * piece;
            const std::size_t b = i % buffer_count;
            GPUKIT_CU(cuMemcpyDtoHAsync, area.buffer(b), src + offset, std::min(piece, bytes - offset), area.stream());
            GPUKIT_CU(cuEventRecord, area.event(b), area.stream());
        };
        for (std::size_t i = 0; i < std::min(pieces, buffer_count); ++i)
            start_transfer(i);
        for (std::size_t i = 0; i < pieces; ++i) {
            const std::size_t offset = i * piece;
            const std::size_t b = i % buffer_count;
            GPUKIT_CU(cuEventSynchronize, area.event(b));
            // Streaming stores: the caller's (large) array is not read back soon, and writing
            // it without first reading each cache line saves a third of the memory traffic.
            parallel_memcpy(to + offset, area.buffer(b), std::min(piece, bytes - offset), store_policy::streaming);
            if (i + buffer_count < pieces)
                start_transfer(i + buffer_count);
        }
    });
}

}  // namespace gpukit::cuda
