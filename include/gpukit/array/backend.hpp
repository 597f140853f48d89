// gpukit::array::backend: what the array engine needs from a device, as one small interface.
//
// The engine describes a kernel once (elementwise_spec, ...) and generates its text in the
// backend's language: CUDA C for cuda_backend, OpenCL C for opencl_backend. A backend
// allocates array memory, copies it to and from the host, compiles and caches generated
// kernels, launches them, and waits for its work:
//
//     array::opencl_backend cl_side(ctx, queue);          // or array::cuda_backend cuda_side;
//     array::ndarray x = array::ndarray::empty(cl_side, {n}, array::dtype::float32);
//     cl_side.write(*x.buffer(), 0, std::as_bytes(std::span(values)));
//     array::run(spec, args, cl_side);                     // elementwise.hpp
//
// Array memory: a device_buffer's `space` says which kind of backend made it, and only that
// kind runs kernels on it (logic_error otherwise). An array argument of a kernel is its buffer
// and a byte offset; each backend passes it as its language takes it: one pointer in CUDA C, a
// buffer and a byte offset in OpenCL C (an OpenCL buffer has no address the host can offset).
//
// Elementwise kernels, reductions, generic scans, sorts and indexed copies run through the
// seam on both backends; PyCUDA's look-back scans, strided take and copies between layouts
// still call CUDA directly.
#pragma once

#include "gpukit/array/ndarray.hpp"
#include "gpukit/core/c_text.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace gpukit::array {

// One launch argument: an array's memory (its buffer and a byte offset into it), or the
// bytes of a value (a scalar, a struct of strides), which must stay valid during launch().
struct kernel_argument {
    const device_buffer* buffer = nullptr;  // an array's memory; nullptr for a value
    std::int64_t offset = 0;                // bytes from the buffer's start
    const void* value = nullptr;            // a value's bytes
    std::size_t size = 0;                   // the number of bytes at `value`; 0 for memory

    // The argument of an array whose first element lies `offset` bytes into buffer `b`.
    static kernel_argument memory(const device_buffer& b, std::int64_t offset) noexcept {
        return {&b, offset, nullptr, 0};
    }
    // The argument of a value: the `size` bytes at `value` (not copied: they must stay valid
    // during launch()).
    static kernel_argument bytes(const void* value, std::size_t size) noexcept { return {nullptr, 0, value, size}; }
};

// `groups_x` by `groups_y` work groups (CUDA's blocks) of `group_size` work items (threads)
// along x.
struct launch_shape {
    unsigned groups_x = 1;    // work groups along x
    unsigned groups_y = 1;    // work groups along y
    unsigned group_size = 1;  // work items per group, all along x
};

// A kernel a backend loaded, and what launches need to know of it. Only a backend of the
// language that loaded it launches it.
struct loaded_kernel {
    std::shared_ptr<const void> handle;  // the backend's kernel object
    std::shared_ptr<const void> keep;    // what else must live while it runs (its CUDA context)

    // The language of the backend that loaded it (the only kind that may launch it).
    kernel_language language = kernel_language::cuda;
    unsigned full_grid = 1;  // groups of preferred_group_size() items that keep the device busy
    unsigned max_group = 1;  // the most work items one group of this kernel may have
    bool gpu = true;         // whether the device is a GPU (OpenCL also runs on CPUs: PoCL)
};

// The most groups a kernel that loops over its elements is launched with: on CUDA a grid
// that fills the device (the threads loop over the rest); in OpenCL one work-item per element
// up to 2^22 groups, because a CPU implementation (PoCL) vectorizes across the work-items of
// a group only where each handles one element (a device-filling grid of looping work-items
// ran x + y at half PyOpenCL's speed there), and GPUs run either well.
inline long long looping_grid_limit(const loaded_kernel& k) {
    return k.language == kernel_language::opencl ? 1LL << 22 : k.full_grid;
}

// The most groups of a looping kernel whose work items each compute much per element (a
// random generator's rounds): on a GPU twice full_grid (in OpenCL eight groups of 256 per
// compute unit, the 2048 work items an NVIDIA SM holds), since fewer work items that loop beat
// one per element there (Philox on NVIDIA's OpenCL, 2^24 floats on an H200: 21.6 against
// 27.2 us); on a CPU, looping_grid_limit, for the reason given there (PoCL ran the looping
// grid at 0.7x the speed of one work item per element).
inline long long compute_grid_limit(const loaded_kernel& k) {
    return k.gpu && k.language == kernel_language::opencl ? 2LL * k.full_grid : looping_grid_limit(k);
}

// The interface the array engine runs on (see the top of this file): a device's memory,
// copies, kernels and launches. cuda_backend and opencl_backend implement it; a device_array
// holds its backend by std::shared_ptr.
class backend {
public:
    virtual ~backend() = default;

    // The language of the kernels this backend compiles.
    virtual kernel_language language() const noexcept = 0;
    // The memory space of the buffers it allocates and runs kernels on.
    virtual memory_space space() const noexcept = 0;
    // Names the backend in messages: "CUDA", "OpenCL (pthread-...)".
    virtual std::string name() const = 0;
    // Why kernels of this backend cannot take elements of type `t` (OpenCL: float64 and
    // complex128 on a device without cl_khr_fp64), or "" when they can.
    virtual std::string type_problem(dtype t) const = 0;
    // Work items per group the engine's kernels are written for (CUDA: 256).
    virtual unsigned preferred_group_size() const noexcept = 0;

    // `bytes` of uninitialised device memory (at least 1).
    virtual std::shared_ptr<const device_buffer> allocate(std::size_t bytes) = 0;
    // Copies `src` to `dst` at byte `offset`, in order with the work queued before, and
    // returns when `src` may change. logic_error when the bytes reach outside `dst` or `dst`
    // is another backend's memory.
    virtual void write(const device_buffer& dst, std::size_t offset, std::span<const std::byte> src) = 0;
    // Copies `dst.size()` bytes from `src` at byte `offset` to `dst`, after the work queued
    // before, and returns when they are there. logic_error as write().
    virtual void read(const device_buffer& src, std::size_t offset, std::span<std::byte> dst) = 0;

    // Kernel `name` of the generated source that `key` names (one key, one source: see
    // kernel_cache.hpp's new_kernel_key), compiled and loaded on first use; `source()` is
    // called only then. The source declares its kernels itself (extern "C" in CUDA C).
    virtual loaded_kernel kernel(std::uint64_t key, const std::string& name,
                                 const std::function<std::string()>& source) = 0;
    // Queues `k` over `shape` with `args`, one per kernel parameter as the language takes them.
    virtual void launch(const loaded_kernel& k, const launch_shape& shape, std::span<const kernel_argument> args) = 0;
    // Waits for the work queued so far.
    virtual void synchronize() = 0;
};

// logic_error unless `b` is memory of `owner`'s space, and the bytes [offset, offset + size)
// lie within it: the check of every backend's copies.
void require_own_range(const backend& owner, const device_buffer& b, std::size_t offset, std::size_t size,
                       const char* what);

}  // namespace gpukit::array
