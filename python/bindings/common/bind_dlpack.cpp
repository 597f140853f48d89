// gpukit._gpukit DLPack exchange through nanobind's ndarray, which speaks DLPack 1.0
// (versioned capsules with their read-only flag) and the unversioned form. Export wraps device
// memory in a nanobind.nb_ndarray whose __dlpack__ makes the capsule the consumer asks for;
// import consumes another library's capsule. Python decides dtypes, devices and streams
// (python/gpukit/_dlpack.py); this file only moves the fields and keeps owners alive.
#include "common/bindings.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

// A nanobind.nb_ndarray (the array_api framework) over `address` (element strides), whose
// capsules keep `owner` alive until their consumer is done with them.
nb::object export_dlpack(std::uint64_t address, const std::vector<std::int64_t>& shape,
                         const std::vector<std::int64_t>& element_strides, std::uint8_t code, std::uint8_t bits,
                         std::int32_t device_type, std::int32_t device_id, nb::handle owner) {
    if (element_strides.size() != shape.size())
        throw nb::value_error("_dlpack_export: shape and strides differ in length");
    const std::vector<std::size_t> extents(shape.begin(), shape.end());
    const nb::ndarray<nb::array_api> tensor(reinterpret_cast<void*>(address), extents.size(), extents.data(), owner,
                                            element_strides.data(), nb::dlpack::dtype{code, bits, 1}, device_type,
                                            device_id);
    return nb::cast(tensor);
}

// Holds an imported tensor: the producer's deleter runs when the last array over it goes.
struct imported_tensor {
    nb::ndarray<> tensor;
};

// (address of element 0, shape, element strides, (code, bits, lanes), (device type, id), owner)
using import_result = std::tuple<std::uint64_t, std::vector<std::int64_t>, std::vector<std::int64_t>,
                                 std::tuple<int, int, int>, std::tuple<int, int>, nb::object>;

// Consumes a "dltensor" or "dltensor_versioned" capsule; the owner is an imported_tensor.
import_result import_dlpack(nb::handle capsule) {
    if (!PyCapsule_CheckExact(capsule.ptr()))
        throw nb::type_error("expected a DLPack capsule");
    nb::ndarray<> tensor;
    if (!nb::try_cast(capsule, tensor)) {
        // Read-only tensors are refused by the writable cast; taken read-only, the refusal
        // can say why (the tensor is released again when `read_only` goes).
        nb::ndarray<nb::ro> read_only;
        if (nb::try_cast(capsule, read_only))
            throw nb::buffer_error("the DLPack tensor is read-only; gpukit arrays are always writable");
        throw nb::type_error("expected an unconsumed DLPack capsule ('dltensor' or 'dltensor_versioned')");
    }
    const std::size_t ndim = tensor.ndim();
    std::vector<std::int64_t> shape(tensor.shape_ptr(), tensor.shape_ptr() + ndim);
    std::vector<std::int64_t> strides(tensor.stride_ptr(), tensor.stride_ptr() + ndim);
    const nb::dlpack::dtype type = tensor.dtype();
    return {reinterpret_cast<std::uint64_t>(tensor.data()),
            std::move(shape),
            std::move(strides),
            {type.code, type.bits, type.lanes},
            {tensor.device_type(), tensor.device_id()},
            nb::cast(imported_tensor{tensor})};
}

}  // namespace

void bind_dlpack(nb::module_& m) {
    nb::class_<imported_tensor>(m, "_DLPackTensor", "Owns a tensor imported through DLPack.");
    m.def("_dlpack_export", &export_dlpack, "address"_a, "shape"_a, "strides"_a, "code"_a, "bits"_a, "device_type"_a,
          "device_id"_a, "owner"_a,
          "A nanobind.nb_ndarray over device memory: its __dlpack__(max_version=...) gives a versioned or an "
          "unversioned capsule; `owner` stays alive until every consumer is done.");
    m.def("_dlpack_import", &import_dlpack, "capsule"_a,
          "(address, shape, element strides, (code, bits, lanes), (device type, id), owner) of a DLPack capsule, "
          "which is consumed; the owner keeps the tensor alive.");
}

}  // namespace gpukit::python
