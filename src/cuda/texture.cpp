#include "gpukit/cuda/texture.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/device.hpp"

#include <string>
#include <utility>

namespace gpukit::cuda {
namespace {

CUDA_TEXTURE_DESC driver_desc(const texture_desc& desc) {
    CUDA_TEXTURE_DESC out{};
    for (int dim = 0; dim < 3; ++dim)
        out.addressMode[dim] = desc.address_mode[dim];
    out.filterMode = desc.filter_mode;
    out.flags = desc.flags;
    for (int i = 0; i < 4; ++i)
        out.borderColor[i] = desc.border_color[i];
    return out;
}

CUtexObject create_texture(const CUDA_RESOURCE_DESC& resource, const texture_desc& desc) {
    const CUDA_TEXTURE_DESC tex = driver_desc(desc);
    CUtexObject handle = 0;
    GPUKIT_CU(cuTexObjectCreate, &handle, &resource, &tex, nullptr);
    return handle;
}

// Alignment rules of the current context's device.
struct texture_alignments {
    std::size_t address, pitch;
};

texture_alignments alignments_of(const context& ctx) {
    const device dev = ctx.get_device();
    return {static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT)),
            static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT))};
}

// The current context, in which a texture over device memory of `format` is made. The
// arguments are checked first, so their errors are reported even where no context is current.
context memory_texture_context(const char* what, CUarray_format format, unsigned int num_channels,
                               const texture_desc& desc) {
    check_texture_format(what, format, num_channels);
    check_texture_desc(what, desc, format);
    return context::current_or_throw(what);
}

const array& checked_array(const char* what, const std::shared_ptr<const array>& source) {
    if (!source)
        throw logic_error(std::string(what) + ": no array given");
    source->handle();  // logic_error when freed
    return *source;
}

// A surface over `source` (made in the array's context, whichever context is current).
CUsurfObject create_surface(const std::shared_ptr<const array>& source) {
    const char* what = "SurfaceObject()";
    const array& a = checked_array(what, source);
    if (!(a.descriptor_3d().Flags & CUDA_ARRAY3D_SURFACE_LDST))
        throw logic_error(std::string(what) +
                          ": the array was not created for surface access; create it with "
                          "array3d_flags.SURFACE_LDST in its ArrayDescriptor3D flags");
    CUDA_RESOURCE_DESC resource{};
    resource.resType = CU_RESOURCE_TYPE_ARRAY;
    resource.res.array.hArray = a.handle();
    scoped_context in(*a.owner());
    CUsurfObject handle = 0;
    GPUKIT_CU(cuSurfObjectCreate, &handle, &resource);
    return handle;
}

}  // namespace

texture_object texture_object::from_array(std::shared_ptr<const array> source, const texture_desc& desc) {
    const char* what = "TextureObject.from_array()";
    const array& a = checked_array(what, source);
    check_texture_desc(what, desc, a.descriptor_3d().Format);
    CUDA_RESOURCE_DESC resource{};
    resource.resType = CU_RESOURCE_TYPE_ARRAY;
    resource.res.array.hArray = a.handle();
    // The texture lives in the array's context, whichever context is current.
    scoped_context in(*a.owner());
    const CUtexObject handle = create_texture(resource, desc);
    context_state_ptr ctx = a.owner();
    return texture_object(handle, std::move(ctx), std::move(source));
}

texture_object texture_object::from_linear(const device_pointer& memory, CUarray_format format,
                                           unsigned int num_channels, std::size_t size_bytes,
                                           const texture_desc& desc) {
    const context ctx = memory_texture_context("TextureObject.from_linear()", format, num_channels, desc);
    check_linear_texture(memory, format, num_channels, size_bytes, alignments_of(ctx).address);
    CUDA_RESOURCE_DESC resource{};
    resource.resType = CU_RESOURCE_TYPE_LINEAR;
    resource.res.linear = {.devPtr = memory.address,
                           .format = format,
                           .numChannels = num_channels,
                           .sizeInBytes = size_bytes};
    return texture_object(create_texture(resource, desc), ctx.state(), nullptr);
}

texture_object texture_object::from_pitch2d(const device_pointer& memory, CUarray_format format,
                                            unsigned int num_channels, std::size_t width, std::size_t height,
                                            std::size_t pitch, const texture_desc& desc) {
    const context ctx = memory_texture_context("TextureObject.from_pitch2d()", format, num_channels, desc);
    const texture_alignments align = alignments_of(ctx);
    check_pitch2d_texture(memory, format, num_channels, width, height, pitch, align.address, align.pitch);
    CUDA_RESOURCE_DESC resource{};
    resource.resType = CU_RESOURCE_TYPE_PITCH2D;
    resource.res.pitch2D = {.devPtr = memory.address,
                            .format = format,
                            .numChannels = num_channels,
                            .width = width,
                            .height = height,
                            .pitchInBytes = pitch};
    return texture_object(create_texture(resource, desc), ctx.state(), nullptr);
}

surface_object::surface_object(std::shared_ptr<const array> source) : surface_object(create_surface(source), source) {}

surface_object::surface_object(CUsurfObject handle, const std::shared_ptr<const array>& source)
    : resource_object(handle, source->owner(), source,
                      "this SurfaceObject has been destroyed; it can no longer be used") {}

}  // namespace gpukit::cuda
