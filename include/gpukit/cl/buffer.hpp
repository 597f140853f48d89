// OpenCL buffers and the copies between them and host memory.
#pragma once

#include "gpukit/cl/context.hpp"
#include "gpukit/cl/detail/retained.hpp"
#include "gpukit/cl/event.hpp"
#include "gpukit/cl/queue.hpp"

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace gpukit::cl {

// Owns one reference to a cl_mem buffer; move-only.
class buffer {
public:
    // A buffer of `size` bytes. `flags` are CL_MEM_* bits: at most one of READ_WRITE,
    // WRITE_ONLY, READ_ONLY; at most one of HOST_WRITE_ONLY, HOST_READ_ONLY, HOST_NO_ACCESS;
    // COPY_HOST_PTR or USE_HOST_PTR exactly when `host_ptr` is given. USE_HOST_PTR memory
    // must outlive every use of the buffer, which may be later than this object: give
    // `host_owner` (what owns that memory) and it is kept until OpenCL destroys the buffer,
    // after its last command. OpenCL may drop it on a thread of its own (see
    // event::keep_until_complete for what that asks of the owner). COPY_HOST_PTR reads the
    // memory here only and ignores `host_owner`.
    static buffer create(const context& ctx, cl_mem_flags flags, size_t size, void* host_ptr = nullptr,
                         std::shared_ptr<void> host_owner = {});
    // Takes over one reference to `handle`, a buffer of at least `size` bytes created with
    // `flags` (the memory of an allocator, or a pool's block retained for a pooled_buffer).
    static buffer adopt(cl_mem handle, size_t size, cl_mem_flags flags) noexcept {
        return buffer(detail::retained<cl_mem>(handle, detail::adopt), size, flags);
    }

    // Another owner of the existing buffer `handle`, as context::wrap; other memory objects
    // (images, pipes) are refused (cl::logic_error).
    static buffer wrap(cl_mem handle, bool retain = true);

    // Takes over the other buffer's reference; the other's handle becomes null.
    buffer(buffer&&) noexcept = default;
    // Drops this buffer's reference and takes over the other's, whose handle becomes null.
    buffer& operator=(buffer&&) noexcept = default;

    // The cl_mem handle (not a new reference); null once released or moved from.
    cl_mem handle() const noexcept { return handle_.get(); }
    // The size in bytes (a pool's block: the block's size, which may exceed the size asked for).
    size_t size() const noexcept { return size_; }
    // The CL_MEM_* flags the buffer was created with (a sub-buffer: its access flags).
    cl_mem_flags flags() const noexcept { return flags_; }

    // The `size` bytes from byte `origin` as a buffer of their own (OpenCL 1.1's sub-buffer,
    // which keeps this buffer alive). `flags` 0 takes this buffer's access flags. `origin` must
    // be a multiple of the devices' CL_DEVICE_MEM_BASE_ADDR_ALIGN (in bits) / 8; OpenCL refuses
    // others (cl::logic_error, CL_MISALIGNED_SUB_BUFFER_OFFSET), and a region outside the
    // buffer or of 0 bytes is refused before.
    buffer sub_region(size_t origin, size_t size, cl_mem_flags flags = 0) const;

    // clGetMemObjectInfo: the raw bytes of `param` (CL_MEM_SIZE, CL_MEM_FLAGS, ...). Throws
    // cl::logic_error when the buffer was released.
    std::vector<std::byte> info_bytes(cl_mem_info param) const;

protected:
    // Drops this object's reference now; the handle becomes null.
    void release() noexcept { handle_.reset(); }
    // Forgets the handle without releasing a reference: for a derived class whose buffer part
    // borrows a handle that someone else owns (a pool's block, see pooled_buffer).
    void forget() noexcept { handle_.forget(); }

private:
    buffer(detail::retained<cl_mem> handle, size_t size, cl_mem_flags flags) noexcept
        : handle_(std::move(handle)), size_(size), flags_(flags) {}

    detail::retained<cl_mem> handle_;
    size_t size_ = 0;
    cl_mem_flags flags_ = 0;
};

// Throws cl::logic_error when `flags` is not a valid buffer flag combination for `host_ptr`.
void check_mem_flags(cl_mem_flags flags, bool has_host_ptr);

// Copies `bytes` from host memory into `dst` at `dst_offset`. Not blocking: `src` must stay
// valid until the returned event has completed (event::keep_until_complete can see to that).
event enqueue_write(const queue& q, const buffer& dst, size_t dst_offset, const void* src, size_t bytes, bool blocking,
                    std::span<const cl_event> wait_for = {});
// Copies `bytes` from `src` at `src_offset` to host memory. Not blocking: `dst` must stay
// valid and untouched until the returned event has completed.
event enqueue_read(const queue& q, const buffer& src, size_t src_offset, void* dst, size_t bytes, bool blocking,
                   std::span<const cl_event> wait_for = {});
// Fills `size` bytes of `dst` from byte `offset` with copies of `pattern` (1, 2, 4, ..., 128
// bytes; `offset` and `size` multiples of its length). OpenCL copies the pattern here, so it
// need not outlive the call. cl::logic_error for another pattern length or a range outside.
event enqueue_fill(const queue& q, const buffer& dst, std::span<const std::byte> pattern, size_t offset, size_t size,
                   std::span<const cl_event> wait_for = {});
// What enqueue_fill and SVM's fill require of a pattern and a size; cl::logic_error naming
// `routine` otherwise.
void check_fill(std::span<const std::byte> pattern, size_t offset, size_t size, const char* routine);
// Copies `bytes` between buffers on the device; never blocks.
event enqueue_copy(const queue& q, const buffer& src, const buffer& dst, size_t src_offset, size_t dst_offset,
                   size_t bytes, std::span<const cl_event> wait_for = {});

// One side of a rectangular copy (OpenCL 1.1's clEnqueue*BufferRect): memory seen as slices of
// rows of bytes. `origin` is the first byte's position (byte in row, row, slice); a pitch of 0
// is the tight one (row_pitch: the region's row length; slice_pitch: its rows times row_pitch).
struct rect_side {
    // The first byte's position: (byte in row, row, slice).
    std::array<size_t, 3> origin{};
    // Bytes from one row to the next; 0: the region's row length.
    size_t row_pitch = 0, slice_pitch = 0;  // bytes from one slice to the next; 0: the region's rows times row_pitch
};

// The box a rectangular copy moves: bytes per row, rows, slices (each at least 1).
using rect_region = std::array<size_t, 3>;

// The bytes from the start of memory up to and including the last byte `side` touches for
// `region`: memory smaller than this is too small for the copy. Resolves pitches of 0 in
// `side` to the tight ones, and throws cl::logic_error (CL_INVALID_VALUE, naming `routine` and
// `role`) for an empty region or pitches OpenCL refuses (a row pitch below the row's bytes, a
// slice pitch below its rows or not a multiple of the row pitch).
size_t rect_extent(rect_side& side, const rect_region& region, const char* routine, const char* role);

// Copies the `region` from host memory `src` (`host_bytes` long, laid out as `host_side`) into
// `dst` (laid out as `buffer_side`). As enqueue_write, `src` must stay valid until the returned
// event has completed. Throws cl::logic_error, before anything is queued, for a released
// buffer, bad pitches or a side that does not lie within its memory.
event enqueue_write_rect(const queue& q, const buffer& dst, rect_side buffer_side, const void* src, size_t host_bytes,
                         rect_side host_side, const rect_region& region, bool blocking,
                         std::span<const cl_event> wait_for = {});
// Copies the `region` of `src` (laid out as `buffer_side`) into host memory `dst` (`host_bytes`
// long, laid out as `host_side`), which must stay untouched until the event has completed.
// Throws as enqueue_write_rect.
event enqueue_read_rect(const queue& q, const buffer& src, rect_side buffer_side, void* dst, size_t host_bytes,
                        rect_side host_side, const rect_region& region, bool blocking,
                        std::span<const cl_event> wait_for = {});
// Copies the `region` from `src` (laid out as `src_side`) to `dst` (laid out as `dst_side`) on
// the device; never blocks. Throws as enqueue_write_rect.
event enqueue_copy_rect(const queue& q, const buffer& src, rect_side src_side, const buffer& dst, rect_side dst_side,
                        const rect_region& region, std::span<const cl_event> wait_for = {});

// Bytes of a buffer mapped into host memory (clEnqueueMapBuffer), unmapped by unmap() or,
// failing that, by the destructor (on the queue it was mapped on, without waiting; a failure
// becomes a cleanup warning). It keeps the buffer and that queue alive. data() may be read or
// written as `flags` allow once the map's event has completed, and not after unmap(): the
// memory may then be gone. Move-only.
class mapped_region {
public:
    // Maps `size` bytes of `buf` from byte `offset` for `flags` (CL_MAP_READ and/or
    // CL_MAP_WRITE, or CL_MAP_WRITE_INVALIDATE_REGION alone). With `blocking`, the bytes are
    // there on return; otherwise once the returned event has completed. cl::logic_error for
    // other flags, 0 bytes, a range outside the buffer or a released buffer.
    static std::pair<mapped_region, event> map(const queue& q, const buffer& buf, cl_map_flags flags, size_t offset,
                                               size_t size, bool blocking, std::span<const cl_event> wait_for = {});

    // Takes over the mapping of `other`, which is left unmapped.
    mapped_region(mapped_region&& other) noexcept
        : buffer_(std::move(other.buffer_)), queue_(std::move(other.queue_)),
          data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    // Unmaps this region as the destructor does, then takes over the mapping of `other`, which
    // is left unmapped.
    mapped_region& operator=(mapped_region&& other) noexcept;
    // Unmaps the bytes if unmap() was not called (see the class comment).
    ~mapped_region();

    // The host address of the mapped bytes; null once unmapped.
    void* data() const noexcept { return data_; }
    // The number of bytes mapped; 0 for a region moved from.
    size_t size() const noexcept { return size_; }
    // True until unmap() (or a move) hands the mapping on or ends it.
    bool is_mapped() const noexcept { return data_ != nullptr; }

    // Unmaps on `q` (a queue of the buffer's context; the mapping queue when null) after
    // `wait_for`; the returned event completes when the bytes are back in the buffer.
    // cl::logic_error when already unmapped.
    event unmap(const queue* q = nullptr, std::span<const cl_event> wait_for = {});

private:
    mapped_region(detail::retained<cl_mem> buf, detail::retained<cl_command_queue> q, void* data, size_t size) noexcept
        : buffer_(std::move(buf)), queue_(std::move(q)), data_(data), size_(size) {}
    void unmap_now() noexcept;

    detail::retained<cl_mem> buffer_;
    detail::retained<cl_command_queue> queue_;
    void* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace gpukit::cl
