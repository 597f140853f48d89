#include "gpukit/core/fork.hpp"

#include <pthread.h>

#include <atomic>
#include <utility>

namespace gpukit {
namespace {

std::atomic<std::uint64_t> forks_since_first_call{0};

// A pthread_atfork child handler: runs in the child, right after fork() returns there.
void count_fork() noexcept { forks_since_first_call.fetch_add(1, std::memory_order_relaxed); }

// The holds this thread is inside; only the outermost takes the lock.
thread_local unsigned hold_depth = 0;
// Whether fork()'s prepare handler, run by this thread, took the lock exclusively.
thread_local bool fork_took_lock = false;

// The lock behind fork_hold: taken shared by each outermost hold, exclusively around fork().
// Writers are preferred, so that threads entering holds one after another cannot keep a fork
// waiting (so no thread may take it shared twice: hold_depth).
class fork_lock {
public:
    static fork_lock& instance() {
        static fork_lock* const lock = new fork_lock;  // never destroyed: holds may run at exit
        return *lock;
    }
    void lock_shared() noexcept { pthread_rwlock_rdlock(&lock_); }
    void unlock() noexcept { pthread_rwlock_unlock(&lock_); }

private:
    fork_lock() {
        initialize();
        pthread_atfork(&before_fork, &in_parent, &in_child);
    }
    void initialize() noexcept {
        pthread_rwlockattr_t attributes;
        pthread_rwlockattr_init(&attributes);
        pthread_rwlockattr_setkind_np(&attributes, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        pthread_rwlock_init(&lock_, &attributes);
        pthread_rwlockattr_destroy(&attributes);
    }
    // The pthread_atfork handlers, run by the thread calling fork() (in the child, by its copy).
    static void before_fork() noexcept {
        if (hold_depth > 0)
            return;  // forking from inside a hold: waiting for this thread's own hold would never end
        pthread_rwlock_wrlock(&instance().lock_);
        fork_took_lock = true;
    }
    static void in_parent() noexcept {
        if (std::exchange(fork_took_lock, false))
            instance().unlock();
    }
    static void in_child() noexcept {
        // Only this thread exists here, so no hold but its own can be in force: the lock starts
        // afresh (unlocking would not do: glibc takes a write lock whose holder's thread id it
        // does not know, as this copy's is new, for a read lock) and takes this thread's holds.
        fork_took_lock = false;
        instance().initialize();
        if (hold_depth > 0)
            instance().lock_shared();
    }

    pthread_rwlock_t lock_;
};

// Made, and the fork handlers registered, when the library is loaded: made on first use, a
// fork() in the middle of making it would leave the child waiting for ever on its static.
[[maybe_unused]] const fork_lock& registered_at_load = fork_lock::instance();

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
           name +
           " with multiprocessing's 'spawn' start method (multiprocessing.get_context('spawn'), or "
           "multiprocessing.set_start_method('spawn')), or initialize " +
           name + " only in the child";
}

fork_hold::fork_hold() noexcept {
    if (hold_depth++ == 0)
        fork_lock::instance().lock_shared();
}

fork_hold::~fork_hold() {
    if (--hold_depth == 0)
        fork_lock::instance().unlock();
}

}  // namespace gpukit
