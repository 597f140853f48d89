// Device, page-locked, registered, managed memory and copies on a real GPU, on random data
// at odd sizes and offsets.
#include "gpu_test.hpp"
#include "random_data.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/host_memory.hpp"
#include "gpukit/cuda/managed_memory.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using namespace gpukit::cuda;
using gpukit::testing::random_bytes;
using Memory = gpukit::testing::gpu_test;

TEST_F(Memory, InfoAllocateFree) {
    const memory_info before = mem_get_info();
    EXPECT_GT(before.total, 0u);
    EXPECT_LE(before.free, before.total);
    device_allocation a = device_allocation::allocate(1001);
    EXPECT_NE(a.get(), 0u);
    EXPECT_EQ(a.size(), 1001u);
    EXPECT_EQ(a.owner(), ctx->state());
    a.free();
    a.free();  // a second free does nothing
    EXPECT_TRUE(a.is_freed());
    EXPECT_THROW(a.get(), gpukit::logic_error);
    EXPECT_THROW(device_pointer{a}, gpukit::logic_error);
}

TEST_F(Memory, MoveTransfersOwnership) {
    device_allocation a = device_allocation::allocate(64);
    const CUdeviceptr address = a.get();
    device_allocation b = std::move(a);
    EXPECT_TRUE(a.is_freed());
    EXPECT_EQ(b.get(), address);
    a = std::move(b);
    EXPECT_EQ(a.get(), address);
}

TEST_F(Memory, HugeAllocationIsMemoryError) {
    EXPECT_THROW(device_allocation::allocate(std::size_t{1} << 60), gpukit::memory_error);
}

TEST_F(Memory, FreeFromAnotherCurrentContext) {
    device_allocation a = device_allocation::allocate(256);
    context other = device::get(0).make_context();  // now current
    a.free();                                       // makes its own context current for the call
    other.detach();
    EXPECT_TRUE(a.is_freed());
}

TEST_F(Memory, RoundTripAtOddSizesAndOffsets) {
    for (std::size_t size : {1u, 3u, 1001u, 65537u}) {
        for (std::size_t offset : {0u, 1u, 7u}) {
            const auto data = random_bytes(size, static_cast<unsigned>(size + offset));
            device_allocation a = device_allocation::allocate(size + offset);
            device_allocation b = device_allocation::allocate(size + offset);
            memcpy_htod(device_pointer(a.get() + offset, size), data.data(), size);
            memcpy_dtod(device_pointer(b.get() + offset, size), device_pointer(a.get() + offset, size), size);
            std::vector<std::uint8_t> back(size);
            memcpy_dtoh(back.data(), device_pointer(b.get() + offset, size), size);
            EXPECT_EQ(back, data) << size << " bytes at offset " << offset;
        }
    }
}

TEST_F(Memory, AsyncRoundTripThroughPagelockedMemory) {
    const std::size_t size = 12345;
    const auto data = random_bytes(size, 7);
    pagelocked_host_allocation src = pagelocked_host_allocation::allocate(size, 0);
    pagelocked_host_allocation dst = pagelocked_host_allocation::allocate(size, CU_MEMHOSTALLOC_PORTABLE);
    EXPECT_EQ(dst.flags() & CU_MEMHOSTALLOC_PORTABLE, static_cast<unsigned>(CU_MEMHOSTALLOC_PORTABLE));
    std::memcpy(src.data(), data.data(), size);
    device_allocation a = device_allocation::allocate(size);
    device_allocation b = device_allocation::allocate(size);
    stream s = stream::create();
    memcpy_htod_async(a, src.data(), size, s);
    memcpy_dtod_async(b, a, size, s);
    memcpy_dtoh_async(dst.data(), b, size, s);
    s.synchronize();
    EXPECT_EQ(std::memcmp(dst.data(), data.data(), size), 0);
    src.free();
    src.free();
    EXPECT_THROW(src.data(), gpukit::logic_error);
}

