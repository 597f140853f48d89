#include "gpukit/core/parallel_memcpy.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpukit {
namespace {

// Enough threads to saturate memory bandwidth on common servers without crowding out the
// rest of the process.
constexpr unsigned max_threads = 8;

// Worker threads that run queued pieces. Never destroyed: joining threads during static
// destruction at exit could deadlock, and idle threads cost nothing.
class worker_pool {
public:
    explicit worker_pool(unsigned workers) {
        for (unsigned i = 0; i < workers; ++i)
            std::thread([this] { run(); }).detach();
    }

    void submit(std::function<void()> task) {
        {
            std::lock_guard lock(mutex_);
            tasks_.push_back(std::move(task));
        }
        ready_.notify_one();
    }

private:
    void run() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock lock(mutex_);
                ready_.wait(lock, [this] { return !tasks_.empty(); });
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();
        }
    }

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
};

worker_pool& pool() {
    static worker_pool* instance = new worker_pool(parallel_memcpy_threads() - 1);
    return *instance;
}

// Counts finished pieces of one copy so its caller can wait for them.
struct completion {
    std::mutex mutex;
    std::condition_variable done;
    unsigned remaining;
};

}  // namespace

unsigned parallel_memcpy_threads() noexcept {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp(hardware / 2, 1u, max_threads);
}

void parallel_memcpy(void* dst, const void* src, std::size_t bytes) {
    const std::size_t most_pieces = std::max<std::size_t>(1, bytes / parallel_memcpy_min_piece);
    const auto pieces = static_cast<unsigned>(std::min<std::size_t>(parallel_memcpy_threads(), most_pieces));
    if (pieces == 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    // Pieces are multiples of 4 KiB so no two threads write into one page.
    const std::size_t piece = (bytes / pieces + 4095) / 4096 * 4096;
    auto* to = static_cast<char*>(dst);
    const auto* from = static_cast<const char*>(src);
    completion work{.mutex = {}, .done = {}, .remaining = pieces - 1};
    for (unsigned i = 1; i < pieces; ++i) {
        const std::size_t begin = std::min(bytes, i * piece);
        const std::size_t length = std::min(bytes, begin + piece) - begin;
        pool().submit([&work, to, from, begin, length] {
            std::memcpy(to + begin, from + begin, length);
            std::lock_guard lock(work.mutex);
            if (--work.remaining == 0)
                work.done.notify_one();
        });
    }
    std::memcpy(to, from, std::min(bytes, piece));
    std::unique_lock lock(work.mutex);
    work.done.wait(lock, [&] { return work.remaining == 0; });
}

}  // namespace gpukit
