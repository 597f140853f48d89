// kernel_args packs values without a GPU, so it is tested on the CPU, as is the wording of a
// size mismatch between an argument and the kernel's parameter.
#include "gpukit/cuda/function.hpp"
#include "gpukit/cuda/kernel_args.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace {

using gpukit::cuda::kernel_args;

TEST(kernel_args, packs_values_aligned_with_their_sizes) {
    kernel_args args;
    args.push_value(std::uint64_t{0x1122334455667788});
    args.push_value(2.5f);
    args.push_value(char{'x'});
    ASSERT_EQ(args.count(), 3u);
    EXPECT_EQ(args.sizes()[0], 8u);
    EXPECT_EQ(args.sizes()[1], 4u);
    EXPECT_EQ(args.sizes()[2], 1u);
    void** pointers = args.pointers();
    for (std::size_t i = 0; i < 3; ++i)
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pointers[i]) % 16, 0u) << "argument " << i;
    EXPECT_EQ(*static_cast<std::uint64_t*>(pointers[0]), 0x1122334455667788u);
    EXPECT_EQ(*static_cast<float*>(pointers[1]), 2.5f);
    EXPECT_EQ(*static_cast<char*>(pointers[2]), 'x');
}

TEST(kernel_args, spills_to_the_heap_beyond_the_inline_capacity) {
    kernel_args args;
    const std::size_t n = kernel_args::inline_count + 5;
    for (std::size_t i = 0; i < n; ++i)
        args.push_value(static_cast<int>(i));
    char big[1000];
    std::memset(big, 7, sizeof big);
    args.push(big, sizeof big);
    ASSERT_EQ(args.count(), n + 1);
    void** pointers = args.pointers();
    for (std::size_t i = 0; i < n; ++i)
        EXPECT_EQ(*static_cast<int*>(pointers[i]), static_cast<int>(i));
    EXPECT_EQ(args.sizes()[n], sizeof big);
    EXPECT_EQ(static_cast<char*>(pointers[n])[999], 7);
}

TEST(kernel_args, a_large_value_spills_even_with_few_arguments) {
    kernel_args args;
    args.push_value(1.0);
    char big[kernel_args::inline_bytes];
    std::memset(big, 3, sizeof big);
    args.push(big, sizeof big);
    void** pointers = args.pointers();
    EXPECT_EQ(*static_cast<double*>(pointers[0]), 1.0);
    EXPECT_EQ(static_cast<char*>(pointers[1])[0], 3);
}

TEST(kernel_args, a_size_mismatch_names_the_argument_and_both_sizes) {
    EXPECT_EQ(gpukit::cuda::argument_size_mismatch(3, 64, 8),
              "argument 3 is 64 bytes, but parameter 3 of the kernel is 8 bytes");
}

}  // namespace
