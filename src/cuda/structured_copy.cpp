#include "gpukit/cuda/structured_copy.hpp"

#include "gpukit/core/checked.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <optional>
#include <string>
#include <type_traits>

namespace gpukit::cuda {
namespace {

std::string side_name(const char* operation, const char* side) { return std::string(operation) + "(" + side + ")"; }

// Checks one side of a copy; `dims` is 2 or 3.
void check_location(const char* operation, const char* side, const copy_location& at, const copy_extent& extent,
                    int dims) {
    const std::string what = side_name(operation, side);
    if (at.type == CUmemorytype{})
        throw logic_error(what + ": no memory was given; call set_" + side + "_host, set_" + side + "_device, set_" +
                          side + "_array or set_" + side + "_unified first");
    if (at.type == CU_MEMORYTYPE_ARRAY)
        return;  // the driver checks the region against the array's shape
    const std::size_t pitch = at.pitch ? at.pitch : extent.width_in_bytes;
    const std::size_t rows = at.height ? at.height : extent.height;
    if (pitch < extent.width_in_bytes)
        throw logic_error(what + ": pitch " + std::to_string(pitch) + " bytes is smaller than width_in_bytes " +
                          std::to_string(extent.width_in_bytes) + "; a row must fit in the pitch");
    // rows < y + height, without the sum (which could wrap)
    if (dims == 3 && extent.depth > 1 && (at.y > rows || rows - at.y < extent.height))
        throw logic_error(what + ": height " + std::to_string(rows) + " rows per slice cannot hold rows " +
                          std::to_string(at.y) + " to " + std::to_string(at.y + extent.height) +
                          " of each slice; set " + side + "_height to at least " +
                          std::to_string(at.y + extent.height));
    if (!at.capacity)
        return;
    const std::size_t depth = dims == 3 ? extent.depth : 1;
    const std::size_t z = dims == 3 ? at.z : 0;
    // Checked: a region whose end wraps past 2**64 would otherwise pass as a small one.
    std::optional<std::size_t> end = checked_add(z, depth - 1);
    end = end ? checked_mul_add(*end, rows, at.y) : std::nullopt;
    end = end ? checked_add(*end, extent.height - 1) : std::nullopt;
    end = end ? checked_mul_add(*end, pitch, at.x_in_bytes) : std::nullopt;
    end = end ? checked_add(*end, extent.width_in_bytes) : std::nullopt;
    if (!end)
        throw logic_error(what + ": the region ends beyond 64-bit byte offsets; use a smaller region, offset or pitch");
    if (*end > *at.capacity)
        throw logic_error(what + ": the region ends at byte " + std::to_string(*end) + " but the buffer holds " +
                          std::to_string(*at.capacity) +
                          " bytes; use a larger buffer or a smaller region, "
                          "offset or pitch");
}

// False when the extent is empty (nothing to copy).
bool check(const char* operation, const copy_location& src, const copy_location& dst, const copy_extent& extent,
           int dims) {
    if (extent.width_in_bytes == 0 || extent.height == 0 || (dims == 3 && extent.depth == 0))
        return false;
    check_location(operation, "src", src, extent, dims);
    check_location(operation, "dst", dst, extent, dims);
    return true;
}

// CUDA_MEMCPY2D, CUDA_MEMCPY3D and CUDA_MEMCPY3D_PEER name their fields alike (srcY, dstY,
// ...); the 3-D ones add a depth, a layer and a level. One template fills all three.
template <class D>
D descriptor(const copy_location& src, const copy_location& dst, const copy_extent& extent) {
    constexpr bool three_d = !std::is_same_v<D, CUDA_MEMCPY2D>;
    D d{};
    // One side: `side` is both the prefix of the descriptor's fields and the location.
#define GPUKIT_DESCRIBE_SIDE(side)                                   \
    d.side##XInBytes = side.x_in_bytes;                              \
    d.side##Y = side.y;                                              \
    d.side##MemoryType = side.type;                                  \
    d.side##Host = const_cast<void*>(side.host);                     \
    d.side##Device = side.device;                                    \
    d.side##Array = side.array_handle;                               \
    d.side##Pitch = side.pitch ? side.pitch : extent.width_in_bytes; \
    if constexpr (three_d) {                                         \
        d.side##Z = side.z;                                          \
        d.side##LOD = side.lod;                                      \
        d.side##Height = side.height ? side.height : extent.height;  \
    }
    GPUKIT_DESCRIBE_SIDE(src)
    GPUKIT_DESCRIBE_SIDE(dst)
#undef GPUKIT_DESCRIBE_SIDE
    d.WidthInBytes = extent.width_in_bytes;
    d.Height = extent.height;
    if constexpr (three_d)
        d.Depth = extent.depth;
    return d;
}

// The descriptor of a copy of `extent` from `src` to `dst` (its type D says which: Memcpy2D,
// Memcpy3D or Memcpy3DPeer, the name errors give), checked first; nullopt when the extent is
// empty (nothing to copy).
template <class D>
std::optional<D> checked_descriptor(const copy_location& src, const copy_location& dst, const copy_extent& extent) {
    constexpr bool peer = std::is_same_v<D, CUDA_MEMCPY3D_PEER>;
    constexpr int dims = std::is_same_v<D, CUDA_MEMCPY2D> ? 2 : 3;
    const char* operation = dims == 2 ? "Memcpy2D" : peer ? "Memcpy3DPeer" : "Memcpy3D";
    if (!check(operation, src, dst, extent, dims))
        return std::nullopt;
    D d = descriptor<D>(src, dst, extent);
    if constexpr (peer) {
        if (!src.context || !dst.context)
            throw logic_error(std::string(operation) +
                              ": both contexts must be given; call set_src_context and "
                              "set_dst_context first");
        d.srcContext = src.context;
        d.dstContext = dst.context;
    }
    return d;
}

}  // namespace

void copy_location::set_host(const void* p, std::size_t bytes) { set_memory(CU_MEMORYTYPE_HOST, p, 0, nullptr, bytes); }

void copy_location::set_device(const device_pointer& p) {
    set_memory(CU_MEMORYTYPE_DEVICE, nullptr, p.address, nullptr, p.capacity);
}

void copy_location::set_array(const array& a) { set_memory(CU_MEMORYTYPE_ARRAY, nullptr, 0, a.handle(), std::nullopt); }

void copy_location::set_unified(CUdeviceptr p, std::optional<std::size_t> bytes) {
    set_memory(CU_MEMORYTYPE_UNIFIED, reinterpret_cast<const void*>(p), p, nullptr, bytes);
}

void copy_location::set_memory(CUmemorytype t, const void* h, CUdeviceptr d, CUarray a,
                               std::optional<std::size_t> bytes) {
    type = t;
    host = h;
    device = d;
    array_handle = a;
    capacity = bytes;
}

void memcpy_2d(const copy_location& src, const copy_location& dst, const copy_extent& extent, bool aligned) {
    const auto d = checked_descriptor<CUDA_MEMCPY2D>(src, dst, extent);
    if (d && aligned)
        GPUKIT_CU(cuMemcpy2D, &*d);
    else if (d)
        GPUKIT_CU(cuMemcpy2DUnaligned, &*d);
}

void memcpy_2d_async(const copy_location& src, const copy_location& dst, const copy_extent& extent, stream_view s) {
    if (const auto d = checked_descriptor<CUDA_MEMCPY2D>(src, dst, extent))
        GPUKIT_CU(cuMemcpy2DAsync, &*d, s.handle());
}

void memcpy_3d(const copy_location& src, const copy_location& dst, const copy_extent& extent) {
    if (const auto d = checked_descriptor<CUDA_MEMCPY3D>(src, dst, extent))
        GPUKIT_CU(cuMemcpy3D, &*d);
}

void memcpy_3d_async(const copy_location& src, const copy_location& dst, const copy_extent& extent, stream_view s) {
    if (const auto d = checked_descriptor<CUDA_MEMCPY3D>(src, dst, extent))
        GPUKIT_CU(cuMemcpy3DAsync, &*d, s.handle());
}

void memcpy_3d_peer(const copy_location& src, const copy_location& dst, const copy_extent& extent) {
    if (const auto d = checked_descriptor<CUDA_MEMCPY3D_PEER>(src, dst, extent))
        GPUKIT_CU(cuMemcpy3DPeer, &*d);
}

void memcpy_3d_peer_async(const copy_location& src, const copy_location& dst, const copy_extent& extent,
                          stream_view s) {
    if (const auto d = checked_descriptor<CUDA_MEMCPY3D_PEER>(src, dst, extent))
        GPUKIT_CU(cuMemcpy3DPeerAsync, &*d, s.handle());
}

}  // namespace gpukit::cuda
