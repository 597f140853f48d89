// fork_generation(): what the driver tables compare to refuse use in a forked child.
#include "gpukit/core/fork.hpp"

#include "forked_process.hpp"

#include <gtest/gtest.h>

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

}  // namespace
