// Copies of 2-D rectangles and 3-D boxes between host memory, device memory and CUDA
// arrays (cuMemcpy2D, cuMemcpy3D, cuMemcpy3DPeer and their async forms).
//
// Each side of a copy is a copy_location: where the memory is and where the region starts
// in it. For linear memory (host, device, unified) `pitch` is the bytes from one row to the
// next and `height` the rows of one 2-D slice of a 3-D layout; 0 means "packed" (pitch =
// the copied width, height = the copied rows). For arrays the driver knows the layout.
// Every copy is checked before the driver is called: both sides set, pitches that hold a
// row, and the region inside every buffer whose size is known.
#pragma once

#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>
#include <optional>

namespace gpukit::cuda {

struct copy_location {
    // 0 until one of the set_* calls; then CU_MEMORYTYPE_HOST, _DEVICE, _ARRAY or _UNIFIED.
    CUmemorytype type{};
    const void* host = nullptr;  // host or unified memory
    CUdeviceptr device = 0;      // device or unified memory
    CUarray array_handle = nullptr;
    std::optional<std::size_t> capacity;  // bytes known to be valid from the start, if known

    std::size_t x_in_bytes = 0;
    std::size_t y = 0;
    std::size_t z = 0;
    std::size_t lod = 0;
    std::size_t pitch = 0;
    std::size_t height = 0;
    CUcontext context = nullptr;  // Memcpy3DPeer only

    void set_host(const void* p, std::size_t bytes);
    void set_device(const device_pointer& p);
    void set_array(const array& a);
    // Unified addressing: host or device memory, told apart by the driver.
    void set_unified(CUdeviceptr p, std::optional<std::size_t> bytes);

private:
    // Replaces the memory, keeping offsets and pitches as set.
    void set_memory(CUmemorytype t, const void* h, CUdeviceptr d, CUarray a, std::optional<std::size_t> bytes);
};

struct copy_extent {
    std::size_t width_in_bytes = 0;
    std::size_t height = 1;
    std::size_t depth = 1;
};

// 2-D: `extent.depth` is ignored and z/lod/height of the locations are unused. `aligned`
// false uses cuMemcpy2DUnaligned, which accepts device-side misalignment at some cost.
void memcpy_2d(const copy_location& src, const copy_location& dst, const copy_extent& extent, bool aligned);
void memcpy_2d_async(const copy_location& src, const copy_location& dst, const copy_extent& extent, stream_view s);
void memcpy_3d(const copy_location& src, const copy_location& dst, const copy_extent& extent);
void memcpy_3d_async(const copy_location& src, const copy_location& dst, const copy_extent& extent, stream_view s);
// Between contexts: each location's `context` must be set.
void memcpy_3d_peer(const copy_location& src, const copy_location& dst, const copy_extent& extent);
void memcpy_3d_peer_async(const copy_location& src, const copy_location& dst, const copy_extent& extent, stream_view s);

}  // namespace gpukit::cuda
