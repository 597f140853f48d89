// prefaulted_memory: alignment, every byte usable, pages really faulted, by the workers
// without anyone waiting (mincore), writes made meanwhile kept, freed memory reused for about
// its size within a bound and returned otherwise (RSS), and a forked child that allocates and
// frees without the parent's workers.
#include "gpukit/core/prefaulted_memory.hpp"

#include "gpukit/core/error.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {

using gpukit::prefaulted_memory;

constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t huge_page = 2 * MiB;

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

// Whether this kernel knows MADV_POPULATE_WRITE (Linux 5.14); without it nothing is faulted
// in the background, by design.
bool kernel_populates() {
    const std::size_t page = page_size();
    void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    const bool ok = madvise(p, page, MADV_POPULATE_WRITE) == 0;
    munmap(p, page);
    return ok;
}

// How many of the pages of [data, data + bytes) are mapped.
std::size_t resident_pages(const void* data, std::size_t bytes) {
    const std::size_t page = page_size();
    std::vector<unsigned char> flags((bytes + page - 1) / page);
    EXPECT_EQ(mincore(const_cast<void*>(data), bytes, flags.data()), 0);
    std::size_t resident = 0;
    for (unsigned char f : flags)
        resident += f & 1;
    return resident;
}

std::size_t rss_bytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    long total = 0, resident = 0;
    EXPECT_EQ(std::fscanf(f, "%ld %ld", &total, &resident), 2);
    std::fclose(f);
    return static_cast<std::size_t>(resident) * page_size();
}

void fill(void* data, std::size_t bytes, std::uint8_t seed) {
    auto* p = static_cast<std::uint8_t*>(data);
    for (std::size_t i = 0; i < bytes; ++i)
        p[i] = static_cast<std::uint8_t>(seed + i * 7 + (i >> 12));
}

bool holds(const void* data, std::size_t bytes, std::uint8_t seed) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    for (std::size_t i = 0; i < bytes; ++i)
        if (p[i] != static_cast<std::uint8_t>(seed + i * 7 + (i >> 12)))
            return false;
    return true;
}

TEST(PrefaultedMemory, EverySizeIsAlignedAndUsable) {
    for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4097}, huge_page - 1,
                              huge_page + 1, 37 * MiB + 123}) {
        prefaulted_memory m = prefaulted_memory::allocate(bytes);
        ASSERT_NE(m.data(), nullptr) << bytes;
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m.data()) % huge_page, 0u) << bytes;
        EXPECT_EQ(m.size(), bytes);
        fill(m.data(), bytes, static_cast<std::uint8_t>(bytes));
        m.wait_prefaulted();
        EXPECT_TRUE(holds(m.data(), bytes, static_cast<std::uint8_t>(bytes))) << bytes;
    }
}

TEST(PrefaultedMemory, BackgroundFaultingMapsEveryPage) {
    if (!kernel_populates())
        GTEST_SKIP() << "SKIPPED: this kernel has no MADV_POPULATE_WRITE (Linux 5.14)";
    const std::size_t bytes = 24 * MiB + 5;
    prefaulted_memory m = prefaulted_memory::allocate(bytes);
    m.wait_prefaulted();
    const std::size_t pages = (bytes + page_size() - 1) / page_size();
    EXPECT_EQ(resident_pages(m.data(), bytes), pages);
}

