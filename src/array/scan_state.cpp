#include "scan_state.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/allocators.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/context_cache.hpp"

#include <algorithm>
#include <mutex>
#include <new>

namespace gpukit::array::detail {

namespace {

// Device memory the context cache owns: it borrows its context (device_allocator with a
// borrowed pointer), as the cache may not keep the context alive.
struct owned_block {
    CUdeviceptr address = 0;
    std::size_t bytes = 0;
};

// A context's scan state: a context cache, made on the first scan of more than one tile.
class scan_states {
public:
    explicit scan_states(cuda::detail::context_state& state) : state_(state), allocator_(cuda::borrowed(state)) {
        GPUKIT_CU(cuEventCreate, &last_use_, CU_EVENT_DISABLE_TIMING);
    }

    ~scan_states() {
        cuda::scoped_context in(state_, std::nothrow);
        // Scans still queued read and write the buffers: let them finish first.
        if (used_)
            cuda::api().cuEventSynchronize(last_use_);
        cuda::report_release_failure(cuda::api().cuEventDestroy(last_use_), "cuEventDestroy");
        release(flags_);
        release(totals_);
    }

    scan_states(const scan_states&) = delete;
    scan_states& operator=(const scan_states&) = delete;

    void use(std::int64_t tiles, std::size_t total_words, cuda::stream_view s,
             const std::function<void(const scan_state&)>& launch) {
        std::lock_guard lock(mutex_);
        // The per-thread default stream is another stream in every thread: always wait.
        if (used_ && (s.handle() != last_stream_ || s.handle() == CU_STREAM_PER_THREAD))
            GPUKIT_CU(cuStreamWaitEvent, s.handle(), last_use_, 0);
        const auto count = static_cast<std::size_t>(tiles);
        const std::size_t flag_bytes = count * sizeof(unsigned long long);
        const std::size_t total_bytes = count * 2 * total_words * sizeof(unsigned);
        if (flag_bytes > flags_.bytes || total_bytes > totals_.bytes) {
            if (used_)
                GPUKIT_CU(cuEventSynchronize, last_use_);  // the old buffers may still be in use
            if (flag_bytes > flags_.bytes) {
                grow(flags_, flag_bytes);
                GPUKIT_CU(cuMemsetD8Async, flags_.address, 0, flags_.bytes, s.handle());  // epoch 0: no flag
            }
            if (total_bytes > totals_.bytes)
                grow(totals_, total_bytes);
        }
        launch(scan_state{flags_.address, totals_.address, ++epoch_});
        GPUKIT_CU(cuEventRecord, last_use_, s.handle());
        last_stream_ = s.handle();
        used_ = true;
    }

private:
    // A new block of at least `bytes` (twice the old one, at least), replacing `b`.
    void grow(owned_block& b, std::size_t bytes) {
        const std::size_t wanted = std::max(bytes, 2 * b.bytes);
        release(b);
        b.address = allocator_.allocate(wanted);
        b.bytes = wanted;
    }

    void release(owned_block& b) noexcept {
        if (b.address)
            allocator_.free(b.address, b.bytes);
        b = {};
    }

    cuda::detail::context_state& state_;
    cuda::device_allocator allocator_;
    std::mutex mutex_;
    owned_block flags_, totals_;
    CUevent last_use_ = nullptr;  // recorded after the last scan's launches
    CUstream last_stream_ = nullptr;
    bool used_ = false;
    unsigned long long epoch_ = 0;
};

}  // namespace

void with_scan_state(std::int64_t tiles, std::size_t total_words, cuda::stream_view s,
                     const std::function<void(const scan_state&)>& launch) {
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    GPUKIT_CU(cuStreamIsCapturing, s.handle(), &capturing);
    if (capturing != CU_STREAM_CAPTURE_STATUS_NONE)
        throw logic_error(
            "a scan of more than one tile cannot be captured into a CUDA graph: its look-back state "
            "is numbered per launch, and a replay would find the flags of the previous one");
    const cuda::context ctx = cuda::context::current_or_throw("scans");
    cuda::context_cache<scan_states>(*ctx.state())->use(tiles, total_words, s, launch);
}

}  // namespace gpukit::array::detail
