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
    // The kind of image: CL_MEM_OBJECT_IMAGE1D, IMAGE2D, IMAGE2D_ARRAY or IMAGE3D (1D image
    // arrays and images over buffers are refused).
    cl_mem_object_type type = CL_MEM_OBJECT_IMAGE2D;
    // \var width
    // The width in pixels, which every type has.
    // \var height
    // The height in pixels, of the 2D types and IMAGE3D; ignored for IMAGE1D (leave it 1).
    // \var row_pitch
    // The bytes from one row of the host memory to the next; 0: tight. Only with host memory.
    size_t width = 1, height = 1, depth = 1;  // the depth in pixels, of IMAGE3D only; ignored for the others
    size_t array_size = 1;                    // images in an image array (IMAGE2D_ARRAY only)
    size_t row_pitch = 0, slice_pitch = 0;    // bytes from one slice of the host memory to the next; 0: tight
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

    // Takes over the other image's reference; the other's handle becomes null.
    image(image&&) noexcept = default;
    // Drops this image's reference and takes over the other's, whose handle becomes null.
    image& operator=(image&&) noexcept = default;

    // The cl_mem handle (not a new reference); null once moved from.
    cl_mem handle() const noexcept { return handle_.get(); }
    // The channel order and channel data type of its pixels.
    const cl_image_format& format() const noexcept { return format_; }
    // The kind of image: CL_MEM_OBJECT_IMAGE1D, IMAGE2D, IMAGE2D_ARRAY or IMAGE3D.
    cl_mem_object_type type() const noexcept { return type_; }
    // The extent in pixels: (width, height, depth), 1 where the type has none; an image array's
    // count of images is its height (1D) or depth (2D), as its copies address it.
    const image_point& extent() const noexcept { return extent_; }
    // The image's dimensions as OpenCL counts them: 1, 2 or 3 (arrays count their index).
    int dimensions() const noexcept;

    // clGetImageInfo: the raw bytes of `param` (CL_IMAGE_WIDTH, CL_IMAGE_ELEMENT_SIZE, ...).
    std::vector<std::byte> image_info_bytes(cl_image_info param) const;
    // clGetMemObjectInfo: the raw bytes of `param` (CL_MEM_FLAGS, CL_MEM_SIZE, ...).
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
    void* data = nullptr;  // the host memory (read by a write to the image, written by a read)
    size_t bytes = 0;      // its size in bytes, which must cover the region at the pitches
    // The bytes from one row to the next; 0: tight (a row of the region). 0 for a 1D image.
    size_t row_pitch = 0, slice_pitch = 0;  // bytes from one slice to the next; 0: tight; 0 for an image without slices
};

// Copies host memory `host` into the `region` at `origin` of `img`. Not blocking: the host
// memory must stay valid until the returned event has completed. cl::logic_error, before
// OpenCL sees it, for a box outside the image, pitches the image type does not take, or host
// memory too small for the region.
event enqueue_write_image(const queue& q, const image& img, const image_point& origin, const image_point& region,
                          image_host_side host, bool blocking, std::span<const cl_event> wait_for = {});
// Copies the `region` at `origin` of `img` into host memory `host`. Not blocking: the host
// memory must stay valid and untouched until the returned event has completed.
// cl::logic_error as enqueue_write_image.
event enqueue_read_image(const queue& q, const image& img, const image_point& origin, const image_point& region,
                         image_host_side host, bool blocking, std::span<const cl_event> wait_for = {});
// Copies the `region` at `src_origin` of `src` to `dst_origin` of `dst`, which must have the
// same format; cl::logic_error for a box outside either image or formats that differ.
event enqueue_copy_image(const queue& q, const image& src, const image& dst, const image_point& src_origin,
                         const image_point& dst_origin, const image_point& region,
                         std::span<const cl_event> wait_for = {});
// Copies the `region` at `origin` of `src` into `dst`, its pixels packed from byte `offset`;
// cl::logic_error for a box outside the image or bytes outside the buffer.
event enqueue_copy_image_to_buffer(const queue& q, const image& src, const buffer& dst, const image_point& origin,
                                   const image_point& region, size_t offset, std::span<const cl_event> wait_for = {});
// Copies the pixels packed from byte `offset` of `src` into the `region` at `origin` of `dst`;
// cl::logic_error for bytes outside the buffer or a box outside the image.
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
    // A sampler of `ctx`: coordinates in [0, 1) when `normalized_coords`, else in pixels;
    // `addressing` (CL_ADDRESS_CLAMP, ...) for coordinates outside the image; `filter`
    // (CL_FILTER_NEAREST or CL_FILTER_LINEAR).
    static sampler create(const context& ctx, bool normalized_coords, cl_addressing_mode addressing,
                          cl_filter_mode filter);
    // Takes over the other sampler's reference; the other's handle becomes null.
    sampler(sampler&&) noexcept = default;
    // Drops this sampler's reference and takes over the other's, whose handle becomes null.
    sampler& operator=(sampler&&) noexcept = default;
    // The cl_sampler handle (not a new reference); null once moved from.
    cl_sampler handle() const noexcept { return handle_.get(); }
    // clGetSamplerInfo: the raw bytes of `param`.
    std::vector<std::byte> info_bytes(cl_sampler_info param) const;

private:
    explicit sampler(detail::retained<cl_sampler> handle) noexcept : handle_(std::move(handle)) {}
    detail::retained<cl_sampler> handle_;
};

}  // namespace gpukit::cl
