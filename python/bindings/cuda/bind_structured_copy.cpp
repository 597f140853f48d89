// gpukit.driver Memcpy2D, Memcpy3D and Memcpy3DPeer: the seed's field-by-field description
// of a structured copy, run by calling the object. The objects hold on to the Python
// objects they copy from and to, and an asynchronous copy holds them until it is done
// (host_holds.hpp), so it cannot outlive its buffers even when the object goes first.
#include "common/host_holds.hpp"
#include "common/int_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/structured_copy.hpp"

#include <memory>
#include <utility>

namespace gpukit::python {

using namespace nb::literals;

namespace {

struct structured_copy {
    cuda::copy_location src, dst;
    cuda::copy_extent extent;
    nb::object src_owner, dst_owner;  // buffers, allocations or arrays the copy uses
    nb::object src_context, dst_context;
};
// Queues `c` on `s` with `copy_async`, holding what it copies from and to until it is done.
template <class Copy>
void run_async(const structured_copy& c, cuda::stream_view s, Copy copy_async) {
    copy_async(c.src, c.dst, c.extent, s);
    const auto owners = std::make_shared<std::pair<nb::object, nb::object>>(c.src_owner, c.dst_owner);
    for (const cuda::copy_location* at : {&c.src, &c.dst})
        if (at->host)
            hold_until_done(owners, at->host, s);
}

struct memcpy_2d_object : structured_copy {};
struct memcpy_3d_object : structured_copy {};
struct memcpy_3d_peer_object : structured_copy {};

void set_host(cuda::copy_location& at, nb::object& owner, nb::handle buffer, bool writable, const char* what) {
    const host_buffer view(buffer, writable, what);
    at.set_host(view.data(), view.size());
    owner = nb::borrow(buffer);
}

void set_unified(cuda::copy_location& at, nb::object& owner, nb::handle obj, bool writable, const char* what) {
    if (PyObject_CheckBuffer(obj.ptr())) {
        const host_buffer view(obj, writable, what);
        at.set_unified(reinterpret_cast<CUdeviceptr>(view.data()), view.size());
    } else {
        const cuda::device_pointer p = device_pointer_arg(obj, what);
        at.set_unified(p.address, p.capacity);
    }
    owner = nb::borrow(obj);
}

// A size field of the source (`part` src), destination (dst) or extent, set from Python with
// an error naming it.
template <class T, auto part, auto field>
void size_field(nb::class_<T>& cls, const char* name, const char* doc = "") {
    cls.def_prop_rw(
        name, [](const T& c) { return c.*part.*field; },
        [name](T& c, int_arg<std::size_t> v) { c.*part.*field = v.get(name); }, nb::arg("value").none(), doc);
}

// A field of both locations: the source's (`src_name`) and the destination's (`dst_name`).
template <class T, auto field>
void location_field(nb::class_<T>& cls, const char* src_name, const char* dst_name, const char* doc = "") {
    size_field<T, &T::src, field>(cls, src_name, doc);
    size_field<T, &T::dst, field>(cls, dst_name, doc);
}

// The fields and setters shared by the three classes; `dims` 3 adds z, lod, height and depth.
template <class T>
void bind_fields(nb::class_<T>& cls, int dims) {
    using location = cuda::copy_location;
    using extent = cuda::copy_extent;
    location_field<T, &location::x_in_bytes>(cls, "src_x_in_bytes", "dst_x_in_bytes");
    location_field<T, &location::y>(cls, "src_y", "dst_y");
    location_field<T, &location::pitch>(cls, "src_pitch", "dst_pitch", "Bytes between rows; 0: width_in_bytes.");
    size_field<T, &T::extent, &extent::width_in_bytes>(cls, "width_in_bytes");
    size_field<T, &T::extent, &extent::height>(cls, "height", "Rows to copy.");
    cls.def(nb::init<>())
        .def(
            "set_src_host",
            [](T& c, nb::handle buffer) { set_host(c.src, c.src_owner, buffer, false, "set_src_host(buffer)"); },
            "buffer"_a)
        .def(
            "set_dst_host",
            [](T& c, nb::handle buffer) { set_host(c.dst, c.dst_owner, buffer, true, "set_dst_host(buffer)"); },
            "buffer"_a)
        .def(
            "set_src_device",
            [](T& c, nb::handle devptr) {
                c.src.set_device(device_pointer_arg(devptr, "set_src_device(devptr)"));
                c.src_owner = nb::borrow(devptr);
            },
            "devptr"_a)
        .def(
            "set_dst_device",
            [](T& c, nb::handle devptr) {
                c.dst.set_device(device_pointer_arg(devptr, "set_dst_device(devptr)"));
                c.dst_owner = nb::borrow(devptr);
            },
            "devptr"_a)
        .def(
            "set_src_array",
            [](T& c, nb::pointer_and_handle<cuda::array> ary) {
                c.src.set_array(*ary.p);
                c.src_owner = nb::borrow(ary.h);
            },
            "ary"_a)
        .def(
            "set_dst_array",
            [](T& c, nb::pointer_and_handle<cuda::array> ary) {
                c.dst.set_array(*ary.p);
                c.dst_owner = nb::borrow(ary.h);
            },
            "ary"_a)
        .def(
            "set_src_unified",
            [](T& c, nb::handle buffer) { set_unified(c.src, c.src_owner, buffer, false, "set_src_unified(buffer)"); },
            "buffer"_a, "A host buffer or a device pointer; the driver tells which (unified addressing).")
        .def(
            "set_dst_unified",
            [](T& c, nb::handle buffer) { set_unified(c.dst, c.dst_owner, buffer, true, "set_dst_unified(buffer)"); },
            "buffer"_a);
    if (dims < 3)
        return;
    location_field<T, &location::z>(cls, "src_z", "dst_z");
    location_field<T, &location::lod>(cls, "src_lod", "dst_lod");
    location_field<T, &location::height>(cls, "src_height", "dst_height", "Rows per slice; 0: height.");
    size_field<T, &T::extent, &extent::depth>(cls, "depth", "Slices to copy.");
}

// c(stream=None) of the 3-D copies: `copy` and wait, or `copy_async` on `stream`.
template <class T, auto copy, auto copy_async>
void bind_call(nb::class_<T>& cls) {
    cls.def(
        "__call__",
        [](const T& c, nb::handle stream) {
            if (stream.is_none()) {
                release_gil release;
                copy(c.src, c.dst, c.extent);
            } else {
                run_async(c, stream_arg(stream), copy_async);
            }
        },
        "stream"_a.none() = nb::none(), "Copy and wait, or copy asynchronously on `stream`.");
}

}  // namespace

void bind_structured_copy(nb::module_& m) {
    nb::class_<memcpy_2d_object> copy_2d(m, "Memcpy2D", nb::dynamic_attr(),
                                         "A copy of a rectangle of rows; call it to run it.");
    bind_fields(copy_2d, 2);
    copy_2d.def(
        "__call__",
        [](const memcpy_2d_object& c, nb::handle aligned_or_stream) {
            if (aligned_or_stream.is_none() || PyBool_Check(aligned_or_stream.ptr())) {
                const bool aligned = aligned_or_stream.is_none() || aligned_or_stream.ptr() == Py_True;
                release_gil release;
                cuda::memcpy_2d(c.src, c.dst, c.extent, aligned);
            } else {
                run_async(c, stream_arg(aligned_or_stream), cuda::memcpy_2d_async);
            }
        },
        "aligned"_a.none() = nb::bool_(true),
        "c(aligned=True) copies and waits (aligned=False allows misaligned device memory); c(stream) copies "
        "asynchronously on `stream` (host memory should be page-locked).");

    nb::class_<memcpy_3d_object> copy_3d(m, "Memcpy3D", nb::dynamic_attr(),
                                         "A copy of a box of slices of rows; call it to run it.");
    bind_fields(copy_3d, 3);
    bind_call<memcpy_3d_object, cuda::memcpy_3d, cuda::memcpy_3d_async>(copy_3d);

    nb::class_<memcpy_3d_peer_object> copy_peer(m, "Memcpy3DPeer", nb::dynamic_attr(),
                                                "Memcpy3D between memory of two contexts.");
    bind_fields(copy_peer, 3);
    bind_call<memcpy_3d_peer_object, cuda::memcpy_3d_peer, cuda::memcpy_3d_peer_async>(copy_peer);
    copy_peer
        .def(
            "set_src_context",
            [](memcpy_3d_peer_object& c, nb::pointer_and_handle<cuda::context> ctx) {
                c.src.context = ctx.p->handle();
                c.src_context = nb::borrow(ctx.h);
            },
            "ctx"_a)
        .def(
            "set_dst_context",
            [](memcpy_3d_peer_object& c, nb::pointer_and_handle<cuda::context> ctx) {
                c.dst.context = ctx.p->handle();
                c.dst_context = nb::borrow(ctx.h);
            },
            "ctx"_a);
}

}  // namespace gpukit::python
