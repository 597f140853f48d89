// Fresh host memory whose pages are made ready in the background, for a large array that a
// copy from the device is about to fill.
//
// Memory from malloc (numpy.empty) has no pages yet: the first write to each 4 KiB page
// traps into the kernel, which finds, zeroes and maps a page. A copy into such memory pays
// for every one of those faults inside the copy, and runs at a fraction of the speed it
// reaches into memory that is already mapped. prefaulted_memory takes three steps against
// that:
//  - it maps its own memory, starting on a 2 MiB boundary, and asks for transparent huge
//    pages (madvise MADV_HUGEPAGE), so that where the system allows them (THP "always" or
//    "madvise") one fault maps 2 MiB instead of 4 KiB;
//  - worker threads, on cores the copy itself leaves free, fault the pages in ahead of the
//    copy with madvise(MADV_POPULATE_WRITE), 2 MiB at a time from the front, the order in
//    which a copy fills it; a copy that catches up with them faults the pages it meets
//    itself, so it never waits for the workers;
//  - freeing it keeps the mapping for the next allocation of about its size (up to a
//    quarter smaller), as glibc keeps freed heap blocks, so that a loop of copies into new
//    arrays fills mapped pages instead of faulting them all again. Kept mappings are marked
//    MADV_FREE (the kernel may take their pages back under memory pressure) and bounded by
//    reuse_limit(), the oldest unmapped first; set_reuse_limit(0) unmaps them all.
// MADV_POPULATE_WRITE (Linux 5.14) maps pages without writing to them, so the workers never
// change what the program has written meanwhile. Where it is missing, or fails (e.g. no
// memory left), the workers stop and the remaining pages fault on first touch, as with
// malloc. With THP "never" (or THP disabled for the process) the pages are 4 KiB; the
// background faulting still runs.
#pragma once

#include <cstddef>
#include <memory>

namespace gpukit {

// From this size on, malloc (glibc) always maps fresh memory for each block, whose pages all
// fault. Below it, glibc serves blocks from its heap once an earlier block of that size has
// been freed (its threshold for mapping memory rises with the sizes freed, up to 32 MiB on
// 64-bit systems), so an array made again and again, as in a loop of get() calls, reuses
// pages that are already mapped and fills as fast as existing memory: faster than any
// fresh memory, prefaulted or not (docs/performance.md has the measurements).
inline constexpr std::size_t prefaulted_memory_min_bytes = std::size_t{32} << 20;

namespace detail {
struct prefault_job;
}

// A block of fresh host memory whose pages background threads fault in ahead of the copy
// that fills it, so that the copy does not stop at every page; freed blocks keep their
// mapping for the next allocation of about their size. Move-only; the destructor frees it.
// The top of core/prefaulted_memory.hpp has the details.
class prefaulted_memory {
public:
    // `bytes` of uninitialised (in fact zero) memory, its start aligned to 2 MiB; the
    // background faulting has started when this returns. 0 bytes allocate one page, so the
    // memory always has an address. memory_error when the system has no memory to map.
    static prefaulted_memory allocate(std::size_t bytes);

    // Takes over `other`'s memory; `other` is left freed.
    prefaulted_memory(prefaulted_memory&& other) noexcept;
    // Frees this memory, then takes over `other`'s; `other` is left freed.
    prefaulted_memory& operator=(prefaulted_memory&& other) noexcept;
    // Frees the memory, as free() does.
    ~prefaulted_memory();

    // The start of the memory, aligned to 2 MiB; logic_error once freed.
    void* data() const;
    // The bytes asked for.
    std::size_t size() const noexcept { return size_; }
    // Whether the memory has been freed (or moved from): data() then throws.
    bool is_freed() const noexcept { return data_ == nullptr; }
    // Stops the background faulting (waiting for the 2 MiB pieces in progress) and gives
    // the mapping back (kept for reuse, or unmapped); a second call does nothing.
    void free() noexcept;
    // Returns once the background faulting has finished (or stopped), the calling thread
    // helping; for measurements and tests that want the faulting apart from what follows it.
    // logic_error once freed.
    void wait_prefaulted() const;

    // The most bytes of freed mappings kept for reuse: 1 GiB, or a sixteenth of the
    // machine's memory where that is less. set_reuse_limit changes it (0: keep none),
    // unmaps what no longer fits, and returns the old limit.
    static std::size_t reuse_limit() noexcept;
    // Sets the reuse limit to `bytes` (0: keep none), unmaps the oldest kept mappings until the
    // rest fit, and returns the old limit.
    static std::size_t set_reuse_limit(std::size_t bytes) noexcept;

    // How many threads fault pages in the background: the cores that parallel_memcpy
    // leaves free, at least one.
    static unsigned background_threads() noexcept;

private:
    prefaulted_memory(void* data, std::size_t size, std::size_t mapped,
                      std::shared_ptr<detail::prefault_job> job) noexcept;

    void* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t mapped_ = 0;  // the length of the mapping: size_ rounded up to whole pages, or more (reused)
    std::shared_ptr<detail::prefault_job> job_;
};

}  // namespace gpukit
