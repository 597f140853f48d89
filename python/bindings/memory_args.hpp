// Argument conversions shared by the memory bindings: device pointers, host buffers,
// streams, unsigned fill values, IPC handles, and the buffer protocol for host-addressable
// allocations.
#pragma once

#include "argument_errors.hpp"
#include "bindings.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace gpukit::python {

// The one converter for "device pointer" arguments. Accepts a DeviceAllocation,
// ManagedAllocation or IPCMemoryHandle (capacity known), an object with
// __cuda_array_interface__ (data[0]; capacity known when it is contiguous), an object with
// get_pointer() (PointerHolderBase), or an integer address. `what` names the argument in
// errors, like "memcpy_htod(dest)".
cuda::device_pointer device_pointer_arg(nb::handle obj, const char* what);

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

// A contiguous view of a Python buffer, held for the object's lifetime. Errors say whether
// the object is not a buffer (TypeError), not contiguous, or read-only when `writable`.
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
PyType_Slot host_memory_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(&host_memory_getbuffer<T>)},
                                   {0, nullptr}};

}  // namespace gpukit::python