TEST_F(Memory, PeerCopyWithinOneContext) {
    const auto data = random_bytes(999, 3);
    device_allocation a = device_allocation::allocate(999);
    device_allocation b = device_allocation::allocate(999);
    memcpy_htod(a, data.data(), 999);
    memcpy_peer(b, *ctx, a, *ctx, 999);
    std::vector<std::uint8_t> back(999);
    memcpy_dtoh(back.data(), b, 999);
    EXPECT_EQ(back, data);
    memset_d8(b, 0, 999);
    stream s = stream::create();
    memcpy_peer_async(b, *ctx, a, *ctx, 999, s);
    s.synchronize();
    memcpy_dtoh(back.data(), b, 999);
    EXPECT_EQ(back, data);
}

TEST_F(Memory, Memsets) {
    const std::size_t count = 1001;
    device_allocation a = device_allocation::allocate(count * 4 + 4);
    std::vector<std::uint32_t> back32(count);
    memset_d32(device_pointer(a.get() + 4, count * 4), 0xdeadbeef, count);
    memcpy_dtoh(back32.data(), device_pointer(a.get() + 4), count * 4);
    for (auto v : back32)
        ASSERT_EQ(v, 0xdeadbeefu);

    std::vector<std::uint16_t> back16(count);
    memset_d16(a, 0x1234, count);
    memcpy_dtoh(back16.data(), a, count * 2);
    for (auto v : back16)
        ASSERT_EQ(v, 0x1234u);

    stream s = stream::create();
    memset_d8_async(device_pointer(a.get() + 1), 0x5a, 3, s);
    memset_d16_async(a, 0x7777, 0, s);  // nothing
    memset_d32_async(device_pointer(a.get() + 8), 0x01020304, 2, s);
    s.synchronize();
    std::vector<std::uint8_t> bytes(16);
    memcpy_dtoh(bytes.data(), a, 16);
    const std::vector<std::uint8_t> expected{0x34, 0x5a, 0x5a, 0x5a, 0x34, 0x12, 0x34, 0x12,
                                             0x04, 0x03, 0x02, 0x01, 0x04, 0x03, 0x02, 0x01};
    EXPECT_EQ(bytes, expected);
}

TEST_F(Memory, PitchAllocationAnd2dMemset) {
    auto [a, pitch] = device_allocation::allocate_pitch(100, 5, 4);
    EXPECT_GE(pitch, 100u);
    EXPECT_EQ(a.size(), pitch * 5);
    const auto fill = random_bytes(pitch * 5, 11);
    memcpy_htod(a, fill.data(), fill.size());
    memset_d2d32(a, pitch, 0xcafef00d, 10, 5);  // 40 bytes of every row
    memset_d2d8(device_pointer(a.get() + 40), pitch, 0x11, 3, 5);
    std::vector<std::uint8_t> back(pitch * 5);
    memcpy_dtoh(back.data(), a, back.size());
    for (std::size_t row = 0; row < 5; ++row) {
        for (std::size_t i = 0; i < 40; i += 4) {
            std::uint32_t v;
            std::memcpy(&v, &back[row * pitch + i], 4);
            ASSERT_EQ(v, 0xcafef00du);
        }
        for (std::size_t i = 40; i < 43; ++i)
            ASSERT_EQ(back[row * pitch + i], 0x11);
        for (std::size_t i = 43; i < pitch; ++i)
            ASSERT_EQ(back[row * pitch + i], fill[row * pitch + i]) << "row " << row << " byte " << i;
    }
    stream s = stream::create();
    memset_d2d16_async(a, pitch, 0xabcd, 2, 5, s);
    s.synchronize();
    memcpy_dtoh(back.data(), a, back.size());
    EXPECT_EQ(back[4 * pitch], 0xcd);
    EXPECT_EQ(back[4 * pitch + 3], 0xab);
}

