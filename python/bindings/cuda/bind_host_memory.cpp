// gpukit.driver host-side memory: AlignedHostAllocation, PrefaultedHostMemory,
// PagelockedHostAllocation, RegisteredHostMemory and ManagedAllocation. Each exposes its
// bytes through the buffer protocol; gpukit/_memory.py builds the numpy arrays over them,
// so an array's .base is the allocation.
#include "common/int_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/core/layout.hpp"
#include "gpukit/core/prefaulted_memory.hpp"
#include "gpukit/cuda/host_memory.hpp"
#include "gpukit/cuda/managed_memory.hpp"

#include <nanobind/stl/vector.h>

#include <vector>

namespace gpukit::python {

using namespace nb::literals;
using cuda::aligned_host_allocation;
using cuda::managed_allocation;
using cuda::pagelocked_host_allocation;

namespace {

// Registered memory belongs to another Python object, held here so that it outlives the
// page lock.
struct registered_memory {
    cuda::registered_host_memory memory;
    nb::object base;
    void* data() const { return memory.data(); }
    std::size_t size() const noexcept { return memory.size(); }
};

// The pages of numpy arrays page-locked together (gpukit.cuda's pinned() and mapped()),
// with the arrays held so that they outlive the page locks.
struct registered_arrays {
    cuda::registered_host_pages pages;
    std::vector<nb::object> arrays;
};

// An array's element 0 and the bytes it spans, from its buffer (any strides, negative ones
// included, read-only arrays too).
struct array_span {
    const std::byte* first;  // element 0
    cuda::host_range bytes;  // lowest to one past the highest byte
};

array_span span_of(nb::handle array, const char* what) {
    Py_buffer view;
    if (!get_plain_buffer(array, view, PyBUF_STRIDES, what)) {
        PyErr_Clear();
        throw nb::type_error(
            (std::string(what) + ": expected numpy arrays, got " + Py_TYPE(array.ptr())->tp_name).c_str());
    }
    const std::vector<std::int64_t> shape(view.shape, view.shape + view.ndim),
        strides(view.strides, view.strides + view.ndim);
    const auto first = static_cast<const std::byte*>(view.buf);
    const std::size_t itemsize = static_cast<std::size_t>(view.itemsize);
    PyBuffer_Release(&view);
    const auto [low, high] = gpukit::layout(shape, strides, static_cast<std::int64_t>(itemsize)).byte_extent();
    return {first, {first + low, static_cast<std::size_t>(high - low)}};
}

}  // namespace

void bind_host_memory(nb::module_& m) {
    nb::class_<aligned_host_allocation>(m, "AlignedHostAllocation",
                                        nb::type_slots(host_memory_slots<aligned_host_allocation>),
                                        "Host memory aligned to a power of two; the .base of aligned_empty() arrays.")
        .def("free", &aligned_host_allocation::free, "Free the memory now. Arrays over it must not be used afterwards.")
        .def_prop_ro("alignment", &aligned_host_allocation::alignment);
    m.def(
        "_aligned_alloc",
        [](int_arg<std::size_t> bytes, int_arg<std::size_t> alignment) {
            return aligned_host_allocation::allocate(bytes.get("aligned_empty(nbytes)"),
                                                     alignment.get("aligned_empty(alignment)"));
        },
        "bytes"_a.none(), "alignment"_a.none());

    nb::class_<prefaulted_memory>(m, "PrefaultedHostMemory", nb::type_slots(host_memory_slots<prefaulted_memory>),
                                  "Host memory whose pages are faulted in by background threads; the .base of "
                                  "large prefaulted_empty() arrays.")
        .def("free", &prefaulted_memory::free, nb::call_guard<release_gil>(),
             "Free the memory now. Arrays over it must not be used afterwards.")
        .def("wait_prefaulted", &prefaulted_memory::wait_prefaulted, nb::call_guard<release_gil>(),
             "Return once the background faulting has finished.");
    m.def(
        "_prefaulted_alloc",
        [](int_arg<std::size_t> bytes) { return prefaulted_memory::allocate(bytes.get("prefaulted_empty(nbytes)")); },
        "bytes"_a.none());
    m.attr("_prefaulted_min_bytes") = prefaulted_memory_min_bytes;
    m.def(
        "set_prefaulted_reuse_limit",
        [](int_arg<std::size_t> bytes) {
            const std::size_t limit = bytes.get("set_prefaulted_reuse_limit(nbytes)");
            nb::gil_scoped_release unlocked;  // unmapping what no longer fits takes a while
            return prefaulted_memory::set_reuse_limit(limit);
        },
        "nbytes"_a.none(),
        "Keep at most nbytes of freed prefaulted memory mapped for reuse (0: none, and unmap what is kept); "
        "returns the previous limit.");

    nb::class_<pagelocked_host_allocation>(m, "PagelockedHostAllocation",
                                           nb::type_slots(host_memory_slots<pagelocked_host_allocation>),
                                           "Page-locked host memory; the .base of pagelocked_empty() arrays.")
        .def("free", &pagelocked_host_allocation::free,
             "Free the memory now. Arrays over it must not be used afterwards.")
        .def("get_flags", &pagelocked_host_allocation::flags, "The host_alloc_flags it was allocated with.")
        .def("get_device_pointer", &pagelocked_host_allocation::device_pointer,
             "The device address of this memory (needs host_alloc_flags.DEVICEMAP or unified addressing).");
    m.def(
        "_pagelocked_alloc",
        [](int_arg<std::size_t> bytes, int_arg<unsigned int> flags) {
            return pagelocked_host_allocation::allocate(bytes.get("pagelocked_empty(nbytes)"),
                                                        flags.get("pagelocked_empty(mem_flags)"));
        },
        "bytes"_a.none(), "flags"_a.none());

    nb::class_<registered_memory>(m, "RegisteredHostMemory", nb::type_slots(host_memory_slots<registered_memory>),
                                  "Host memory of another object, page-locked while this lives.")
        .def(
            "unregister", [](registered_memory& r) { r.memory.unregister(); },
            "Remove the page lock now; the memory itself stays valid.")
        .def("get_device_pointer", [](const registered_memory& r) { return r.memory.device_pointer(); })
        .def_prop_ro(
            "base", [](const registered_memory& r) { return r.base; }, "The object whose memory this is.");
    m.def(
        "_register_host_memory",
        [](nb::handle ary, int_arg<unsigned int> flags) {
            const unsigned int register_flags = flags.get("register_host_memory(flags)");
            const host_buffer buffer(ary, true, "register_host_memory(ary)");
            return registered_memory{cuda::registered_host_memory::register_memory(buffer.data(), buffer.size(),
                                                                                   register_flags),
                                     nb::borrow(ary)};
        },
        "ary"_a, "flags"_a.none());

    nb::class_<registered_arrays>(m, "_RegisteredHostPages",
                                  "The pages of numpy arrays page-locked together (gpukit.cuda.pinned and mapped).")
        .def(
            "unregister", [](registered_arrays& r) { r.pages.unregister(); },
            "Remove the page locks now; the memory itself stays valid.")
        .def(
            "device_pointer",
            [](const registered_arrays& r, nb::handle array) -> CUdeviceptr {
                const array_span span = span_of(array, "device_pointer(array)");
                return span.bytes.bytes == 0 ? 0 : r.pages.device_pointer(span.first);
            },
            "array"_a, "The device address of element 0 of `array`, one of the registered arrays (0 when empty).")
        .def_prop_ro(
            "run_count", [](const registered_arrays& r) { return r.pages.run_count(); },
            "How many runs of whole pages were registered.");
    m.def(
        "_register_host_pages",
        [](std::vector<nb::object> arrays, int_arg<unsigned int> flags) {
            const unsigned int register_flags = flags.get("register_host_pages(flags)");
            std::vector<cuda::host_range> ranges;
            for (const nb::object& a : arrays)
                ranges.push_back(span_of(a, "register_host_pages(arrays)").bytes);
            return registered_arrays{cuda::registered_host_pages::register_ranges(ranges, register_flags),
                                     std::move(arrays)};
        },
        "arrays"_a, "flags"_a.none(), "Page-lock the whole pages the numpy arrays span (any alignment and strides).");

    nb::class_<managed_allocation>(m, "ManagedAllocation", nb::type_slots(host_memory_slots<managed_allocation>),
                                   "Managed memory, valid on host and device; the .base of managed_empty() arrays.")
        .def("free", &managed_allocation::free, "Free the memory now. Arrays over it must not be used afterwards.")
        .def("get_device_pointer", &managed_allocation::device_pointer,
             "The device address, which for managed memory equals the host address.")
        .def("__int__", &managed_allocation::device_pointer)
        .def("__index__", &managed_allocation::device_pointer)
        .def(
            "attach",
            [](const managed_allocation& a, int_arg<unsigned int> mem_flags, nb::handle stream) {
                a.attach(mem_flags.get("ManagedAllocation.attach(mem_flags)"), stream_arg(stream));
            },
            "mem_flags"_a.none(), "stream"_a.none() = nb::none(),
            "Make the memory visible to the whole context (GLOBAL), the host (HOST) or one stream (SINGLE).");
    m.def(
        "_managed_alloc",
        [](int_arg<std::size_t> bytes, int_arg<unsigned int> flags) {
            return managed_allocation::allocate(bytes.get("managed_empty(nbytes)"),
                                                flags.get("managed_empty(mem_flags)"));
        },
        "bytes"_a.none(), "flags"_a.none());
}

}  // namespace gpukit::python
