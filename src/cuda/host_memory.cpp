#include "gpukit/cuda/host_memory.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
#include <utility>

namespace gpukit::cuda {
namespace {

std::string hex(std::uintptr_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%zx", static_cast<std::size_t>(value));
    return text;
}

// The device address of page-locked host memory.
CUdeviceptr host_device_pointer(const context_state_ptr& ctx, void* data) {
    scoped_context in(*ctx);
    CUdeviceptr address = 0;
    GPUKIT_CU(cuMemHostGetDevicePointer, &address, data, 0);
    return address;
}

}  // namespace

std::size_t host_page_size() noexcept {
    static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

// ---- aligned_host_allocation

aligned_host_allocation aligned_host_allocation::allocate(std::size_t bytes, std::size_t alignment) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        throw logic_error("aligned_empty(): alignment " + std::to_string(alignment) +
                          " is not a power of two; use 1, 2, 4, ..., 4096, ...");
    // std::aligned_alloc wants a size that is a multiple of the alignment (at least one
    // unit), and an alignment no smaller than a pointer.
    const std::size_t unit = std::max(alignment, sizeof(void*));
    if (bytes > std::numeric_limits<std::size_t>::max() - unit)  // the rounding up below would wrap
        throw memory_error("aligned_empty(): " + std::to_string(bytes) + " bytes cannot be allocated");
    const std::size_t rounded = std::max<std::size_t>(1, (bytes + unit - 1) / unit) * unit;
    void* data = std::aligned_alloc(unit, rounded);
    if (!data)
        throw memory_error("aligned_empty(): could not allocate " + std::to_string(rounded) +
                           " bytes of host memory aligned to " + std::to_string(alignment));
    return aligned_host_allocation(data, bytes, alignment);
}

// ---- pagelocked_host_allocation

pagelocked_host_allocation pagelocked_host_allocation::allocate(std::size_t bytes, unsigned int flags) {
    constexpr unsigned int known = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
    if (flags & ~known)
        throw logic_error("pagelocked_empty(): mem_flags " + std::to_string(flags) +
                          " contains unknown bits; combine host_alloc_flags.PORTABLE (1), DEVICEMAP (2) and "
                          "WRITECOMBINED (4)");
    context ctx = context::current_or_throw("allocating page-locked host memory");
    void* data = nullptr;
    const CUresult result = api().cuMemHostAlloc(&data, bytes == 0 ? 1 : bytes, flags);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuMemHostAlloc", std::to_string(bytes) + " bytes, flags " + std::to_string(flags));
    return pagelocked_host_allocation(data, bytes, flags, ctx.state());
}

unsigned int pagelocked_host_allocation::flags() const {
    void* p = data();
    scoped_context in(*memory_.context());
    unsigned int value = 0;
    GPUKIT_CU(cuMemHostGetFlags, &value, p);
    return value | flags_;
}

CUdeviceptr pagelocked_host_allocation::device_pointer() const {
    return host_device_pointer(memory_.context(), data());
}

// ---- registered_host_memory

registered_host_memory registered_host_memory::register_memory(void* data, std::size_t bytes, unsigned int flags) {
    constexpr unsigned int known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                                   CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
    const std::size_t page = host_page_size();
    const auto address = reinterpret_cast<std::uintptr_t>(data);
    if (!data || bytes == 0)
        throw logic_error("register_host_memory(): the memory is empty (address " + hex(address) + ", " +
                          std::to_string(bytes) + " bytes); register a non-empty array");
    if (address % page != 0 || bytes % page != 0)
        throw logic_error("register_host_memory(): the memory at " + hex(address) + " of " + std::to_string(bytes) +
                          " bytes is not page-aligned; its address and size must both be multiples of the " +
                          std::to_string(page) + "-byte page size. Allocate it with aligned_empty(..., alignment=" +
                          std::to_string(page) + ") and a size that is a whole number of pages");
    if (flags & ~known)
        throw logic_error("register_host_memory(): flags " + std::to_string(flags) +
                          " contains unknown bits; combine mem_host_register_flags.PORTABLE (1), DEVICEMAP (2), "
                          "IOMEMORY (4) and READ_ONLY (8)");
    context ctx = context::current_or_throw("register_host_memory()");
    const CUresult result = api().cuMemHostRegister(data, bytes, flags);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuMemHostRegister",
                         hex(address) + ", " + std::to_string(bytes) + " bytes, flags " + std::to_string(flags));
    return registered_host_memory(data, bytes, ctx.state());
}

CUdeviceptr registered_host_memory::device_pointer() const { return host_device_pointer(memory_.context(), data()); }

// ---- registered_host_pages

std::vector<host_range> page_runs(std::span<const host_range> ranges, std::size_t page) {
    if (page == 0)
        throw logic_error("page_runs(): the page size must be positive");
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> spans;  // [first page, end of the last page)
    for (const host_range& r : ranges) {
        if (r.bytes == 0)
            continue;
        const auto start = reinterpret_cast<std::uintptr_t>(r.data);
        if (start + r.bytes < start || start + r.bytes > UINTPTR_MAX - page)
            throw logic_error("page_runs(): the range at " + hex(start) + " of " + std::to_string(r.bytes) +
                              " bytes runs past the end of the address space");
        spans.emplace_back(start / page * page, (start + r.bytes + page - 1) / page * page);
    }
    std::sort(spans.begin(), spans.end());
    std::vector<host_range> runs;
    std::uintptr_t run_start = 0, run_end = 0;
    for (const auto& [first, end] : spans) {
        if (!runs.empty() && first < run_end) {  // shares a page with the run: extend it
            run_end = std::max(run_end, end);
            runs.back().bytes = run_end - run_start;
            continue;
        }
        run_start = first;
        run_end = end;
        runs.push_back({reinterpret_cast<const void*>(first), end - first});
    }
    return runs;
}

registered_host_pages registered_host_pages::register_ranges(std::span<const host_range> ranges, unsigned int flags) {
    registered_host_pages pages;
    for (const host_range& run : page_runs(ranges, host_page_size()))
        pages.runs_.push_back(registered_host_memory::register_memory(const_cast<void*>(run.data), run.bytes, flags));
    return pages;
}

CUdeviceptr registered_host_pages::device_pointer(const void* p) const {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    for (const registered_host_memory& run : runs_) {
        if (!run.is_registered())
            break;
        const auto start = reinterpret_cast<std::uintptr_t>(run.data());
        if (address >= start && address - start < run.size())
            return run.device_pointer() + static_cast<CUdeviceptr>(address - start);
    }
    throw logic_error("registered host pages: " + hex(address) +
                      " is not in the page-locked memory (unregistered already, or never registered)");
}

void registered_host_pages::unregister() {
    for (registered_host_memory& run : runs_)
        run.unregister();
}

}  // namespace gpukit::cuda
