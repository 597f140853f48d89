// gpukit._gpukit.cl's images, as PyOpenCL's: ImageFormat, get_supported_image_formats, Image,
// Sampler, enqueue_fill_image, the image copies of enqueue_copy, and DeviceTopologyAmd.
// image_from_array and create_image are Python (gpukit.cl._images).
#include "cl/cl_args.hpp"
#include "cl/cl_bindings.hpp"
#include "cl/cl_info.hpp"

#include "gpukit/cl/image.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

namespace gpukit::python {

using namespace nb::literals;

namespace {

// An image point argument: a sequence of 1 to 3 ints, the missing ones `fill` (0 for an
// origin, 1 for a region).
cl::image_point image_point_arg(nb::handle value, const std::string& what, size_t fill) {
    if (!PySequence_Check(value.ptr()) || PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr()))
        throw nb::type_error(
            (what + " must be a tuple of 1 to 3 ints, got " + nb::cast<std::string>(nb::type_name(value.type())))
                .c_str());
    const size_t count = nb::len(value);
    if (count < 1 || count > 3)
        throw nb::type_error(
            (what + " must be a tuple of 1 to 3 ints, got " + std::to_string(count) + " of them").c_str());
    cl::image_point point{fill, fill, fill};
    for (size_t k = 0; k < count; ++k)
        point[k] = cl_unsigned(value[k], what.c_str());
    return point;
}

// PyOpenCL's (row_pitch[, slice_pitch]) of host memory; (0, 0) for None (tight).
std::array<size_t, 2> pitches_arg(nb::handle value, const std::string& what) {
    if (value.is_none())
        return {0, 0};
    if (!PySequence_Check(value.ptr()) || PyUnicode_Check(value.ptr()) || nb::len(value) < 1 || nb::len(value) > 2)
        throw nb::type_error((what + " must be a tuple of 1 or 2 ints (row pitch, slice pitch), got " +
                              nb::cast<std::string>(nb::repr(value)))
                                 .c_str());
    std::array<size_t, 2> pitches{0, 0};
    for (size_t k = 0; k < nb::len(value); ++k)
        pitches[k] = cl_unsigned(value[k], what.c_str());
    return pitches;
}

// The image type PyOpenCL picks from a shape's length, is_array and buffer.
cl_mem_object_type image_type_of(size_t dims, bool is_array, bool has_buffer) {
    if (has_buffer)
        throw cl::logic_error("Image(buffer=...): images over buffers (IMAGE1D_BUFFER) are not supported",
                              CL_INVALID_IMAGE_DESCRIPTOR, "clCreateImage");
    switch (dims) {
    case 1:
        if (is_array)
            throw nb::type_error("Image: an array of zero-dimensional images (1-d shape and is_array) does not exist");
        return CL_MEM_OBJECT_IMAGE1D;
    case 2:
        return is_array ? CL_MEM_OBJECT_IMAGE1D_ARRAY : CL_MEM_OBJECT_IMAGE2D;
    case 3:
        return is_array ? CL_MEM_OBJECT_IMAGE2D_ARRAY : CL_MEM_OBJECT_IMAGE3D;
    default:
        throw nb::value_error(("Image: shape has " + std::to_string(dims) + " extents; expected 1, 2 or 3").c_str());
    }
}

cl::image make_image(const cl::context& ctx, nb::handle flags_arg, const cl_image_format& format, nb::handle shape_arg,
                     nb::handle pitches_arg_, nb::handle hostbuf, nb::handle is_array_arg, nb::handle buffer) {
    cl_mem_flags flags = cl_unsigned(flags_arg, "Image(flags)");
    const bool is_array = cl_bool(is_array_arg, "Image(is_array)");
    if (shape_arg.is_none() && hostbuf.is_none())
        throw cl::logic_error("Image: give shape, or hostbuf to take it from", CL_INVALID_IMAGE_DESCRIPTOR,
                              "clCreateImage");
    if (!hostbuf.is_none() && !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))) {
        // PyOpenCL's answer: the hostbuf is left unused, with a warning.
        if (PyErr_WarnEx(PyExc_UserWarning, "Image: 'hostbuf' was passed, but no memory flags to make use of it", 1) <
            0)
            throw nb::python_error();
        hostbuf = nb::none();
    }
    if (hostbuf.is_none() && !pitches_arg_.is_none())
        throw cl::logic_error("Image: pitches describe hostbuf; give them only with it", CL_INVALID_IMAGE_DESCRIPTOR,
                              "clCreateImage");
    nb::object shape = shape_arg.is_none() ? hostbuf.attr("shape") : nb::borrow(shape_arg);
    const cl::image_point extent = image_point_arg(shape, "Image(shape)", 1);
    const auto pitches = pitches_arg(pitches_arg_, "Image(pitches)");
    cl::image_shape image_shape{.type = image_type_of(nb::len(shape), is_array, !buffer.is_none()),
                                .width = extent[0],
                                .height = extent[1],
                                .depth = extent[2],
                                .array_size = 1,
                                .row_pitch = pitches[0],
                                .slice_pitch = pitches[1]};
    if (image_shape.type == CL_MEM_OBJECT_IMAGE2D_ARRAY) {
        image_shape.array_size = extent[2];
        image_shape.depth = 1;
    }
    void* host = nullptr;
    size_t host_bytes = 0;
    std::shared_ptr<void> host_owner;
    if (!hostbuf.is_none()) {
        python_hold hold;
        const std::span<std::byte> memory =
            hold.export_memory(hostbuf, (flags & CL_MEM_USE_HOST_PTR) != 0, "Image(hostbuf)");
        host = memory.data();
        host_bytes = memory.size();
        host_owner = share_hold(std::move(hold));
    }
    cl::image made = cl::image::create(ctx, flags, format, image_shape, host, host_bytes, std::move(host_owner));
    release_dropped_holds();  // COPY_HOST_PTR memory was needed only by create
    return made;
}

