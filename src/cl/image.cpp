#include "gpukit/cl/image.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/host_owner.hpp"
#include "gpukit/cl/detail/info.hpp"
#include "gpukit/cl/detail/wait_list.hpp"

#include <string>
#include <utility>

namespace gpukit::cl {
namespace {

std::string point_text(const image_point& p) {
    return "(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " + std::to_string(p[2]) + ")";
}

// The extent of an image of `shape`, (width, height, depth) with an array's count as its
// last; 1D arrays and images over buffers are refused.
image_point extent_of(const image_shape& shape, const char* routine) {
    switch (shape.type) {
    case CL_MEM_OBJECT_IMAGE1D:
        return {shape.width, 1, 1};
    case CL_MEM_OBJECT_IMAGE2D:
        return {shape.width, shape.height, 1};
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
        return {shape.width, shape.height, shape.array_size};
    case CL_MEM_OBJECT_IMAGE3D:
        return {shape.width, shape.height, shape.depth};
    default:
        throw logic_error(std::string(routine) + ": image type " + std::to_string(shape.type) +
                              " is not supported; expected mem_object_type IMAGE1D, IMAGE2D, IMAGE2D_ARRAY or "
                              "IMAGE3D (1D image arrays and images over buffers are not)",
                          CL_INVALID_IMAGE_DESCRIPTOR, routine);
    }
}

// The bytes of host memory that `region` of `pixel`-byte pixels spans at the given pitches,
// which are resolved to the tight ones where 0; cl::logic_error for pitches below those.
size_t host_extent(size_t pixel, const image_point& region, size_t& row_pitch, size_t& slice_pitch,
                   const char* routine) {
    const size_t row = region[0] * pixel;
    if (row_pitch == 0)
        row_pitch = row;
    if (row_pitch < row)
        throw logic_error(std::string(routine) + ": row pitch " + std::to_string(row_pitch) + " is below a row's " +
                              std::to_string(row) + " bytes",
                          CL_INVALID_VALUE, routine);
    const size_t slice = row_pitch * region[1];
    if (slice_pitch == 0)
        slice_pitch = slice;
    if (slice_pitch < slice)
        throw logic_error(std::string(routine) + ": slice pitch " + std::to_string(slice_pitch) +
                              " is below a slice's " + std::to_string(slice) + " bytes (rows times the row pitch)",
                          CL_INVALID_VALUE, routine);
    return slice_pitch * (region[2] - 1) + row_pitch * (region[1] - 1) + row;
}

// `origin` + `region` within `img`, each region extent at least 1.
void check_box(const image& img, const image_point& origin, const image_point& region, const char* routine,
               const std::string& role) {
    if (!img.handle())
        throw logic_error(std::string(routine) + ": the " + role + " was released", CL_INVALID_MEM_OBJECT, routine);
    for (int k = 0; k < 3; ++k)
        if (region[k] == 0 || origin[k] > img.extent()[k] || region[k] > img.extent()[k] - origin[k])
            throw logic_error(std::string(routine) + ": the region " + point_text(region) + " at " +
                                  point_text(origin) + " is not within the " + role + " of " +
                                  point_text(img.extent()) + " pixels (each region extent at least 1)",
                              CL_INVALID_VALUE, routine);
}

void check_buffer_range(const buffer& b, size_t offset, size_t bytes, const char* routine) {
    if (!b.handle())
        throw logic_error(std::string(routine) + ": the buffer was released", CL_INVALID_MEM_OBJECT, routine);
    if (offset > b.size() || bytes > b.size() - offset)
        throw logic_error(std::string(routine) + ": " + std::to_string(bytes) + " bytes from byte " +
                              std::to_string(offset) + " are outside the buffer of " + std::to_string(b.size()) +
                              " bytes",
                          CL_INVALID_VALUE, routine);
}

size_t region_bytes(const image& img, const image_point& region) {
    return pixel_size(img.format()) * region[0] * region[1] * region[2];
}

// The host pitches OpenCL takes for an image of `type`: a slice pitch only where there are slices.
image_host_side host_pitches_for(cl_mem_object_type type, image_host_side host, const char* routine) {
    if ((type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE2D) && host.slice_pitch != 0)
        throw logic_error(std::string(routine) + ": a slice pitch for an image without slices; expected 0",
                          CL_INVALID_VALUE, routine);
    if (type == CL_MEM_OBJECT_IMAGE1D && host.row_pitch != 0)
        throw logic_error(std::string(routine) + ": a row pitch for a 1D image; expected 0", CL_INVALID_VALUE, routine);
    return host;
}

template <class T>
T image_info(cl_mem handle, cl_image_info param) {
    return detail::info_value<T>(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetImageInfo(handle, param, size, value, size_ret);
        },
        "clGetImageInfo");
}

// An image's host-side copy: checks, then clEnqueueReadImage or clEnqueueWriteImage.
template <class Enqueue>
event enqueue_host_copy(const queue& q, const image& img, const image_point& origin, const image_point& region,
                        image_host_side host, bool blocking, std::span<const cl_event> wait_for, const char* routine,
                        Enqueue enqueue) {
    check_box(img, origin, region, routine, "image");
    host = host_pitches_for(img.type(), host, routine);
    size_t row_pitch = host.row_pitch, slice_pitch = host.slice_pitch;
    const size_t needed = host_extent(pixel_size(img.format()), region, row_pitch, slice_pitch, routine);
    if (host.bytes < needed)
        throw logic_error(std::string(routine) + ": the region needs " + std::to_string(needed) +
                              " bytes of host memory at these pitches; the host array has " +
                              std::to_string(host.bytes),
                          CL_INVALID_VALUE, routine);
    cl_event done = nullptr;
    check_status(enqueue(q.handle(), img.handle(), blocking ? CL_TRUE : CL_FALSE, origin.data(), region.data(),
                         host.row_pitch, host.slice_pitch, host.data, detail::wait_count(wait_for),
                         detail::wait_list(wait_for), &done),
                 routine);
    return event(done);
}

}  // namespace

