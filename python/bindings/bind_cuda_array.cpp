// gpukit.driver CUDA arrays: ArrayDescriptor, ArrayDescriptor3D, Array and the copies
// between arrays and linear memory (memcpy_htoa, memcpy_atoh, memcpy_dtoa, memcpy_atod,
// memcpy_atoa). Offsets (`index`) and lengths are in bytes, as in the driver.
#include "memory_args.hpp"

#include "gpukit/cuda/array.hpp"

namespace gpukit::python {

using namespace nb::literals;
using cuda::array;

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

// Shared fields of the 2-D and 3-D descriptors, with the seed's names.
template <class D>
void bind_descriptor_fields(nb::class_<D>& cls) {
    cls.def(nb::init<>())
        .def_rw("width", &D::Width)
        .def_rw("height", &D::Height)
        .def_prop_rw("format", [](const D& d) { return format_member(d.Format); },
                     [](D& d, int f) { d.Format = static_cast<CUarray_format>(f); }, "An array_format member.")
        .def_rw("num_channels", &D::NumChannels, "1, 2 or 4.");
}

}  // namespace

void bind_cuda_array(nb::module_& m) {
    nb::class_<CUDA_ARRAY_DESCRIPTOR> descriptor(m, "ArrayDescriptor",
                                                 "Shape and element format of a 1-D or 2-D Array.");
    bind_descriptor_fields(descriptor);
    nb::class_<CUDA_ARRAY3D_DESCRIPTOR> descriptor_3d(
        m, "ArrayDescriptor3D", "Shape, element format and array3d_flags of a 1-D, 2-D, 3-D or layered Array.");
    bind_descriptor_fields(descriptor_3d);
    descriptor_3d.def_rw("depth", &CUDA_ARRAY3D_DESCRIPTOR::Depth, "0 for 1-D and 2-D arrays; layers when LAYERED.")
        .def_rw("flags", &CUDA_ARRAY3D_DESCRIPTOR::Flags, "array3d_flags (LAYERED, SURFACE_LDST, ...).");

    nb::class_<array>(m, "Array", "A CUDA array: device memory laid out for texture and surface access.")
        .def("__init__", [](array* self, const CUDA_ARRAY_DESCRIPTOR& d) { new (self) array(array::create(as_3d(d))); },
             "descriptor"_a)
        .def("__init__", [](array* self, const CUDA_ARRAY3D_DESCRIPTOR& d) { new (self) array(array::create(d)); },
             "descriptor"_a)
        .def("free", &array::free, "Free the array now; any later use raises LogicError.")
        .def("get_descriptor", &array::descriptor)
        .def("get_descriptor_3d", &array::descriptor_3d)
        .def_prop_ro("handle", [](const array& a) { return reinterpret_cast<std::uintptr_t>(a.handle()); },
                     "The CUarray as an integer.")
        .def_prop_ro("nbytes", &array::size_bytes, "Bytes of the whole array.");

    m.def("memcpy_htoa", [](const array& ary, std::size_t index, nb::handle src) {
        host_buffer buffer(src, false, "memcpy_htoa(src)");
        release_gil release;
        cuda::memcpy_htoa(ary, index, buffer.data(), buffer.size());
    }, "ary"_a, "index"_a, "src"_a, "Copy the host buffer `src` into `ary`, starting `index` bytes in.");
    m.def("memcpy_atoh", [](nb::handle dest, const array& ary, std::size_t index) {
        host_buffer buffer(dest, true, "memcpy_atoh(dest)");
        release_gil release;
        cuda::memcpy_atoh(buffer.data(), ary, index, buffer.size());
    }, "dest"_a, "ary"_a, "index"_a, "Fill the host buffer `dest` from `ary`, starting `index` bytes in.");
    m.def("memcpy_dtoa", [](const array& ary, std::size_t index, nb::handle src, std::size_t len) {
        const cuda::device_pointer from = device_pointer_arg(src, "memcpy_dtoa(src)");
        release_gil release;
        cuda::memcpy_dtoa(ary, index, from, len);
    }, "ary"_a, "index"_a, "src"_a, "len"_a);
    m.def("memcpy_atod", [](nb::handle dest, const array& ary, std::size_t index, std::size_t len) {
        const cuda::device_pointer to = device_pointer_arg(dest, "memcpy_atod(dest)");
        release_gil release;
        cuda::memcpy_atod(to, ary, index, len);
    }, "dest"_a, "ary"_a, "index"_a, "len"_a);
    m.def("memcpy_atoa", [](const array& dest, std::size_t dest_index, const array& src, std::size_t src_index,
                            std::size_t len) {
        release_gil release;
        cuda::memcpy_atoa(dest, dest_index, src, src_index, len);
    }, "dest"_a, "dest_index"_a, "src"_a, "src_index"_a, "len"_a);
}

}  // namespace gpukit::python
