#include "cl_host_memory.hpp"

#include "exit_cleanup.hpp"

#include "gpukit/cl/error.hpp"

#include <atomic>
#include <string>

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
    // so Python's atexit releases it (work still running then keeps its objects: the
    // interpreter cannot wait for every queue).
    static const bool drained_at_exit = (drop_at_exit(release_dropped_holds), true);
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
