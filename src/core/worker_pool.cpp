#include "gpukit/core/detail/worker_pool.hpp"

#include "gpukit/core/fork.hpp"

#include <thread>
#include <utility>

namespace gpukit::detail {

worker_pool::worker_pool(unsigned workers) : workers_(workers), fork_generation_(fork_generation()) {
    for (unsigned i = 0; i < workers; ++i)
        std::thread([this] { run(); }).detach();
}

unsigned worker_pool::workers() const noexcept { return fork_generation() == fork_generation_ ? workers_ : 0; }

void worker_pool::submit(std::function<void()> task) {
    {
        std::lock_guard lock(mutex_);
        tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
}

void worker_pool::run() {
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

}  // namespace gpukit::detail
