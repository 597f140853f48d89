// gpukit.driver copies and memsets. Arguments are converted with the GIL held; the blocking
// calls then run with it released.
#include "host_holds.hpp"
#include "memory_args.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/copy.hpp"

#include <nanobind/stl/optional.h>

#include <memory>
#include <optional>

namespace gpukit::python {

using namespace nb::literals;
using cuda::device_pointer;
using cuda::stream_view;

namespace {

cuda::context context_arg(const std::optional<cuda::context>& given, const char* what) {
    return given ? *given : cuda::context::current_or_throw(what);
}

// memset_d8/d16/d32 and their _async forms for one element type.
template <class T, void (*fill)(device_pointer, T, std::size_t),
          void (*fill_async)(device_pointer, T, std::size_t, stream_view)>
void bind_memset(nb::module_& m, const char* name, const char* async_name) {
    m.def(name, [name](nb::handle dest, nb::handle data, std::size_t count) {
        const device_pointer dst = device_pointer_arg(dest, name);
        const T value = static_cast<T>(unsigned_arg(data, 8 * sizeof(T), name));
        release_gil release;
        fill(dst, value, count);
    }, "dest"_a, "data"_a, "count"_a, "Fill `count` elements (not bytes) at `dest` with `data`.");
    m.def(async_name, [async_name](nb::handle dest, nb::handle data, std::size_t count, nb::handle stream) {
        fill_async(device_pointer_arg(dest, async_name), static_cast<T>(unsigned_arg(data, 8 * sizeof(T), async_name)),
                   count, stream_arg(stream));
    }, "dest"_a, "data"_a, "count"_a, "stream"_a.none() = nb::none());
}

template <class T, void (*fill)(device_pointer, std::size_t, T, std::size_t, std::size_t),
          void (*fill_async)(device_pointer, std::size_t, T, std::size_t, std::size_t, stream_view)>
void bind_memset_2d(nb::module_& m, const char* name, const char* async_name) {
    m.def(name, [name](nb::handle dest, std::size_t pitch, nb::handle data, std::size_t width, std::size_t height) {
        const device_pointer dst = device_pointer_arg(dest, name);
        const T value = static_cast<T>(unsigned_arg(data, 8 * sizeof(T), name));
        release_gil release;
        fill(dst, pitch, value, width, height);
    }, "dest"_a, "pitch"_a, "data"_a, "width"_a, "height"_a,
          "Fill `height` rows of `width` elements, rows `pitch` bytes apart, with `data`.");
    m.def(async_name, [async_name](nb::handle dest, std::size_t pitch, nb::handle data, std::size_t width,
                                   std::size_t height, nb::handle stream) {
        fill_async(device_pointer_arg(dest, async_name), pitch,
                   static_cast<T>(unsigned_arg(data, 8 * sizeof(T), async_name)), width, height, stream_arg(stream));
    }, "dest"_a, "pitch"_a, "data"_a, "width"_a, "height"_a, "stream"_a.none() = nb::none());
}

}  // namespace

void bind_copy(nb::module_& m) {
    m.def("memcpy_htod", [](nb::handle dest, nb::handle src) {
        const device_pointer dst = device_pointer_arg(dest, "memcpy_htod(dest)");
        host_buffer buffer(src, false, "memcpy_htod(src)");
        release_gil release;
        cuda::memcpy_htod(dst, buffer.data(), buffer.size());
    }, "dest"_a, "src"_a, "Copy the host buffer `src` (its whole size) to device memory `dest`.");
    m.def("memcpy_htod_async", [](nb::handle dest, nb::handle src, nb::handle stream) {
        auto buffer = std::make_shared<host_buffer>(src, false, "memcpy_htod_async(src)");
        const cuda::stream_view s = stream_arg(stream);
        cuda::memcpy_htod_async(device_pointer_arg(dest, "memcpy_htod_async(dest)"), buffer->data(), buffer->size(), s);
        hold_until_done(buffer, buffer->data(), s);
    }, "dest"_a, "src"_a, "stream"_a.none() = nb::none(),
          "Asynchronous memcpy_htod (it overlaps other work when `src` is page-locked); gpukit keeps `src` until "
          "the copy is done.");
    m.def("memcpy_dtoh", [](nb::handle dest, nb::handle src) {
        host_buffer buffer(dest, true, "memcpy_dtoh(dest)");
        const device_pointer from = device_pointer_arg(src, "memcpy_dtoh(src)");
        release_gil release;
        cuda::memcpy_dtoh(buffer.data(), from, buffer.size());
    }, "dest"_a, "src"_a, "Fill the writable host buffer `dest` (its whole size) from device memory `src`.");
    m.def("memcpy_dtoh_async", [](nb::handle dest, nb::handle src, nb::handle stream) {
        auto buffer = std::make_shared<host_buffer>(dest, true, "memcpy_dtoh_async(dest)");
        const cuda::stream_view s = stream_arg(stream);
        cuda::memcpy_dtoh_async(buffer->data(), device_pointer_arg(src, "memcpy_dtoh_async(src)"), buffer->size(), s);
        hold_until_done(buffer, buffer->data(), s);
    }, "dest"_a, "src"_a, "stream"_a.none() = nb::none(),
          "Asynchronous memcpy_dtoh (it overlaps other work when `dest` is page-locked); gpukit keeps `dest` "
          "until the copy is done.");
    m.def("memcpy_dtod", [](nb::handle dest, nb::handle src, std::size_t size) {
        const device_pointer to = device_pointer_arg(dest, "memcpy_dtod(dest)");
        const device_pointer from = device_pointer_arg(src, "memcpy_dtod(src)");
        release_gil release;
        cuda::memcpy_dtod(to, from, size);
    }, "dest"_a, "src"_a, "size"_a, "Copy `size` bytes between device memory.");
    m.def("memcpy_dtod_async", [](nb::handle dest, nb::handle src, std::size_t size, nb::handle stream) {
        cuda::memcpy_dtod_async(device_pointer_arg(dest, "memcpy_dtod_async(dest)"),
                                device_pointer_arg(src, "memcpy_dtod_async(src)"), size, stream_arg(stream));
    }, "dest"_a, "src"_a, "size"_a, "stream"_a.none() = nb::none());
    m.def("memcpy_peer", [](nb::handle dest, nb::handle src, std::size_t size,
                            const std::optional<cuda::context>& dest_context,
                            const std::optional<cuda::context>& src_context) {
        const device_pointer to = device_pointer_arg(dest, "memcpy_peer(dest)");
        const device_pointer from = device_pointer_arg(src, "memcpy_peer(src)");
        const cuda::context dst_ctx = context_arg(dest_context, "memcpy_peer()");
        const cuda::context src_ctx = context_arg(src_context, "memcpy_peer()");
        release_gil release;
        cuda::memcpy_peer(to, dst_ctx, from, src_ctx, size);
    }, "dest"_a, "src"_a, "size"_a, "dest_context"_a.none() = nb::none(), "src_context"_a.none() = nb::none(),
          "Copy `size` bytes between memory of two contexts (the current one where None).");
    m.def("memcpy_peer_async", [](nb::handle dest, nb::handle src, std::size_t size,
                                  const std::optional<cuda::context>& dest_context,
                                  const std::optional<cuda::context>& src_context, nb::handle stream) {
        cuda::memcpy_peer_async(device_pointer_arg(dest, "memcpy_peer_async(dest)"),
                                context_arg(dest_context, "memcpy_peer_async()"),
                                device_pointer_arg(src, "memcpy_peer_async(src)"),
                                context_arg(src_context, "memcpy_peer_async()"), size, stream_arg(stream));
    }, "dest"_a, "src"_a, "size"_a, "dest_context"_a.none() = nb::none(), "src_context"_a.none() = nb::none(),
          "stream"_a.none() = nb::none());

    bind_memset<std::uint8_t, cuda::memset_d8, cuda::memset_d8_async>(m, "memset_d8", "memset_d8_async");
    bind_memset<std::uint16_t, cuda::memset_d16, cuda::memset_d16_async>(m, "memset_d16", "memset_d16_async");
    bind_memset<std::uint32_t, cuda::memset_d32, cuda::memset_d32_async>(m, "memset_d32", "memset_d32_async");
    bind_memset_2d<std::uint8_t, cuda::memset_d2d8, cuda::memset_d2d8_async>(m, "memset_d2d8", "memset_d2d8_async");
    bind_memset_2d<std::uint16_t, cuda::memset_d2d16, cuda::memset_d2d16_async>(m, "memset_d2d16",
                                                                                "memset_d2d16_async");
    bind_memset_2d<std::uint32_t, cuda::memset_d2d32, cuda::memset_d2d32_async>(m, "memset_d2d32",
                                                                                "memset_d2d32_async");
}

}  // namespace gpukit::python
