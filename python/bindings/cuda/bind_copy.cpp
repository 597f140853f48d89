// gpukit.driver copies and memsets. Arguments are converted with the GIL held; the blocking
// calls then run with it released.
#include "common/host_holds.hpp"
#include "common/int_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/copy.hpp"

#include <nanobind/stl/optional.h>

#include <memory>
#include <optional>
#include <string>

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
    m.def(
        name,
        [name, count_name = std::string(name) + "(count)"](nb::handle dest, nb::handle data,
                                                           int_arg<std::size_t> count) {
            const device_pointer dst = device_pointer_arg(dest, name);
            const T value = static_cast<T>(unsigned_arg(data, 8 * sizeof(T), name));
            const std::size_t elements = count.get(count_name.c_str());
            release_gil release;
            fill(dst, value, elements);
        },
        "dest"_a, "data"_a.none(), "count"_a.none(), "Fill `count` elements (not bytes) at `dest` with `data`.");
    m.def(
        async_name,
        [async_name, count_name = std::string(async_name) + "(count)"](nb::handle dest, nb::handle data,
                                                                       int_arg<std::size_t> count, nb::handle stream) {
            fill_async(device_pointer_arg(dest, async_name),
                       static_cast<T>(unsigned_arg(data, 8 * sizeof(T), async_name)), count.get(count_name.c_str()),
                       stream_arg(stream));
        },
        "dest"_a, "data"_a.none(), "count"_a.none(), "stream"_a.none() = nb::none());
}

// The names of memset_d2d*'s size arguments, made once per function.
struct memset_2d_names {
    std::string pitch, width, height;
    explicit memset_2d_names(const std::string& name)
        : pitch(name + "(pitch)"), width(name + "(width)"), height(name + "(height)") {}
};

template <class T, void (*fill)(device_pointer, std::size_t, T, std::size_t, std::size_t),
          void (*fill_async)(device_pointer, std::size_t, T, std::size_t, std::size_t, stream_view)>
void bind_memset_2d(nb::module_& m, const char* name, const char* async_name) {
    m.def(
        name,
        [name, names = memset_2d_names(name)](nb::handle dest, int_arg<std::size_t> pitch, nb::handle data,
                                              int_arg<std::size_t> width, int_arg<std::size_t> height) {
            const device_pointer dst = device_pointer_arg(dest, name);
            const T value = static_cast<T>(unsigned_arg(data, 8 * sizeof(T), name));
            const std::size_t row_pitch = pitch.get(names.pitch.c_str()), columns = width.get(names.width.c_str()),
                              rows = height.get(names.height.c_str());
            release_gil release;
            fill(dst, row_pitch, value, columns, rows);
        },
        "dest"_a, "pitch"_a.none(), "data"_a.none(), "width"_a.none(), "height"_a.none(),
        "Fill `height` rows of `width` elements, rows `pitch` bytes apart, with `data`.");
    m.def(
        async_name,
        [async_name, names = memset_2d_names(async_name)](nb::handle dest, int_arg<std::size_t> pitch, nb::handle data,
                                                          int_arg<std::size_t> width, int_arg<std::size_t> height,
                                                          nb::handle stream) {
            fill_async(device_pointer_arg(dest, async_name), pitch.get(names.pitch.c_str()),
                       static_cast<T>(unsigned_arg(data, 8 * sizeof(T), async_name)), width.get(names.width.c_str()),
                       height.get(names.height.c_str()), stream_arg(stream));
        },
        "dest"_a, "pitch"_a.none(), "data"_a.none(), "width"_a.none(), "height"_a.none(),
        "stream"_a.none() = nb::none());
}

}  // namespace

