#include "gpukit/cuda/copy.hpp"

#include "gpukit/core/checked.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/staged_copy.hpp"

#include <string>

namespace gpukit::cuda {
namespace {

// The checks shared by every copy and memset; `what` names the operation and argument.
void check_device_range(const char* what, const device_pointer& p, std::size_t bytes) {
    if (p.address == 0)
        throw logic_error(std::string(what) + ": the device address is null (0); pass an allocated device pointer");
    if (p.capacity && bytes > *p.capacity)
        throw logic_error(std::string(what) + ": " + std::to_string(bytes) + " bytes do not fit in the " +
                          std::to_string(*p.capacity) + " bytes of the device memory; copy at most " +
                          std::to_string(*p.capacity) + " bytes or use a larger allocation");
}

// a * b + c bytes, or logic_error naming `what` when that is beyond 64 bits (a wrapped count
// would pass the range check and let the driver write past the memory).
std::size_t byte_count(const char* what, std::size_t a, std::size_t b, std::size_t c = 0) {
    if (const auto bytes = checked_mul_add(a, b, c))
        return *bytes;
    throw logic_error(std::string(what) + ": the region of " + std::to_string(a) + " x " + std::to_string(b) + " + " +
                      std::to_string(c) + " bytes is beyond 64 bits");
}

void check_host_pointer(const char* what, const void* p) {
    if (!p)
        throw logic_error(std::string(what) + ": the host pointer is null; pass a host buffer");
}

// Checks a 1-D memset of `count` elements of `element_size` bytes; false when there is
// nothing to do.
bool check_memset(const char* what, const device_pointer& dst, std::size_t count, std::size_t element_size) {
    if (count == 0)
        return false;
    check_device_range(what, dst, byte_count(what, count, element_size));
    if (dst.address % element_size != 0)
        throw logic_error(std::string(what) + ": the address " + std::to_string(dst.address) +
                          " is not aligned to the " + std::to_string(element_size) +
                          "-byte element size; use an address that is a multiple of " + std::to_string(element_size));
    return true;
}

// Checks a 2-D memset; false when there is nothing to do.
bool check_memset_2d(const char* what, const device_pointer& dst, std::size_t pitch, std::size_t width,
                     std::size_t height, std::size_t element_size) {
    if (width == 0 || height == 0)
        return false;
    const std::size_t row_bytes = byte_count(what, width, element_size);
    if (pitch < row_bytes || pitch % element_size != 0)
        throw logic_error(std::string(what) + ": pitch " + std::to_string(pitch) + " bytes cannot hold a row of " +
                          std::to_string(width) + " elements of " + std::to_string(element_size) +
                          " bytes; the pitch must be at least " + std::to_string(row_bytes) + " and a multiple of " +
                          std::to_string(element_size));
    check_memset(what, dst, 1, element_size);  // null and alignment
    check_device_range(what, dst, byte_count(what, pitch, height - 1, row_bytes));
    return true;
}

}  // namespace

void memcpy_htod(device_pointer dst, const void* src, std::size_t bytes) {
    if (bytes == 0)
        return;
    check_device_range("memcpy_htod(dest)", dst, bytes);
    check_host_pointer("memcpy_htod(src)", src);
    if (should_stage(src, bytes))
        staged_memcpy_htod(dst.address, src, bytes);
    else
        GPUKIT_CU(cuMemcpyHtoD, dst.address, src, bytes);
}

void memcpy_htod_async(device_pointer dst, const void* src, std::size_t bytes, stream_view s) {
    if (bytes == 0)
        return;
    check_device_range("memcpy_htod_async(dest)", dst, bytes);
    check_host_pointer("memcpy_htod_async(src)", src);
    GPUKIT_CU(cuMemcpyHtoDAsync, dst.address, src, bytes, s.handle());
}

void memcpy_dtoh(void* dst, device_pointer src, std::size_t bytes) {
    if (bytes == 0)
        return;
    check_host_pointer("memcpy_dtoh(dest)", dst);
    check_device_range("memcpy_dtoh(src)", src, bytes);
    if (should_stage(dst, bytes))
        staged_memcpy_dtoh(dst, src.address, bytes);
    else
        GPUKIT_CU(cuMemcpyDtoH, dst, src.address, bytes);
}

void memcpy_dtoh_async(void* dst, device_pointer src, std::size_t bytes, stream_view s) {
    if (bytes == 0)
        return;
    check_host_pointer("memcpy_dtoh_async(dest)", dst);
    check_device_range("memcpy_dtoh_async(src)", src, bytes);
    GPUKIT_CU(cuMemcpyDtoHAsync, dst, src.address, bytes, s.handle());
}

void memcpy_dtod(device_pointer dst, device_pointer src, std::size_t bytes) {
    if (bytes == 0)
        return;
    check_device_range("memcpy_dtod(dest)", dst, bytes);
    check_device_range("memcpy_dtod(src)", src, bytes);
    GPUKIT_CU(cuMemcpyDtoD, dst.address, src.address, bytes);
}

void memcpy_dtod_async(device_pointer dst, device_pointer src, std::size_t bytes, stream_view s) {
    if (bytes == 0)
        return;
    check_device_range("memcpy_dtod_async(dest)", dst, bytes);
    check_device_range("memcpy_dtod_async(src)", src, bytes);
    GPUKIT_CU(cuMemcpyDtoDAsync, dst.address, src.address, bytes, s.handle());
}

void memcpy_peer(device_pointer dst, const context& dst_context, device_pointer src, const context& src_context,
                 std::size_t bytes) {
    if (bytes == 0)
        return;
    check_device_range("memcpy_peer(dest)", dst, bytes);
    check_device_range("memcpy_peer(src)", src, bytes);
    GPUKIT_CU(cuMemcpyPeer, dst.address, dst_context.handle(), src.address, src_context.handle(), bytes);
}

void memcpy_peer_async(device_pointer dst, const context& dst_context, device_pointer src, const context& src_context,
                       std::size_t bytes, stream_view s) {
    if (bytes == 0)
        return;
    check_device_range("memcpy_peer_async(dest)", dst, bytes);
    check_device_range("memcpy_peer_async(src)", src, bytes);
    GPUKIT_CU(cuMemcpyPeerAsync, dst.address, dst_context.handle(), src.address, src_context.handle(), bytes,
              s.handle());
}

void memset_d8(device_pointer dst, std::uint8_t value, std::size_t count) {
    if (check_memset("memset_d8", dst, count, 1))
        GPUKIT_CU(cuMemsetD8, dst.address, value, count);
}

void memset_d16(device_pointer dst, std::uint16_t value, std::size_t count) {
    if (check_memset("memset_d16", dst, count, 2))
        GPUKIT_CU(cuMemsetD16, dst.address, value, count);
}

void memset_d32(device_pointer dst, std::uint32_t value, std::size_t count) {
    if (check_memset("memset_d32", dst, count, 4))
        GPUKIT_CU(cuMemsetD32, dst.address, value, count);
}

void memset_d8_async(device_pointer dst, std::uint8_t value, std::size_t count, stream_view s) {
    if (check_memset("memset_d8_async", dst, count, 1))
        GPUKIT_CU(cuMemsetD8Async, dst.address, value, count, s.handle());
}

void memset_d16_async(device_pointer dst, std::uint16_t value, std::size_t count, stream_view s) {
    if (check_memset("memset_d16_async", dst, count, 2))
        GPUKIT_CU(cuMemsetD16Async, dst.address, value, count, s.handle());
}

void memset_d32_async(device_pointer dst, std::uint32_t value, std::size_t count, stream_view s) {
    if (check_memset("memset_d32_async", dst, count, 4))
        GPUKIT_CU(cuMemsetD32Async, dst.address, value, count, s.handle());
}

void memset_d2d8(device_pointer dst, std::size_t pitch, std::uint8_t value, std::size_t width, std::size_t height) {
    if (check_memset_2d("memset_d2d8", dst, pitch, width, height, 1))
        GPUKIT_CU(cuMemsetD2D8, dst.address, pitch, value, width, height);
}

void memset_d2d16(device_pointer dst, std::size_t pitch, std::uint16_t value, std::size_t width, std::size_t height) {
    if (check_memset_2d("memset_d2d16", dst, pitch, width, height, 2))
        GPUKIT_CU(cuMemsetD2D16, dst.address, pitch, value, width, height);
}

void memset_d2d32(device_pointer dst, std::size_t pitch, std::uint32_t value, std::size_t width, std::size_t height) {
    if (check_memset_2d("memset_d2d32", dst, pitch, width, height, 4))
        GPUKIT_CU(cuMemsetD2D32, dst.address, pitch, value, width, height);
}

void memset_d2d8_async(device_pointer dst, std::size_t pitch, std::uint8_t value, std::size_t width, std::size_t height,
                       stream_view s) {
    if (check_memset_2d("memset_d2d8_async", dst, pitch, width, height, 1))
        GPUKIT_CU(cuMemsetD2D8Async, dst.address, pitch, value, width, height, s.handle());
}

void memset_d2d16_async(device_pointer dst, std::size_t pitch, std::uint16_t value, std::size_t width,
                        std::size_t height, stream_view s) {
    if (check_memset_2d("memset_d2d16_async", dst, pitch, width, height, 2))
        GPUKIT_CU(cuMemsetD2D16Async, dst.address, pitch, value, width, height, s.handle());
}

void memset_d2d32_async(device_pointer dst, std::size_t pitch, std::uint32_t value, std::size_t width,
                        std::size_t height, stream_view s) {
    if (check_memset_2d("memset_d2d32_async", dst, pitch, width, height, 4))
        GPUKIT_CU(cuMemsetD2D32Async, dst.address, pitch, value, width, height, s.handle());
}

}  // namespace gpukit::cuda
