// A small lock for critical sections of a few dozen nanoseconds (the memory pool's bins).
//
// std::mutex costs two atomic read-modify-writes per lock/unlock and, under contention,
// puts threads to sleep in the kernel, which for such short sections costs far more than
// the work it protects. This lock spins on a plain load (so waiting threads share the cache
// line instead of bouncing it), and yields the processor after a short while, so a thread
// whose holder was descheduled does not burn its time slice.
#pragma once

#include <atomic>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace gpukit {

// A lock meeting the Lockable requirements, for std::lock_guard and std::unique_lock. Not
// recursive: a thread that locks it twice waits for ever. Starts unlocked.
class spin_lock {
public:
    // Takes the lock, waiting (spinning, then yielding) while another thread holds it.
    void lock() noexcept {
        for (;;) {
            if (!locked_.exchange(true, std::memory_order_acquire))
                return;
            for (int spins = 0; locked_.load(std::memory_order_relaxed); ++spins) {
                if (spins < 64)
                    pause();
                else
                    std::this_thread::yield();
            }
        }
    }
    // Takes the lock when it is free; returns whether it did, never waiting.
    bool try_lock() noexcept {
        return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
    }
    // Releases the lock, which the calling thread must hold.
    void unlock() noexcept { locked_.store(false, std::memory_order_release); }

private:
    static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        _mm_pause();
#endif
    }

    std::atomic<bool> locked_{false};
};

}  // namespace gpukit
