// gpukit.tools.DeviceMemoryPool and PageLockedMemoryPool: the C++ memory_pool over CUDA
// device memory and page-locked host memory.
#include "common/argument_errors.hpp"
#include "common/bindings.hpp"
#include "common/int_args.hpp"

#include "gpukit/core/bitlog.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/allocators.hpp"
#include "gpukit/cuda/default_pool.hpp"
#include "gpukit/memory/pool.hpp"

#include <nanobind/stl/optional.h>

#include <cstdint>

namespace gpukit::python {

using namespace nb::literals;

namespace {

using device_pool = cuda::device_memory_pool;
using device_block = cuda::pooled_device_memory;
using host_pool = memory::memory_pool<cuda::pagelocked_allocator>;

// A pooled page-locked block seen from Python. It remembers (by weak reference) the numpy
// array made over it, so that free() cannot pull the memory from under a live array: numpy
// releases its buffer view at once and keeps only a reference, so buffer exports can't tell.
struct host_block {
    memory::pooled_allocation<cuda::pagelocked_allocator> block;
    nb::object array_ref;  // a weakref to the array using this memory, or empty

    void free() {
        if (array_ref.is_valid() && !array_ref().is_none())
            throw logic_error(
                "PooledHostAllocation.free(): an array still uses this memory; drop it first (the "
                "memory returns to the pool by itself once the array is gone)");
        block.free();
    }
    const auto& live() const {
        if (!block)
            throw logic_error("this PooledHostAllocation was freed and can no longer be used");
        return block;
    }
};

// Buffer protocol for PooledHostAllocation, so numpy arrays can live on it (their .base is
// the allocation, as in PyCUDA).
int host_block_getbuffer(PyObject* self, Py_buffer* view, int flags) {
    if (refuse_uninitialised_buffer(self, view))
        return -1;
    host_block* h = nb::inst_ptr<host_block>(self);
    if (!h->block) {
        PyErr_SetString(PyExc_BufferError, "this PooledHostAllocation was freed");
        view->obj = nullptr;
        return -1;
    }
    return PyBuffer_FillInfo(view, self, h->block.pointer(), static_cast<Py_ssize_t>(h->block.size()), 0, flags);
}

PyType_Slot host_block_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(host_block_getbuffer)}, {0, nullptr}};

nb::typed<nb::dict, nb::str, int> stats_dict(const memory::pool_stats& s) {
    nb::dict d;
    d["hits"] = s.hits;
    d["misses"] = s.misses;
    d["allocator_allocations"] = s.allocator_allocations;
    d["allocator_failures"] = s.allocator_failures;
    d["releases"] = s.releases;
    d["held_blocks"] = s.held_blocks;
    d["active_blocks"] = s.active_blocks;
    d["held_bytes"] = s.held_bytes;
    d["active_bytes"] = s.active_bytes;
    d["managed_bytes"] = s.managed_bytes;
    return d;
}

// The counters and controls both pools share.
template <class Pool, class Class>
void bind_pool_common(Class& cls) {
    cls.def_prop_ro("held_blocks", &Pool::held_blocks)
        .def_prop_ro("active_blocks", &Pool::active_blocks)
        .def_prop_ro("held_bytes", &Pool::held_bytes)
        .def_prop_ro("active_bytes", &Pool::active_bytes)
        .def_prop_ro("managed_bytes", &Pool::managed_bytes)
        .def_prop_ro("leading_bits_in_bin_id", &Pool::leading_bits_in_bin_id)
        .def_prop_rw(
            "max_held_bytes", &Pool::max_held_bytes,
            [](Pool& p, or_none<int_arg<std::size_t>> cap) {
                p.set_max_held_bytes(cap.object.is_none() ? std::nullopt : std::optional(cap.get("max_held_bytes")));
            },
            nb::arg("cap").none(), "Held bytes above this are released (None: no cap).")
        .def(
            "stats", [](const Pool& p) { return stats_dict(p.stats()); }, "Counters of hits, misses and bytes.")
        .def("free_held", &Pool::free_held, "Release every held block.")
        .def("stop_holding", &Pool::stop_holding, "Release held blocks and stop keeping freed ones.");
}

}  // namespace