void bind_copy(nb::module_& m) {
    m.def(
        "memcpy_htod",
        [](nb::handle dest, nb::handle src) {
            const device_pointer dst = device_pointer_arg(dest, "memcpy_htod(dest)");
            host_buffer buffer(src, false, "memcpy_htod(src)");
            release_gil release;
            cuda::memcpy_htod(dst, buffer.data(), buffer.size());
        },
        "dest"_a, "src"_a, "Copy the host buffer `src` (its whole size) to device memory `dest`.");
    m.def(
        "memcpy_htod_async",
        [](nb::handle dest, nb::handle src, nb::handle stream) {
            auto buffer = std::make_shared<host_buffer>(src, false, "memcpy_htod_async(src)");
            const cuda::stream_view s = stream_arg(stream);
            cuda::memcpy_htod_async(device_pointer_arg(dest, "memcpy_htod_async(dest)"), buffer->data(), buffer->size(),
                                    s);
            hold_until_done(buffer, buffer->data(), s);
        },
        "dest"_a, "src"_a, "stream"_a.none() = nb::none(),
        "Asynchronous memcpy_htod (it overlaps other work when `src` is page-locked); gpukit keeps `src` until "
        "the copy is done.");
    m.def(
        "memcpy_dtoh",
        [](nb::handle dest, nb::handle src) {
            host_buffer buffer(dest, true, "memcpy_dtoh(dest)");
            const device_pointer from = device_pointer_arg(src, "memcpy_dtoh(src)");
            release_gil release;
            cuda::memcpy_dtoh(buffer.data(), from, buffer.size());
        },
        "dest"_a, "src"_a, "Fill the writable host buffer `dest` (its whole size) from device memory `src`.");
    m.def(
        "memcpy_dtoh_async",
        [](nb::handle dest, nb::handle src, nb::handle stream) {
            auto buffer = std::make_shared<host_buffer>(dest, true, "memcpy_dtoh_async(dest)");
            const cuda::stream_view s = stream_arg(stream);
            cuda::memcpy_dtoh_async(buffer->data(), device_pointer_arg(src, "memcpy_dtoh_async(src)"), buffer->size(),
                                    s);
            hold_until_done(buffer, buffer->data(), s);
        },
        "dest"_a, "src"_a, "stream"_a.none() = nb::none(),
        "Asynchronous memcpy_dtoh (it overlaps other work when `dest` is page-locked); gpukit keeps `dest` "
        "until the copy is done.");
    m.def(
        "memcpy_dtod",
        [](nb::handle dest, nb::handle src, int_arg<std::size_t> size) {
            const device_pointer to = device_pointer_arg(dest, "memcpy_dtod(dest)");
            const device_pointer from = device_pointer_arg(src, "memcpy_dtod(src)");
            const std::size_t bytes = size.get("memcpy_dtod(size)");
            release_gil release;
            cuda::memcpy_dtod(to, from, bytes);
        },
        "dest"_a, "src"_a, "size"_a.none(), "Copy `size` bytes between device memory.");
    m.def(
        "memcpy_dtod_async",
        [](nb::handle dest, nb::handle src, int_arg<std::size_t> size, nb::handle stream) {
            cuda::memcpy_dtod_async(device_pointer_arg(dest, "memcpy_dtod_async(dest)"),
                                    device_pointer_arg(src, "memcpy_dtod_async(src)"),
                                    size.get("memcpy_dtod_async(size)"), stream_arg(stream));
        },
        "dest"_a, "src"_a, "size"_a.none(), "stream"_a.none() = nb::none());
    m.def(
        "memcpy_peer",
        [](nb::handle dest, nb::handle src, int_arg<std::size_t> size, const std::optional<cuda::context>& dest_context,
           const std::optional<cuda::context>& src_context) {
            const device_pointer to = device_pointer_arg(dest, "memcpy_peer(dest)");
            const device_pointer from = device_pointer_arg(src, "memcpy_peer(src)");
            const std::size_t bytes = size.get("memcpy_peer(size)");
            const cuda::context dst_ctx = context_arg(dest_context, "memcpy_peer()");
            const cuda::context src_ctx = context_arg(src_context, "memcpy_peer()");
            release_gil release;
            cuda::memcpy_peer(to, dst_ctx, from, src_ctx, bytes);
        },
        "dest"_a, "src"_a, "size"_a.none(), "dest_context"_a.none() = nb::none(), "src_context"_a.none() = nb::none(),
        "Copy `size` bytes between memory of two contexts (the current one where None).");
    m.def(
        "memcpy_peer_async",
        [](nb::handle dest, nb::handle src, int_arg<std::size_t> size, const std::optional<cuda::context>& dest_context,
           const std::optional<cuda::context>& src_context, nb::handle stream) {
            const std::size_t bytes = size.get("memcpy_peer_async(size)");  // before the contexts, which need a driver
            cuda::memcpy_peer_async(device_pointer_arg(dest, "memcpy_peer_async(dest)"),
                                    context_arg(dest_context, "memcpy_peer_async()"),
                                    device_pointer_arg(src, "memcpy_peer_async(src)"),
                                    context_arg(src_context, "memcpy_peer_async()"), bytes, stream_arg(stream));
        },
        "dest"_a, "src"_a, "size"_a.none(), "dest_context"_a.none() = nb::none(), "src_context"_a.none() = nb::none(),
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
