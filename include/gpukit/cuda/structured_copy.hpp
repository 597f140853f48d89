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

// One side of a structured copy: the memory (given by one of the set_* calls), where the
// region starts in it and, for linear memory, its layout; a pitch or height of 0 means
// packed (the copied width or rows). Offsets and layout are kept when the memory changes.
struct copy_location {
    // 0 until one of the set_* calls; then CU_MEMORYTYPE_HOST, _DEVICE, _ARRAY or _UNIFIED.
    CUmemorytype type{};
    const void* host = nullptr;  // host or unified memory
    CUdeviceptr device = 0;      // device or unified memory
    // A CUDA array (borrowed: the array must outlive the copy).
    CUarray array_handle = nullptr;
    std::optional<std::size_t> capacity;  // bytes known to be valid from the start, if known

    std::size_t x_in_bytes = 0;   // where the region starts in a row, in bytes (whole elements for arrays)
    std::size_t y = 0;            // the row the region starts at
    std::size_t z = 0;            // the 2-D slice (or array layer) the region starts at; 3-D copies only
    std::size_t lod = 0;          // reserved by the driver, must be 0; 3-D copies only
    std::size_t pitch = 0;        // bytes from one row to the next; 0: the copied width
    std::size_t height = 0;       // rows per 2-D slice; 0: the copied height; 3-D copies only
    CUcontext context = nullptr;  // Memcpy3DPeer only

    // Host memory from `p`, `bytes` long (the capacity the region is checked against).
    void set_host(const void* p, std::size_t bytes);
    // Device memory from `p.address`, checked against `p.capacity` when known.
    void set_device(const device_pointer& p);
    // The CUDA array `a` (its handle: `a` must outlive the copy); logic_error once `a` is
    // freed. The driver checks the region against the array's shape.
    void set_array(const array& a);
    // Unified addressing: host or device memory, told apart by the driver.
    void set_unified(CUdeviceptr p, std::optional<std::size_t> bytes);

private:
    // Replaces the memory, keeping offsets and pitches as set.
    void set_memory(CUmemorytype t, const void* h, CUdeviceptr d, CUarray a, std::optional<std::size_t> bytes);
};

// The size of the region a structured copy copies; a copy of an empty extent does nothing.
struct copy_extent {
    std::size_t width_in_bytes = 0;  // bytes of each row
    std::size_t height = 1;          // rows of each 2-D slice
    std::size_t depth = 1;           // 2-D slices (3-D copies only)
};

// 2-D: `extent.depth` is ignored and z/lod/height of the locations are unused. `aligned`
// false uses cuMemcpy2DUnaligned, which accepts device-side misalignment at some cost.
void memcpy_2d(const copy_location& src, const copy_location& dst, const copy_extent& extent, bool aligned);
// Queues memcpy_2d's copy (aligned) on `s`.
void memcpy_2d_async(const copy_location& src, const copy_location& dst, const copy_extent& extent, stream_view s);
// Copies a box of `extent` from `src` to `dst` (cuMemcpy3D); a depth of 1 copies one 2-D
// slice.
void memcpy_3d(const copy_location& src, const copy_location& dst, const copy_extent& extent);
// Queues memcpy_3d's copy on `s`.
void memcpy_3d_async(const copy_location& src, const copy_location& dst, const copy_extent& extent, stream_view s);
// Between contexts: each location's `context` must be set.
void memcpy_3d_peer(const copy_location& src, const copy_location& dst, const copy_extent& extent);
// Queues memcpy_3d_peer's copy on `s`.
void memcpy_3d_peer_async(const copy_location& src, const copy_location& dst, const copy_extent& extent, stream_view s);

}  // namespace gpukit::cuda
