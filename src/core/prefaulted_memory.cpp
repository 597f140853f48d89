#include "gpukit/core/prefaulted_memory.hpp"

#include "gpukit/core/detail/worker_pool.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/fork.hpp"
#include "gpukit/core/parallel_memcpy.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

// Linux 5.14; older C library headers do not name it. Older kernels answer EINVAL.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace gpukit {
namespace {

// The size of a transparent huge page on x86-64 and (with 4 KiB base pages) AArch64: the
// alignment that lets the kernel map the memory with huge pages, and the piece one worker
// faults at a time (a piece is one huge-page fault, or 512 small ones).
constexpr std::size_t huge_page = std::size_t{2} << 20;
// Enough threads to fault memory as fast as a copy fills it; more only contend in the kernel.
constexpr unsigned max_background_threads = 8;

std::size_t page_size() noexcept {
    static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

detail::worker_pool& fault_helpers() {
    static detail::worker_pool* instance = new detail::worker_pool(prefaulted_memory::background_threads());
    return *instance;
}

// A mapping of `length` bytes (a multiple of the page size) that starts on a huge-page
// boundary: a larger mapping is made, and its unaligned head and tail are unmapped.
char* map_aligned(std::size_t length) {
    const std::size_t slack = huge_page - page_size();
    if (length > std::numeric_limits<std::size_t>::max() - slack)
        throw memory_error("could not map " + std::to_string(length) + " bytes of host memory");
    const std::size_t reserved = length + slack;
    void* raw = mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        throw memory_error("could not map " + std::to_string(length) + " bytes of host memory (mmap failed)");
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::size_t head = (huge_page - start % huge_page) % huge_page;
    char* aligned = static_cast<char*>(raw) + head;
    if (head)
        munmap(raw, head);
    if (reserved - head > length)
        munmap(aligned + length, reserved - head - length);
    return aligned;
}

// Freed mappings kept for the next allocation of about their size, as glibc keeps freed
// heap blocks below 32 MiB: a loop of get() calls then fills memory whose pages are
// mapped already, instead of paying again for the kernel to find and zero every page (at
// ~40 GB/s with every core on it, the copy's own speed). A kept mapping is marked
// MADV_FREE, so the kernel may still take its pages back when memory runs short (the next
// user then faults them again: correct, only slower). The bytes kept are bounded by
// limit(); the oldest mapping goes first. Locked around fork() (pthread_atfork), so that a
// child finds the list whole and can use it.
class reuse_cache {
public:
    static reuse_cache& instance() {
        static reuse_cache* cache = new reuse_cache();  // never destroyed: used by frees at exit
        return *cache;
    }

    // A kept mapping of `length` bytes up to a quarter more (a larger one would waste what
    // it has beyond), the smallest such; {nullptr, 0} when none is kept.
    std::pair<char*, std::size_t> take(std::size_t length) noexcept {
        std::lock_guard lock(mutex_);
        std::size_t best = count_;
        for (std::size_t k = 0; k < count_; ++k)
            if (kept_[k].mapped >= length && kept_[k].mapped - length <= length / 4 &&
                (best == count_ || kept_[k].mapped < kept_[best].mapped))
                best = k;
        if (best == count_)
            return {nullptr, 0};
        const block taken = kept_[best];
        remove(best);
        return {taken.data, taken.mapped};
    }

    // Keeps the mapping, or unmaps it when it does not fit the limit; unmaps the oldest
    // kept mappings to make room.
    void give(char* data, std::size_t mapped) noexcept {
        if (mapped > limit() || madvise(data, mapped, MADV_FREE) != 0) {
            munmap(data, mapped);
            return;
        }
        std::array<block, max_blocks + 1> evicted{};
        std::size_t evicted_count = 0;
        {
            std::lock_guard lock(mutex_);
            while (count_ > 0 && (count_ == max_blocks || bytes_ + mapped > limit_)) {
                evicted[evicted_count++] = kept_[0];
                remove(0);
            }
            if (bytes_ + mapped <= limit_) {
                kept_[count_++] = {data, mapped};
                bytes_ += mapped;
            } else {
                evicted[evicted_count++] = {data, mapped};  // the limit fell meanwhile
            }
        }
        for (std::size_t k = 0; k < evicted_count; ++k)
            munmap(evicted[k].data, evicted[k].mapped);
    }

    std::size_t limit() noexcept {
        std::lock_guard lock(mutex_);
        return limit_;
    }

    // Sets the limit; unmaps what no longer fits (everything, for 0). Returns the old one.
    std::size_t set_limit(std::size_t bytes) noexcept {
        std::array<block, max_blocks> evicted{};
        std::size_t evicted_count = 0, old = 0;
        {
            std::lock_guard lock(mutex_);
            old = std::exchange(limit_, bytes);
            while (count_ > 0 && bytes_ > limit_) {
                evicted[evicted_count++] = kept_[0];
                remove(0);
            }
        }
        for (std::size_t k = 0; k < evicted_count; ++k)
            munmap(evicted[k].data, evicted[k].mapped);
        return old;
    }

private:
    struct block {
        char* data = nullptr;
        std::size_t mapped = 0;
    };
    static constexpr std::size_t max_blocks = 8;

    reuse_cache() {
        // 1 GiB, or a sixteenth of the machine's memory where that is less.
        const long pages = sysconf(_SC_PHYS_PAGES);
        const std::size_t physical = pages > 0 ? static_cast<std::size_t>(pages) * page_size() : 0;
        limit_ = std::min(std::size_t{1} << 30, physical / 16);
        pthread_atfork([] { instance().mutex_.lock(); }, [] { instance().mutex_.unlock(); },
                       [] { instance().mutex_.unlock(); });
    }

    // Removes kept_[k], keeping the rest oldest first. Called with the mutex held.
    void remove(std::size_t k) noexcept {
        bytes_ -= kept_[k].mapped;
        for (std::size_t j = k + 1; j < count_; ++j)
            kept_[j - 1] = kept_[j];
        --count_;
    }

    std::mutex mutex_;
    std::array<block, max_blocks> kept_{};  // oldest first
    std::size_t count_ = 0;
    std::size_t bytes_ = 0;
    std::size_t limit_ = 0;
};

}  // namespace

// The background faulting of one allocation. Workers (and wait_prefaulted's caller) claim
// huge_page pieces from the front under the mutex until none is left or the job is stopped;
// free() stops it and waits for the pieces in progress before the memory is unmapped, so no
// worker ever touches memory that is gone. Workers hold the job by shared_ptr: one that
// starts after free() finds it stopped and returns.
struct detail::prefault_job {
    prefault_job(char* begin, std::size_t bytes) : begin(begin), bytes(bytes) {}

