// Texture and surface objects: what CUDA 12 offers in place of the removed texture and
// surface references. A kernel receives the object's 64-bit handle as an ordinary parameter
// (cudaTextureObject_t / cudaSurfaceObject_t) and reads with tex1Dfetch<T>(obj, i),
// tex2D<T>(obj, x, y), ... or writes with surf2Dwrite(value, obj, x_bytes, y).
//
// A `texture_object` reads one of three resources:
//   - a CUDA array (1-D, 2-D, 3-D or layered), shared with the texture so it outlives it;
//   - linear device memory (read with tex1Dfetch), which the caller keeps alive;
//   - pitched 2-D device memory (as from device_allocation::allocate_pitch), kept alive by
//     the caller.
// A `surface_object` reads and writes a CUDA array created with CUDA_ARRAY3D_SURFACE_LDST.
//
// Both are move-only owners that destroy their handle in their context
// (detail/context_bound.hpp), before letting go of the array. Arguments are
// checked (format and channels, sizes, the device's alignment rules) before the driver is
// called, so mistakes surface as logic_error naming the rule rather than as
// CUDA_ERROR_INVALID_VALUE.
#pragma once

#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"
#include "gpukit/cuda/memory.hpp"

#include <cuda.h>

#include <array>
#include <cstddef>
#include <memory>
#include <utility>

namespace gpukit::cuda {

// How a texture samples its resource (the CUDA_TEXTURE_DESC fields gpukit exposes).
struct texture_desc {
    // Per dimension (x, y, z): CU_TR_ADDRESS_MODE_WRAP, CLAMP, MIRROR or BORDER. WRAP and
    // MIRROR need normalized coordinates.
    std::array<CUaddress_mode, 3> address_mode{CU_TR_ADDRESS_MODE_CLAMP, CU_TR_ADDRESS_MODE_CLAMP,
                                               CU_TR_ADDRESS_MODE_CLAMP};
    // CU_TR_FILTER_MODE_POINT or LINEAR; LINEAR needs values read as floats.
    CUfilter_mode filter_mode = CU_TR_FILTER_MODE_POINT;
    // CU_TRSF_READ_AS_INTEGER, CU_TRSF_NORMALIZED_COORDINATES, ... or'ed together.
    unsigned int flags = 0;
    // Returned outside the resource with CU_TR_ADDRESS_MODE_BORDER.
    std::array<float, 4> border_color{};
};

// The checks the factories make, exposed so they can be tested without a GPU. Each throws
// logic_error naming `what` and the rule broken. Alignments are the device's
// CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT and TEXTURE_PITCH_ALIGNMENT.
// This one checks a texture's element type: 1, 2 or 4 channels of a format gpukit sizes
// (array_format_bytes).
void check_texture_format(const char* what, CUarray_format format, unsigned int num_channels);
// Checks `desc` for a resource of `format`: WRAP or MIRROR addressing needs normalized
// coordinates, and linear filtering needs values read as floats (an integer format read as
// integers cannot be filtered).
void check_texture_desc(const char* what, const texture_desc& desc, CUarray_format format);
// Checks the resource of texture_object::from_linear: a non-null address aligned to
// `texture_alignment`, the format, and `size_bytes` a whole number of elements within the
// memory's known capacity.
void check_linear_texture(const device_pointer& memory, CUarray_format format, unsigned int num_channels,
                          std::size_t size_bytes, std::size_t texture_alignment);
// Checks the resource of texture_object::from_pitch2d: a non-null address aligned to
// `texture_alignment`, the format, a `pitch` that holds a row of `width` elements and is a
// multiple of `pitch_alignment`, and `height` rows within the memory's known capacity.
void check_pitch2d_texture(const device_pointer& memory, CUarray_format format, unsigned int num_channels,
                           std::size_t width, std::size_t height, std::size_t pitch, std::size_t texture_alignment,
                           std::size_t pitch_alignment);

namespace detail {

// What texture and surface objects share: a handle of `Traits` (a CUtexObject or a
// CUsurfObject), destroyed in its context before the array it reads is let go.
template <class Traits>
class resource_object {
public:
    using handle_type = typename Traits::handle_type;

    // Each destroys the handle it held before letting go of the array.
    resource_object(resource_object&&) noexcept = default;
    resource_object& operator=(resource_object&&) noexcept = default;
    ~resource_object() { handle_.reset(); }

    // The handle; logic_error once destroyed.
    handle_type handle() const { return kernel_argument(); }
    // What launch() passes for this object: the handle, in place.
    const handle_type& kernel_argument() const { return handle_.get(destroyed_); }
    bool is_destroyed() const noexcept { return handle_.empty(); }
    // Destroys the handle now (and lets go of the array); again does nothing.
    void destroy() {
        handle_.free();
        array_.reset();
    }
    // The owning context; logic_error once destroyed.
    const context_state_ptr& owner() const { return handle_.context(destroyed_); }

protected:
    // `destroyed`: the message of a use after destroy(), naming the Python class.
    resource_object(handle_type handle, context_state_ptr ctx, std::shared_ptr<const array> source,
                    const char* destroyed) noexcept
        : handle_(handle, std::move(ctx)), array_(std::move(source)), destroyed_(destroyed) {}

private:
    context_bound<Traits> handle_;
    std::shared_ptr<const array> array_;  // empty for a texture over linear or pitched memory
    const char* destroyed_;
};

}  // namespace detail

// A texture object: a read-only, sampled view of a CUDA array or of device memory, passed to
// a kernel as its CUtexObject handle. Move-only. Its members come from resource_object:
// handle(), kernel_argument() and owner() (logic_error once destroyed), is_destroyed(), and
// destroy(), which destroys the handle now.
class texture_object : public detail::resource_object<detail::texture_object_traits> {
public:
    // A texture over `source`, which the texture holds on to.
    static texture_object from_array(std::shared_ptr<const array> source, const texture_desc& desc = {});
    // A 1-D texture over `size_bytes` of linear memory holding elements of `num_channels`
    // channels of `format`; read with tex1Dfetch (filtering does not apply).
    static texture_object from_linear(const device_pointer& memory, CUarray_format format, unsigned int num_channels,
                                      std::size_t size_bytes, const texture_desc& desc = {});
    // A 2-D texture over `height` rows of `width` elements, rows `pitch` bytes apart.
    static texture_object from_pitch2d(const device_pointer& memory, CUarray_format format, unsigned int num_channels,
                                       std::size_t width, std::size_t height, std::size_t pitch,
                                       const texture_desc& desc = {});

private:
    texture_object(CUtexObject handle, context_state_ptr ctx, std::shared_ptr<const array> source) noexcept
        : resource_object(handle, std::move(ctx), std::move(source),
                          "this TextureObject has been destroyed; it can no longer be used") {}
};

// A surface object: a read-write view of a CUDA array made with CUDA_ARRAY3D_SURFACE_LDST,
// passed to a kernel as its CUsurfObject handle. Move-only, with the members of
// texture_object (from resource_object).
class surface_object : public detail::resource_object<detail::surface_object_traits> {
public:
    // A surface over `source`, which must have been created with CUDA_ARRAY3D_SURFACE_LDST.
    explicit surface_object(std::shared_ptr<const array> source);

private:
    // Holds `handle`, a surface over `source` made in its context.
    surface_object(CUsurfObject handle, const std::shared_ptr<const array>& source);
};

}  // namespace gpukit::cuda
