// What the memory pool needs from whatever really allocates memory: CUDA device memory,
// page-locked host memory, OpenCL buffers and SVM, or the null allocator of the tests.
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace gpukit::memory {

// An allocator hands out blocks of exactly the size asked for.
//
// - pointer_type names a block (a CUdeviceptr, a void*, a cl_mem, ...). It is cheap to copy;
//   its value-initialized value (pointer_type{}) is the "no block" value of empty handles,
//   and never names a real block.
// - allocate(size) returns a new block. It reports a shortage of memory by throwing
//   gpukit::memory_error, and only then: that exception is how the pool knows that giving
//   memory back may help, so it releases a held block and calls allocate again. Any other
//   exception reaches the caller unchanged, without a retry. An allocator that cannot tell
//   out-of-memory at allocation time (OpenCL's deferred allocation) still works, but the
//   pool cannot recover from its shortages.
// - free(block, size) gives a block back; size is the size it was allocated with. It never
//   throws, and must cope with being called late in process shutdown (report through
//   gpukit::cleanup_warning rather than abort).
// - The pool calls allocate and free without holding its lock, so several threads may call
//   them at once: they must be thread-safe.
template <class A>
concept allocator = std::move_constructible<A> && std::regular<typename A::pointer_type> &&
    std::is_nothrow_copy_constructible_v<typename A::pointer_type> &&
    requires(A& a, typename A::pointer_type block, std::size_t size) {
    { a.allocate(size) } -> std::same_as<typename A::pointer_type>;
    { a.free(block, size) }
    noexcept;
};

}  // namespace gpukit::memory
