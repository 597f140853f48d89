// OpenGL interoperability: OpenGL buffer objects, textures and renderbuffers registered with
// CUDA (cuGraphicsGLRegisterBuffer, cuGraphicsGLRegisterImage) and mapped, so that kernels
// and copies reach their memory (cuGraphicsMapResources): PyCUDA's pycuda.gl.
//
// Nothing here links against OpenGL or needs its headers: an OpenGL object is named by its
// GLuint and a texture's kind by its GLenum (GL_TEXTURE_2D, ...), both unsigned int. Any CUDA
// context works with OpenGL (the OpenGL contexts of cuGLCtxCreate are gone from CUDA 12).
// Registering, mapping and unmapping need the OpenGL context that holds the object current on
// the calling thread, and a CUDA context on the GPU that renders it.
//
//     auto buffer = std::make_shared<graphics_resource>(graphics_resource::register_gl_buffer(vbo));
//     graphics_mapping mapping = graphics_mapping::map(buffer);
//     launch(fill, config, mapping.pointer().address, n);   // OpenGL must not touch it now
//     mapping.unmap();                                         // OpenGL's again
//
// A `graphics_resource` owns one registration: move-only, unregistered in its context. A
// `graphics_mapping` is one mapping of a resource, which it keeps alive (and so the context);
// the arrays it lends out for an image (`array`s, borrowed: array.hpp) share it, so the
// resource stays mapped until unmap() or until the mapping and its arrays are all gone. Any
// copy, texture or surface that takes an `array` takes them. Misuse is a logic_error naming
// the Python class, never undefined behaviour: mapping a mapped resource, unregistering a
// mapped one, unmapping twice, using a mapping or its arrays after unmap(). Like OpenGL's
// context, a resource and its mapping are used from one thread at a time.
#pragma once

#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>

namespace gpukit::cuda {

class graphics_mapping;

// Checks the flags of a registration (what graphics_resource's factories take) before the
// driver is called, so a wrong one is a logic_error naming `what` and the rule: a combination
// of CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY or WRITE_DISCARD (not both) and, for an image
// (`image`), SURFACE_LDST and TEXTURE_GATHER. PyCUDA's graphics_map_flags (NONE, READ_ONLY,
// WRITE_DISCARD) have the same values.
void check_graphics_register_flags(const char* what, unsigned int flags, bool image);

namespace detail {

// How context_bound releases a registration (the form of release_calls.inc's entries).
struct graphics_resource_traits {
    using handle_type = CUgraphicsResource;
    static constexpr const char* release_name = "cuGraphicsUnregisterResource";
    static CUresult release(CUgraphicsResource handle) { return api().cuGraphicsUnregisterResource(handle); }
};

struct graphics_mapping_state;

}  // namespace detail

// An OpenGL buffer object, texture or renderbuffer registered with CUDA in the context current
// when it was registered. Move-only; the destructor unregisters it in that context.
class graphics_resource {
public:
    // What was registered: a buffer (mapped as linear memory) or an image (mapped as arrays).
    enum class kind { buffer, image };

    // Registers the OpenGL buffer object named `buffer` (a GLuint) in the current context;
    // `flags` are CU_GRAPHICS_REGISTER_FLAGS_* (check_graphics_register_flags).
    static graphics_resource register_gl_buffer(unsigned int buffer, unsigned int flags = 0);
    // Registers the OpenGL texture or renderbuffer named `image`; `target` is its kind
    // (GL_TEXTURE_2D, GL_TEXTURE_RECTANGLE, GL_TEXTURE_CUBE_MAP, GL_TEXTURE_3D,
    // GL_TEXTURE_2D_ARRAY or GL_RENDERBUFFER), `flags` as for register_gl_buffer, SURFACE_LDST
    // and TEXTURE_GATHER allowed.
    static graphics_resource register_gl_image(unsigned int image, unsigned int target, unsigned int flags = 0);

    // The CUgraphicsResource; logic_error once unregistered.
    CUgraphicsResource handle() const { return owned_.get(unregistered_message()); }
    // The OpenGL name the resource was registered with (also after unregister()).
    unsigned int gl_handle() const noexcept { return gl_handle_; }
    // A buffer or an image.
    kind resource_kind() const noexcept { return kind_; }
    // True while a graphics_mapping holds it mapped.
    bool is_mapped() const noexcept { return mapped_; }
    // True once unregister() has run (or the resource was moved from).
    bool is_unregistered() const noexcept { return owned_.empty(); }
    // Unregisters now; again does nothing. logic_error while mapped: unmap first.
    void unregister();
    // The owning context; logic_error once unregistered.
    const context_state_ptr& owner() const { return owned_.context(unregistered_message()); }

private:
    friend class graphics_mapping;
    friend struct detail::graphics_mapping_state;

