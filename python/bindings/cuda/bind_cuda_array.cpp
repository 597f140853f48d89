// gpukit.driver CUDA arrays: ArrayDescriptor, ArrayDescriptor3D, Array and the copies
// between arrays and linear memory (memcpy_htoa, memcpy_atoh, memcpy_dtoa, memcpy_atod,
// memcpy_atoa). Offsets (`index`) and lengths are in bytes, as in the driver.
#include "common/int_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/cuda/array.hpp"

namespace gpukit::python {

using namespace nb::literals;

namespace {

nb::object format_member(CUarray_format f) { return constant_class("array_format")(static_cast<int>(f)); }

CUDA_ARRAY3D_DESCRIPTOR as_3d(const CUDA_ARRAY_DESCRIPTOR& d) {
    CUDA_ARRAY3D_DESCRIPTOR out{};
    out.Width = d.Width;
    out.Height = d.Height;
    out.Format = d.Format;
    out.NumChannels = d.NumChannels;
    return out;
}

// A descriptor field set from Python: an integer of the field's type, or an error naming it.
template <class D, auto field>
void bind_field(nb::class_<D>& cls, const char* name, const char* what, const char* doc = "") {
    using T = std::remove_cvref_t<decltype(std::declval<D&>().*field)>;
    cls.def_prop_rw(
        name, [](const D& d) { return d.*field; }, [what](D& d, int_arg<T> value) { d.*field = value.get(what); },
        nb::arg("value").none(), doc);
}

// Shared fields of the 2-D and 3-D descriptors, with the seed's names.
template <class D>
void bind_descriptor_fields(nb::class_<D>& cls) {
    cls.def(nb::init<>())
        .def_prop_rw(
            "format", [](const D& d) { return format_member(d.Format); },
            [](D& d, int_arg<int> f) {
                d.Format = enum_arg<CUarray_format>(f.object, "ArrayDescriptor.format", "array_format");
            },
            nb::arg("value").none(), "An array_format member.");
    bind_field<D, &D::Width>(cls, "width", "ArrayDescriptor.width");
    bind_field<D, &D::Height>(cls, "height", "ArrayDescriptor.height");
    bind_field<D, &D::NumChannels>(cls, "num_channels", "ArrayDescriptor.num_channels", "1, 2 or 4.");
}

}  // namespace

void bind_cuda_array(nb::module_& m) {
    using cuda::array;  // in the function: a unity build's other files see gpukit::array
    nb::class_<CUDA_ARRAY_DESCRIPTOR> descriptor(m, "ArrayDescriptor",
                                                 "Shape and element format of a 1-D or 2-D Array.");
    bind_descriptor_fields(descriptor);
    nb::class_<CUDA_ARRAY3D_DESCRIPTOR> descriptor_3d(
        m, "ArrayDescriptor3D", "Shape, element format and array3d_flags of a 1-D, 2-D, 3-D or layered Array.");
    bind_descriptor_fields(descriptor_3d);
    bind_field<CUDA_ARRAY3D_DESCRIPTOR, &CUDA_ARRAY3D_DESCRIPTOR::Depth>(
        descriptor_3d, "depth", "ArrayDescriptor3D.depth", "0 for 1-D and 2-D arrays; layers when LAYERED.");
    bind_field<CUDA_ARRAY3D_DESCRIPTOR, &CUDA_ARRAY3D_DESCRIPTOR::Flags>(descriptor_3d, "flags",
                                                                         "ArrayDescriptor3D.flags",
                                                                         "array3d_flags (LAYERED, SURFACE_LDST, ...).");

    nb::class_<array>(m, "Array", nb::dynamic_attr(),
                      "A CUDA array: device memory laid out for texture and surface access.")
        .def(
            "__init__", [](array* self, const CUDA_ARRAY_DESCRIPTOR& d) { new (self) array(array::create(as_3d(d))); },
            "descriptor"_a)
        .def(
            "__init__", [](array* self, const CUDA_ARRAY3D_DESCRIPTOR& d) { new (self) array(array::create(d)); },
            "descriptor"_a)
        .def("free", &array::free,
             "Free the array now (let go of it, for the array of a mapped image); any later use raises LogicError.")
        .def("get_descriptor", &array::descriptor)
        .def("get_descriptor_3d", &array::descriptor_3d)
        .def_prop_ro(
            "handle", [](const array& a) { return reinterpret_cast<std::uintptr_t>(a.handle()); },
            "The CUarray as an integer.")
        .def_prop_ro("nbytes", &array::size_bytes, "Bytes of the whole array.");

    m.def(
        "memcpy_htoa",
        [](const array& ary, int_arg<std::size_t> index, nb::handle src) {
            const std::size_t offset = index.get("memcpy_htoa(index)");
            host_buffer buffer(src, false, "memcpy_htoa(src)");
            release_gil release;
            cuda::memcpy_htoa(ary, offset, buffer.data(), buffer.size());
        },
        "ary"_a, "index"_a.none(), "src"_a, "Copy the host buffer `src` into `ary`, starting `index` bytes in.");
    m.def(
        "memcpy_atoh",
        [](nb::handle dest, const array& ary, int_arg<std::size_t> index) {
            const std::size_t offset = index.get("memcpy_atoh(index)");
            host_buffer buffer(dest, true, "memcpy_atoh(dest)");
            release_gil release;
            cuda::memcpy_atoh(buffer.data(), ary, offset, buffer.size());
        },
        "dest"_a, "ary"_a, "index"_a.none(), "Fill the host buffer `dest` from `ary`, starting `index` bytes in.");
    m.def(
        "memcpy_dtoa",
        [](const array& ary, int_arg<std::size_t> index, nb::handle src, int_arg<std::size_t> len) {
            const std::size_t offset = index.get("memcpy_dtoa(index)"), bytes = len.get("memcpy_dtoa(len)");
            const cuda::device_pointer from = device_pointer_arg(src, "memcpy_dtoa(src)");
            release_gil release;
            cuda::memcpy_dtoa(ary, offset, from, bytes);
        },
        "ary"_a, "index"_a.none(), "src"_a, "len"_a.none());
    m.def(
        "memcpy_atod",
        [](nb::handle dest, const array& ary, int_arg<std::size_t> index, int_arg<std::size_t> len) {
            const std::size_t offset = index.get("memcpy_atod(index)"), bytes = len.get("memcpy_atod(len)");
            const cuda::device_pointer to = device_pointer_arg(dest, "memcpy_atod(dest)");
            release_gil release;
            cuda::memcpy_atod(to, ary, offset, bytes);
        },
        "dest"_a, "ary"_a, "index"_a.none(), "len"_a.none());
    m.def(
        "memcpy_atoa",
        [](const array& dest, int_arg<std::size_t> dest_index, const array& src, int_arg<std::size_t> src_index,
           int_arg<std::size_t> len) {
            const std::size_t to = dest_index.get("memcpy_atoa(dest_index)"),
                              from = src_index.get("memcpy_atoa(src_index)"), bytes = len.get("memcpy_atoa(len)");
            release_gil release;
            cuda::memcpy_atoa(dest, to, src, from, bytes);
        },
        "dest"_a, "dest_index"_a.none(), "src"_a, "src_index"_a.none(), "len"_a.none());
}

}  // namespace gpukit::python
