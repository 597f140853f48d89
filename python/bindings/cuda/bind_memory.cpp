// gpukit.driver device memory: DeviceAllocation, mem_get_info, mem_alloc, mem_alloc_pitch,
// IPC handles, and _HostView, the buffer behind as_buffer().
#include "common/int_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/ipc_memory.hpp"
#include "gpukit/cuda/memory.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cstdio>
#include <limits>
#include <string>

namespace gpukit::python {

using namespace nb::literals;
using cuda::device_allocation;
using cuda::ipc_memory_handle;

namespace {

// A byte range of host-addressable memory that keeps its owner alive; memoryview(view)
// holds the view, so the owner outlives every buffer made from it.
struct host_view {
    nb::object owner;
    void* address;
    std::size_t bytes;
    void* data() const noexcept { return address; }
    std::size_t size() const noexcept { return bytes; }
};

}  // namespace

// A writable memoryview of `size` bytes at `address + offset`, refused unless the CPU may
// touch that memory (see cuda::is_host_accessible): reading plain device memory from the
// host would crash the process instead of raising.
static nb::object host_memoryview(nb::handle owner, CUdeviceptr address, std::optional<std::size_t> capacity,
                                  std::size_t size, std::size_t offset) {
    if (capacity && (offset > *capacity || size > *capacity - offset))
        throw logic_error("as_buffer(): " + std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                          " exceed the " + std::to_string(*capacity) + " bytes of the memory");
    // Without a known capacity, the range must still be one the CPU could address, and a
    // length a memoryview can hold.
    if (offset > std::numeric_limits<CUdeviceptr>::max() - address || size > static_cast<std::size_t>(PY_SSIZE_T_MAX))
        throw logic_error("as_buffer(): " + std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                          " from address " + std::to_string(address) + " are beyond the address space");
    if (!cuda::is_host_accessible(address + offset))
        throw logic_error(
            "as_buffer(): this device memory is not addressable from the host (only managed and "
            "mapped page-locked memory is); copy it with memcpy_dtoh() or from_device(), or "
            "allocate it with managed_empty()");
    nb::object view = nb::cast(host_view{nb::borrow(owner), reinterpret_cast<void*>(address + offset), size});
    return nb::steal(PyMemoryView_FromObject(view.ptr()));
}

void bind_memory(nb::module_& m) {
    nb::class_<host_view>(m, "_HostView", nb::type_slots(host_memory_slots<host_view>),
                          "Host-addressable memory kept alive by its owner; wrap in memoryview().");

    nb::class_<device_allocation>(m, "DeviceAllocation", nb::dynamic_attr(),
                                  "Linear device memory from mem_alloc(); freed when the last reference goes.")
        // PyCUDA's class has no constructor; this one lets a Python subclass allocate.
        .def(
            "__init__",
            [](device_allocation* self, int_arg<std::size_t> bytes) {
                new (self) device_allocation(device_allocation::allocate(bytes.get("DeviceAllocation(bytes)")));
            },
            "bytes"_a.none(), "Allocate `bytes` (at least 1) of device memory, as mem_alloc(bytes) does.")
        .def("free", &device_allocation::free,
             "Free the memory now. Freeing again does nothing; any other use afterwards raises LogicError.")
        .def("__int__", &device_allocation::get)
        .def("__index__", &device_allocation::get)
        .def("__len__", &device_allocation::size)
        .def_prop_ro("size", &device_allocation::size, "Bytes allocated (0 once freed).")
        .def(
            "as_buffer",
            [](nb::handle self, int_arg<std::size_t> size, int_arg<std::size_t> offset) {
                const auto& a = nb::cast<const device_allocation&>(self);
                return host_memoryview(self, a.get(), a.size(), size.get("as_buffer(size)"),
                                       offset.get("as_buffer(offset)"));
            },
            "size"_a.none(), "offset"_a.none() = 0,
            "A memoryview of `size` bytes from `offset`. Only memory the CPU can address (managed or mapped) "
            "has one; plain device memory raises LogicError.")
        .def("__repr__", [](const device_allocation& a) {
            if (a.is_freed())
                return std::string("<gpukit.driver.DeviceAllocation (freed)>");
            char text[96];
            std::snprintf(text, sizeof text, "<gpukit.driver.DeviceAllocation 0x%llx, %zu bytes>",
                          static_cast<unsigned long long>(a.get()), a.size());
            return std::string(text);
        });

    m.def(
        "mem_get_info",
        [] {
            const cuda::memory_info info = cuda::mem_get_info();
            return std::make_pair(info.free, info.total);
        },
        "(free, total) bytes of device memory of the current context.");
    m.def(
        "mem_alloc",
        [](int_arg<std::size_t> bytes) { return device_allocation::allocate(bytes.get("mem_alloc(bytes)")); },
        "bytes"_a.none(), "Allocate `bytes` (at least 1) of device memory.");
    m.def(
        "mem_alloc_pitch",
        [](int_arg<std::size_t> width, int_arg<std::size_t> height, int_arg<unsigned int> access_size) {
            return device_allocation::allocate_pitch(width.get("mem_alloc_pitch(width)"),
                                                     height.get("mem_alloc_pitch(height)"),
                                                     access_size.get("mem_alloc_pitch(access_size)"));
        },
        "width"_a.none(), "height"_a.none(), "access_size"_a.none(),
        "Allocate `height` rows of at least `width` bytes for elements of `access_size` (4, 8 or 16) bytes. "
        "Returns (DeviceAllocation, pitch in bytes).");
    m.def(
        "_host_memoryview",
        [](nb::handle owner, int_arg<std::size_t> size, int_arg<std::size_t> offset) {
            const cuda::device_pointer p = device_pointer_arg(owner, "as_buffer()");
            return host_memoryview(owner, p.address, p.capacity, size.get("as_buffer(size)"),
                                   offset.get("as_buffer(offset)"));
        },
        "owner"_a, "size"_a.none(), "offset"_a.none());

    m.def(
        "mem_get_ipc_handle",
        [](nb::handle devptr) {
            return ipc_handle_bytes(
                cuda::get_ipc_mem_handle(device_pointer_arg(devptr, "mem_get_ipc_handle()").address));
        },
        "devptr"_a, "The bytes another process passes to IPCMemoryHandle to map this allocation.");

    nb::class_<ipc_memory_handle>(m, "IPCMemoryHandle",
                                  "Device memory of another process, mapped from mem_get_ipc_handle() bytes.")
        .def(
            "__init__",
            [](ipc_memory_handle* self, nb::bytes handle, int_arg<unsigned int> flags_arg) {
                const unsigned int flags = flags_arg.get("IPCMemoryHandle(flags)");
                const auto h =
                    ipc_handle_from_bytes<CUipcMemHandle>(handle, "IPCMemoryHandle()", "mem_get_ipc_handle()");
                new (self) ipc_memory_handle(ipc_memory_handle::open(h, flags));
            },
            "ipc_handle"_a, "flags"_a.none() = static_cast<unsigned int>(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
        .def("close", &ipc_memory_handle::close, "Unmap the memory now; closing again does nothing.")
        .def("__int__", &ipc_memory_handle::get)
        .def("__index__", &ipc_memory_handle::get);
}

}  // namespace gpukit::python
