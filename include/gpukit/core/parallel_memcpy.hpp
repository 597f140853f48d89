// A memcpy split over a few CPU threads.
//
// One thread cannot saturate the memory bandwidth of a server CPU, and a copy into freshly
// allocated (not yet touched) memory also pays for page faults, which several threads take
// in parallel. Large copies are therefore cut into pieces of at least
// parallel_memcpy_min_piece bytes that a small pool of worker threads copies together with
// the calling thread. The pool is started on first use and shared by all callers; it is
// thread-safe.
//
// A copy into memory the program will not read soon (a large destination such as a numpy
// array being filled from the device) can bypass the CPU caches with streaming stores: the
// cache lines are then written without first being read, which saves a third of the memory
// traffic.
#pragma once

#include <cstddef>

namespace gpukit {

// The smallest piece one thread copies (1 MiB): a copy shorter than twice this runs on the
// calling thread alone.
inline constexpr std::size_t parallel_memcpy_min_piece = std::size_t{1} << 20;

// How the destination is written: through the caches (the data is read again soon, e.g. a
// staging buffer that a DMA engine reads next) or around them (streaming stores, where the
// CPU supports them; otherwise the same as cached).
enum class store_policy { cached, streaming };

// Same contract as std::memcpy (the ranges must not overlap); returns when all bytes are
// copied.
void parallel_memcpy(void* dst, const void* src, std::size_t bytes, store_policy policy = store_policy::cached);

// How many threads (the caller included) a large copy uses.
unsigned parallel_memcpy_threads() noexcept;

namespace detail {
// parallel_memcpy with an explicit number of pieces (at least 1), so tests can exercise the
// split whatever the machine's core count.
void parallel_memcpy_in_pieces(void* dst, const void* src, std::size_t bytes, unsigned pieces,
                               store_policy policy = store_policy::cached);
}  // namespace detail

}  // namespace gpukit
