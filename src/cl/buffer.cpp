#include "gpukit/cl/buffer.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/host_owner.hpp"
#include "gpukit/cl/detail/info.hpp"
#include "gpukit/cl/detail/release.hpp"
#include "gpukit/cl/detail/wait_list.hpp"

#include <bit>
#include <cstdint>
#include <string>
#include <utility>

namespace gpukit::cl {
namespace {

constexpr cl_mem_flags access_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_mem_flags host_access_flags = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
constexpr cl_mem_flags host_ptr_flags = CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR;
constexpr cl_mem_flags known_flags = access_flags | host_access_flags | host_ptr_flags | CL_MEM_ALLOC_HOST_PTR;

[[noreturn]] void bad_flags(cl_mem_flags flags, const std::string& why) {
    throw logic_error("invalid mem_flags " + std::to_string(flags) + ": " + why, CL_INVALID_VALUE, "clCreateBuffer");
}

std::string range_text(size_t offset, size_t bytes) {
    return "bytes [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " + std::to_string(bytes) + ")";
}

void check_live(const buffer& b, const char* routine, const char* role) {
    if (!b.handle())
        throw logic_error(std::string(routine) + ": the " + role +
                              " buffer was released (a pool's block after release()); expected a live buffer",
                          CL_INVALID_MEM_OBJECT, routine);
}

void check_range(const buffer& b, size_t offset, size_t bytes, const char* routine, const char* role) {
    check_live(b, routine, role);
    if (bytes == 0)
        throw logic_error(std::string(routine) + ": the copy has 0 bytes; expected at least 1", CL_INVALID_VALUE,
                          routine);
    if (offset > b.size() || bytes > b.size() - offset)
        throw logic_error(std::string(routine) + ": " + range_text(offset, bytes) + " are outside the " + role +
                              " buffer of " + std::to_string(b.size()) + " bytes",
                          CL_INVALID_VALUE, routine);
}

// Called by OpenCL when it destroys a USE_HOST_PTR object: its host memory is free from then on.
void CL_CALLBACK drop_host_owner(cl_mem, void* owner) { delete static_cast<std::shared_ptr<void>*>(owner); }

}  // namespace

void detail::keep_until_destroyed(cl_mem handle, std::shared_ptr<void> owner) {
    auto* for_callback = new std::shared_ptr<void>(std::move(owner));
    const auto set_callback = api().clSetMemObjectDestructorCallback;
    const cl_int status = set_callback ? set_callback(handle, &drop_host_owner, for_callback) : CL_INVALID_OPERATION;
    if (status != CL_SUCCESS) {
        delete for_callback;
        throw_cl_error(status, "clSetMemObjectDestructorCallback",
                       "a USE_HOST_PTR object needs it to keep its host memory alive for as long as OpenCL uses it");
    }
}

void check_mem_flags(cl_mem_flags flags, bool has_host_ptr) {
    if (flags & ~known_flags)
        bad_flags(flags, "unknown bits " + std::to_string(flags & ~known_flags) +
                             "; expected mem_flags READ_WRITE, WRITE_ONLY, READ_ONLY, USE_HOST_PTR, ALLOC_HOST_PTR, "
                             "COPY_HOST_PTR, HOST_WRITE_ONLY, HOST_READ_ONLY, HOST_NO_ACCESS");
    if (std::popcount(flags & access_flags) > 1)
        bad_flags(flags, "expected at most one of READ_WRITE, WRITE_ONLY, READ_ONLY");
    if (std::popcount(flags & host_access_flags) > 1)
        bad_flags(flags, "expected at most one of HOST_WRITE_ONLY, HOST_READ_ONLY, HOST_NO_ACCESS");
    if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR)))
        bad_flags(flags, "USE_HOST_PTR cannot be combined with COPY_HOST_PTR or ALLOC_HOST_PTR");
    if (has_host_ptr && !(flags & host_ptr_flags))
        bad_flags(flags, "host memory was given, so expected COPY_HOST_PTR or USE_HOST_PTR");
    if (!has_host_ptr && (flags & host_ptr_flags))
        bad_flags(flags, "COPY_HOST_PTR and USE_HOST_PTR need host memory, and none was given");
}

