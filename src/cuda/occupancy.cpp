#include "gpukit/cuda/occupancy.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gpukit::cuda {
namespace {

std::size_t round_up(std::size_t value, std::size_t unit) { return (value + unit - 1) / unit * unit; }

bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

}  // namespace

device_data device_data::of(const device& dev) {
    device_data d;
    d.max_threads = dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    d.warp_size = dev.attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    d.warps_per_mp = dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / d.warp_size;
    d.thread_blocks_per_mp = dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    d.registers = dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    d.registers_per_block = dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    d.shared_memory = static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
    d.shared_memory_per_block =
        static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
    d.shared_memory_per_block_optin =
        static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
    d.reserved_shared_memory_per_block =
        static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
    // Shared memory has one bank per warp lane; no attribute reports the allocation unit,
    // which is 128 bytes from compute capability 8.0 on and 256 bytes before.
    d.smem_granularity = d.warp_size;
    d.smem_alloc_granularity = dev.compute_capability().first >= 8 ? 128 : 256;
    return d;
}

std::size_t device_data::align_bytes(std::size_t word_size) const {
    if (!is_power_of_two(word_size) || word_size > 16)
        throw logic_error("DeviceData.align_bytes(): word_size must be 1, 2, 4, 8 or 16 bytes, got " +
                          std::to_string(word_size));
    // A warp of one-word reads spans warp_size * word_size bytes; beyond one 128-byte line,
    // line alignment is all that coalescing needs.
    return std::min<std::size_t>(static_cast<std::size_t>(warp_size) * word_size, 128);
}

std::size_t device_data::align(std::size_t bytes, std::size_t word_size) const {
    return round_up(bytes, align_bytes(word_size));
}

std::size_t device_data::align_words(std::size_t word_size) const {
    const std::size_t alignment = align_bytes(word_size);
    if (alignment % word_size != 0)
        throw logic_error("DeviceData.align_words(): the alignment of " + std::to_string(alignment) +
                          " bytes is not a whole number of " + std::to_string(word_size) + "-byte words");
    return alignment / word_size;
}

std::size_t device_data::align_dtype(std::size_t elements, std::size_t dtype_size) const {
    return round_up(elements, align_words(dtype_size));
}

int device_data::make_valid_tex_channel_count(int size) {
    for (int valid : {1, 2, 4})
        if (size <= valid && size >= 1)
            return valid;
    throw logic_error("make_valid_tex_channel_count(): textures have 1 to 4 channels, got " + std::to_string(size));
}

occupancy_record::occupancy_record(const device_data& data, int threads, std::size_t shared_mem, int registers) {
    if (threads < 1 || threads > data.max_threads)
        throw logic_error("OccupancyRecord: threads per block must be 1 to " + std::to_string(data.max_threads) +
                          ", got " + std::to_string(threads));
    if (registers < 0 || registers > 255)
        throw logic_error("OccupancyRecord: registers per thread must be 0 to 255, got " + std::to_string(registers));
    const int warps_per_block = (threads + data.warp_size - 1) / data.warp_size;

    const int by_device = data.thread_blocks_per_mp;
    const int by_warps = data.warps_per_mp / warps_per_block;

    int by_registers = by_device;
    if (registers > 0) {
        const auto per_warp =
            static_cast<int>(round_up(static_cast<std::size_t>(registers) * data.warp_size, data.register_alloc_unit));
        if (per_warp * warps_per_block > data.registers_per_block)
            throw logic_error("OccupancyRecord: " + std::to_string(threads) + " threads using " +
                              std::to_string(registers) + " registers each exceed the " +
                              std::to_string(data.registers_per_block) + " registers a block may use");
        by_registers = (data.registers / per_warp) / warps_per_block;
    }

    int by_shared = by_device;
    const std::size_t smem_per_block =
        round_up(shared_mem + data.reserved_shared_memory_per_block, data.smem_alloc_granularity);
    if (shared_mem > data.shared_memory_per_block_optin)
        throw logic_error("OccupancyRecord: " + std::to_string(shared_mem) +
                          " bytes of shared memory exceed the most a block may use, " +
                          std::to_string(data.shared_memory_per_block_optin));
    if (shared_mem > 0 || data.reserved_shared_memory_per_block > 0)
        by_shared = static_cast<int>(data.shared_memory / smem_per_block);

    const std::array<std::pair<int, const char*>, 4> limits{
        {{by_device, "device"}, {by_warps, "warps"}, {by_registers, "regs"}, {by_shared, "smem"}}};
    const auto tightest =
        std::min_element(limits.begin(), limits.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    tb_per_mp = tightest->first;
    limited_by = tightest->second;
    warps_per_mp = tb_per_mp * warps_per_block;
    occupancy = static_cast<double>(warps_per_mp) / data.warps_per_mp;
}

int max_active_blocks_per_multiprocessor(const function& f, int block_size, std::size_t dynamic_shared) {
    if (block_size < 1)
        throw logic_error("max_active_blocks_per_multiprocessor(): block_size must be positive, got " +
                          std::to_string(block_size));
    int blocks = 0;
    const CUresult result =
        api().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f.handle(), block_size, dynamic_shared);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                         "kernel '" + f.name() + "', " + std::to_string(block_size) + " threads, " +
                             std::to_string(dynamic_shared) + " bytes of dynamic shared memory");
    return blocks;
}

potential_block_size max_potential_block_size(const function& f, std::size_t dynamic_shared, int block_size_limit) {
    if (block_size_limit < 0)
        throw logic_error("max_potential_block_size(): block_size_limit must be 0 (no limit) or positive, got " +
                          std::to_string(block_size_limit));
    potential_block_size result{};
    const CUresult status =
        api().cuOccupancyMaxPotentialBlockSize(&result.min_grid_size, &result.block_size, f.handle(), nullptr,
                                               dynamic_shared, block_size_limit);
    if (status != CUDA_SUCCESS)
        throw_cuda_error(status, "cuOccupancyMaxPotentialBlockSize", "kernel '" + f.name() + "'");
    return result;
}

}  // namespace gpukit::cuda