size_t channel_count(cl_channel_order order) {
    switch (order) {
    case CL_R:
    case CL_A:
    case CL_INTENSITY:
    case CL_LUMINANCE:
    case CL_DEPTH:
    case CL_Rx:
        return 1;
    case CL_RG:
    case CL_RA:
    case CL_RGx:
        return 2;
    case CL_RGB:
    case CL_RGBx:
    case CL_sRGB:
    case CL_sRGBx:
        return 3;
    case CL_RGBA:
    case CL_BGRA:
    case CL_ARGB:
    case CL_ABGR:
    case CL_sRGBA:
    case CL_sBGRA:
        return 4;
    default:
        throw logic_error("channel order " + std::to_string(order) + " is not one OpenCL defines",
                          CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "clCreateImage");
    }
}

size_t pixel_size(const cl_image_format& format) {
    switch (format.image_channel_data_type) {
    case CL_UNORM_SHORT_565:
    case CL_UNORM_SHORT_555:
        return 2;  // the whole pixel
    case CL_UNORM_INT_101010:
    case CL_UNORM_INT_101010_2:
        return 4;
    default:
        break;
    }
    // Padded orders (CL_RGBx, CL_RGx, CL_Rx) store one channel more than they show.
    const cl_channel_order order = format.image_channel_order;
    const size_t stored = order == CL_RGBx || order == CL_sRGBx || order == CL_RGx || order == CL_Rx
                              ? channel_count(order) + 1
                              : channel_count(order);
    switch (format.image_channel_data_type) {
    case CL_SNORM_INT8:
    case CL_UNORM_INT8:
    case CL_SIGNED_INT8:
    case CL_UNSIGNED_INT8:
        return stored;
    case CL_SNORM_INT16:
    case CL_UNORM_INT16:
    case CL_SIGNED_INT16:
    case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT:
        return 2 * stored;
    case CL_SIGNED_INT32:
    case CL_UNSIGNED_INT32:
    case CL_FLOAT:
    case CL_UNORM_INT24:
        return 4 * stored;
    default:
        throw logic_error("channel type " + std::to_string(format.image_channel_data_type) +
                              " is not one OpenCL defines",
                          CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "clCreateImage");
    }
}

