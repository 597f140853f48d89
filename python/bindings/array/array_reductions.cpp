// gpuarray's whole-array reductions (sum, min, max, dot, any, all and the subset forms) on
// _Array objects, one crossing each: the spec of numpy's reduction (array/reduction.hpp) for
// the operand dtypes, the 0-d result and the scratch for partial results taken in one block
// from the allocator (or the pool), and the kernels run on any layout (strided views are
// read in place).
#include "array/array_reductions.hpp"

#include "array/array_object.hpp"
#include "array/array_operators.hpp"
#include "common/memory_args.hpp"

#include "gpukit/array/reduction.hpp"
#include "gpukit/core/error.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;
using array::dtype;

namespace {

// Bytes before the partial results in the result's block (the result itself sits first).
constexpr std::size_t result_bytes = 256;

using operation = array::reduction_op;

array_object& operand(nb::handle h, const std::string& name, const char* role) {
    if (!nb::isinstance<array_object>(h))
        throw nb::type_error((name + ": " + role + " must be a GPUArray, got " +
                              nb::cast<std::string>(nb::str(h.type().attr("__name__"))))
                                 .c_str());
    return settled(h);
}

// `h` itself when C-contiguous, else a C-order copy: a gathered array is indexed as memory.
nb::object c_contiguous(nb::handle h, array_object& a, cuda::stream_view stream) {
    return a.layout.is_c_contiguous() ? nb::borrow(h) : converted(a, *a.type, stream);
}

nb::object reduce_arrays(const std::string& op_name, nb::handle a_object, nb::handle b_object, nb::handle subset_object,
                         nb::handle dtype_object, nb::handle stream_object, nb::handle allocator_object) {
    const operation op = array::reduction_op_from_name(op_name);
    const std::string name = subset_object.is_none() ? op_name : "subset_" + op_name;
    array_object& a = operand(a_object, name, "the array");
    const dtype a_type = require_kernel_type(a, name.c_str());
    std::optional<dtype> b_type, index_type, out_type;
    if (!b_object.is_none()) {
        array_object& b = operand(b_object, name, "the second array");
        b_type = require_kernel_type(b, name.c_str());
        if (a.layout.shape() != b.layout.shape())
            throw nb::value_error(
                (name + ": shapes " + a.layout.describe() + " and " + b.layout.describe() + " differ").c_str());
    }
    std::int64_t count = a.layout.size();
    if (!subset_object.is_none()) {
        array_object& subset = operand(subset_object, name, "the subset");
        index_type = require_kernel_type(subset, name.c_str());
        if (array::kind(*index_type) != array::dtype_kind::signed_int &&
            array::kind(*index_type) != array::dtype_kind::unsigned_int)
            throw nb::type_error(
                (name + ": the subset must hold integers, got " + std::string(array::name(*index_type))).c_str());
        count = subset.layout.size();
        if (count > 0 && a.layout.size() == 0)
            throw nb::index_error((name + ": cannot take a non-empty subset of an empty array").c_str());
    }
    if (!dtype_object.is_none()) {
        const nb::object requested = as_numpy_dtype(dtype_object);
        out_type = kernel_type(requested);
        if (!out_type)
            throw nb::type_error(
                (name + ": dtype " + nb::cast<std::string>(nb::str(requested)) + " has no GPU kernels").c_str());
    }
    if ((op == operation::min || op == operation::max) && count == 0)
        throw nb::value_error(("zero-size array to reduction operation " + op_name + " which has no identity").c_str());
    const array::reduction_spec& spec = array::reduction_spec_for(op, name, a_type, b_type, index_type, out_type);
    const cuda::stream_view stream = stream_object.is_none() ? stream_of(a) : stream_arg(stream_object);

    // The arguments, in the spec's order; copies made here are held until the launch.
    std::vector<nb::object> held;
    std::vector<array::elementwise_arg> args;
    const std::int64_t gathered_size = a.layout.size();
    if (index_type) {
        args.emplace_back(as_ndarray(settled(subset_object)));
        for (nb::handle gathered : {a_object, b_object})
            if (!gathered.is_none()) {
                held.push_back(c_contiguous(gathered, settled(gathered), stream));
                args.emplace_back(as_ndarray(settled(held.back())));
            }
        args.emplace_back(array::scalar_value::of(gathered_size));
    } else {
        args.emplace_back(as_ndarray(a));
        if (b_type)
            args.emplace_back(as_ndarray(settled(b_object)));
    }

    const dtype result_type = *spec.output().dtype;
    reduction_result result =
        new_reduction_result(numpy_dtype(result_type), result_type,
                             allocator_object.is_none() ? nb::handle(a.allocator) : allocator_object, a.stream,
                             array::reduction_scratch_bytes(spec));
    const array::ndarray target = as_ndarray(settled(result.array));
    release_gil unlocked;
    array::reduce(spec, args, target, result.scratch, stream);
    return result.array;
}

}  // namespace

reduction_result new_reduction_result(nb::handle dtype, std::optional<array::dtype> type, nb::handle allocator,
                                      nb::handle stream, std::size_t scratch_bytes) {
    array_object result;
    result.dtype = nb::borrow(dtype);
    result.type = type;
    result.layout = gpukit::layout::contiguous({}, nb::cast<std::int64_t>(dtype.attr("itemsize")));
    result.base = nb::none();
    result.allocator = nb::borrow(allocator);
    result.stream = nb::borrow(stream);
    allocate(result, result_bytes + scratch_bytes);
    const CUdeviceptr scratch = result.address + result_bytes;
    return {wrap_array(result_class(), std::move(result)), cuda::device_pointer(scratch, scratch_bytes)};
}

nb::object new_scratch(nb::handle allocator, std::size_t scratch_bytes, cuda::device_pointer& scratch) {
    array_object block;
    block.allocator = nb::borrow(allocator);
    allocate(block, scratch_bytes);
    scratch = cuda::device_pointer(block.address, scratch_bytes);
    return block.gpudata;
}

void bind_array_reductions(nb::module_& m) {
    m.def("_reduce", &reduce_arrays, "op"_a, "a"_a, "b"_a.none(), "subset"_a.none(), "dtype"_a.none(),
          "stream"_a.none(), "allocator"_a.none(),
          "sum, min, max, dot (of a and b), any or all of a, or of a[subset], as a 0-d GPUArray of dtype (numpy's "
          "result type when None).");
    m.def(
        "_reduction_type",
        [](const std::string& op, const std::string& a, std::optional<std::string> b) {
            const array::reduction_spec& spec =
                array::reduction_spec_for(array::reduction_op_from_name(op), op, array::dtype_from_name(a),
                                          b ? std::optional<dtype>(array::dtype_from_name(*b)) : std::nullopt,
                                          std::nullopt, std::nullopt);
            return std::string(array::name(*spec.output().dtype));
        },
        "op"_a, "a"_a, "b"_a = nb::none(), "numpy's result type of a reduction, by dtype names.");
}

}  // namespace gpukit::python
