#include "gpukit/cuda/graphics.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/array.hpp"

#include <new>
#include <string>
#include <utility>

namespace gpukit::cuda {
namespace {

constexpr unsigned int register_access_flags =
    CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY | CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD;
constexpr unsigned int register_image_flags =
    CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST | CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER;

}  // namespace

void check_graphics_register_flags(const char* what, unsigned int flags, bool image) {
    const unsigned int allowed = register_access_flags | (image ? register_image_flags : 0u);
    if ((flags & ~allowed) == 0 && (flags & register_access_flags) != register_access_flags)
        return;
    throw logic_error(std::string(what) + ": expected " +
                      (image
                           ? "graphics_map_flags NONE, READ_ONLY or WRITE_DISCARD, or'ed with graphics_register_flags "
                             "SURFACE_LDST and TEXTURE_GATHER if wanted"
                           : "graphics_map_flags NONE, READ_ONLY or WRITE_DISCARD") +
                      ", got " + std::to_string(flags));
}

graphics_resource graphics_resource::register_gl_buffer(unsigned int buffer, unsigned int flags) {
    check_graphics_register_flags("RegisteredBuffer(flags)", flags, false);
    const context ctx = context::current_or_throw("RegisteredBuffer()");
    CUgraphicsResource handle = nullptr;
    const CUresult result = GPUKIT_CU_ENTRY(cuGraphicsGLRegisterBuffer)(&handle, buffer, flags);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuGraphicsGLRegisterBuffer",
                         "OpenGL buffer " + std::to_string(buffer) +
                             "; the OpenGL context holding it must be current, on the CUDA context's GPU");
    return graphics_resource(handle, ctx.state(), buffer, kind::buffer);
}

graphics_resource graphics_resource::register_gl_image(unsigned int image, unsigned int target, unsigned int flags) {
    check_graphics_register_flags("RegisteredImage(flags)", flags, true);
    const context ctx = context::current_or_throw("RegisteredImage()");
    CUgraphicsResource handle = nullptr;
    const CUresult result = GPUKIT_CU_ENTRY(cuGraphicsGLRegisterImage)(&handle, image, target, flags);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuGraphicsGLRegisterImage",
                         "OpenGL image " + std::to_string(image) + ", target " + std::to_string(target) +
                             "; the target must be the image's kind, and the OpenGL context holding it current, on "
                             "the CUDA context's GPU");
    return graphics_resource(handle, ctx.state(), image, kind::image);
}

const char* graphics_resource::unregistered_message() const noexcept {
    return kind_ == kind::buffer ? "this RegisteredBuffer has been unregistered; it can no longer be used"
                                 : "this RegisteredImage has been unregistered; it can no longer be used";
}

void graphics_resource::unregister() {
    if (mapped_)
        throw logic_error(kind_ == kind::buffer
                              ? "RegisteredBuffer.unregister(): the buffer is mapped; unmap its RegisteredMapping first"
                              : "RegisteredImage.unregister(): the image is mapped; unmap its RegisteredMapping first");
    owned_.free();
}

void graphics_resource::map_on(CUstream stream, const char* what) {
    CUgraphicsResource h = handle();
    if (mapped_)
        throw logic_error(std::string(what) + ": the resource is mapped already; unmap its RegisteredMapping first");
    scoped_context in(*owned_.context());
    GPUKIT_CU(cuGraphicsMapResources, 1, &h, stream);
    mapped_ = true;
}

void graphics_resource::unmap_on(CUstream stream) {
    CUgraphicsResource h = handle();
    scoped_context in(*owned_.context());
    GPUKIT_CU(cuGraphicsUnmapResources, 1, &h, stream);
    mapped_ = false;
}

void graphics_resource::unmap_quietly(CUstream stream) noexcept {
    if (owned_.empty())  // moved from while mapped: the new owner unregisters it
        return;
    mapped_ = false;
    CUgraphicsResource h = owned_.handle();
    scoped_context in(*owned_.context(), std::nothrow);
    try {
        report_release_failure(api().cuGraphicsUnmapResources(1, &h, stream), "cuGraphicsUnmapResources");
    } catch (...) {  // no driver (or a forked child): nothing can be unmapped
    }
}

detail::graphics_mapping_state::~graphics_mapping_state() {
    if (mapped)
        resource->unmap_quietly(stream);
}

const char* detail::graphics_mapping_state::withdrawn() const noexcept {
    return mapped ? nullptr
                  : "this Array belongs to a RegisteredMapping that has been unmapped; it can no longer be used "
                    "(map the resource again and ask the new mapping for its array)";
}

graphics_mapping graphics_mapping::map(std::shared_ptr<graphics_resource> resource, stream_view s) {
    if (!resource)
        throw logic_error("graphics_mapping::map(): no resource given");
    const char* what = resource->resource_kind() == graphics_resource::kind::buffer ? "RegisteredBuffer.map()"
                                                                                    : "RegisteredImage.map()";
    // Made first, so that nothing can fail between mapping and handing the mapping out.
    auto state = std::make_shared<detail::graphics_mapping_state>(std::move(resource), s.handle());
    state->resource->map_on(s.handle(), what);
    state->mapped = true;
    return graphics_mapping(std::move(state));
}

detail::graphics_mapping_state& graphics_mapping::mapped_state(const char* what) const {
    if (!state_ || !state_->mapped)
        throw logic_error(std::string(what) + ": this RegisteredMapping has been unmapped; it can no longer be used");
    return *state_;
}

void graphics_mapping::unmap() { unmap(stream_view(mapped_state("RegisteredMapping.unmap()").stream)); }

void graphics_mapping::unmap(stream_view s) {
    detail::graphics_mapping_state& state = mapped_state("RegisteredMapping.unmap()");
    state.resource->unmap_on(s.handle());
    state.mapped = false;
}

bool graphics_mapping::is_mapped() const noexcept { return state_ && state_->mapped; }

device_pointer graphics_mapping::pointer() const {
    const detail::graphics_mapping_state& state = mapped_state("RegisteredMapping.device_ptr_and_size()");
    if (state.resource->resource_kind() != graphics_resource::kind::buffer)
        throw logic_error(
            "RegisteredMapping.device_ptr_and_size(): a mapped image has no device pointer; use "
            "array(index, level)");
    CUdeviceptr address = 0;
    std::size_t size = 0;
    GPUKIT_CU(cuGraphicsResourceGetMappedPointer, &address, &size, state.resource->handle());
    return device_pointer(address, size);
}

cuda::array graphics_mapping::array(unsigned int index, unsigned int level) const {
    const detail::graphics_mapping_state& state = mapped_state("RegisteredMapping.array()");
    if (state.resource->resource_kind() != graphics_resource::kind::image)
        throw logic_error("RegisteredMapping.array(): a mapped buffer has no arrays; use device_ptr_and_size()");
    CUarray handle = nullptr;
    const CUresult result =
        GPUKIT_CU_ENTRY(cuGraphicsSubResourceGetMappedArray)(&handle, state.resource->handle(), index, level);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuGraphicsSubResourceGetMappedArray",
                         "index " + std::to_string(index) + ", level " + std::to_string(level));
    return cuda::array::borrow(handle, state.resource->owner(), state_);
}

const std::shared_ptr<graphics_resource>& graphics_mapping::resource() const {
    if (!state_)
        throw logic_error("this RegisteredMapping has been moved from; it can no longer be used");
    return state_->resource;
}

}  // namespace gpukit::cuda
