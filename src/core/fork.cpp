#include "gpukit/core/fork.hpp"

#include <pthread.h>

#include <atomic>

namespace gpukit {
namespace {

std::atomic<std::uint64_t> forks_since_first_call{0};

// A pthread_atfork child handler: runs in the child, right after fork() returns there.
void count_fork() noexcept {
    forks_since_first_call.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

std::uint64_t fork_generation() noexcept {
    // Registered on the first call, so before any fork() that a caller could compare with.
    static const bool registered = pthread_atfork(nullptr, nullptr, &count_fork) == 0;
    (void)registered;
    return forks_since_first_call.load(std::memory_order_relaxed);
}

std::string forked_child_message(std::string_view library) {
    std::string name(library);
    return name + " was initialized in a parent of this process, which was then copied by fork(); " + name +
           " cannot be used in a forked child (its driver state does not survive fork). Start processes that use " +
           name + " with multiprocessing's 'spawn' start method (multiprocessing.get_context('spawn'), or "
           "multiprocessing.set_start_method('spawn')), or initialize " + name + " only in the child";
}

}  // namespace gpukit