// (origin, region) of an image copy, from PyOpenCL's keywords.
std::pair<cl::image_point, cl::image_point> box_of(nb::handle origin, nb::handle region, const char* origin_name) {
    if (origin.is_none() || region.is_none())
        throw nb::type_error((std::string("enqueue_copy: an image copy needs ") + origin_name + " and region").c_str());
    return {image_point_arg(origin, std::string("enqueue_copy(") + origin_name + ")", 0),
            image_point_arg(region, "enqueue_copy(region)", 1)};
}

// A 16-byte fill colour for `img`: four int32 or uint32 for integer channel types, four floats otherwise.
std::array<std::byte, 16> fill_color(const cl::image& img, nb::handle color) {
    if (!PySequence_Check(color.ptr()) || nb::len(color) != 4)
        throw nb::type_error(
            ("enqueue_fill_image(color) must be a sequence of 4 numbers, got " + nb::cast<std::string>(nb::repr(color)))
                .c_str());
    std::array<std::byte, 16> bytes{};
    const cl_channel_type type = img.format().image_channel_data_type;
    for (size_t k = 0; k < 4; ++k) {
        nb::object c = color[k];  // owned: indexing a numpy array makes a new scalar
        if (type == CL_SIGNED_INT8 || type == CL_SIGNED_INT16 || type == CL_SIGNED_INT32) {
            const auto v = static_cast<std::int32_t>(cl_signed(c, "enqueue_fill_image(color)", INT32_MIN, INT32_MAX));
            std::memcpy(bytes.data() + 4 * k, &v, 4);
        } else if (type == CL_UNSIGNED_INT8 || type == CL_UNSIGNED_INT16 || type == CL_UNSIGNED_INT32) {
            const auto v = static_cast<std::uint32_t>(cl_unsigned(c, "enqueue_fill_image(color)", UINT32_MAX));
            std::memcpy(bytes.data() + 4 * k, &v, 4);
        } else {
            if (!PyNumber_Check(c.ptr()) || PyBool_Check(c.ptr()))
                throw nb::type_error("enqueue_fill_image(color): expected numbers");
            const auto v = static_cast<float>(nb::cast<double>(nb::float_(c)));
            std::memcpy(bytes.data() + 4 * k, &v, 4);
        }
    }
    return bytes;
}