    void fault_pieces() {
        if (forked_away())
            return;
        std::unique_lock lock(mutex);
        while (!stopped && next < bytes) {
            const std::size_t offset = next;
            const std::size_t length = std::min(huge_page, bytes - offset);
            next += length;
            ++in_flight;
            lock.unlock();
            const bool faulted = madvise(begin + offset, length, MADV_POPULATE_WRITE) == 0;
            lock.lock();
            // Any failure (an older kernel, no memory left) leaves the rest to fault on first touch.
            stopped = stopped || !faulted;
            if (--in_flight == 0)
                idle.notify_all();
        }
    }

    // Waits until no piece is in progress and, unless `stop`, none is left. (Locking a
    // std::mutex that this job owns cannot fail, hence noexcept.)
    void wait(bool stop) noexcept {
        if (forked_away())
            return;
        std::unique_lock lock(mutex);
        stopped = stopped || stop;
        idle.wait(lock, [this] { return in_flight == 0 && (stopped || next >= bytes); });
    }

    // True in a child made by fork() after this job was made. The child has none of the
    // workers: its copy of the counts (and of the mutex, if a worker held it at the fork)
    // stays as the fork left it, so the child neither locks nor waits, and pages it
    // touches fault as usual.
    bool forked_away() const noexcept { return fork_generation() != created_in; }