void bind_pool(nb::module_& m) {
    m.def(
        "bitlog2", [](int_arg<std::uint64_t> value) { return bitlog2(value.get("bitlog2(value)")); }, "value"_a.none(),
        "floor(log2(value)); bitlog2(0) is 0.");
    // PyCUDA's pools have bin_number and alloc_size as static methods (tools.py binds these
    // to the class, with the default layout).
    m.def(
        "_bin_number",
        [](int_arg<std::size_t> size, int_arg<unsigned> leading_bits) {
            return memory::checked_bin_layout(leading_bits.get("bin_number(leading_bits_in_bin_id)"))
                .bin_number(size.get("bin_number(size)"));
        },
        "size"_a.none(), "leading_bits_in_bin_id"_a.none());
    m.def(
        "_alloc_size",
        [](int_arg<std::size_t> bin, int_arg<unsigned> leading_bits) {
            return memory::checked_alloc_size(memory::checked_bin_layout(
                                                  leading_bits.get("alloc_size(leading_bits_in_bin_id)")),
                                              bin.get("alloc_size(bin)"));
        },
        "bin"_a.none(), "leading_bits_in_bin_id"_a.none());

    const auto pointer = [](const device_block& b) { return b.block.pointer(); };
    const auto allocate = [](device_pool& p, int_arg<std::size_t> size) {
        return device_block{p.get_allocator().owner(), p.allocate(size.get("DeviceMemoryPool.allocate(size)"))};
    };
    nb::class_<device_block>(m, "PooledDeviceAllocation", nb::dynamic_attr(), "Device memory from a DeviceMemoryPool.")
        // PyCUDA's class has no constructor; this one lets a Python subclass take its block.
        .def(
            "__init__",
            [allocate](device_block* self, device_pool& pool, int_arg<std::size_t> size) {
                new (self) device_block(allocate(pool, size));
            },
            "pool"_a, "size"_a.none(), "A block of `size` bytes from `pool`, as pool.allocate(size) gives.")
        .def(
            "free", [](device_block& b) { b.block.free(); }, "Return the memory to its pool now.")
        .def("__len__", [](const device_block& b) { return b.block.size(); })
        .def("__int__", pointer)
        .def("__index__", pointer)
        .def_prop_ro("ptr", pointer)
        .def("get_pointer", pointer)
        .def("__bool__", [](const device_block& b) { return static_cast<bool>(b.block); });

    auto device_cls = nb::class_<device_pool>(m, "DeviceMemoryPool", "A binned pool of device memory.")
                          .def(
                              "__init__",
                              [](device_pool* self, int_arg<unsigned> leading_bits) {
                                  const unsigned bits = leading_bits.get("DeviceMemoryPool(leading_bits_in_bin_id)");
                                  new (self) device_pool(cuda::device_allocator::for_current_context(), bits);
                              },
                              "leading_bits_in_bin_id"_a.none() = 4)
                          .def("allocate", allocate, "size"_a.none(), "A PooledDeviceAllocation of `size` bytes.")
                          .def("__call__", allocate, "size"_a.none());
    bind_pool_common<device_pool>(device_cls);

    m.def(
        "_default_pool_allocate",
        [](int_arg<std::size_t> size) {
            return cuda::allocate_from_default_pool(size.get("default_allocator()(size)"));
        },
        "size"_a.none(), "A PooledDeviceAllocation of `size` bytes from the current context's default pool.");
    m.def("_release_default_pools", &cuda::release_default_pools,
          "Drop every context's default pool, freeing the blocks they hold.");

    nb::class_<host_block>(m, "PooledHostAllocation", nb::type_slots(host_block_slots),
                           "Page-locked host memory from a PageLockedMemoryPool.")
        .def("free", &host_block::free, "Return the memory to its pool now (not while arrays use it).")
        .def("__len__", [](const host_block& b) { return b.block.size(); })
        .def(
            "_track",
            [](host_block& b, nb::handle array) { b.array_ref = nb::module_::import_("weakref").attr("ref")(array); },
            "array"_a, "Remember the array made over this memory (PageLockedMemoryPool does this).")
        .def_prop_ro("ptr", [](const host_block& b) { return reinterpret_cast<std::uintptr_t>(b.live().pointer()); });

    nb::class_<cuda::pagelocked_allocator>(m, "PageLockedAllocator", "cuMemHostAlloc with host_alloc_flags.")
        .def(
            "__init__",
            [](cuda::pagelocked_allocator* self, int_arg<unsigned int> flags) {
                const unsigned int alloc_flags = flags.get("PageLockedAllocator(flags)");
                new (self) cuda::pagelocked_allocator(cuda::pagelocked_allocator::for_current_context(alloc_flags));
            },
            "flags"_a.none() = 0)
        .def_prop_ro("flags", &cuda::pagelocked_allocator::flags);

    auto host_cls =
        nb::class_<host_pool>(m, "_PageLockedMemoryPool")
            .def(
                "__init__",
                [](host_pool* self, const cuda::pagelocked_allocator& allocator, int_arg<unsigned> leading_bits) {
                    new (self) host_pool(allocator, leading_bits.get("PageLockedMemoryPool(leading_bits_in_bin_id)"));
                },
                "allocator"_a, "leading_bits_in_bin_id"_a.none() = 4)
            .def(
                "allocate_bytes",
                [](host_pool& p, int_arg<std::size_t> size) {
                    return host_block{p.allocate(size.get("PageLockedMemoryPool.allocate(nbytes)"))};
                },
                "size"_a.none());
    bind_pool_common<host_pool>(host_cls);
}

}  // namespace gpukit::python
