// gpukit.driver texture and surface objects: TextureObject (from an Array, linear memory
// or pitched 2-D memory) and SurfaceObject (over an Array made with SURFACE_LDST). Both
// are passed to kernels as their 64-bit handle.
#include "common/int_args.hpp"
#include "common/memory_args.hpp"
#include "cuda/texture_args.hpp"

#include "gpukit/cuda/texture.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/shared_ptr.h>

#include <string>

namespace gpukit::python {

using namespace nb::literals;
using cuda::surface_object;
using cuda::texture_object;

namespace {

// address_mode: None (CLAMP everywhere), one address_mode for every dimension, or a
// sequence of one to three, for x, y and z (dimensions left out stay CLAMP).
void set_address_mode(cuda::texture_desc& desc, nb::handle mode) {
    if (mode.is_none())
        return;
    if (PyIndex_Check(mode.ptr())) {
        desc.address_mode.fill(enum_arg<CUaddress_mode>(mode, "address_mode", "address_mode"));
        return;
    }
    if (!PySequence_Check(mode.ptr()))
        throw nb::type_error(("address_mode: give one address_mode or a tuple of 1 to 3 (x, y, z), got " +
                              nb::cast<std::string>(nb::repr(mode)))
                                 .c_str());
    nb::sequence modes = nb::borrow<nb::sequence>(mode);
    const std::size_t n = nb::len(modes);
    if (n == 0 || n > 3)
        throw nb::value_error(("address_mode: give one address_mode or a tuple of 1 to 3 (x, y, z), got " +
                               std::to_string(n) + " entries")
                                  .c_str());
    for (std::size_t dim = 0; dim < n; ++dim)
        desc.address_mode[dim] = enum_arg<CUaddress_mode>(modes[dim], "address_mode", "address_mode");
}

// The sampling arguments of the TextureObject constructors, with errors naming `function`.
cuda::texture_desc make_desc(const std::string& function, nb::handle address_mode, nb::handle filter_mode,
                             nb::handle flags, nb::handle border_color) {
    cuda::texture_desc desc;
    set_address_mode(desc, address_mode);
    desc.filter_mode = enum_arg<CUfilter_mode>(filter_mode, (function + "(filter_mode)").c_str(), "filter_mode");
    desc.flags = integer_arg<unsigned int>(flags, (function + "(flags)").c_str());
    if (!border_color.is_none()) {
        const char* what = "border_color: give four floats (one per channel)";
        if (!PySequence_Check(border_color.ptr()) || nb::len(border_color) != 4)
            throw nb::value_error(what);
        nb::sequence color = nb::borrow<nb::sequence>(border_color);
        for (std::size_t i = 0; i < 4; ++i) {
            const double channel = PyFloat_AsDouble(nb::object(color[i]).ptr());
            if (channel == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                throw nb::type_error(what);
            }
            desc.border_color[i] = static_cast<float>(channel);
        }
    }
    return desc;
}

CUarray_format format_arg(nb::handle format, const std::string& function) {
    return enum_arg<CUarray_format>(format, (function + "(format)").c_str(), "array_format");
}

constexpr const char* sampling_doc =
    "address_mode: None (CLAMP), one address_mode, or a tuple of them for x, y, z; filter_mode: a filter_mode; "
    "flags: texture_flags (TRSF_READ_AS_INTEGER, TRSF_NORMALIZED_COORDINATES) or'ed together; border_color: four "
    "floats for address_mode.BORDER.";

}  // namespace

std::optional<std::uint64_t> texture_handle_arg(nb::handle obj) {
    if (nb::isinstance<texture_object>(obj))
        return nb::cast<const texture_object&>(obj).handle();
    if (nb::isinstance<surface_object>(obj))
        return nb::cast<const surface_object&>(obj).handle();
    return std::nullopt;
}

void bind_texture(nb::module_& m) {
    // The sampling keyword arguments every TextureObject factory ends with (see make_desc).
    const auto address_mode_arg = "address_mode"_a.none() = nb::none();
    const auto filter_mode_arg = "filter_mode"_a.none() = static_cast<int>(CU_TR_FILTER_MODE_POINT);
    const auto flags_arg = "flags"_a.none() = 0;
    const auto border_color_arg = "border_color"_a.none() = nb::none();

    nb::class_<texture_object>(m, "TextureObject", nb::dynamic_attr(),
                               "A texture object: read-only, cached, optionally filtered access to an Array or "
                               "device memory. Pass it to a kernel whose parameter is a cudaTextureObject_t.")
        .def_static(
            "from_array",
            [](std::shared_ptr<cuda::array> source, nb::handle address_mode, nb::handle filter_mode, nb::handle flags,
               nb::handle border_color) {
                return texture_object::from_array(std::move(source), make_desc("TextureObject.from_array", address_mode,
                                                                               filter_mode, flags, border_color));
            },
            "array"_a, address_mode_arg, filter_mode_arg, flags_arg, border_color_arg,
            (std::string("A texture over `array` (1-D, 2-D, 3-D or layered), which it keeps alive. ") + sampling_doc)
                .c_str())
        .def_static(
            "from_linear",
            [](nb::handle devptr, nb::handle format, int_arg<unsigned int> num_channels,
               int_arg<std::size_t> size_bytes, nb::handle address_mode, nb::handle filter_mode, nb::handle flags,
               nb::handle border_color) {
                const std::string function = "TextureObject.from_linear";
                return texture_object::from_linear(device_pointer_arg(devptr, "TextureObject.from_linear(devptr)"),
                                                   format_arg(format, function),
                                                   num_channels.get("TextureObject.from_linear(num_channels)"),
                                                   size_bytes.get("TextureObject.from_linear(size_bytes)"),
                                                   make_desc(function, address_mode, filter_mode, flags, border_color));
            },
            nb::keep_alive<0, 1>(),  // the memory must outlive the texture
            "devptr"_a, "format"_a.none(), "num_channels"_a.none(), "size_bytes"_a.none(), address_mode_arg,
            filter_mode_arg, flags_arg, border_color_arg,
            (std::string("A 1-D texture over `size_bytes` of device memory at `devptr` (kept alive), holding "
                         "elements of `num_channels` channels of array_format `format`; read it with "
                         "tex1Dfetch. The address must meet the device's TEXTURE_ALIGNMENT. ") +
             sampling_doc)
                .c_str())
        .def_static(
            "from_pitch2d",
            [](nb::handle devptr, nb::handle format, int_arg<unsigned int> num_channels, int_arg<std::size_t> width,
               int_arg<std::size_t> height, int_arg<std::size_t> pitch, nb::handle address_mode, nb::handle filter_mode,
               nb::handle flags, nb::handle border_color) {
                const std::string function = "TextureObject.from_pitch2d";
                return texture_object::from_pitch2d(device_pointer_arg(devptr, "TextureObject.from_pitch2d(devptr)"),
                                                    format_arg(format, function),
                                                    num_channels.get("TextureObject.from_pitch2d(num_channels)"),
                                                    width.get("TextureObject.from_pitch2d(width)"),
                                                    height.get("TextureObject.from_pitch2d(height)"),
                                                    pitch.get("TextureObject.from_pitch2d(pitch)"),
                                                    make_desc(function, address_mode, filter_mode, flags,
                                                              border_color));
            },
            nb::keep_alive<0, 1>(),  // the memory must outlive the texture
            "devptr"_a, "format"_a.none(), "num_channels"_a.none(), "width"_a.none(), "height"_a.none(),
            "pitch"_a.none(), address_mode_arg, filter_mode_arg, flags_arg, border_color_arg,
            (std::string("A 2-D texture over `height` rows of `width` elements, `pitch` bytes apart, at "
                         "`devptr` (kept alive), as from mem_alloc_pitch. The pitch must meet the device's "
                         "TEXTURE_PITCH_ALIGNMENT. ") +
             sampling_doc)
                .c_str())
        .def_prop_ro("handle", &texture_object::handle, "The CUtexObject as an integer.")
        .def("__int__", &texture_object::handle)
        .def("destroy", &texture_object::destroy, "Destroy the texture now; any later use raises LogicError.");

    nb::class_<surface_object>(m, "SurfaceObject", nb::dynamic_attr(),
                               "A surface object: read-write access to an Array created with "
                               "array3d_flags.SURFACE_LDST. Pass it to a kernel whose parameter is a "
                               "cudaSurfaceObject_t.")
        .def(
            "__init__",
            [](surface_object* self, std::shared_ptr<cuda::array> source) {
                new (self) surface_object(std::move(source));
            },
            "array"_a, "A surface over `array`, which it keeps alive.")
        .def_prop_ro("handle", &surface_object::handle, "The CUsurfObject as an integer.")
        .def("__int__", &surface_object::handle)
        .def("destroy", &surface_object::destroy, "Destroy the surface now; any later use raises LogicError.");
}

}  // namespace gpukit::python