    char* const begin;
    const std::size_t bytes;
    const std::uint64_t created_in = fork_generation();
    std::mutex mutex;
    std::condition_variable idle;
    std::size_t next = 0;    // the offset of the first piece nobody has claimed
    unsigned in_flight = 0;  // pieces being faulted now
    bool stopped = false;
};

std::size_t prefaulted_memory::reuse_limit() noexcept { return reuse_cache::instance().limit(); }

std::size_t prefaulted_memory::set_reuse_limit(std::size_t bytes) noexcept {
    return reuse_cache::instance().set_limit(bytes);
}

unsigned prefaulted_memory::background_threads() noexcept {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp(hardware - std::min(hardware, parallel_memcpy_threads()), 1u, max_background_threads);
}

prefaulted_memory prefaulted_memory::allocate(std::size_t bytes) {
    const std::size_t page = page_size();
    if (bytes > std::numeric_limits<std::size_t>::max() - page)
        throw memory_error("could not map " + std::to_string(bytes) + " bytes of host memory");
    const std::size_t length = std::max<std::size_t>(1, (bytes + page - 1) / page) * page;
    auto [data, mapped] = reuse_cache::instance().take(length);
    if (!data) {
        data = map_aligned(length);
        mapped = length;
        // Fails only where the kernel has no transparent huge pages at all; the memory then
        // simply keeps small pages. With THP "never" the advice is accepted and has no effect.
        madvise(data, mapped, MADV_HUGEPAGE);
    }
    // Owns the mapping from here on, so that a failure below gives it back. The workers also
    // run over a reused mapping: they pass its mapped pages quickly and fault again those the
    // kernel took back.
    prefaulted_memory memory(data, bytes, mapped, nullptr);
    memory.job_ = std::make_shared<detail::prefault_job>(data, mapped);
    const std::size_t pieces = (mapped + huge_page - 1) / huge_page;
    const unsigned helpers = static_cast<unsigned>(std::min<std::size_t>(fault_helpers().workers(), pieces));
    for (unsigned i = 0; i < helpers; ++i)
        fault_helpers().submit([job = memory.job_] { job->fault_pieces(); });
    return memory;
}

prefaulted_memory::prefaulted_memory(void* data, std::size_t size, std::size_t mapped,
                                     std::shared_ptr<detail::prefault_job> job) noexcept
    : data_(data), size_(size), mapped_(mapped), job_(std::move(job)) {}

prefaulted_memory::prefaulted_memory(prefaulted_memory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)), job_(std::move(other.job_)) {}

prefaulted_memory& prefaulted_memory::operator=(prefaulted_memory&& other) noexcept {
    if (this != &other) {
        free();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        mapped_ = std::exchange(other.mapped_, 0);
        job_ = std::move(other.job_);
    }
    return *this;
}

prefaulted_memory::~prefaulted_memory() { free(); }

void* prefaulted_memory::data() const {
    if (!data_)
        throw logic_error("this PrefaultedHostMemory has been freed; it can no longer be used");
    return data_;
}

void prefaulted_memory::wait_prefaulted() const {
    if (!data_)
        throw logic_error("this PrefaultedHostMemory has been freed; it can no longer be used");
    // The caller helps rather than only waiting: the workers may be busy with other memory.
    job_->fault_pieces();
    job_->wait(false);
}

void prefaulted_memory::free() noexcept {
    if (!data_)
        return;
    if (job_)
        job_->wait(true);
    reuse_cache::instance().give(static_cast<char*>(data_), mapped_);
    data_ = nullptr;
    size_ = 0;
    mapped_ = 0;
    job_.reset();
}

}  // namespace gpukit
