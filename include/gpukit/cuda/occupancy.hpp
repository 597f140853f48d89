// Device limits relevant to kernel tuning (the seed's DeviceData) and a theoretical
// occupancy model (OccupancyRecord), both read from the real device rather than from a table
// of compute capabilities.
#pragma once

#include "gpukit/cuda/device.hpp"
#include "gpukit/cuda/function.hpp"

#include <cstddef>
#include <string>

namespace gpukit::cuda {

// A device's limits for kernel tuning, read from its attributes by of().
struct device_data {
    int max_threads = 0;  // threads per block
    // Threads per warp.
    int warp_size = 0;
    int warps_per_mp = 0;          // resident warps per multiprocessor
    int thread_blocks_per_mp = 0;  // resident blocks per multiprocessor
    int registers = 0;             // 32-bit registers per multiprocessor
    // 32-bit registers one block may use.
    int registers_per_block = 0;
    std::size_t shared_memory = 0;                     // bytes of shared memory per multiprocessor
    std::size_t shared_memory_per_block = 0;           // without opting in
    std::size_t shared_memory_per_block_optin = 0;     // after raising a kernel's dynamic limit
    std::size_t reserved_shared_memory_per_block = 0;  // taken by the driver from each block
    int smem_granularity = 0;                          // threads whose shared-memory accesses are served together
    int smem_alloc_granularity = 0;                    // shared memory is given to blocks in units of this many bytes
    int register_alloc_unit = 256;                     // registers are given to each warp in units of this many

    // The limits of `dev`, read from its attributes (the shared memory allocation unit, which
    // no attribute reports, from its compute capability).
    static device_data of(const device& dev);

    // The alignment, in bytes, of a base address from which a warp reading one `word_size`
    // word per thread touches whole memory transactions (32-byte sectors, 128-byte lines).
    std::size_t align_bytes(std::size_t word_size = 4) const;
    // `bytes` rounded up to a multiple of align_bytes(word_size).
    std::size_t align(std::size_t bytes, std::size_t word_size = 4) const;
    // align_bytes(word_size) / word_size.
    std::size_t align_words(std::size_t word_size) const;
    // `elements` rounded up so that elements * dtype_size is a multiple of align_bytes(dtype_size).
    std::size_t align_dtype(std::size_t elements, std::size_t dtype_size) const;
    // The texture channel count (1, 2 or 4) that holds `size` channels.
    static int make_valid_tex_channel_count(int size);
};

// How many blocks of a kernel fit on one multiprocessor, and what limits them.
struct occupancy_record {
    // The occupancy of blocks of `threads` threads using `shared_mem` bytes of shared memory
    // and `registers` registers per thread (0: not limited by registers) on a device with
    // `data`'s limits. logic_error for a thread count, register count or shared memory size
    // that a block cannot have.
    occupancy_record(const device_data& data, int threads, std::size_t shared_mem = 0, int registers = 0);

    int tb_per_mp = 0;       // resident blocks per multiprocessor
    std::string limited_by;  // "device", "warps", "regs" or "smem"
    int warps_per_mp = 0;    // resident warps per multiprocessor
    double occupancy = 0.0;  // warps_per_mp over the most the multiprocessor can hold
};

// The driver's own occupancy calculation for a real kernel: resident blocks per
// multiprocessor at `block_size` threads and `dynamic_shared` bytes of dynamic shared memory.
int max_active_blocks_per_multiprocessor(const function& f, int block_size, std::size_t dynamic_shared = 0);

// The driver's suggested launch shape for full occupancy.
struct potential_block_size {
    int min_grid_size;  // the smallest grid that reaches full occupancy
    int block_size;     // the block size that maximises occupancy
};
// The driver's suggestion of a block size for `f` (cuOccupancyMaxPotentialBlockSize);
// `block_size_limit` 0 means the kernel's own limit.
potential_block_size max_potential_block_size(const function& f, std::size_t dynamic_shared = 0,
                                              int block_size_limit = 0);

}  // namespace gpukit::cuda