std::vector<cl_image_format> supported_image_formats(const context& ctx, cl_mem_flags flags, cl_mem_object_type type) {
    cl_uint count = 0;
    GPUKIT_CL(clGetSupportedImageFormats, ctx.handle(), flags, type, 0, nullptr, &count);
    std::vector<cl_image_format> formats(count);
    if (count != 0)
        GPUKIT_CL(clGetSupportedImageFormats, ctx.handle(), flags, type, count, formats.data(), nullptr);
    return formats;
}

image image::create(const context& ctx, cl_mem_flags flags, const cl_image_format& format, const image_shape& shape,
                    void* host_ptr, size_t host_bytes, std::shared_ptr<void> host_owner) {
    const char* routine = "clCreateImage";
    check_mem_flags(flags, host_ptr != nullptr);
    const image_point extent = extent_of(shape, routine);
    if (extent[0] == 0 || extent[1] == 0 || extent[2] == 0)
        throw logic_error(std::string(routine) + ": an image of " + point_text(extent) +
                              " pixels; expected at least 1 in each extent",
                          CL_INVALID_IMAGE_SIZE, routine);
    const size_t pixel = pixel_size(format);
    if (host_ptr) {
        size_t row_pitch = shape.row_pitch, slice_pitch = shape.slice_pitch;
        const size_t needed = host_extent(pixel, extent, row_pitch, slice_pitch, routine);
        if (host_bytes < needed)
            throw logic_error(std::string(routine) + ": the image needs " + std::to_string(needed) +
                                  " bytes of host memory at these pitches; the host buffer has " +
                                  std::to_string(host_bytes),
                              CL_INVALID_HOST_PTR, routine);
    } else if (shape.row_pitch != 0 || shape.slice_pitch != 0) {
        throw logic_error(std::string(routine) + ": pitches describe host memory; give them only with it",
                          CL_INVALID_IMAGE_DESCRIPTOR, routine);
    }
    cl_image_desc desc{};
    desc.image_type = shape.type;
    desc.image_width = shape.width;
    desc.image_height = shape.type == CL_MEM_OBJECT_IMAGE1D ? 0 : shape.height;
    desc.image_depth = shape.type == CL_MEM_OBJECT_IMAGE3D ? shape.depth : 0;
    desc.image_array_size = shape.type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? shape.array_size : 0;
    desc.image_row_pitch = host_ptr ? shape.row_pitch : 0;
    desc.image_slice_pitch = host_ptr && shape.type != CL_MEM_OBJECT_IMAGE2D ? shape.slice_pitch : 0;
    detail::retained<cl_mem> handle(GPUKIT_CL_CREATE(clCreateImage, "an image of " + point_text(extent) + " pixels",
                                                     ctx.handle(), flags, &format, &desc, host_ptr),
                                    detail::adopt);
    image made(std::move(handle), format, shape.type, extent);
    if ((flags & CL_MEM_USE_HOST_PTR) && host_owner)
        detail::keep_until_destroyed(made.handle(), std::move(host_owner));
    return made;
}

image image::wrap(cl_mem handle, bool retain) {
    detail::retained<cl_mem> owned = detail::reference_to(handle, retain, "an image");
    const auto type = detail::info_value<cl_mem_object_type>(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetMemObjectInfo(handle, CL_MEM_TYPE, size, value, size_ret);
        },
        "clGetMemObjectInfo");
    image_shape shape{.type = type};
    const image_point extent_probe = extent_of(shape, "wrapping an image");  // refuses buffers and pipes
    static_cast<void>(extent_probe);
    const auto width = image_info<size_t>(handle, CL_IMAGE_WIDTH);
    const auto height = image_info<size_t>(handle, CL_IMAGE_HEIGHT);
    const auto depth = image_info<size_t>(handle, CL_IMAGE_DEPTH);
    const auto array_size = image_info<size_t>(handle, CL_IMAGE_ARRAY_SIZE);
    shape.width = width;
    shape.height = height ? height : 1;
    shape.depth = depth ? depth : 1;
    shape.array_size = array_size ? array_size : 1;
    return image(std::move(owned), image_info<cl_image_format>(handle, CL_IMAGE_FORMAT), type,
                 extent_of(shape, "wrapping an image"));
}

int image::dimensions() const noexcept {
    switch (type_) {
    case CL_MEM_OBJECT_IMAGE1D:
        return 1;
    case CL_MEM_OBJECT_IMAGE2D:
        return 2;
    default:
        return 3;
    }
}