    graphics_resource(CUgraphicsResource handle, context_state_ptr ctx, unsigned int gl_handle, kind k) noexcept
        : owned_(handle, std::move(ctx)), gl_handle_(gl_handle), kind_(k) {}
    const char* unregistered_message() const noexcept;
    // Map and unmap on `stream` in the resource's context (graphics_mapping's work); the
    // quiet form is the destructor's: it reports a failure instead of throwing.
    void map_on(CUstream stream, const char* what);
    void unmap_on(CUstream stream);
    void unmap_quietly(CUstream stream) noexcept;

    detail::context_bound<detail::graphics_resource_traits> owned_;
    unsigned int gl_handle_;
    kind kind_;
    bool mapped_ = false;
};

// A mapped graphics_resource, which it keeps alive. Move-only. The resource is unmapped by
// unmap() or, failures reported through the cleanup-warning hook, once this mapping and the
// arrays it lent out are all gone, on the stream it was mapped on.
class graphics_mapping {
public:
    // Maps `resource` for CUDA on `s` in the resource's context; logic_error when it is null,
    // unregistered or mapped already. Work queued on `s` later sees the object's contents.
    // `s` is borrowed: it must outlive the mapping, whose unmap() uses it.
    static graphics_mapping map(std::shared_ptr<graphics_resource> resource, stream_view s = {});

    // Takes over `other`'s mapping; every use of `other` afterwards is a logic_error.
    graphics_mapping(graphics_mapping&& other) noexcept = default;
    // Lets go of this mapping (as the destructor does), then takes over `other`'s.
    graphics_mapping& operator=(graphics_mapping&& other) noexcept = default;
    graphics_mapping(const graphics_mapping&) = delete;
    graphics_mapping& operator=(const graphics_mapping&) = delete;
    ~graphics_mapping() = default;

    // Unmaps on the stream the resource was mapped on; logic_error when unmapped already.
    // OpenGL sees what work queued on that stream before the call wrote.
    void unmap();
    // Unmaps on `s`.
    void unmap(stream_view s);
    // True until unmap().
    bool is_mapped() const noexcept;
    // A mapped buffer's device address, with its size in bytes as the capacity; logic_error
    // for an image or once unmapped.
    device_pointer pointer() const;
    // Level `level` of layer (or cube-map face) `index` of a mapped image, an array CUDA owns
    // lent out while the image is mapped (array::borrow): it keeps the mapping alive, and any
    // use of it after unmap() is a logic_error. A texture or surface made of it must not be
    // used after unmap(). logic_error for a buffer or once unmapped, the driver's error for an
    // index or level the image lacks.
    cuda::array array(unsigned int index, unsigned int level) const;
    // The mapped resource; logic_error once moved from.
    const std::shared_ptr<graphics_resource>& resource() const;

private:
    explicit graphics_mapping(std::shared_ptr<detail::graphics_mapping_state> state) noexcept
        : state_(std::move(state)) {}
    // The state while mapped; logic_error naming `what` once unmapped or moved from.
    detail::graphics_mapping_state& mapped_state(const char* what) const;

    std::shared_ptr<detail::graphics_mapping_state> state_;
};

namespace detail {

// What a mapping shares with the arrays it lends out: the resource, the stream it was mapped
// on and whether it still is. The last owner to go unmaps it, if nothing did before.
struct graphics_mapping_state final : array_lender {
    std::shared_ptr<graphics_resource> resource;
    CUstream stream = nullptr;
    bool mapped = false;

    graphics_mapping_state(std::shared_ptr<graphics_resource> r, CUstream s) noexcept
        : resource(std::move(r)), stream(s) {}
    graphics_mapping_state(const graphics_mapping_state&) = delete;
    graphics_mapping_state& operator=(const graphics_mapping_state&) = delete;
    ~graphics_mapping_state() override;

    const char* withdrawn() const noexcept override;
};

}  // namespace detail

}  // namespace gpukit::cuda
