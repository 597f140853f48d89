// CUDA arrays: opaque, texture-friendly device memory of 1, 2 or 3 dimensions (or layers),
// and the unstructured copies into and out of them.
//
// An `array` owns its CUarray and frees it in its context, or borrows one that something else
// owns (the levels of a mapped OpenGL image, graphics.hpp). Shapes are given as a
// CUDA_ARRAY3D_DESCRIPTOR (height 0 for 1-D, depth 0 for 1-D and 2-D); the 2-D descriptor
// of cuArrayCreate is available for arrays without depth and flags.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"
#include "gpukit/cuda/memory.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>

namespace gpukit::cuda {

// Bytes of one channel of `format`; logic_error for formats gpukit does not size
// (block-compressed and video formats).
std::size_t array_format_bytes(CUarray_format format);

// Bytes of one element (all channels) of the array described by `d`; logic_error for a
// format array_format_bytes does not size.
std::size_t array_element_bytes(const CUDA_ARRAY3D_DESCRIPTOR& d);
// Bytes of the whole array described by `d`: element bytes times width, height and depth
// (a height or depth of 0 counts as 1); logic_error as array_element_bytes.
std::size_t array_total_bytes(const CUDA_ARRAY3D_DESCRIPTOR& d);

// What lends out an array it owns (array::borrow): a mapped OpenGL image lends its levels
// while it is mapped.
class array_lender {
public:
    virtual ~array_lender() = default;
    // Null while the borrowed arrays may be used; otherwise why not, as a logic_error's message.
    virtual const char* withdrawn() const noexcept = 0;
};

// Move-only; the destructor frees an owned array in its context (detail/context_bound.hpp).
class array {
public:
    // A new array in the current context. The descriptor is checked (channels 1, 2 or 4,
    // width at least 1, a known format) before the driver is called.
    static array create(const CUDA_ARRAY3D_DESCRIPTOR& descriptor);
    // The array `handle` of context `ctx`, owned by `lender`, which this array keeps alive and
    // never frees. Every use is a logic_error with the lender's message once the lender has
    // withdrawn it (graphics_mapping::array: once the image is unmapped); free() lets go of it.
    static array borrow(CUarray handle, context_state_ptr ctx, std::shared_ptr<const array_lender> lender);

    // logic_error once freed, or withdrawn by its lender.
    CUarray handle() const;
    // Width, height, format and channels as the 2-D descriptor of cuArrayCreate
    // (cuArrayGetDescriptor), for arrays without depth and flags; logic_error once freed.
    CUDA_ARRAY_DESCRIPTOR descriptor() const;
    // The full shape, format and flags the driver reports (cuArray3DGetDescriptor); logic_error
    // once freed.
    CUDA_ARRAY3D_DESCRIPTOR descriptor_3d() const;
    // Bytes of the whole array (all layers); what memcpy_htoa and friends may touch.
    std::size_t size_bytes() const { return array_total_bytes(descriptor_3d()); }
    // True once free() has run (or the array was moved from).
    bool is_freed() const noexcept { return owned_.empty() && !lender_; }
    // True for an array from borrow() (until free()).
    bool is_borrowed() const noexcept { return lender_ != nullptr; }
    // Frees an owned array now, lets go of a borrowed one; again does nothing; other use
    // afterwards throws logic_error.
    void free();
    // The owning context; logic_error once freed, or withdrawn by its lender.
    const context_state_ptr& owner() const;

private:
    static constexpr const char* freed = "this Array has been freed; it can no longer be used";

    array(CUarray handle, context_state_ptr ctx) noexcept : owned_(handle, std::move(ctx)) {}
    // Throws the lender's message when it has withdrawn a borrowed array.
    void check_lent() const;

    // An owned array's handle and context; empty for a borrowed one.
    detail::context_bound<detail::array_traits> owned_;
    // A borrowed array's handle, context and lender (a null lender: not borrowed).
    CUarray borrowed_ = nullptr;
    context_state_ptr borrowed_context_;
    std::shared_ptr<const array_lender> lender_;
};

// Copies between arrays and linear memory, `bytes` long, starting `offset` bytes into the
// array (its elements in row-major order). Ranges are checked against the array's size and
// the device capacity where known. Blocking, like the driver calls they wrap. A 1-D array
// takes any range; a 2-D array only whole rows, a 3-D array only the whole array (other
// parts: memcpy_2d, memcpy_3d in structured_copy.hpp); logic_error otherwise. This one
// copies from host memory at `src` into `dst`.
void memcpy_htoa(const array& dst, std::size_t offset, const void* src, std::size_t bytes);
// Copies `bytes` of `src`, from byte `offset` on, into host memory at `dst`. Checked and
// limited as memcpy_htoa.
void memcpy_atoh(void* dst, const array& src, std::size_t offset, std::size_t bytes);
// Copies `bytes` from device memory at `src` into `dst`, from byte `offset` on. Checked and
// limited as memcpy_htoa.
void memcpy_dtoa(const array& dst, std::size_t offset, device_pointer src, std::size_t bytes);
// Copies `bytes` of `src`, from byte `offset` on, into device memory at `dst`. Checked and
// limited as memcpy_htoa.
void memcpy_atod(device_pointer dst, const array& src, std::size_t offset, std::size_t bytes);
// Copies `bytes` of `src` from byte `src_offset` on into `dst` from byte `dst_offset` on.
// Unless both arrays are 1-D, they need the same extent and element size (logic_error
// otherwise), and the ranges are limited as for memcpy_htoa.
void memcpy_atoa(const array& dst, std::size_t dst_offset, const array& src, std::size_t src_offset, std::size_t bytes);

}  // namespace gpukit::cuda
