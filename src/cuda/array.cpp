#include "gpukit/cuda/array.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/structured_copy.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace gpukit::cuda {
namespace {

void check_array_range(const char* what, const array& a, std::size_t offset, std::size_t bytes) {
    const std::size_t size = a.size_bytes();
    if (offset > size || bytes > size - offset)
        throw logic_error(std::string(what) + ": " + std::to_string(bytes) + " bytes at offset " +
                          std::to_string(offset) + " do not fit in the " + std::to_string(size) +
                          "-byte array; offset + size must be at most " + std::to_string(size));
}

void check_device_capacity(const char* what, const device_pointer& p, std::size_t bytes) {
    if (p.address == 0)
        throw logic_error(std::string(what) + ": the device address is null (0); pass an allocated device pointer");
    if (p.capacity && bytes > *p.capacity)
        throw logic_error(std::string(what) + ": " + std::to_string(bytes) + " bytes do not fit in the " +
                          std::to_string(*p.capacity) + " bytes of the device memory");
}

// The driver's one-dimensional array copies (cuMemcpyHtoA and friends) accept only 1-D
// arrays. For a 2-D array, a range of whole rows (offset and size multiples of the row's
// bytes) is copied through cuMemcpy3D with the linear side packed; a 3-D array is copied
// whole. Other parts are what Memcpy2D / Memcpy3D are for.
bool is_one_dimensional(const array& a) { return a.descriptor_3d().Height == 0; }

// The part of `a` that `bytes` at `offset` are, as one side of a cuMemcpy3D (memcpy_3d) whose
// other side is packed linear memory: whole rows of a 2-D array, or a whole 3-D array.
struct array_region {
    copy_location at;
    copy_extent extent;
};

array_region whole_array_region(const char* what, const array& a, std::size_t offset, std::size_t bytes) {
    const CUDA_ARRAY3D_DESCRIPTOR d = a.descriptor_3d();
    const std::size_t row = d.Width * array_element_bytes(d);
    array_region region;
    region.at.set_array(a);
    region.extent.width_in_bytes = row;
    if (d.Depth == 0 && offset % row == 0 && bytes % row == 0) {
        region.at.y = offset / row;
        region.extent.height = bytes / row;
        return region;
    }
    if (offset != 0 || bytes != a.size_bytes()) {
        const std::string expected =
            d.Depth == 0
                ? "a 2-D array takes whole rows (offset and size multiples of " + std::to_string(row) + " bytes)"
                : "a 3-D array is copied whole (offset 0, " + std::to_string(a.size_bytes()) + " bytes)";
        throw logic_error(std::string(what) + ": " + expected + ", got " + std::to_string(bytes) + " bytes at offset " +
                          std::to_string(offset) + "; use Memcpy2D or Memcpy3D for other parts");
    }
    region.extent.height = std::max<std::size_t>(d.Height, 1);
    region.extent.depth = std::max<std::size_t>(d.Depth, 1);
    return region;
}

void check_host(const char* what, const void* p) {
    if (!p)
        throw logic_error(std::string(what) + ": the host pointer is null; pass a host buffer");
}

}  // namespace

std::size_t array_format_bytes(CUarray_format format) {
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
        return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
        return 4;
    default:
        throw logic_error("array format " + std::to_string(static_cast<int>(format)) +
                          " is not supported; use an 8-, 16- or 32-bit integer, HALF or FLOAT array_format");
    }
}

std::size_t array_element_bytes(const CUDA_ARRAY3D_DESCRIPTOR& d) {
    return array_format_bytes(d.Format) * d.NumChannels;
}

std::size_t array_total_bytes(const CUDA_ARRAY3D_DESCRIPTOR& d) {
    return array_element_bytes(d) * d.Width * std::max<std::size_t>(d.Height, 1) * std::max<std::size_t>(d.Depth, 1);
}

array array::create(const CUDA_ARRAY3D_DESCRIPTOR& d) {
    if (d.NumChannels != 1 && d.NumChannels != 2 && d.NumChannels != 4)
        throw logic_error("Array: num_channels is " + std::to_string(d.NumChannels) + "; it must be 1, 2 or 4");
    if (d.Width == 0)
        throw logic_error("Array: width is 0; an array needs a width of at least 1 element");
    if (d.Height == 0 && d.Depth != 0)
        throw logic_error("Array: depth " + std::to_string(d.Depth) +
                          " with height 0; a 3-D or layered array needs a height of at least 1");
    array_format_bytes(d.Format);  // throws for formats we cannot size
    context ctx = context::current_or_throw("Array()");
    CUarray handle = nullptr;
    const CUresult result = api().cuArray3DCreate(&handle, &d);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuArray3DCreate",
                         std::to_string(d.Width) + " x " + std::to_string(d.Height) + " x " + std::to_string(d.Depth) +
                             ", " + std::to_string(d.NumChannels) + " channel(s), flags " + std::to_string(d.Flags));
    return array(handle, ctx.state());
}

