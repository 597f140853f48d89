// The occupancy model on the CPU, with the limits of a compute capability 9.0 device
// (the GPU tests compare it with the driver's own calculation for real kernels).
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/occupancy.hpp"

#include <gtest/gtest.h>

namespace {

using gpukit::cuda::device_data;
using gpukit::cuda::occupancy_record;

device_data hopper() {
    return device_data{// Threads, warps and blocks.
                       .max_threads = 1024,
                       .warp_size = 32,
                       .warps_per_mp = 64,
                       .thread_blocks_per_mp = 32,
                       // Registers.
                       .registers = 65536,
                       .registers_per_block = 65536,
                       // Shared memory.
                       .shared_memory = 233472,
                       .shared_memory_per_block = 49152,
                       .shared_memory_per_block_optin = 232448,
                       .reserved_shared_memory_per_block = 1024,
                       .smem_granularity = 32,
                       .smem_alloc_granularity = 128};
}

TEST(OccupancyModel, LimitedByEachResource) {
    const device_data d = hopper();
    occupancy_record small(d, 32);  // 1 warp per block: the 32-block limit binds
    EXPECT_EQ(small.tb_per_mp, 32);
    EXPECT_EQ(small.limited_by, "device");
    EXPECT_DOUBLE_EQ(small.occupancy, 0.5);

    occupancy_record big(d, 1024);  // 32 warps per block: 2 blocks fill 64 warps
    EXPECT_EQ(big.tb_per_mp, 2);
    EXPECT_EQ(big.limited_by, "warps");
    EXPECT_DOUBLE_EQ(big.occupancy, 1.0);

    occupancy_record regs(d, 256, 0, 128);  // 128 regs * 32 = 4096 per warp; 16 warps per SM
    EXPECT_EQ(regs.tb_per_mp, 2);
    EXPECT_EQ(regs.limited_by, "regs");
    EXPECT_EQ(regs.warps_per_mp, 16);

    occupancy_record smem(d, 128, 48 * 1024);  // 49 KB per block with the reserved KB: 4 blocks
    EXPECT_EQ(smem.tb_per_mp, 4);
    EXPECT_EQ(smem.limited_by, "smem");
}

TEST(OccupancyModel, BadInput) {
    const device_data d = hopper();
    EXPECT_THROW(occupancy_record(d, 0), gpukit::logic_error);
    EXPECT_THROW(occupancy_record(d, 1025), gpukit::logic_error);
    EXPECT_THROW(occupancy_record(d, 32, 0, 256), gpukit::logic_error);
    EXPECT_THROW(occupancy_record(d, 1024, 0, 255), gpukit::logic_error);  // 1024 * 256 registers
    EXPECT_THROW(occupancy_record(d, 32, 300000), gpukit::logic_error);
}

TEST(OccupancyModel, Alignment) {
    const device_data d = hopper();
    EXPECT_EQ(d.align_bytes(), 128u);
    EXPECT_EQ(d.align_bytes(1), 32u);
    EXPECT_EQ(d.align_bytes(16), 128u);
    EXPECT_EQ(d.align(1), 128u);
    EXPECT_EQ(d.align(129, 4), 256u);
    EXPECT_EQ(d.align_words(4), 32u);
    EXPECT_EQ(d.align_words(8), 16u);
    EXPECT_EQ(d.align_dtype(33, 4), 64u);
    EXPECT_THROW(d.align_bytes(3), gpukit::logic_error);
    EXPECT_THROW(d.align_bytes(32), gpukit::logic_error);
    EXPECT_EQ(device_data::make_valid_tex_channel_count(1), 1);
    EXPECT_EQ(device_data::make_valid_tex_channel_count(3), 4);
    EXPECT_THROW(device_data::make_valid_tex_channel_count(5), gpukit::logic_error);
    EXPECT_THROW(device_data::make_valid_tex_channel_count(0), gpukit::logic_error);
}

}  // namespace
