// fork_generation(): what the driver tables compare to refuse use in a forked child; fork_hold:
// the scopes fork() waits for.
#include "gpukit/core/fork.hpp"

#include "gpukit/core/error.hpp"

#include "forked_process.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace {

using gpukit::testing::exit_status_of_forked;

TEST(Fork, EachForkCountsOneGeneration) {
    const std::uint64_t parent = gpukit::fork_generation();
    EXPECT_EQ(gpukit::fork_generation(), parent);  // stable within a process
    EXPECT_EQ(exit_status_of_forked([&] { return gpukit::fork_generation() == parent + 1 ? 0 : 1; }), 0);
    // A grandchild counts two.
    EXPECT_EQ(exit_status_of_forked([&] {
                  const bool child_counts_one = gpukit::fork_generation() == parent + 1;
                  const int grandchild =
                      exit_status_of_forked([&] { return gpukit::fork_generation() == parent + 2 ? 0 : 1; });
                  return child_counts_one && grandchild == 0 ? 0 : 1;
              }),
              0);
    EXPECT_EQ(gpukit::fork_generation(), parent);  // the parent's own count never moves
}

TEST(Fork, MessageNamesTheLibraryAndTheSpawnStartMethod) {
    const std::string message = gpukit::forked_child_message("OpenCL");
    EXPECT_NE(message.find("OpenCL was initialized in a parent of this process"), std::string::npos) << message;
    EXPECT_NE(message.find("'spawn' start method"), std::string::npos) << message;
}

// fork() waits for a hold another thread is inside: the child sees the state after it.
TEST(Fork, ForkWaitsForTheHoldsOfOtherThreads) {
    std::atomic<bool> held{false}, finished{false};
    std::thread holder([&] {
        const gpukit::fork_hold hold;
        held = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        finished = true;  // still inside the hold
    });
    while (!held)
        std::this_thread::yield();
    EXPECT_EQ(exit_status_of_forked([&] { return finished ? 0 : 1; }), 0) << "fork() split a hold";
    holder.join();
}

// Holds nest; a thread may fork from inside its own (it does not wait for itself); the child
// can hold and fork in turn.
TEST(Fork, HoldsNestAndAForkFromInsideOneGoesAhead) {
    const gpukit::fork_hold outer;
    { const gpukit::fork_hold inner; }
    const gpukit::fork_hold again;
    EXPECT_EQ(exit_status_of_forked([] {
                  { const gpukit::fork_hold in_child; }
                  return exit_status_of_forked([] {
                      const gpukit::fork_hold in_grandchild;
                      return 0;
                  });
              }),
              0);
}

// A child forked while no thread held anything starts with the lock free: it can hold from
// another thread and fork again.
TEST(Fork, AChildHoldsAndForksAsItsParentDid) {
    EXPECT_EQ(exit_status_of_forked([] {
                  std::thread other([] { const gpukit::fork_hold hold; });
                  other.join();
                  return exit_status_of_forked([] { return 0; });
              }),
              0);
}

TEST(Fork, RefusalInAForkedChildNamesTheLibrary) {
    const std::uint64_t here = gpukit::fork_generation();
    EXPECT_NO_THROW(gpukit::refuse_in_forked_child<gpukit::runtime_error>(here, "NCCL"));
    EXPECT_EQ(exit_status_of_forked([&] {
                  try {
                      gpukit::refuse_in_forked_child<gpukit::runtime_error>(here, "NCCL");
                  } catch (const gpukit::runtime_error& e) {
                      return std::string(e.what()).starts_with("NCCL was initialized in a parent") ? 0 : 2;
                  }
                  return 1;
              }),
              0);
}

}  // namespace
