// gpukit._gpukit DLPack capsules: export of device memory as a "dltensor" capsule and import
// of "dltensor" / "dltensor_versioned" capsules from other libraries. The structs follow
// the DLPack ABI (dlpack.h, v0.8 unversioned and v1.0 versioned); Python decides dtypes,
// devices and streams, this file only moves the fields and keeps owners alive.
#include "bindings.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

struct dl_device {
    std::int32_t device_type;
    std::int32_t device_id;
};

struct dl_data_type {
    std::uint8_t code;
    std::uint8_t bits;
    std::uint16_t lanes;
};

struct dl_tensor {
    void* data;
    dl_device device;
    std::int32_t ndim;
    dl_data_type dtype;
    std::int64_t* shape;
    std::int64_t* strides;  // in elements; null means C-contiguous
    std::uint64_t byte_offset;
};

struct dl_managed_tensor {
    dl_tensor tensor;
    void* manager_ctx;
    void (*deleter)(dl_managed_tensor*);
};

struct dl_pack_version {
    std::uint32_t major;
    std::uint32_t minor;
};

struct dl_managed_tensor_versioned {
    dl_pack_version version;
    void* manager_ctx;
    void (*deleter)(dl_managed_tensor_versioned*);
    std::uint64_t flags;
    dl_tensor tensor;
};

constexpr std::uint64_t read_only_flag = 1;

// What an exported tensor points into: its shape and strides, and the Python object that
// owns the memory, released when the consumer calls the deleter.
struct export_context {
    dl_managed_tensor managed{};
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;
    PyObject* owner;
};

void delete_export(dl_managed_tensor* managed) {
    auto* context = static_cast<export_context*>(managed->manager_ctx);
    // Consumers may call the deleter from any thread, with or without the GIL.
    nb::gil_scoped_acquire gil;
    Py_DECREF(context->owner);
    delete context;
}

// A capsule nobody consumed still owns its tensor; a consumed one was renamed
// "used_dltensor" and belongs to the consumer.
void capsule_destructor(PyObject* capsule) {
    if (!PyCapsule_IsValid(capsule, "dltensor"))
        return;
    auto* managed = static_cast<dl_managed_tensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    managed->deleter(managed);
}

nb::object export_dlpack(std::uint64_t address, const std::vector<std::int64_t>& shape,
                         const std::vector<std::int64_t>& element_strides, std::uint8_t code, std::uint8_t bits,
                         std::int32_t device_type, std::int32_t device_id, nb::handle owner) {
    auto* context = new export_context{{}, shape, element_strides, owner.ptr()};
    Py_INCREF(context->owner);
    dl_tensor& t = context->managed.tensor;
    t.data = reinterpret_cast<void*>(address);
    t.device = {device_type, device_id};
    t.ndim = static_cast<std::int32_t>(shape.size());
    t.dtype = {code, bits, 1};
    t.shape = context->shape.data();
    t.strides = context->strides.data();
    t.byte_offset = 0;
    context->managed.manager_ctx = context;
    context->managed.deleter = delete_export;
    PyObject* capsule = PyCapsule_New(&context->managed, "dltensor", capsule_destructor);
    if (capsule == nullptr) {
        delete_export(&context->managed);
        throw nb::python_error();
    }
    return nb::steal(capsule);
}

// Keeps an imported tensor alive; its deleter runs when the last array over it goes.
class imported_tensor {
public:
    imported_tensor(dl_managed_tensor* legacy, dl_managed_tensor_versioned* versioned)
        : legacy_(legacy), versioned_(versioned) {}
    imported_tensor(const imported_tensor&) = delete;
    imported_tensor& operator=(const imported_tensor&) = delete;
    ~imported_tensor() {
        if (legacy_ != nullptr && legacy_->deleter != nullptr)
            legacy_->deleter(legacy_);
        if (versioned_ != nullptr && versioned_->deleter != nullptr)
            versioned_->deleter(versioned_);
    }

private:
    dl_managed_tensor* legacy_;
    dl_managed_tensor_versioned* versioned_;
};

// (address of element 0, shape, strides in elements or None, (code, bits, lanes),
// (device type, device id), owner)
using import_result = std::tuple<std::uint64_t, std::vector<std::int64_t>, std::optional<std::vector<std::int64_t>>,
                                 std::tuple<int, int, int>, std::tuple<int, int>, nb::object>;

import_result import_dlpack(nb::handle capsule) {
    PyObject* c = capsule.ptr();
    dl_managed_tensor* legacy = nullptr;
    dl_managed_tensor_versioned* versioned = nullptr;
    const dl_tensor* t = nullptr;
    if (PyCapsule_IsValid(c, "dltensor_versioned")) {
        versioned = static_cast<dl_managed_tensor_versioned*>(PyCapsule_GetPointer(c, "dltensor_versioned"));
        if (versioned->version.major != 1)
            throw nb::buffer_error(("DLPack version " + std::to_string(versioned->version.major) +
                                    " is not supported (gpukit reads 1.x and unversioned capsules)").c_str());
        if (versioned->flags & read_only_flag)
            throw nb::buffer_error("the DLPack tensor is read-only; gpukit arrays are always writable");
        t = &versioned->tensor;
    } else if (PyCapsule_IsValid(c, "dltensor")) {
        legacy = static_cast<dl_managed_tensor*>(PyCapsule_GetPointer(c, "dltensor"));
        t = &legacy->tensor;
    } else {
        throw nb::type_error("expected an unconsumed DLPack capsule ('dltensor' or 'dltensor_versioned')");
    }
    std::vector<std::int64_t> shape(t->shape, t->shape + t->ndim);
    std::optional<std::vector<std::int64_t>> strides;
    if (t->strides != nullptr && t->ndim > 0)
        strides.emplace(t->strides, t->strides + t->ndim);
    const std::uint64_t address = reinterpret_cast<std::uint64_t>(t->data) + t->byte_offset;
    const std::tuple<int, int, int> type{t->dtype.code, t->dtype.bits, t->dtype.lanes};
    const std::tuple<int, int> device{t->device.device_type, t->device.device_id};
    // From here the tensor is ours: renaming the capsule tells its destructor so.
    PyCapsule_SetName(c, versioned != nullptr ? "used_dltensor_versioned" : "used_dltensor");
    nb::object owner = nb::cast(new imported_tensor(legacy, versioned), nb::rv_policy::take_ownership);
    return {address, std::move(shape), std::move(strides), type, device, std::move(owner)};
}

}  // namespace

void bind_dlpack(nb::module_& m) {
    nb::class_<imported_tensor>(m, "_DLPackTensor", "Owns a tensor imported through DLPack.");
    m.def("_dlpack_export", &export_dlpack, "address"_a, "shape"_a, "strides"_a, "code"_a, "bits"_a,
          "device_type"_a, "device_id"_a, "owner"_a,
          "A 'dltensor' capsule over device memory; `owner` stays alive until the consumer is done.");
    m.def("_dlpack_import", &import_dlpack, "capsule"_a,
          "(address, shape, element strides or None, (code, bits, lanes), (device type, id), owner) of a "
          "DLPack capsule, which is consumed; the owner keeps the tensor alive.");
}

}  // namespace gpukit::python