struct device_topology_amd {
    int bus = 0, device = 0, function = 0;
};

}  // namespace

cl::event enqueue_image_copy(const cl::queue& q, nb::handle dest, nb::handle src, nb::handle dst_offset,
                             nb::handle src_offset, nb::handle byte_count, const copy_keywords& k, python_hold& hold,
                             const std::vector<cl_event>& events) {
    for (auto [given, name] : {std::pair{offset_given(dst_offset), "dst_offset"},
                               {offset_given(src_offset), "src_offset"},
                               {!byte_count.is_none(), "byte_count"},
                               {!k.buffer_origin.is_none(), "buffer_origin"},
                               {!k.host_origin.is_none(), "host_origin"},
                               {!k.buffer_pitches.is_none(), "buffer_pitches"},
                               {!k.host_pitches.is_none(), "host_pitches"},
                               {!k.dst_origin.is_none(), "dst_origin"},
                               {!k.src_pitches.is_none(), "src_pitches"},
                               {!k.dst_pitches.is_none(), "dst_pitches"}})
        if (given)
            throw nb::type_error((std::string("enqueue_copy: ") + name +
                                  " is not an argument of image copies; they take origin, region, pitches, offset, "
                                  "src_origin and dest_origin as PyOpenCL's")
                                     .c_str());
    const bool dest_image = nb::isinstance<cl::image>(dest), src_image = nb::isinstance<cl::image>(src);
    const auto refuse = [](nb::handle given, const char* name, const char* copy) {
        if (!given.is_none())
            throw nb::type_error((std::string("enqueue_copy: ") + name + " is not an argument of " + copy).c_str());
    };
    if (dest_image && src_image) {
        for (auto [given, name] : {std::pair{k.origin, "origin"}, {k.pitches, "pitches"}, {k.offset, "offset"}})
            refuse(given, name, "a copy between images (src_origin, dest_origin, region)");
        const auto [src_origin, region] = box_of(k.src_origin, k.region, "src_origin");
        const auto dest_origin = box_of(k.dest_origin, k.region, "dest_origin").first;
        return cl::enqueue_copy_image(q, nb::cast<const cl::image&>(src), nb::cast<const cl::image&>(dest), src_origin,
                                      dest_origin, region, events);
    }
    refuse(k.src_origin, "src_origin", "this copy (origin and region name the image's box)");
    refuse(k.dest_origin, "dest_origin", "this copy (origin and region name the image's box)");
    const auto [origin, region] = box_of(k.origin, k.region, "origin");
    const cl::image& img = nb::cast<const cl::image&>(dest_image ? dest : src);
    nb::handle other = dest_image ? src : dest;
    if (nb::isinstance<cl::buffer>(other)) {
        refuse(k.pitches, "pitches", "a copy between an image and a Buffer (offset, origin, region)");
        const size_t offset = k.offset.is_none() ? 0 : cl_unsigned(k.offset, "enqueue_copy(offset)");
        const auto& buf = nb::cast<const cl::buffer&>(other);
        return dest_image ? cl::enqueue_copy_buffer_to_image(q, buf, img, offset, origin, region, events)
                          : cl::enqueue_copy_image_to_buffer(q, img, buf, origin, region, offset, events);
    }
    refuse(k.offset, "offset", "a copy between an image and host memory (origin, region, pitches)");
    const auto pitches = pitches_arg(k.pitches, "enqueue_copy(pitches)");
    const std::span<std::byte> host =
        hold.export_memory(other, !dest_image, dest_image ? "enqueue_copy(src)" : "enqueue_copy(dest)");
    const cl::image_host_side side{.data = host.data(),
                                   .bytes = host.size(),
                                   .row_pitch = pitches[0],
                                   .slice_pitch = pitches[1]};
    return dest_image ? cl::enqueue_write_image(q, img, origin, region, side, false, events)
                      : cl::enqueue_read_image(q, img, origin, region, side, false, events);
}