TEST_F(Memory, RegisteredHostMemory) {
    const std::size_t page = host_page_size();
    aligned_host_allocation host = aligned_host_allocation::allocate(2 * page, page);
    const auto data = random_bytes(2 * page, 5);
    std::memcpy(host.data(), data.data(), data.size());
    registered_host_memory reg = registered_host_memory::register_memory(host.data(), 2 * page, 0);
    device_allocation a = device_allocation::allocate(2 * page);
    stream s = stream::create();
    memcpy_htod_async(a, reg.data(), 2 * page, s);
    std::memset(host.data(), 0, 2 * page);
    s.synchronize();
    memcpy_dtoh_async(reg.data(), a, 2 * page, s);
    s.synchronize();
    EXPECT_EQ(std::memcmp(host.data(), data.data(), data.size()), 0);
    reg.unregister();
    reg.unregister();
    EXPECT_THROW(reg.data(), gpukit::logic_error);
}

// Arrays at any alignment, page-locked by the pages they span: two sharing a page (one run),
// one on pages of its own, read and written through their device addresses.
TEST_F(Memory, RegisteredHostPages) {
    const std::size_t page = host_page_size();
    std::vector<std::uint8_t> host(5 * page);
    std::uint8_t* base = host.data();
    const host_range ranges[] = {{base + 100, 1000}, {base + 1200, 300}, {base + 3 * page + 7, page}};
    registered_host_pages pages = registered_host_pages::register_ranges(ranges, CU_MEMHOSTREGISTER_DEVICEMAP);
    EXPECT_GE(pages.run_count(), 2u);
    const auto data = random_bytes(host.size(), 6);
    std::memcpy(base, data.data(), data.size());
    for (const host_range& r : ranges) {
        const auto* first = static_cast<const std::uint8_t*>(r.data);
        std::vector<std::uint8_t> back(r.bytes);
        memcpy_dtoh(back.data(), device_pointer(pages.device_pointer(first), r.bytes), r.bytes);
        EXPECT_EQ(std::memcmp(back.data(), first, r.bytes), 0);
        const auto zeros = std::vector<std::uint8_t>(r.bytes, 0);
        memcpy_htod(device_pointer(pages.device_pointer(first), r.bytes), zeros.data(), r.bytes);
        EXPECT_EQ(std::memcmp(first, zeros.data(), r.bytes), 0);  // the device wrote the host's memory
    }
    EXPECT_THROW(pages.device_pointer(base + 2 * page), gpukit::logic_error);  // a page no range touches
    pages.unregister();
    pages.unregister();
    EXPECT_THROW(pages.device_pointer(base + 100), gpukit::logic_error);
    // Registered again once released.
    registered_host_pages again = registered_host_pages::register_ranges(ranges, 0);
    EXPECT_GE(again.run_count(), 2u);
}

TEST_F(Memory, ManagedMemory) {
    if (!device::get(0).attribute(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY))
        GTEST_SKIP() << "device 0 does not support managed memory";
    const auto data = random_bytes(4097, 9);
    managed_allocation m = managed_allocation::allocate(data.size(), CU_MEM_ATTACH_GLOBAL);
    EXPECT_EQ(reinterpret_cast<CUdeviceptr>(m.data()), m.device_pointer());
    std::memcpy(m.data(), data.data(), data.size());
    device_allocation a = device_allocation::allocate(data.size());
    memcpy_dtod(a, device_pointer(m.device_pointer(), m.size()), data.size());
    std::vector<std::uint8_t> back(data.size());
    memcpy_dtoh(back.data(), a, back.size());
    EXPECT_EQ(back, data);
    stream s = stream::create();
    m.attach(CU_MEM_ATTACH_SINGLE, s);
    s.synchronize();
    EXPECT_THROW(m.attach(CU_MEM_ATTACH_SINGLE, stream_view{}), gpukit::logic_error);
    const memory_info info = mem_get_info();
    EXPECT_THROW(managed_allocation::allocate(info.free + (std::size_t{1} << 30), CU_MEM_ATTACH_GLOBAL),
                 gpukit::memory_error);
    m.free();
    EXPECT_THROW(m.device_pointer(), gpukit::logic_error);
}

}  // namespace
