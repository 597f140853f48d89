// gpukit.gl's compiled half (PyCUDA's pycuda.gl): graphics_map_flags, RegisteredObject and
// its RegisteredBuffer and RegisteredImage, and RegisteredMapping, whose array() lends out a
// mapped image's levels as gpukit.driver Arrays (bind_cuda_array.cpp), as PyCUDA's does.
//
// A mapping keeps its resource alive (through the shared_ptr graphics_mapping holds) and the
// stream it was mapped on (keep_alive); an Array of a mapped image keeps its mapping alive.
#include "common/int_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/cuda/graphics.hpp"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/tuple.h>

#include <cstdint>
#include <memory>
#include <tuple>
#include <utility>

namespace gpukit::python {

using namespace nb::literals;
using cuda::graphics_mapping;
using cuda::graphics_resource;

namespace {

// PyCUDA's RegisteredBuffer and RegisteredImage are Python classes of their own over
// RegisteredObject (graphics_resource): one C++ type each to bind them to.
struct registered_buffer : graphics_resource {
    explicit registered_buffer(graphics_resource&& r) noexcept : graphics_resource(std::move(r)) {}
};
struct registered_image : graphics_resource {
    explicit registered_image(graphics_resource&& r) noexcept : graphics_resource(std::move(r)) {}
};

}  // namespace

void bind_graphics(nb::module_& m) {
    nb::enum_<CUgraphicsMapResourceFlags>(m, "graphics_map_flags", nb::is_arithmetic(),
                                          "How CUDA uses a registered OpenGL object (PyCUDA's pycuda.gl names; the "
                                          "values of graphics_register_flags).")
        .value("NONE", CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE, "CUDA reads and writes the object.")
        .value("READ_ONLY", CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY, "CUDA only reads the object.")
        .value("WRITE_DISCARD", CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD,
               "CUDA overwrites the whole object and never reads it.");

    nb::class_<graphics_resource>(m, "RegisteredObject", nb::dynamic_attr(),
                                  "An OpenGL object registered with CUDA: a RegisteredBuffer or a RegisteredImage.")
        .def("gl_handle", &graphics_resource::gl_handle, "The OpenGL name the object was registered with.")
        .def("unregister", &graphics_resource::unregister,
             "Unregister the object now; any later use raises LogicError. LogicError while it is mapped.")
        .def(
            "map",
            [](std::shared_ptr<graphics_resource> self, nb::handle stream) {
                return graphics_mapping::map(std::move(self), stream_arg(stream));
            },
            "stream"_a.none() = nb::none(), nb::keep_alive<0, 2>(),
            "Map the object for CUDA, on `stream` (None: the default stream), and return its RegisteredMapping. "
            "OpenGL must not use the object until it is unmapped; LogicError when it is mapped already.")
        .def_prop_ro("is_mapped", &graphics_resource::is_mapped, "True while a RegisteredMapping holds it mapped.");

    nb::class_<registered_buffer, graphics_resource>(m, "RegisteredBuffer", nb::dynamic_attr(),
                                                     "An OpenGL buffer object registered with CUDA; mapped, it is "
                                                     "linear device memory (RegisteredMapping.device_ptr_and_size).")
        .def(
            "__init__",
            [](registered_buffer* self, int_arg<unsigned int> bufobj, int_arg<unsigned int> flags) {
                new (self)
                    registered_buffer(graphics_resource::register_gl_buffer(bufobj.get("RegisteredBuffer(bufobj)"),
                                                                            flags.get("RegisteredBuffer(flags)")));
            },
            "bufobj"_a.none(), "flags"_a.none() = CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE,
            "Register the OpenGL buffer object named `bufobj` with the current context; `flags` is a "
            "graphics_map_flags. The OpenGL context holding the buffer must be current on this thread.");

    nb::class_<registered_image, graphics_resource>(m, "RegisteredImage", nb::dynamic_attr(),
                                                    "An OpenGL texture or renderbuffer registered with CUDA; mapped, "
                                                    "each layer and level is an array (RegisteredMapping.array).")
        .def(
            "__init__",
            [](registered_image* self, int_arg<unsigned int> bufobj, int_arg<unsigned int> target,
               int_arg<unsigned int> flags) {
                new (self) registered_image(graphics_resource::register_gl_image(bufobj.get("RegisteredImage(bufobj)"),
                                                                                 target.get("RegisteredImage(target)"),
                                                                                 flags.get("RegisteredImage(flags)")));
            },
            "bufobj"_a.none(), "target"_a.none(), "flags"_a.none() = CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE,
            "Register the OpenGL texture or renderbuffer named `bufobj` with the current context. `target` is its "
            "kind: GL_TEXTURE_2D, GL_TEXTURE_RECTANGLE, GL_TEXTURE_CUBE_MAP, GL_TEXTURE_3D, GL_TEXTURE_2D_ARRAY or "
            "GL_RENDERBUFFER; `flags` a graphics_map_flags, or'ed with graphics_register_flags.SURFACE_LDST or "
            "TEXTURE_GATHER if wanted. The OpenGL context holding the image must be current on this thread.");

    nb::class_<graphics_mapping>(m, "RegisteredMapping", nb::dynamic_attr(),
                                 "A mapped RegisteredBuffer or RegisteredImage, which it keeps alive. It stays "
                                 "mapped until unmap(), or until it and its arrays are gone.")
        .def(
            "unmap",
            [](graphics_mapping& self, nb::handle stream) {
                if (stream.is_none())
                    self.unmap();
                else
                    self.unmap(stream_arg(stream));
            },
            "stream"_a.none() = nb::none(),
            "Give the object back to OpenGL, on `stream` (None: the stream it was mapped on). LogicError when it "
            "is unmapped already.")
        .def(
            "device_ptr_and_size",
            [](const graphics_mapping& self) {
                const cuda::device_pointer p = self.pointer();
                return std::make_tuple(static_cast<std::uint64_t>(p.address), p.capacity.value_or(0));
            },
            "(device address, size in bytes) of a mapped buffer.")
        .def(
            "array",
            [](const graphics_mapping& self, int_arg<unsigned int> index, int_arg<unsigned int> level) {
                return self.array(index.get("RegisteredMapping.array(index)"),
                                  level.get("RegisteredMapping.array(level)"));
            },
            "index"_a.none(), "level"_a.none(), nb::keep_alive<0, 1>(),
            "Mip level `level` of layer (or cube-map face) `index` of a mapped image, as an Array that copies, "
            "TextureObject and SurfaceObject take, usable until the mapping is unmapped (LogicError after).")
        .def_prop_ro("is_mapped", &graphics_mapping::is_mapped, "True until unmap().");
}

}  // namespace gpukit::python
