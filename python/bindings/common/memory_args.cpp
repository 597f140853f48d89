#include "common/memory_args.hpp"
#include "common/object_text.hpp"

#include "common/int_args.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/default_pool.hpp"
#include "gpukit/cuda/ipc_memory.hpp"
#include "gpukit/cuda/managed_memory.hpp"

#include <nanobind/stl/string.h>

#include <cstring>
#include <limits>
#include <string>

namespace gpukit::python {
namespace {

// The item `key` of the interface dict, or a TypeError saying it is missing.
nb::handle interface_item(nb::handle iface, const char* key, const std::string& where) {
    PyObject* item = PyDict_GetItemString(iface.ptr(), key);
    if (item == nullptr)
        throw nb::type_error((where + " has no '" + key + "'").c_str());
    return item;
}

// A sequence of integers of the interface (shape, strides), each as T.
template <class T>
std::vector<T> interface_integers(nb::handle value, const std::string& where) {
    if (!PyTuple_Check(value.ptr()) && !PyList_Check(value.ptr()))
        throw nb::type_error((where + " must be a tuple of integers, got " + type_name_of(value)).c_str());
    std::vector<T> result;
    for (nb::handle item : value) {
        const std::optional<T> v =
            PyIndex_Check(item.ptr()) ? int_value<T>(index_arg(item, where.c_str())) : std::nullopt;
        if (!v)
            throw nb::value_error((where + " holds " + nb::repr(item).c_str() + ", which is not an integer from " +
                                   std::to_string(std::numeric_limits<T>::min()) + " to " +
                                   std::to_string(std::numeric_limits<T>::max()))
                                      .c_str());
        result.push_back(*v);
    }
    return result;
}

}  // namespace

bool index_address(nb::handle obj, const char* what, CUdeviceptr& address) {
    if (!PyIndex_Check(obj.ptr()) || PyBool_Check(obj.ptr()))
        return false;
    nb::object index = nb::steal(PyNumber_Index(obj.ptr()));
    if (!index.is_valid()) {  // e.g. a numpy array: has the slot, but is no scalar
        PyErr_Clear();
        return false;
    }
    const unsigned long long value = PyLong_AsUnsignedLongLong(index.ptr());
    if (PyErr_Occurred()) {
        PyErr_Clear();
        throw logic_error(std::string(what) + ": the address " + nb::str(index).c_str() +
                          " is negative or too large; a device address is an unsigned 64-bit integer");
    }
    address = static_cast<CUdeviceptr>(value);
    return true;
}

std::size_t cuda_array_interface::elements() const {
    std::size_t n = 1;
    for (std::size_t extent : shape)
        n *= extent;
    return n;
}

std::optional<std::size_t> cuda_array_interface::contiguous_bytes() const {
    if (strides)
        return std::nullopt;
    return elements() * itemsize;
}

std::optional<cuda_array_interface> cuda_array_interface_of(nb::handle obj, const std::string& what) {
    if (!nb::hasattr(obj, "__cuda_array_interface__"))
        return std::nullopt;
    const std::string where = what + ": __cuda_array_interface__ of " + type_name_of(obj);
    nb::object iface = obj.attr("__cuda_array_interface__");
    if (!PyDict_Check(iface.ptr()))
        throw nb::type_error((where + " must be a dict, got " + type_name_of(iface)).c_str());
    cuda_array_interface result;

    nb::handle data = interface_item(iface, "data", where);
    const bool pair = (PyTuple_Check(data.ptr()) || PyList_Check(data.ptr())) && nb::len(data) >= 1;
    if (!pair || !index_address(data[0], (where + "['data'][0]").c_str(), result.address))
        throw nb::type_error((where + "['data'] must be an (address, read_only) tuple with an integer address, got " +
                              nb::repr(data).c_str())
                                 .c_str());

    nb::handle typestr = interface_item(iface, "typestr", where);
    const char* text = PyUnicode_Check(typestr.ptr()) ? PyUnicode_AsUTF8(typestr.ptr()) : nullptr;
    if (text == nullptr)
        PyErr_Clear();
    result.typestr = text ? text : "";
    const std::size_t size_digits = result.typestr.size() > 2 ? result.typestr.size() - 2 : 0;
    const bool digits =
        size_digits > 0 && size_digits < 5 && result.typestr.find_first_not_of("0123456789", 2) == std::string::npos;
    if (!digits || std::strchr("<>|=", result.typestr[0]) == nullptr)
        throw nb::type_error(
            (where + "['typestr'] must be a numpy type string such as '<f4', got " + nb::repr(typestr).c_str())
                .c_str());
    for (char digit : result.typestr.substr(2))
        result.itemsize = result.itemsize * 10 + static_cast<std::size_t>(digit - '0');

    result.shape = interface_integers<std::size_t>(interface_item(iface, "shape", where), where + "['shape']");
    std::size_t bytes = result.itemsize;
    for (std::size_t extent : result.shape)
        if (extent != 0 && __builtin_mul_overflow(bytes, extent, &bytes))
            throw nb::value_error((where + "['shape'] describes more bytes than the address space holds").c_str());

    PyObject* strides = PyDict_GetItemString(iface.ptr(), "strides");
    if (strides != nullptr && strides != Py_None) {
        result.strides = interface_integers<std::int64_t>(strides, where + "['strides']");
        if (result.strides->size() != result.shape.size())
            throw nb::value_error((where + ": 'strides' and 'shape' differ in length").c_str());
    }
    PyObject* mask = PyDict_GetItemString(iface.ptr(), "mask");
    result.masked = mask != nullptr && mask != Py_None;
    return result;
}

cuda::device_pointer device_pointer_arg(nb::handle obj, const char* what) {
    if (nb::isinstance<cuda::device_allocation>(obj))
        return cuda::device_pointer(nb::cast<const cuda::device_allocation&>(obj));
    if (nb::isinstance<cuda::managed_allocation>(obj)) {
        const auto& managed = nb::cast<const cuda::managed_allocation&>(obj);
        return {managed.device_pointer(), managed.size()};
    }
    if (nb::isinstance<cuda::ipc_memory_handle>(obj))
        return nb::cast<const cuda::ipc_memory_handle&>(obj).get();
    if (nb::isinstance<cuda::pooled_device_memory>(obj)) {
        const auto& block = nb::cast<const cuda::pooled_device_memory&>(obj).block;
        if (!block)
            throw logic_error(std::string(what) + ": the PooledDeviceAllocation was freed and can no longer be used");
        return {block.pointer(), block.size()};
    }
    if (const auto iface = cuda_array_interface_of(obj, what))
        return {iface->address, iface->contiguous_bytes()};
    if (nb::hasattr(obj, "get_pointer")) {
        CUdeviceptr address = 0;
        if (!index_address(obj.attr("get_pointer")(), what, address))
            throw nb::type_error(
                (std::string(what) + ": " + type_name_of(obj) + ".get_pointer() must return an integer address")
                    .c_str());
        return address;
    }
    CUdeviceptr address = 0;
    if (index_address(obj, what, address))
        return address;
    throw nb::type_error((std::string(what) +
                          ": expected a device pointer (DeviceAllocation, ManagedAllocation, "
                          "IPCMemoryHandle, an object with __cuda_array_interface__ or get_pointer(), or an "
                          "integer address), got " +
                          type_name_of(obj))
                             .c_str());
}

namespace {

// A stream of another context fails only at its first use, as "invalid resource handle";
// say why instead. The default streams (0, 1, 2) belong to every context; without a
// current context the operation itself says that it needs one.
void require_current_context(cuda::stream_view stream, const std::string& where) {
    CUcontext current = nullptr;
    if (reinterpret_cast<std::uintptr_t>(stream.handle()) <= 2 || !cuda::driver_available() ||
        cuda::api().cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current || stream.context() == current)
        return;
    throw logic_error(where +
                      ": the stream belongs to another CUDA context than the current one. CuPy, PyTorch "
                      "and numba make their streams in the device's primary context: make it current "
                      "first (import gpukit.autoprimaryctx, or Device.retain_primary_context().push())");
}

// The CUstream of an object following CUDA Python's stream protocol: __cuda_stream__()
// returns (version, handle), version 0, handle the CUstream as an integer (0, 1 and 2 are
// the legacy default and per-thread streams, as in the driver).
cuda::stream_view foreign_stream(nb::handle s) {
    const std::string where = "stream: " + type_name_of(s) + ".__cuda_stream__()";
    nb::object answer = s.attr("__cuda_stream__")();
    if (!nb::isinstance<nb::tuple>(answer) || nb::len(answer) != 2)
        throw nb::type_error((where + " must return a (version, handle) tuple, got " + type_name_of(answer)).c_str());
    nb::handle version = answer[0], handle = answer[1];
    if (!nb::isinstance<nb::int_>(version) || nb::cast<long long>(version) != 0)
        throw nb::value_error((where + " returned version " + nb::cast<std::string>(nb::repr(version)) +
                               "; gpukit knows version 0 of the protocol")
                                  .c_str());
    const auto address = integer_arg<std::uintptr_t>(handle, (where + " handle").c_str());
    const cuda::stream_view stream(reinterpret_cast<CUstream>(address));
    require_current_context(stream, where);
    return stream;
}

}  // namespace

cuda::stream_view stream_arg(nb::handle s) {
    if (s.is_none())
        return {};
    if (nb::isinstance<cuda::stream>(s))
        return nb::cast<const cuda::stream&>(s).view();
    if (nb::hasattr(s, "__cuda_stream__"))
        return foreign_stream(s);
    throw nb::type_error(("stream must be a gpukit.driver.Stream, an object with __cuda_stream__ (CUDA Python's "
                          "stream protocol) or None, got " +
                          type_name_of(s))
                             .c_str());
}

std::uint64_t unsigned_arg(nb::handle value, int bits, const char* what) {
    const std::uint64_t limit = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    unsigned long long number = 0;
    bool ok = PyIndex_Check(value.ptr()) && !PyBool_Check(value.ptr());
    if (ok) {
        nb::object index = nb::steal(PyNumber_Index(value.ptr()));
        number = index.is_valid() ? PyLong_AsUnsignedLongLong(index.ptr()) : 0;
        ok = !PyErr_Occurred() && number <= limit;
        PyErr_Clear();
    }
    if (!ok)
        throw logic_error(std::string(what) + ": the fill value " + nb::cast<std::string>(nb::repr(value)) +
                          " is not an integer from 0 to " + std::to_string(limit));
    return number;
}

namespace {

// Whether a struct-module format (null: bytes) has the code 'O', a Python object reference,
// alone or as a field of a record ("T{O:a:i:b:}"); field names, between colons, are skipped.
bool format_holds_objects(const char* format) noexcept {
    for (const char* c = format; c && *c; ++c) {
        if (*c == ':') {
            c = std::strchr(c + 1, ':');
            if (!c)
                return false;
        } else if (*c == 'O') {
            return true;
        }
    }
    return false;
}

}  // namespace

bool get_plain_buffer(nb::handle obj, Py_buffer& view, int flags, const char* what) {
    // With the shape: a memoryview gives its format only with it (PyBUF_ND asks for the same
    // C-contiguous bytes as PyBUF_SIMPLE).
    if (PyObject_GetBuffer(obj.ptr(), &view, flags | PyBUF_ND | PyBUF_FORMAT) != 0) {
        PyErr_Clear();
        return PyObject_GetBuffer(obj.ptr(), &view, flags & ~PyBUF_FORMAT) == 0;
    }
    if (!format_holds_objects(view.format))
        return true;
    const std::string format = view.format;
    PyBuffer_Release(&view);
    const std::string described = nb::hasattr(obj, "dtype")
                                      ? "of dtype " + nb::cast<std::string>(nb::str(nb::handle(obj.attr("dtype"))))
                                      : "of format '" + format + "'";
    throw nb::type_error((std::string(what) + ": the " + type_name_of(obj) + " " + described +
                          " holds Python objects, whose bytes are addresses in this process, not data a device "
                          "may read or write; expected memory of a numeric or other plain-data dtype")
                             .c_str());
}

void require_plain_dtype(nb::handle value, const std::string& what) {
    const nb::object dtype = value.attr("dtype");
    if (nb::cast<bool>(dtype.attr("hasobject")))
        throw nb::type_error((what + " of dtype " + nb::cast<std::string>(nb::str(dtype)) +
                              " holds Python objects, not plain data, so it cannot be passed to a kernel by value")
                                 .c_str());
}

host_buffer::host_buffer(nb::handle obj, bool writable, const char* what) {
    if (!PyObject_CheckBuffer(obj.ptr()))
        throw nb::type_error((std::string(what) +
                              ": expected a host buffer (numpy array, bytes, bytearray, "
                              "memoryview), got " +
                              type_name_of(obj))
                                 .c_str());
    if (get_plain_buffer(obj, view_, PyBUF_ANY_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0), what))
        return;
    PyErr_Clear();
    // Ask again for any layout, only to say precisely what was wrong.
    Py_buffer probe{};
    if (PyObject_GetBuffer(obj.ptr(), &probe, PyBUF_RECORDS_RO) != 0) {
        PyErr_Clear();
        throw logic_error(std::string(what) + ": the " + type_name_of(obj) + " does not expose its memory");
    }
    const bool contiguous = PyBuffer_IsContiguous(&probe, 'A');
    const bool readonly = probe.readonly;
    PyBuffer_Release(&probe);
    if (!contiguous)
        throw logic_error(std::string(what) + ": the " + type_name_of(obj) +
                          " is not contiguous; copy it with numpy.ascontiguousarray() first");
    if (writable && readonly)
        throw logic_error(std::string(what) + ": the " + type_name_of(obj) +
                          " is read-only and cannot receive data; pass a writable buffer");
    throw logic_error(std::string(what) + ": the " + type_name_of(obj) + " refused to expose its memory");
}

}  // namespace gpukit::python
