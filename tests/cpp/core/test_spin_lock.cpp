// gpukit::spin_lock: mutual exclusion under contention, and try_lock.
#include "gpukit/core/spin_lock.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

namespace {

TEST(SpinLock, ExcludesOtherThreads) {
    gpukit::spin_lock lock;
    long long counter = 0;  // unsynchronised on purpose: only the lock protects it
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 100000; ++i) {
                std::lock_guard guard(lock);
                ++counter;
            }
        });
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(counter, 800000);
}

TEST(SpinLock, TryLock) {
    gpukit::spin_lock lock;
    EXPECT_TRUE(lock.try_lock());
    EXPECT_FALSE(lock.try_lock());
    bool other_thread_got_it = true;
    std::thread([&] { other_thread_got_it = lock.try_lock(); }).join();
    EXPECT_FALSE(other_thread_got_it);
    lock.unlock();
    EXPECT_TRUE(lock.try_lock());
    lock.unlock();
}

}  // namespace