TEST(PrefaultedMemory, WorkersFaultWithoutBeingWaitedFor) {
    if (!kernel_populates())
        GTEST_SKIP() << "SKIPPED: this kernel has no MADV_POPULATE_WRITE (Linux 5.14)";
    const std::size_t bytes = 16 * MiB;
    const std::size_t pages = bytes / page_size();
    prefaulted_memory m = prefaulted_memory::allocate(bytes);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (resident_pages(m.data(), bytes) < pages && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(resident_pages(m.data(), bytes), pages);
}

TEST(PrefaultedMemory, WritesMadeWhileFaultingAreKept) {
    // The workers fault pages while this thread writes them: they must never write.
    for (int round = 0; round < 3; ++round) {
        const std::size_t bytes = 48 * MiB + 4097;
        prefaulted_memory m = prefaulted_memory::allocate(bytes);
        fill(m.data(), bytes, static_cast<std::uint8_t>(round));
        m.wait_prefaulted();
        EXPECT_TRUE(holds(m.data(), bytes, static_cast<std::uint8_t>(round)));
    }
}

// Sets the reuse limit for one test, and puts the old one back (unmapping what is kept).
class reuse_limit {
public:
    explicit reuse_limit(std::size_t bytes) : old_(prefaulted_memory::set_reuse_limit(bytes)) {}
    ~reuse_limit() {
        prefaulted_memory::set_reuse_limit(0);
        prefaulted_memory::set_reuse_limit(old_);
    }

private:
    std::size_t old_;
};

TEST(PrefaultedMemory, FreeReturnsTheMemoryWithoutReuse) {
    const reuse_limit none(0);
    const std::size_t bytes = 64 * MiB;
    const std::size_t before = rss_bytes();
    for (int i = 0; i < 40; ++i) {
        prefaulted_memory m = prefaulted_memory::allocate(bytes);
        std::memset(m.data(), i, bytes);
        if (i == 0)
            EXPECT_GE(rss_bytes(), before + bytes - MiB);
    }
    // 40 allocations of 64 MiB: nothing of them may stay mapped.
    EXPECT_LT(rss_bytes(), before + 16 * MiB);
}

TEST(PrefaultedMemory, FreeingStopsTheBackgroundFaulting) {
    // Freed at once, while the workers are still at it: they must stop before the unmap.
    const reuse_limit none(0);
    const std::size_t before = rss_bytes();
    for (int i = 0; i < 20; ++i)
        prefaulted_memory::allocate(256 * MiB).free();
    EXPECT_LT(rss_bytes(), before + 16 * MiB);
}

TEST(PrefaultedMemory, DefaultReuseLimitIsBounded) {
    const std::size_t limit = prefaulted_memory::reuse_limit();
    EXPECT_LE(limit, std::size_t{1} << 30);
    EXPECT_LE(limit, static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * page_size() / 16);
}

TEST(PrefaultedMemory, FreedMemoryIsReusedForAboutItsSize) {
    const reuse_limit room(256 * MiB);
    void* first = nullptr;
    {
        prefaulted_memory m = prefaulted_memory::allocate(40 * MiB);
        first = m.data();
        fill(m.data(), m.size(), 1);
    }
    {
        // Up to a quarter smaller: the same mapping, whole and writable.
        prefaulted_memory m = prefaulted_memory::allocate(33 * MiB);
        EXPECT_EQ(m.data(), first);
        fill(m.data(), m.size(), 2);
        m.wait_prefaulted();
        EXPECT_TRUE(holds(m.data(), m.size(), 2));
    }
    {
        // Much smaller, or larger: fresh mappings, and the kept one stays kept.
        prefaulted_memory small = prefaulted_memory::allocate(20 * MiB);
        prefaulted_memory large = prefaulted_memory::allocate(41 * MiB);
        EXPECT_NE(small.data(), first);
        EXPECT_NE(large.data(), first);
        prefaulted_memory same = prefaulted_memory::allocate(40 * MiB);
        EXPECT_EQ(same.data(), first);
    }
}

TEST(PrefaultedMemory, ReuseIsBoundedAndCanBeEmptied) {
    const reuse_limit room(96 * MiB);
    const std::size_t before = rss_bytes();
    {
        // Five blocks freed at once: only what fits the limit stays mapped.
        std::vector<prefaulted_memory> blocks;
        for (int i = 0; i < 5; ++i) {
            blocks.push_back(prefaulted_memory::allocate(32 * MiB));
            std::memset(blocks.back().data(), i + 1, 32 * MiB);
        }
    }
    EXPECT_LT(rss_bytes(), before + 96 * MiB + 16 * MiB);
    EXPECT_EQ(prefaulted_memory::set_reuse_limit(0), 96 * MiB);
    EXPECT_LT(rss_bytes(), before + 16 * MiB);
    // Larger than the limit: never kept.
    prefaulted_memory::set_reuse_limit(16 * MiB);
    {
        prefaulted_memory m = prefaulted_memory::allocate(64 * MiB);
        std::memset(m.data(), 3, 64 * MiB);
    }
    EXPECT_LT(rss_bytes(), before + 16 * MiB);
}

TEST(PrefaultedMemory, FreeMoveAndUseAfterFree) {
    prefaulted_memory a = prefaulted_memory::allocate(5 * MiB);
    void* data = a.data();
    prefaulted_memory b = std::move(a);
    EXPECT_TRUE(a.is_freed());
    EXPECT_EQ(b.data(), data);
    EXPECT_EQ(b.size(), 5 * MiB);
    b = prefaulted_memory::allocate(3);
    EXPECT_EQ(b.size(), 3u);
    b.free();
    b.free();  // a second free does nothing
    EXPECT_TRUE(b.is_freed());
    EXPECT_EQ(b.size(), 0u);
    EXPECT_THROW(b.data(), gpukit::logic_error);
    EXPECT_THROW(b.wait_prefaulted(), gpukit::logic_error);
}

TEST(PrefaultedMemory, BackgroundThreadsAreBounded) {
    EXPECT_GE(prefaulted_memory::background_threads(), 1u);
    EXPECT_LE(prefaulted_memory::background_threads(), 8u);
}

TEST(PrefaultedMemory, WorksInAForkedChild) {
    // The parent's workers do not exist in the child: memory the parent allocated (its
    // faulting possibly in progress) is freed without waiting for them, and new memory is
    // faulted by the child itself.
    const reuse_limit room(64 * MiB);
    prefaulted_memory::allocate(9 * MiB + 1).free();  // kept for reuse: the child may take it
    prefaulted_memory parents = prefaulted_memory::allocate(128 * MiB);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        alarm(60);  // a hang fails the test instead of blocking it
        parents.free();
        prefaulted_memory m = prefaulted_memory::allocate(9 * MiB + 1);
        fill(m.data(), m.size(), 42);
        m.wait_prefaulted();
        _exit(holds(m.data(), m.size(), 42) ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

}  // namespace
