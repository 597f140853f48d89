#include "common/release_gil.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace gpukit::python {
namespace {

// release_gil scopes in progress, on every thread.
std::atomic<int> calls_in_progress{0};

[[noreturn]] void park_thread_until_exit() noexcept {
    for (;;)
        pause();
}

// An on_exit() handler: ends the process at once when calls are still in progress.
void end_process_if_calls_in_progress(int status, void*) {
    if (calls_in_progress.load() == 0)
        return;
    std::fflush(nullptr);
    std::_Exit(status);
}

// Run by Py_FinalizeEx as its last step. exit() runs its handlers in the reverse order of
// registration, so registering here, after every library the program loaded registered
// its own, makes ours the first to run.
void register_exit_handler() { on_exit(&end_process_if_calls_in_progress, nullptr); }

}  // namespace

release_gil::release_gil() noexcept {
    calls_in_progress.fetch_add(1);
    state_ = PyEval_SaveThread();
}

release_gil::~release_gil() {
    calls_in_progress.fetch_sub(1);
    try {
        PyEval_RestoreThread(state_);
    } catch (...) {
        // Only pthread_exit's forced unwind gets here: PyEval_RestoreThread throws nothing
        // else. Caught with "...", since it carries no C++ object: catching it as
        // abi::__forced_unwind& binds a reference to null (UBSan reports it).
        park_thread_until_exit();
    }
}

void guard_process_exit() { Py_AtExit(&register_exit_handler); }

}  // namespace gpukit::python