buffer buffer::create(const context& ctx, cl_mem_flags flags, size_t size, void* host_ptr,
                      std::shared_ptr<void> host_owner) {
    check_mem_flags(flags, host_ptr != nullptr);
    if (size == 0)
        throw logic_error("creating a buffer: size is 0; expected at least 1 byte", CL_INVALID_BUFFER_SIZE,
                          "clCreateBuffer");
    buffer created = adopt(GPUKIT_CL_CREATE(clCreateBuffer, "size " + std::to_string(size) + " bytes", ctx.handle(),
                                            flags, size, host_ptr),
                           size, flags);
    if ((flags & CL_MEM_USE_HOST_PTR) && host_owner)
        detail::keep_until_destroyed(created.handle(), std::move(host_owner));
    return created;
}

buffer buffer::wrap(cl_mem handle, bool retain) {
    detail::retained<cl_mem> owned = detail::reference_to(handle, retain, "a buffer");
    auto query = [&](cl_mem_info param) {
        return [=](size_t size, void* value, size_t* size_ret) {
            return api().clGetMemObjectInfo(handle, param, size, value, size_ret);
        };
    };
    const auto type = detail::info_value<cl_mem_object_type>(query(CL_MEM_TYPE), "clGetMemObjectInfo");
    if (type != CL_MEM_OBJECT_BUFFER)
        throw logic_error("wrapping a buffer: the memory object is of type " + std::to_string(type) +
                              " (an image or a pipe), which gpukit does not support; expected a buffer (type " +
                              std::to_string(CL_MEM_OBJECT_BUFFER) + ")",
                          CL_INVALID_MEM_OBJECT, "clGetMemObjectInfo");
    const auto size = detail::info_value<size_t>(query(CL_MEM_SIZE), "clGetMemObjectInfo");
    const auto flags = detail::info_value<cl_mem_flags>(query(CL_MEM_FLAGS), "clGetMemObjectInfo");
    return buffer(std::move(owned), size, flags);
}

buffer buffer::sub_region(size_t origin, size_t size, cl_mem_flags flags) const {
    const char* routine = "clCreateSubBuffer";
    check_range(*this, origin, size, routine, "parent");
    if (flags & ~(access_flags | host_access_flags))
        throw logic_error(
            "a sub-buffer takes only access flags (READ_WRITE, WRITE_ONLY, READ_ONLY and the HOST_* "
            "ones); got " +
                std::to_string(flags),
            CL_INVALID_VALUE, routine);
    const cl_buffer_region region{origin, size};
    const std::string detail = "bytes [" + std::to_string(origin) + ", " + std::to_string(origin + size) +
                               "); the origin must be a multiple of the devices' mem_base_addr_align / 8 bytes";
    const cl_mem handle =
        GPUKIT_CL_CREATE(clCreateSubBuffer, detail, handle_.get(), flags, CL_BUFFER_CREATE_TYPE_REGION, &region);
    const cl_mem_flags inherited = flags ? flags : (flags_ & (access_flags | host_access_flags));
    return adopt(handle, size, inherited);
}

std::vector<std::byte> buffer::info_bytes(cl_mem_info param) const {
    if (!handle_)
        throw logic_error(
            "clGetMemObjectInfo: the buffer was released (a pool's block after release()); "
            "expected a live buffer",
            CL_INVALID_MEM_OBJECT, "clGetMemObjectInfo");
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetMemObjectInfo(handle(), param, size, value, size_ret);
        },
        "clGetMemObjectInfo");
}

