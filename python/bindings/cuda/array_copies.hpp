// gpukit.driver's copies between a CUDA array and linear memory (memcpy_htoa, memcpy_atoh,
// memcpy_dtoa, memcpy_atod), bound for one kind of array: driver Arrays (bind_cuda_array.cpp)
// and the arrays of mapped OpenGL images (bind_graphics.cpp). A second definition of a module
// function's name adds an overload to it, so both kinds share the names. Offsets (`index`)
// and lengths are in bytes, as in the driver.
#pragma once

#include "common/int_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/graphics.hpp"

#include <cstddef>

namespace gpukit::python {

template <class Array>
void bind_array_copies(nb::module_& m) {
    using namespace nb::literals;
    m.def(
        "memcpy_htoa",
        [](const Array& ary, int_arg<std::size_t> index, nb::handle src) {
            const std::size_t offset = index.get("memcpy_htoa(index)");
            host_buffer buffer(src, false, "memcpy_htoa(src)");
            release_gil release;
            cuda::memcpy_htoa(ary, offset, buffer.data(), buffer.size());
        },
        "ary"_a, "index"_a.none(), "src"_a, "Copy the host buffer `src` into `ary`, starting `index` bytes in.");
    m.def(
        "memcpy_atoh",
        [](nb::handle dest, const Array& ary, int_arg<std::size_t> index) {
            const std::size_t offset = index.get("memcpy_atoh(index)");
            host_buffer buffer(dest, true, "memcpy_atoh(dest)");
            release_gil release;
            cuda::memcpy_atoh(buffer.data(), ary, offset, buffer.size());
        },
        "dest"_a, "ary"_a, "index"_a.none(), "Fill the host buffer `dest` from `ary`, starting `index` bytes in.");
    m.def(
        "memcpy_dtoa",
        [](const Array& ary, int_arg<std::size_t> index, nb::handle src, int_arg<std::size_t> len) {
            const std::size_t offset = index.get("memcpy_dtoa(index)"), bytes = len.get("memcpy_dtoa(len)");
            const cuda::device_pointer from = device_pointer_arg(src, "memcpy_dtoa(src)");
            release_gil release;
            cuda::memcpy_dtoa(ary, offset, from, bytes);
        },
        "ary"_a, "index"_a.none(), "src"_a, "len"_a.none());
    m.def(
        "memcpy_atod",
        [](nb::handle dest, const Array& ary, int_arg<std::size_t> index, int_arg<std::size_t> len) {
            const std::size_t offset = index.get("memcpy_atod(index)"), bytes = len.get("memcpy_atod(len)");
            const cuda::device_pointer to = device_pointer_arg(dest, "memcpy_atod(dest)");
            release_gil release;
            cuda::memcpy_atod(to, ary, offset, bytes);
        },
        "dest"_a, "ary"_a, "index"_a.none(), "len"_a.none());
}

}  // namespace gpukit::python
