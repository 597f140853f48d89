// A fixed set of worker threads that run queued tasks, for work split over several CPU
// threads (parallel_memcpy's pieces, prefaulted_memory's page faulting).
//
// Each user keeps its own pool, so one kind of work never waits in the queue behind the
// other. A pool is never destroyed: joining threads during static destruction at exit could
// deadlock, and idle threads cost nothing.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

namespace gpukit::detail {

class worker_pool {
public:
    explicit worker_pool(unsigned workers);
    worker_pool(const worker_pool&) = delete;
    worker_pool& operator=(const worker_pool&) = delete;

    // The threads that run tasks; 0 in a child made by fork(), which does not inherit them.
    unsigned workers() const noexcept;

    // Queues `task` for the next idle worker. Callers check workers() first: in a forked
    // child nothing would run it.
    void submit(std::function<void()> task);

private:
    void run();

    const unsigned workers_;
    const std::uint64_t fork_generation_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
};

}  // namespace gpukit::detail
