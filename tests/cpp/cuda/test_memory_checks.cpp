// The argument checks of the memory functions, which run before any driver call and so are
// tested without a GPU, and aligned host memory, which needs no driver at all.
#include "expect_error.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/host_memory.hpp"
#include "gpukit/cuda/ipc_memory.hpp"
#include "gpukit/cuda/managed_memory.hpp"
#include "gpukit/cuda/memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace gpukit::cuda;

using gpukit::test::expect_logic_error;

TEST(MemoryChecks, ZeroByteAllocationIsRefused) {
    expect_logic_error([] { device_allocation::allocate(0); }, "at least 1 byte");
}

TEST(MemoryChecks, PitchArgumentsAreChecked) {
    for (unsigned bad : {0u, 1u, 2u, 3u, 12u, 32u})
        expect_logic_error([bad] { device_allocation::allocate_pitch(64, 4, bad); }, "must be 4, 8 or 16");
    expect_logic_error([] { device_allocation::allocate_pitch(0, 4, 4); }, "at least 1");
    expect_logic_error([] { device_allocation::allocate_pitch(64, 0, 8); }, "at least 1");
}

TEST(MemoryChecks, CopiesCheckAddressesAndCapacity) {
    std::vector<std::uint8_t> host(64);
    const device_pointer small(0x10000, 16);
    expect_logic_error([&] { memcpy_htod(small, host.data(), 17); }, "do not fit in the 16 bytes");
    expect_logic_error([&] { memcpy_htod_async(small, host.data(), 64, stream_view{}); }, "16 bytes");
    expect_logic_error([&] { memcpy_dtoh(host.data(), small, 32); }, "do not fit");
    expect_logic_error([&] { memcpy_dtod(small, device_pointer(0x20000), 17); }, "memcpy_dtod(dest)");
    expect_logic_error([&] { memcpy_dtod(device_pointer(0x20000), small, 17); }, "memcpy_dtod(src)");
    expect_logic_error([&] { memcpy_htod(device_pointer(0), host.data(), 8); }, "null");
    expect_logic_error([&] { memcpy_htod(small, nullptr, 8); }, "host pointer is null");
    expect_logic_error([&] { memcpy_dtoh(nullptr, small, 8); }, "host pointer is null");
}

TEST(MemoryChecks, EmptyCopiesAndMemsetsDoNothing) {
    // No driver is called for them, so they succeed even without one.
    memcpy_htod(device_pointer(0), nullptr, 0);
    memcpy_dtoh(nullptr, device_pointer(0), 0);
    memcpy_dtod(device_pointer(0), device_pointer(0), 0);
    memset_d32(device_pointer(0), 7, 0);
    memset_d2d16(device_pointer(0), 0, 7, 0, 5);
    memset_d2d16(device_pointer(0), 0, 7, 5, 0);
}

TEST(MemoryChecks, MemsetsCheckAlignmentAndSize) {
    expect_logic_error([] { memset_d16(device_pointer(0x10001), 1, 4); }, "not aligned to the 2-byte");
    expect_logic_error([] { memset_d32(device_pointer(0x10002), 1, 4); }, "not aligned to the 4-byte");
    expect_logic_error([] { memset_d32_async(device_pointer(0x10000, 15), 1, 4, stream_view{}); }, "16 bytes");
    expect_logic_error([] { memset_d8(device_pointer(0), 1, 4); }, "null");
}

TEST(MemoryChecks, Memset2dChecksPitch) {
    expect_logic_error([] { memset_d2d32(device_pointer(0x10000), 12, 1, 4, 2); }, "at least 16");
    expect_logic_error([] { memset_d2d16(device_pointer(0x10000), 9, 1, 4, 2); }, "multiple of 2");
    // The last row needs only its width, not a whole pitch: 2 rows of 16 bytes, pitch 32.
    expect_logic_error([] { memset_d2d8(device_pointer(0x10000, 47), 32, 1, 16, 2); }, "48 bytes");
}

TEST(MemoryChecks, ByteCountsBeyond64BitsAreRefused) {
    // 2**62 + 1 four-byte elements wrap to 4 bytes, which fit the 16 known bytes: the driver
    // would then be asked to write 2**62 + 1 elements.
    const std::size_t quarter = (std::size_t{1} << 62) + 1;
    expect_logic_error([&] { memset_d32(device_pointer(0x10000, 16), 1, quarter); }, "beyond 64 bits");
    expect_logic_error([&] { memset_d2d32(device_pointer(0x10000, 64), 16, 1, quarter, 1); }, "beyond 64 bits");
    // A pitch so large that the rows wrap.
    expect_logic_error([] { memset_d2d8(device_pointer(0x10000, 64), std::size_t{1} << 63, 1, 4, 3); },
                       "beyond 64 bits");
    // aligned_empty rounds up to whole alignment units: that must not wrap to a small block.
    EXPECT_THROW(aligned_host_allocation::allocate(~std::size_t{0} - 8, 4096), gpukit::memory_error);
}

TEST(MemoryChecks, HostAndManagedFlagsAreChecked) {
    expect_logic_error([] { pagelocked_host_allocation::allocate(64, 8); }, "unknown bits");
    expect_logic_error([] { managed_allocation::allocate(64, 0); }, "GLOBAL (1) or HOST (2)");
    expect_logic_error([] { managed_allocation::allocate(64, CU_MEM_ATTACH_SINGLE); }, "GLOBAL (1) or HOST (2)");
    expect_logic_error([] { ipc_memory_handle::open(CUipcMemHandle{}, 2); }, "LAZY_ENABLE_PEER_ACCESS");
    expect_logic_error([] { get_ipc_mem_handle(0); }, "null");
}

TEST(MemoryChecks, RegisterRefusesUnalignedMemory) {
    const std::size_t page = host_page_size();
    aligned_host_allocation memory = aligned_host_allocation::allocate(3 * page, page);
    auto* base = static_cast<char*>(memory.data());
    expect_logic_error([&] { registered_host_memory::register_memory(base + 8, page, 0); }, "aligned_empty");
    expect_logic_error([&] { registered_host_memory::register_memory(base, page + 8, 0); }, "not page-aligned");
    expect_logic_error([&] { registered_host_memory::register_memory(base, 0, 0); }, "empty");
    expect_logic_error([&] { registered_host_memory::register_memory(base, page, 16); }, "unknown bits");
}

TEST(AlignedHostMemory, AlignmentAndSize) {
    for (std::size_t alignment : {1u, 2u, 8u, 64u, 4096u, 65536u}) {
        for (std::size_t bytes : {0u, 1u, 7u, 4096u, 10000u}) {
            aligned_host_allocation a = aligned_host_allocation::allocate(bytes, alignment);
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % alignment, 0u);
            EXPECT_EQ(a.size(), bytes);
            EXPECT_EQ(a.alignment(), alignment);
            std::memset(a.data(), 0xab, bytes);  // the whole range is writable
        }
    }
    expect_logic_error([] { aligned_host_allocation::allocate(16, 0); }, "power of two");
    expect_logic_error([] { aligned_host_allocation::allocate(16, 24); }, "power of two");
}

TEST(AlignedHostMemory, FreeAndMove) {
    aligned_host_allocation a = aligned_host_allocation::allocate(100, 256);
    aligned_host_allocation b = std::move(a);
    EXPECT_TRUE(a.is_freed());
    EXPECT_FALSE(b.is_freed());
    b.free();
    b.free();  // a second free does nothing
    EXPECT_TRUE(b.is_freed());
    expect_logic_error([&] { b.data(); }, "freed");
}

}  // namespace
