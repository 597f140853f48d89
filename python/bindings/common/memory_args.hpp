// Argument conversions shared by the memory bindings: device pointers, host buffers,
// streams, unsigned fill values, IPC handles, and the buffer protocol for host-addressable
// allocations.
#pragma once

#include "common/argument_errors.hpp"
#include "common/bindings.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace gpukit::python {

// The one converter for "device pointer" arguments. Accepts a DeviceAllocation,
// ManagedAllocation or IPCMemoryHandle (capacity known), an object with
// __cuda_array_interface__ (data[0]; capacity known when it is contiguous), an object with
// get_pointer() (PointerHolderBase), or an integer address. `what` names the argument in
// errors, like "memcpy_htod(dest)".
cuda::device_pointer device_pointer_arg(nb::handle obj, const char* what);

// An integer address from anything implementing __index__ (not a bool): true and `address`
// set; false when obj is no integer; LogicError naming `what` when it is negative or beyond
// 64 bits.
bool index_address(nb::handle obj, const char* what, CUdeviceptr& address);

// What an object's __cuda_array_interface__ says, checked as it is read: a malformed one (not
// a dict, no integer data[0], a typestr that is no numpy type string, a shape of other than
// non-negative integers) is a TypeError or ValueError naming `what` and the object's class,
// never a crash or a C++ cast error. The one reader of the protocol in the bindings.
struct cuda_array_interface {
    CUdeviceptr address = 0;
    std::string typestr;  // "<f4": byte order, kind, item size
    std::size_t itemsize = 0;
    std::vector<std::size_t> shape;
    std::optional<std::vector<std::int64_t>> strides;  // absent or None: C-contiguous
    bool masked = false;

    std::size_t elements() const;
    // The bytes of a C-contiguous array (strides None); nullopt for a strided one.
    std::optional<std::size_t> contiguous_bytes() const;
};

// obj's __cuda_array_interface__; nullopt when it has none.
std::optional<cuda_array_interface> cuda_array_interface_of(nb::handle obj, const std::string& what);

// None -> the default stream, a gpukit.driver.Stream, or any object with __cuda_stream__
// (CUDA Python's stream protocol: cuda.core, CuPy, PyTorch streams), whose handle is used as
// it is: the caller keeps that stream alive while its work runs.
cuda::stream_view stream_arg(nb::handle s);

// An integer that must fit in `bits` unsigned bits (memset values).
std::uint64_t unsigned_arg(nb::handle value, int bits, const char* what);

// An IPC handle (CUipcMemHandle, CUipcEventHandle) as the bytes one process gives another.
template <class Handle>
nb::bytes ipc_handle_bytes(const Handle& handle) {
    return nb::bytes(handle.reserved, sizeof handle.reserved);
}

// The IPC handle in `bytes`; a LogicError for bytes of another length names the call `what`
// and `source`, the function that gives such bytes.
template <class Handle>
Handle ipc_handle_from_bytes(nb::bytes bytes, const char* what, const char* source) {
    Handle handle{};
    if (bytes.size() != sizeof handle.reserved)
        throw logic_error(std::string(what) + ": expected the " + std::to_string(sizeof handle.reserved) +
                          "-byte handle from " + source + ", got " + std::to_string(bytes.size()) + " bytes");
    std::memcpy(handle.reserved, bytes.c_str(), sizeof handle.reserved);
    return handle;
}

// PyObject_GetBuffer(obj, &view, flags) for memory a device reads or writes, refusing memory
// that holds Python object references (numpy's dtype object, records with object fields,
// ctypes.py_object: format 'O'), whose bytes are addresses in this process, with a TypeError
// naming `what`. False, with the exporter's Python error set, when it refuses `flags`.
// (Exporters that cannot describe their format, as numpy's datetime64, hold no objects: their
// bytes are taken without it.)
bool get_plain_buffer(nb::handle obj, Py_buffer& view, int flags, const char* what);

// TypeError, "<what> of dtype <dtype> holds Python objects ...", when the numpy array or
// scalar `value` is of a dtype holding Python object references (object fields, StringDType,
// which exports no buffer to tell it): a kernel's by-value argument cannot be such bytes.
void require_plain_dtype(nb::handle value, const std::string& what);

// A contiguous view of a Python buffer, held for the object's lifetime. Errors say whether
// the object is not a buffer or holds Python objects (TypeError), not contiguous, or read-only
// when `writable`.
class host_buffer {
public:
    host_buffer(nb::handle obj, bool writable, const char* what);
    ~host_buffer() { PyBuffer_Release(&view_); }
    host_buffer(const host_buffer&) = delete;
    host_buffer& operator=(const host_buffer&) = delete;
    void* data() const noexcept { return view_.buf; }
    std::size_t size() const noexcept { return static_cast<std::size_t>(view_.len); }

private:
    Py_buffer view_{};
};

// Type slots giving a bound class T (with data() and size()) the buffer protocol: one
// writable byte range, so numpy.ndarray(..., buffer=allocation) works and the array's .base
// is the allocation itself.
template <class T>
int host_memory_getbuffer(PyObject* self, Py_buffer* view, int flags) {
    if (refuse_uninitialised_buffer(self, view))
        return -1;
    try {
        const T& memory = *nb::inst_ptr<T>(self);
        return PyBuffer_FillInfo(view, self, memory.data(), static_cast<Py_ssize_t>(memory.size()), 0, flags);
    } catch (const std::exception& e) {
        view->obj = nullptr;
        PyErr_SetString(PyExc_BufferError, e.what());
        return -1;
    }
}

template <class T>
PyType_Slot host_memory_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(&host_memory_getbuffer<T>)}, {0, nullptr}};

}  // namespace gpukit::python
