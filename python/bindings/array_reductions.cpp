// gpuarray's whole-array reductions (sum, min, max, dot) on _Array objects, one crossing
// each: the inputs made contiguous in one order if needed, the 0-d result and the scratch
// for partial results taken in one block from the array's allocator (or the pool), and the
// kernels of the generic reduction specs (array/reduction.hpp).
#include "array_object.hpp"
#include "array_operators.hpp"
#include "memory_args.hpp"

#include "gpukit/array/reduction.hpp"
#include "gpukit/core/error.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>

namespace gpukit::python {

using namespace nb::literals;
using array::dtype;

namespace {

// The spec of reduction `op` for inputs of dtypes a (and b, for dot only).
const array::reduction_spec& reduction_from(const std::string& op, dtype a, std::optional<dtype> b) {
    const bool is_dot = op == "dot";
    if (!is_dot && op != "sum" && op != "min" && op != "max")
        throw nb::value_error(("reduction must be sum, min, max or dot, got " + op).c_str());
    if (is_dot != b.has_value())
        throw logic_error(op + (is_dot ? " needs two arrays" : " takes one array"));
    if (is_dot)
        return array::dot_spec(a, *b);
    return op == "sum" ? array::sum_spec(a) : op == "min" ? array::min_spec(a) : array::max_spec(a);
}

dtype input_type(const array_object& a, const std::string& op) {
    const dtype t = require_kernel_type(a, op.c_str());
    if (array::kind(t) == array::dtype_kind::complex)
        throw nb::type_error((op + " is not supported for complex arrays (" + std::string(array::name(t)) + ")").c_str());
    return t;
}

// `h` if its elements are contiguous in `o`'s sense (C or F order), else a C-order copy.
nb::object contiguous(nb::handle h, cuda::stream_view stream, bool c_order_only) {
    array_object& a = settled(h);
    const bool ok = c_order_only ? a.layout.is_c_contiguous() : a.layout.is_contiguous();
    return ok ? nb::borrow(h) : converted(a, *a.type, stream);
}

// Bytes before the partial results in the result's block (the result itself sits first).
constexpr std::size_t result_bytes = 256;

nb::object reduce_arrays(const std::string& op, nb::handle a_object, nb::handle b_object, nb::handle stream_object) {
    if (!nb::isinstance<array_object>(a_object) || (!b_object.is_none() && !nb::isinstance<array_object>(b_object)))
        throw nb::type_error((op + ": the operands must be GPUArrays").c_str());
    array_object& a = settled(a_object);
    const dtype a_type = input_type(a, op);
    std::optional<dtype> b_type;
    if (!b_object.is_none()) {
        array_object& b = settled(b_object);
        b_type = input_type(b, op);
        if (a.layout.shape() != b.layout.shape())
            throw nb::value_error((op + ": shapes " + a.layout.describe() + " and " + b.layout.describe() + " differ")
                                      .c_str());
    }
    if ((op == "min" || op == "max") && a.layout.size() == 0)
        throw nb::value_error(("zero-size array to reduction operation " + op + " which has no identity").c_str());
    const array::reduction_spec& spec = reduction_from(op, a_type, b_type);
    const cuda::stream_view stream = stream_object.is_none() ? stream_of(a) : stream_arg(stream_object);

    // Element i in memory must be element i of both operands of a dot: C order for both
    // unless both are in the same order.
    nb::object in_a = contiguous(a_object, stream, false), in_b;
    if (b_type) {
        in_b = contiguous(b_object, stream, false);
        const array_object &x = settled(in_a), &y = settled(in_b);
        const bool same_order = (x.layout.is_c_contiguous() && y.layout.is_c_contiguous()) ||
                                (x.layout.is_f_contiguous() && y.layout.is_f_contiguous());
        if (!same_order) {
            in_a = contiguous(in_a, stream, true);
            in_b = contiguous(in_b, stream, true);
        }
    }

    // One block holds the 0-d result and, after it, the partial results.
    const std::size_t scratch = array::reduction_scratch_bytes();
    array_object result;
    result.layout = gpukit::layout::contiguous({}, static_cast<std::int64_t>(array::size_of(spec.output())));
    result.dtype = nb::borrow(numpy_dtype(spec.output()));
    result.type = spec.output();
    result.base = nb::none();
    result.allocator = a.allocator;
    result.stream = a.stream;
    allocate(result, result_bytes + scratch);
    nb::object out = wrap_array(result_class(), std::move(result));
    array_object& r = settled(out);

    const array::ndarray x = as_ndarray(settled(in_a)), target = as_ndarray(r);
    const std::optional<array::ndarray> y =
        b_type ? std::optional<array::ndarray>(as_ndarray(settled(in_b))) : std::nullopt;
    release_gil unlocked;
    array::reduce(spec, x, y ? &*y : nullptr, target, cuda::device_pointer(r.address + result_bytes, scratch), stream);
    return out;
}

}  // namespace

void bind_array_reductions(nb::module_& m) {
    m.def("_reduce_arrays", &reduce_arrays, "op"_a, "a"_a, "b"_a.none(), "stream"_a.none(),
          "sum, min or max of a (dot of a and b) as a 0-d GPUArray.");
    m.def("_reduction_type", [](const std::string& op, const std::string& a, std::optional<std::string> b) {
        const array::reduction_spec& spec = reduction_from(
            op, array::dtype_from_name(a), b ? std::optional<dtype>(array::dtype_from_name(*b)) : std::nullopt);
        return std::string(array::name(spec.output()));
    }, "op"_a, "a"_a, "b"_a = nb::none(), "numpy's result type of a reduction, by dtype names.");
}

}  // namespace gpukit::python