std::vector<std::byte> image::image_info_bytes(cl_image_info param) const {
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetImageInfo(handle(), param, size, value, size_ret);
        },
        "clGetImageInfo");
}

std::vector<std::byte> image::info_bytes(cl_mem_info param) const {
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetMemObjectInfo(handle(), param, size, value, size_ret);
        },
        "clGetMemObjectInfo");
}

event enqueue_write_image(const queue& q, const image& img, const image_point& origin, const image_point& region,
                          image_host_side host, bool blocking, std::span<const cl_event> wait_for) {
    return enqueue_host_copy(q, img, origin, region, host, blocking, wait_for, "clEnqueueWriteImage",
                             GPUKIT_CL_ENTRY(clEnqueueWriteImage));
}

event enqueue_read_image(const queue& q, const image& img, const image_point& origin, const image_point& region,
                         image_host_side host, bool blocking, std::span<const cl_event> wait_for) {
    return enqueue_host_copy(q, img, origin, region, host, blocking, wait_for, "clEnqueueReadImage",
                             GPUKIT_CL_ENTRY(clEnqueueReadImage));
}

event enqueue_copy_image(const queue& q, const image& src, const image& dst, const image_point& src_origin,
                         const image_point& dst_origin, const image_point& region, std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueCopyImage";
    check_box(src, src_origin, region, routine, "source image");
    check_box(dst, dst_origin, region, routine, "destination image");
    if (src.format().image_channel_order != dst.format().image_channel_order ||
        src.format().image_channel_data_type != dst.format().image_channel_data_type)
        throw logic_error(std::string(routine) +
                              ": the images have different formats; OpenCL copies only between "
                              "images of one format",
                          CL_IMAGE_FORMAT_MISMATCH, routine);
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueCopyImage, q.handle(), src.handle(), dst.handle(), src_origin.data(), dst_origin.data(),
              region.data(), detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

event enqueue_copy_image_to_buffer(const queue& q, const image& src, const buffer& dst, const image_point& origin,
                                   const image_point& region, size_t offset, std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueCopyImageToBuffer";
    check_box(src, origin, region, routine, "source image");
    check_buffer_range(dst, offset, region_bytes(src, region), routine);
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueCopyImageToBuffer, q.handle(), src.handle(), dst.handle(), origin.data(), region.data(), offset,
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

event enqueue_copy_buffer_to_image(const queue& q, const buffer& src, const image& dst, size_t offset,
                                   const image_point& origin, const image_point& region,
                                   std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueCopyBufferToImage";
    check_box(dst, origin, region, routine, "destination image");
    check_buffer_range(src, offset, region_bytes(dst, region), routine);
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueCopyBufferToImage, q.handle(), src.handle(), dst.handle(), offset, origin.data(), region.data(),
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

event enqueue_fill_image(const queue& q, const image& img, std::span<const std::byte, 16> color,
                         const image_point& origin, const image_point& region, std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueFillImage";
    check_box(img, origin, region, routine, "image");
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueFillImage, q.handle(), img.handle(), color.data(), origin.data(), region.data(),
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

sampler sampler::create(const context& ctx, bool normalized_coords, cl_addressing_mode addressing,
                        cl_filter_mode filter) {
    const cl_sampler_properties properties[] = {CL_SAMPLER_NORMALIZED_COORDS,
                                                static_cast<cl_sampler_properties>(normalized_coords),
                                                CL_SAMPLER_ADDRESSING_MODE,
                                                addressing,
                                                CL_SAMPLER_FILTER_MODE,
                                                filter,
                                                0};
    return sampler(detail::retained<cl_sampler>(GPUKIT_CL_CREATE(clCreateSamplerWithProperties,
                                                                 "addressing mode " + std::to_string(addressing) +
                                                                     ", filter mode " + std::to_string(filter),
                                                                 ctx.handle(), properties),
                                                detail::adopt));
}

std::vector<std::byte> sampler::info_bytes(cl_sampler_info param) const {
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetSamplerInfo(handle(), param, size, value, size_ret);
        },
        "clGetSamplerInfo");
}

}  // namespace gpukit::cl