array array::borrow(CUarray handle, context_state_ptr ctx, std::shared_ptr<const array_lender> lender) {
    if (!handle || !ctx || !lender)
        throw logic_error("array::borrow(): the handle, its context and its lender must all be given");
    array borrowed(nullptr, nullptr);
    borrowed.borrowed_ = handle;
    borrowed.borrowed_context_ = std::move(ctx);
    borrowed.lender_ = std::move(lender);
    return borrowed;
}

void array::check_lent() const {
    if (const char* why = lender_->withdrawn())
        throw logic_error(why);
}

CUarray array::handle() const {
    if (!lender_)
        return owned_.get(freed);
    check_lent();
    return borrowed_;
}

const context_state_ptr& array::owner() const {
    if (!lender_)
        return owned_.context(freed);
    check_lent();
    return borrowed_context_;
}

void array::free() {
    owned_.free();
    lender_.reset();
    borrowed_context_.reset();
    borrowed_ = nullptr;
}

CUDA_ARRAY_DESCRIPTOR array::descriptor() const {
    CUDA_ARRAY_DESCRIPTOR d{};
    GPUKIT_CU(cuArrayGetDescriptor, &d, handle());
    return d;
}

CUDA_ARRAY3D_DESCRIPTOR array::descriptor_3d() const {
    CUDA_ARRAY3D_DESCRIPTOR d{};
    GPUKIT_CU(cuArray3DGetDescriptor, &d, handle());
    return d;
}

void memcpy_htoa(const array& dst, std::size_t offset, const void* src, std::size_t bytes) {
    if (bytes == 0)
        return;
    check_array_range("memcpy_htoa(ary)", dst, offset, bytes);
    check_host("memcpy_htoa(src)", src);
    if (is_one_dimensional(dst)) {
        GPUKIT_CU(cuMemcpyHtoA, dst.handle(), offset, src, bytes);
        return;
    }
    const array_region to = whole_array_region("memcpy_htoa()", dst, offset, bytes);
    copy_location from;
    from.set_host(src, bytes);
    memcpy_3d(from, to.at, to.extent);
}

void memcpy_atoh(void* dst, const array& src, std::size_t offset, std::size_t bytes) {
    if (bytes == 0)
        return;
    check_host("memcpy_atoh(dest)", dst);
    check_array_range("memcpy_atoh(ary)", src, offset, bytes);
    if (is_one_dimensional(src)) {
        GPUKIT_CU(cuMemcpyAtoH, dst, src.handle(), offset, bytes);
        return;
    }
    const array_region from = whole_array_region("memcpy_atoh()", src, offset, bytes);
    copy_location to;
    to.set_host(dst, bytes);
    memcpy_3d(from.at, to, from.extent);
}

void memcpy_dtoa(const array& dst, std::size_t offset, device_pointer src, std::size_t bytes) {
    if (bytes == 0)
        return;
    check_array_range("memcpy_dtoa(ary)", dst, offset, bytes);
    check_device_capacity("memcpy_dtoa(src)", src, bytes);
    if (is_one_dimensional(dst)) {
        GPUKIT_CU(cuMemcpyDtoA, dst.handle(), offset, src.address, bytes);
        return;
    }
    const array_region to = whole_array_region("memcpy_dtoa()", dst, offset, bytes);
    copy_location from;
    from.set_device(src);
    memcpy_3d(from, to.at, to.extent);
}

void memcpy_atod(device_pointer dst, const array& src, std::size_t offset, std::size_t bytes) {
    if (bytes == 0)
        return;
    check_device_capacity("memcpy_atod(dest)", dst, bytes);
    check_array_range("memcpy_atod(ary)", src, offset, bytes);
    if (is_one_dimensional(src)) {
        GPUKIT_CU(cuMemcpyAtoD, dst.address, src.handle(), offset, bytes);
        return;
    }
    const array_region from = whole_array_region("memcpy_atod()", src, offset, bytes);
    copy_location to;
    to.set_device(dst);
    memcpy_3d(from.at, to, from.extent);
}

void memcpy_atoa(const array& dst, std::size_t dst_offset, const array& src, std::size_t src_offset,
                 std::size_t bytes) {
    if (bytes == 0)
        return;
    check_array_range("memcpy_atoa(dest)", dst, dst_offset, bytes);
    check_array_range("memcpy_atoa(src)", src, src_offset, bytes);
    if (is_one_dimensional(dst) && is_one_dimensional(src)) {
        GPUKIT_CU(cuMemcpyAtoA, dst.handle(), dst_offset, src.handle(), src_offset, bytes);
        return;
    }
    const CUDA_ARRAY3D_DESCRIPTOR d = dst.descriptor_3d(), s = src.descriptor_3d();
    if (d.Width != s.Width || d.Height != s.Height || d.Depth != s.Depth ||
        array_element_bytes(d) != array_element_bytes(s))
        throw logic_error(
            "memcpy_atoa(): 2-D and 3-D arrays are copied whole, so both need the same extent and "
            "element size; use Memcpy3D to copy between parts of arrays");
    const array_region to = whole_array_region("memcpy_atoa()", dst, dst_offset, bytes);
    memcpy_3d(whole_array_region("memcpy_atoa()", src, src_offset, bytes).at, to.at, to.extent);
}

}  // namespace gpukit::cuda