void bind_cl_images(nb::module_& m) {
    nb::class_<image_format>(m, "ImageFormat", "An image's channel order and channel type.")
        .def(
            "__init__",
            [](image_format* self, nb::handle order, nb::handle type) {
                new (self) image_format{
                    {static_cast<cl_channel_order>(cl_unsigned(order, "ImageFormat(channel_order)", UINT32_MAX)),
                     static_cast<cl_channel_type>(cl_unsigned(type, "ImageFormat(channel_type)", UINT32_MAX))}};
            },
            "channel_order"_a.none(), "channel_type"_a.none())
        .def_prop_rw(
            "channel_order", [](const image_format& f) { return f.value.image_channel_order; },
            [](image_format& f, cl_channel_order order) { f.value.image_channel_order = order; })
        .def_prop_rw(
            "channel_data_type", [](const image_format& f) { return f.value.image_channel_data_type; },
            [](image_format& f, cl_channel_type type) { f.value.image_channel_data_type = type; })
        .def_prop_ro("channel_count",
                     [](const image_format& f) { return cl::channel_count(f.value.image_channel_order); })
        .def_prop_ro(
            "itemsize", [](const image_format& f) { return cl::pixel_size(f.value); }, "The bytes of one pixel.")
        .def_prop_ro(
            "dtype_size",
            [](const image_format& f) {
                return cl::pixel_size(f.value) / cl::channel_count(f.value.image_channel_order);
            },
            "The bytes of one channel (for the packed types, the pixel's share).")
        .def("__eq__",
             [](const image_format& a, nb::handle other) {
                 if (!nb::isinstance<image_format>(other))
                     return false;
                 const cl_image_format& b = nb::cast<const image_format&>(other).value;
                 return a.value.image_channel_order == b.image_channel_order &&
                        a.value.image_channel_data_type == b.image_channel_data_type;
             })
        .def("__hash__",
             [](const image_format& f) {
                 return std::hash<std::uint64_t>{}((std::uint64_t{f.value.image_channel_order} << 32) |
                                                   f.value.image_channel_data_type);
             })
        .def("__repr__", [](const image_format& f) {
            nb::module_ cl_module = nb::module_::import_("gpukit.cl");
            const auto name = [&](const char* cls, cl_uint value) {
                return nb::cast<std::string>(cl_module.attr(cls).attr("to_string")(value, "<unknown %d>"));
            };
            return "ImageFormat(" + name("channel_order", f.value.image_channel_order) + ", " +
                   name("channel_type", f.value.image_channel_data_type) + ")";
        });

    m.def(
        "get_supported_image_formats",
        [](const cl::context& ctx, nb::handle flags, nb::handle type) {
            std::vector<image_format> formats;
            for (const cl_image_format& f :
                 cl::supported_image_formats(ctx, cl_unsigned(flags, "get_supported_image_formats(flags)"),
                                             static_cast<cl_mem_object_type>(
                                                 cl_unsigned(type, "get_supported_image_formats(image_type)",
                                                             UINT32_MAX))))
                formats.push_back(image_format{f});
            return formats;
        },
        "context"_a, "flags"_a.none(), "image_type"_a.none(),
        "The ImageFormats `context` supports for images of `image_type` (mem_object_type) made with `flags`.");

    nb::class_<cl::image>(m, "Image", nb::dynamic_attr(), "An OpenCL image of a context.")
        .def(
            "__init__",
            [](cl::image* self, const cl::context& ctx, nb::handle flags, const image_format& format, nb::handle shape,
               nb::handle pitches, nb::handle hostbuf, nb::handle is_array, nb::handle buffer) {
                new (self) cl::image(make_image(ctx, flags, format.value, shape, pitches, hostbuf, is_array, buffer));
            },
            "context"_a, "flags"_a.none(), "format"_a, "shape"_a.none() = nb::none(), "pitches"_a.none() = nb::none(),
            "hostbuf"_a.none() = nb::none(), "is_array"_a.none() = false, "buffer"_a.none() = nb::none(),
            "An image of `format`, `shape` (width[, height[, depth or array size]]) pixels, or hostbuf's shape; "
            "with COPY_HOST_PTR or USE_HOST_PTR its pixels come from `hostbuf` at `pitches` (row[, slice] bytes).")
        .def_prop_ro("format", [](const cl::image& img) { return image_format{img.format()}; })
        .def_prop_ro("type", &cl::image::type, "Its mem_object_type.")
        .def_prop_ro(
            "shape",
            [](const cl::image& img) -> nb::typed<nb::tuple, int, nb::ellipsis> {
                const cl::image_point& e = img.extent();
                nb::list shape;
                for (int k = 0; k < img.dimensions(); ++k)
                    shape.append(e[static_cast<size_t>(k)]);
                return nb::tuple(shape);
            },
            "(width,), (width, height) or (width, height, depth or array size), in pixels.")
        .def("get_info", &image_mem_info, "param"_a.none(), "clGetMemObjectInfo(param), decoded (see mem_info).")
        .def("get_image_info", &image_info, "param"_a.none(), "clGetImageInfo(param), decoded (see image_info).")
        .def_prop_ro("int_ptr", [](const cl::image& img) { return reinterpret_cast<std::uintptr_t>(img.handle()); })
        .def("__getattr__", &info_getattr, "name"_a);

    nb::class_<cl::sampler>(m, "Sampler", nb::dynamic_attr(), "How a kernel's read_image* reads an image.")
        .def(
            "__init__",
            [](cl::sampler* self, const cl::context& ctx, nb::handle normalized, nb::handle addressing,
               nb::handle filter) {
                new (self) cl::sampler(cl::sampler::create(
                    ctx, cl_bool(normalized, "Sampler(normalized_coords)"),
                    static_cast<cl_addressing_mode>(cl_unsigned(addressing, "Sampler(addressing_mode)", UINT32_MAX)),
                    static_cast<cl_filter_mode>(cl_unsigned(filter, "Sampler(filter_mode)", UINT32_MAX))));
            },
            "context"_a, "normalized_coords"_a.none(), "addressing_mode"_a.none(), "filter_mode"_a.none())
        .def("get_info", &sampler_info, "param"_a.none(), "clGetSamplerInfo(param), decoded (see sampler_info).")
        .def_prop_ro("int_ptr", [](const cl::sampler& s) { return reinterpret_cast<std::uintptr_t>(s.handle()); })
        .def("__getattr__", &info_getattr, "name"_a);

    m.def(
        "enqueue_fill_image",
        [](const cl::queue& q, const cl::image& img, nb::handle color, nb::handle origin, nb::handle region,
           nb::handle wait_for) {
            note_queue_use(q);
            const std::array<std::byte, 16> bytes = fill_color(img, color);
            return cl::enqueue_fill_image(q, img, bytes, image_point_arg(origin, "enqueue_fill_image(origin)", 0),
                                          image_point_arg(region, "enqueue_fill_image(region)", 1),
                                          wait_list(wait_for));
        },
        "queue"_a, "mem"_a, "color"_a.none(), "origin"_a.none(), "region"_a.none(), "wait_for"_a.none() = nb::none(),
        "Fill `region` pixels at `origin` with `color` (4 numbers: floats, or integers for the integer channel "
        "types). Returns an Event.");

    nb::class_<device_topology_amd>(m, "DeviceTopologyAmd", "AMD's PCIe address of a device (PyOpenCL's type).")
        .def(nb::init<>())
        .def(
            "__init__",
            [](device_topology_amd* self, int bus, int device, int function) {
                new (self) device_topology_amd{bus, device, function};
            },
            "bus"_a, "device"_a, "function"_a)
        .def_rw("bus", &device_topology_amd::bus)
        .def_rw("device", &device_topology_amd::device)
        .def_rw("function", &device_topology_amd::function);
}

}  // namespace gpukit::python
