// OpenCL images and samplers, and the copies between images, buffers and host memory.
//
// Extents, origins and regions count pixels, as OpenCL's do: (x, y, z) for a 3D image,
// (x, y, index) for a 2D image array, (x, index, -) for a 1D array. Every copy is checked to lie
// within the image and, on the host side, within the host memory, before OpenCL sees it.
#pragma once

#include "gpukit/cl/buffer.hpp"

#include <CL/cl.h>

// OpenCL 2.0's 24-bit depth channel type, which the OpenCL headers NVIDIA ships with CUDA lack.
#ifndef CL_UNORM_INT24
#define CL_UNORM_INT24 0x10DF
#endif

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace gpukit::cl {

// The channels of a pixel of `order` (1 to 4); cl::logic_error for an order OpenCL does not define.
size_t channel_count(cl_channel_order order);
// The bytes of one pixel of `format` (for the packed types, such as CL_UNORM_SHORT_565, the
// whole pixel's); cl::logic_error for a channel type OpenCL does not define.
size_t pixel_size(const cl_image_format& format);

// The image formats `ctx` supports for images of `type` (CL_MEM_OBJECT_IMAGE2D, ...) made
// with `flags`.
std::vector<cl_image_format> supported_image_formats(const context& ctx, cl_mem_flags flags, cl_mem_object_type type);

// The kind and extent of a new image, and the pitches of the host memory it is made from.
struct image_shape {
    cl_mem_object_type type = CL_MEM_OBJECT_IMAGE2D;
    size_t width = 1, height = 1, depth = 1;  // the extents the type has; the others stay 1
    size_t array_size = 1;                    // images in an image array
    size_t row_pitch = 0, slice_pitch = 0;    // of the host memory, in bytes; 0: tight
};

// An (x, y, z) point or extent of an image, in pixels.
using image_point = std::array<size_t, 3>;

// Owns one reference to an image; move-only.
class image {
public:
    // An image of `format` and `shape`. With CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR,
    // `host_ptr` holds `host_bytes` bytes, which must cover the image at the shape's pitches
    // (cl::logic_error otherwise); USE_HOST_PTR memory is kept through `host_owner` for as long
    // as OpenCL uses it, as buffer::create does.
    static image create(const context& ctx, cl_mem_flags flags, const cl_image_format& format, const image_shape& shape,
                        void* host_ptr = nullptr, size_t host_bytes = 0, std::shared_ptr<void> host_owner = {});
    // Another owner of the existing image `handle`; a buffer or pipe is refused (cl::logic_error).
    static image wrap(cl_mem handle, bool retain = true);

    image(image&&) noexcept = default;
    image& operator=(image&&) noexcept = default;

    cl_mem handle() const noexcept { return handle_.get(); }
    const cl_image_format& format() const noexcept { return format_; }
    cl_mem_object_type type() const noexcept { return type_; }
    // The extent in pixels: (width, height, depth), 1 where the type has none; an image array's
    // count of images is its height (1D) or depth (2D), as its copies address it.
    const image_point& extent() const noexcept { return extent_; }
    // The image's dimensions as OpenCL counts them: 1, 2 or 3 (arrays count their index).
    int dimensions() const noexcept;

    // clGetImageInfo and clGetMemObjectInfo: the raw bytes of `param`.
    std::vector<std::byte> image_info_bytes(cl_image_info param) const;
    std::vector<std::byte> info_bytes(cl_mem_info param) const;

private:
    image(detail::retained<cl_mem> handle, const cl_image_format& format, cl_mem_object_type type,
          const image_point& extent) noexcept
        : handle_(std::move(handle)), format_(format), type_(type), extent_(extent) {}

    detail::retained<cl_mem> handle_;
    cl_image_format format_{};
    cl_mem_object_type type_ = CL_MEM_OBJECT_IMAGE2D;
    image_point extent_{1, 1, 1};
};

// The host side of an image copy: `bytes` of memory at `data`, rows `row_pitch` and slices
// `slice_pitch` bytes apart (0: tight for the region).
struct image_host_side {
    void* data = nullptr;
    size_t bytes = 0;
    size_t row_pitch = 0, slice_pitch = 0;
};

// Copies the `region` at `origin` of `img` from or to host memory. Not blocking: the host
// memory must stay valid (and, for a read, untouched) until the returned event has completed.
event enqueue_write_image(const queue& q, const image& img, const image_point& origin, const image_point& region,
                          image_host_side host, bool blocking, std::span<const cl_event> wait_for = {});
event enqueue_read_image(const queue& q, const image& img, const image_point& origin, const image_point& region,
                         image_host_side host, bool blocking, std::span<const cl_event> wait_for = {});
// Copies between images of the same format, and between an image and a buffer (the pixels
// packed from byte `offset` of the buffer).
event enqueue_copy_image(const queue& q, const image& src, const image& dst, const image_point& src_origin,
                         const image_point& dst_origin, const image_point& region,
                         std::span<const cl_event> wait_for = {});
event enqueue_copy_image_to_buffer(const queue& q, const image& src, const buffer& dst, const image_point& origin,
                                   const image_point& region, size_t offset, std::span<const cl_event> wait_for = {});
event enqueue_copy_buffer_to_image(const queue& q, const buffer& src, const image& dst, size_t offset,
                                   const image_point& origin, const image_point& region,
                                   std::span<const cl_event> wait_for = {});
// Fills the `region` at `origin` with one colour: four floats, or four int32 or uint32 for the
// integer channel types, as OpenCL reads it. OpenCL copies the colour when queued.
event enqueue_fill_image(const queue& q, const image& img, std::span<const std::byte, 16> color,
                         const image_point& origin, const image_point& region, std::span<const cl_event> wait_for = {});

// Owns one reference to a sampler (how a kernel's read_image* reads an image); move-only.
class sampler {
public:
    static sampler create(const context& ctx, bool normalized_coords, cl_addressing_mode addressing,
                          cl_filter_mode filter);
    sampler(sampler&&) noexcept = default;
    sampler& operator=(sampler&&) noexcept = default;
    cl_sampler handle() const noexcept { return handle_.get(); }
    // clGetSamplerInfo: the raw bytes of `param`.
    std::vector<std::byte> info_bytes(cl_sampler_info param) const;

private:
    explicit sampler(detail::retained<cl_sampler> handle) noexcept : handle_(std::move(handle)) {}
    detail::retained<cl_sampler> handle_;
};

}  // namespace gpukit::cl
