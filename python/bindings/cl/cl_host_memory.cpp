#include "cl/cl_host_memory.hpp"

#include "common/exit_cleanup.hpp"

#include "gpukit/cl/error.hpp"
#include "gpukit/cl/event.hpp"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace gpukit::python {
namespace {

struct dropped_hold {
    python_hold hold;
    dropped_hold* next = nullptr;
};

// Holds OpenCL has dropped, waiting for the GIL: a lock-free stack, so that OpenCL's threads
// never wait and never allocate. A plain atomic pointer needs no destructor at exit.
std::atomic<dropped_hold*> dropped{nullptr};

void set_aside(dropped_hold* node) noexcept {
    node->next = dropped.load(std::memory_order_relaxed);
    while (!dropped.compare_exchange_weak(node->next, node, std::memory_order_release, std::memory_order_relaxed)) {
    }
}

// At exit: the holds of commands that are over, including those OpenCL reports complete only
// shortly after the program's last clFinish (NVIDIA's OpenCL does), waiting at most a second
// for those reports; work still running after that keeps its objects (the interpreter cannot
// wait for every queue).
void release_holds_at_exit() {
    using namespace std::chrono_literals;
    const auto give_up = std::chrono::steady_clock::now() + 1s;
    while (cl::pending_completion_reports() > 0 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(1ms);  // OpenCL's callbacks need no GIL
    release_dropped_holds();
}

}  // namespace

std::span<std::byte> python_hold::export_memory(nb::handle obj, bool writable, const char* role) {
    try {
        exports_.push_back(std::make_unique<host_buffer>(obj, writable, role));
    } catch (const gpukit::logic_error& e) {  // host_buffer speaks for gpukit.driver; this is gpukit.cl
        throw cl::logic_error(e.what(), CL_INVALID_VALUE, "enqueue_copy");
    }
    const host_buffer& exported = *exports_.back();
    if (exported.size() == 0)
        throw cl::logic_error(std::string(role) + " is empty; expected at least one byte", CL_INVALID_VALUE,
                              "enqueue_copy");
    return {static_cast<std::byte*>(exported.data()), exported.size()};
}

std::shared_ptr<void> share_hold(python_hold hold) {
    // What OpenCL drops after the last launch waits for the next one; at exit nobody launches,
    // so Python's atexit releases it.
    static const bool drained_at_exit = (drop_at_exit(release_holds_at_exit), true);
    (void)drained_at_exit;
    return std::shared_ptr<void>(new dropped_hold{std::move(hold)},
                                 [](void* node) noexcept { set_aside(static_cast<dropped_hold*>(node)); });
}

void release_dropped_holds() {
    dropped_hold* node = dropped.exchange(nullptr, std::memory_order_acquire);
    while (node)
        delete std::exchange(node, node->next);
}

}  // namespace gpukit::python
