#include "gpukit/core/parallel_memcpy.hpp"

#include "gpukit/core/detail/worker_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpukit {
namespace {

// Enough threads to saturate memory bandwidth on common servers without crowding out the
// rest of the process.
constexpr unsigned max_threads = 8;

// The pool that helps the caller copy; never destroyed (see worker_pool.hpp).
detail::worker_pool& copy_helpers() {
    static detail::worker_pool* instance = new detail::worker_pool(parallel_memcpy_threads() - 1);
    return *instance;
}

// memcpy with streaming (non-temporal) stores for the 64-byte-aligned body of the
// destination; the unaligned head and the tail go through memcpy.
void copy_streaming(char* to, const char* from, std::size_t bytes) {
#if defined(__SSE2__)
    constexpr std::size_t line = 64;
    const std::size_t head = std::min(bytes, (line - reinterpret_cast<std::uintptr_t>(to) % line) % line);
    std::memcpy(to, from, head);
    to += head;
    from += head;
    bytes -= head;
    const std::size_t body = bytes / line * line;
    for (std::size_t i = 0; i < body; i += line) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 32));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + i), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 48), d);
    }
    _mm_sfence();  // streaming stores are weakly ordered: make them visible before returning
    std::memcpy(to + body, from + body, bytes - body);
#else
    std::memcpy(to, from, bytes);
#endif
}

void copy_with(store_policy policy, char* to, const char* from, std::size_t bytes) {
    if (policy == store_policy::streaming)
        copy_streaming(to, from, bytes);
    else
        std::memcpy(to, from, bytes);
}

// One large copy, cut into pieces that the caller and any idle workers claim one at a time
// from an atomic counter. The caller copies too, so the copy finishes even when every
// worker is busy with other copies (or there are none).
struct copy_job {
    char* to = nullptr;
    const char* from = nullptr;
    std::size_t bytes = 0, piece = 0;
    unsigned pieces = 0;
    store_policy policy = store_policy::cached;
    std::atomic<unsigned> next{0};
    std::mutex mutex;
    std::condition_variable done;
    unsigned finished = 0;

    void copy_pieces() {
        for (unsigned i; (i = next.fetch_add(1)) < pieces;) {
            const std::size_t begin = std::min(bytes, i * piece);
            copy_with(policy, to + begin, from + begin, std::min(bytes, begin + piece) - begin);
            std::lock_guard lock(mutex);
            if (++finished == pieces)
                done.notify_all();
        }
    }
};

}  // namespace

unsigned parallel_memcpy_threads() noexcept {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp(hardware / 2, 1u, max_threads);
}

void parallel_memcpy(void* dst, const void* src, std::size_t bytes, store_policy policy) {
    const std::size_t most_pieces = std::max<std::size_t>(1, bytes / parallel_memcpy_min_piece);
    detail::parallel_memcpy_in_pieces(dst, src, bytes,
                                      static_cast<unsigned>(
                                          std::min<std::size_t>(parallel_memcpy_threads(), most_pieces)),
                                      policy);
}

void detail::parallel_memcpy_in_pieces(void* dst, const void* src, std::size_t bytes, unsigned pieces,
                                       store_policy policy) {
    if (pieces <= 1) {
        copy_with(policy, static_cast<char*>(dst), static_cast<const char*>(src), bytes);
        return;
    }
    // Shared with the workers, so none touches a job its caller has already dropped.
    auto job = std::make_shared<copy_job>();
    job->to = static_cast<char*>(dst);
    job->from = static_cast<const char*>(src);
    job->bytes = bytes;
    job->policy = policy;
    // Pieces are multiples of 4 KiB so no two threads write into one page; rounding up
    // (never down) makes `pieces` of them cover every byte.
    job->piece = ((bytes + pieces - 1) / pieces + 4095) / 4096 * 4096;
    job->pieces = pieces;
    // Each helper copies pieces until none is left, so one per idle worker is plenty.
    for (unsigned i = 1; i < std::min(pieces, copy_helpers().workers() + 1); ++i)
        copy_helpers().submit([job] { job->copy_pieces(); });
    job->copy_pieces();
    std::unique_lock lock(job->mutex);
    job->done.wait(lock, [&] { return job->finished == job->pieces; });
}

}  // namespace gpukit