event enqueue_write(const queue& q, const buffer& dst, size_t dst_offset, const void* src, size_t bytes, bool blocking,
                    std::span<const cl_event> wait_for) {
    check_range(dst, dst_offset, bytes, "clEnqueueWriteBuffer", "destination");
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueWriteBuffer, q.handle(), dst.handle(), blocking ? CL_TRUE : CL_FALSE, dst_offset, bytes, src,
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

event enqueue_read(const queue& q, const buffer& src, size_t src_offset, void* dst, size_t bytes, bool blocking,
                   std::span<const cl_event> wait_for) {
    check_range(src, src_offset, bytes, "clEnqueueReadBuffer", "source");
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueReadBuffer, q.handle(), src.handle(), blocking ? CL_TRUE : CL_FALSE, src_offset, bytes, dst,
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

void check_fill(std::span<const std::byte> pattern, size_t offset, size_t size, const char* routine) {
    const size_t length = pattern.size();
    if (length == 0 || length > 128 || (length & (length - 1)) != 0)
        throw logic_error(std::string(routine) + ": the pattern has " + std::to_string(length) +
                              " bytes; expected 1, 2, 4, 8, 16, 32, 64 or 128",
                          CL_INVALID_VALUE, routine);
    if (offset % length != 0 || size % length != 0)
        throw logic_error(std::string(routine) + ": offset " + std::to_string(offset) + " and size " +
                              std::to_string(size) + " must be multiples of the pattern's " + std::to_string(length) +
                              " bytes",
                          CL_INVALID_VALUE, routine);
}

event enqueue_fill(const queue& q, const buffer& dst, std::span<const std::byte> pattern, size_t offset, size_t size,
                   std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueFillBuffer";
    check_fill(pattern, offset, size, routine);
    check_range(dst, offset, size, routine, "destination");
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueFillBuffer, q.handle(), dst.handle(), pattern.data(), pattern.size(), offset, size,
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

event enqueue_copy(const queue& q, const buffer& src, const buffer& dst, size_t src_offset, size_t dst_offset,
                   size_t bytes, std::span<const cl_event> wait_for) {
    check_range(src, src_offset, bytes, "clEnqueueCopyBuffer", "source");
    check_range(dst, dst_offset, bytes, "clEnqueueCopyBuffer", "destination");
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueCopyBuffer, q.handle(), src.handle(), dst.handle(), src_offset, dst_offset, bytes,
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

size_t rect_extent(rect_side& side, const rect_region& region, const char* routine, const char* role) {
    const auto refuse = [&](const std::string& why) {
        throw logic_error(std::string(routine) + ": the " + role + " side: " + why, CL_INVALID_VALUE, routine);
    };
    if (region[0] == 0 || region[1] == 0 || region[2] == 0)
        refuse("the region (" + std::to_string(region[0]) + ", " + std::to_string(region[1]) + ", " +
               std::to_string(region[2]) + ") is empty; expected at least 1 byte, row and slice");
    if (side.row_pitch == 0)
        side.row_pitch = region[0];
    else if (side.row_pitch < region[0])
        refuse("row pitch " + std::to_string(side.row_pitch) + " is less than a row of the region (" +
               std::to_string(region[0]) + " bytes)");
    // Each product below stays within size_t: the factors are checked against the quotient first.
    const auto times = [&](size_t a, size_t b) {
        if (b != 0 && a > SIZE_MAX / b)
            refuse("the copy reaches beyond the address space");
        return a * b;
    };
    const auto plus = [&](size_t a, size_t b) {
        if (a > SIZE_MAX - b)
            refuse("the copy reaches beyond the address space");
        return a + b;
    };
    const size_t tight_slice = times(region[1], side.row_pitch);
    if (side.slice_pitch == 0)
        side.slice_pitch = tight_slice;
    else if (side.slice_pitch < tight_slice || side.slice_pitch % side.row_pitch != 0)
        refuse("slice pitch " + std::to_string(side.slice_pitch) +
               " must be at least the region's rows times the "
               "row pitch (" +
               std::to_string(tight_slice) + ") and a multiple of the row pitch (" + std::to_string(side.row_pitch) +
               ")");
    const size_t first =
        plus(plus(side.origin[0], times(side.origin[1], side.row_pitch)), times(side.origin[2], side.slice_pitch));
    const size_t last =
        plus(plus(region[0] - 1, times(region[1] - 1, side.row_pitch)), times(region[2] - 1, side.slice_pitch));
    return plus(plus(first, last), 1);
}

namespace {

// Checks that `side` of `region` lies within `bytes` of memory (a buffer's or the host's).
void check_rect(rect_side& side, const rect_region& region, size_t bytes, const char* routine, const char* role) {
    const size_t extent = rect_extent(side, region, routine, role);
    if (extent > bytes)
        throw logic_error(std::string(routine) + ": the " + role + " side of the copy reaches byte " +
                              std::to_string(extent) + ", beyond its " + std::to_string(bytes) + " bytes",
                          CL_INVALID_VALUE, routine);
}

// What the two rectangular copies between the host and a buffer share: `entry` is OpenCL's
// clEnqueueWriteBufferRect or clEnqueueReadBufferRect (named `routine`), `Host` its host
// pointer (const for a write).
template <class Entry, class Host>
event host_rect_copy(Entry entry, const char* routine, const char* buffer_role, const queue& q, const buffer& b,
                     rect_side buffer_side, Host host, size_t host_bytes, rect_side host_side,
                     const rect_region& region, bool blocking, std::span<const cl_event> wait_for) {
    check_live(b, routine, buffer_role);
    check_rect(buffer_side, region, b.size(), routine, "buffer");
    check_rect(host_side, region, host_bytes, routine, "host");
    cl_event done = nullptr;
    check_status(gpukit::detail::required_entry(entry, routine, throw_missing_entry)(
                     q.handle(), b.handle(), blocking ? CL_TRUE : CL_FALSE, buffer_side.origin.data(),
                     host_side.origin.data(), region.data(), buffer_side.row_pitch, buffer_side.slice_pitch,
                     host_side.row_pitch, host_side.slice_pitch, host, detail::wait_count(wait_for),
                     detail::wait_list(wait_for), &done),
                 routine);
    return event(done);
}

}  // namespace

event enqueue_write_rect(const queue& q, const buffer& dst, rect_side buffer_side, const void* src, size_t host_bytes,
                         rect_side host_side, const rect_region& region, bool blocking,
                         std::span<const cl_event> wait_for) {
    return host_rect_copy(api().clEnqueueWriteBufferRect, "clEnqueueWriteBufferRect", "destination", q, dst,
                          buffer_side, src, host_bytes, host_side, region, blocking, wait_for);
}

event enqueue_read_rect(const queue& q, const buffer& src, rect_side buffer_side, void* dst, size_t host_bytes,
                        rect_side host_side, const rect_region& region, bool blocking,
                        std::span<const cl_event> wait_for) {
    return host_rect_copy(api().clEnqueueReadBufferRect, "clEnqueueReadBufferRect", "source", q, src, buffer_side, dst,
                          host_bytes, host_side, region, blocking, wait_for);
}

event enqueue_copy_rect(const queue& q, const buffer& src, rect_side src_side, const buffer& dst, rect_side dst_side,
                        const rect_region& region, std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueCopyBufferRect";
    check_live(src, routine, "source");
    check_live(dst, routine, "destination");
    check_rect(src_side, region, src.size(), routine, "source");
    check_rect(dst_side, region, dst.size(), routine, "destination");
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueCopyBufferRect, q.handle(), src.handle(), dst.handle(), src_side.origin.data(),
              dst_side.origin.data(), region.data(), src_side.row_pitch, src_side.slice_pitch, dst_side.row_pitch,
              dst_side.slice_pitch, detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

std::pair<mapped_region, event> mapped_region::map(const queue& q, const buffer& buf, cl_map_flags flags, size_t offset,
                                                   size_t size, bool blocking, std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueMapBuffer";
    constexpr cl_map_flags read_write = CL_MAP_READ | CL_MAP_WRITE;
    if ((flags & ~(read_write | CL_MAP_WRITE_INVALIDATE_REGION)) != 0 || flags == 0 ||
        ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & read_write)))
        throw logic_error(std::string(routine) + ": invalid map_flags " + std::to_string(flags) +
                              "; expected READ and/or WRITE, or WRITE_INVALIDATE_REGION alone",
                          CL_INVALID_VALUE, routine);
    check_range(buf, offset, size, routine, "mapped");
    // Held before mapping, so that nothing can fail between the map and its owner.
    detail::retained<cl_mem> held_buffer(buf.handle());
    detail::retained<cl_command_queue> held_queue(q.handle());
    cl_event done = nullptr;
    cl_int status = CL_SUCCESS;
    void* data = GPUKIT_CL_ENTRY(clEnqueueMapBuffer)(q.handle(), buf.handle(), blocking ? CL_TRUE : CL_FALSE, flags,
                                                     offset, size, detail::wait_count(wait_for),
                                                     detail::wait_list(wait_for), &done, &status);
    check_status(status, routine);
    event mapped(done);
    return {mapped_region(std::move(held_buffer), std::move(held_queue), data, size), std::move(mapped)};
}

mapped_region& mapped_region::operator=(mapped_region&& other) noexcept {
    if (this != &other) {
        unmap_now();
        buffer_ = std::move(other.buffer_);
        queue_ = std::move(other.queue_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

mapped_region::~mapped_region() { unmap_now(); }

event mapped_region::unmap(const queue* q, std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueUnmapMemObject";
    if (!data_)
        throw logic_error(std::string(routine) + ": the region was already unmapped (release() was called)",
                          CL_INVALID_VALUE, routine);
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueUnmapMemObject, q ? q->handle() : queue_.get(), buffer_.get(), data_,
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    data_ = nullptr;
    return event(done);
}

void mapped_region::unmap_now() noexcept {
    if (!data_)
        return;
    try {
        if (const cl_int status =
                api().clEnqueueUnmapMemObject(queue_.get(), buffer_.get(), data_, 0, nullptr, nullptr);
            status != CL_SUCCESS)
            cleanup_warning(std::string("clEnqueueUnmapMemObject failed: ") + error_name(status));
    } catch (...) {
        // api() refuses only in a fork() child: the mapping is the parent's.
    }
    data_ = nullptr;
}

}  // namespace gpukit::cl
