// gpukit.cumath's functions (PyCUDA's pycuda.cumath), one crossing each: the kernel spec of
// the function and operand types (array/math_functions.hpp), the results from the input's
// allocator or the context's pool (or the caller's `out`), and the launch with the GIL
// released.
#include "array/array_object.hpp"
#include "array/array_operators.hpp"
#include "common/memory_args.hpp"

#include "gpukit/array/math_functions.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;
using array::math_function;

namespace {

std::string what(math_function f, const char* argument) {
    return "cumath." + std::string(array::name(f)) + "(" + argument + ")";
}

// The array argument `h`: an _Array with kernels (TypeError otherwise), computed if pending.
array_object& operand(nb::handle h, math_function f, const char* argument) {
    if (!nb::isinstance<array_object>(h))
        throw nb::type_error((what(f, argument) + ": expected a GPUArray, got " + Py_TYPE(h.ptr())->tp_name).c_str());
    array_object& a = settled(h);
    if (!a.type)  // the message is made only when it is raised: this runs on every call
        require_kernel_type(a, what(f, argument).c_str());
    return a;
}

// The order of new results: Fortran when every input is Fortran-contiguous only, as numpy
// keeps it (the kernels then run in memory order).
order result_order(const array_object& x, const array_object* y) {
    const auto fortran = [](const array_object& a) {
        return a.layout.is_f_contiguous() && !a.layout.is_c_contiguous();
    };
    return fortran(x) && (!y || fortran(*y)) ? order::f : order::c;
}

// `out` checked against the result: its dtype must be the result's, its shape the inputs'.
array_object& checked_out(nb::handle out, math_function f, array::dtype type, const std::vector<std::int64_t>& shape) {
    array_object& o = operand(out, f, "out=");
    if (*o.type != type)
        throw nb::type_error((what(f, "out=") + ": out's dtype " + std::string(array::name(*o.type)) +
                              " differs from the result's " + std::string(array::name(type)))
                                 .c_str());
    if (o.layout.shape() != shape)
        throw nb::value_error((what(f, "out=") + ": out's shape " + o.layout.describe() +
                               " differs from the result's " + gpukit::layout::contiguous(shape, 1).describe())
                                  .c_str());
    return o;
}

// An input as the kernel reads it: broadcast to `shape`, copied first when it overlaps one
// of the outputs in another order (`copies` keeps such copies alive through the launch).
array::ndarray input_of(nb::handle h, const std::vector<std::int64_t>& shape, const std::vector<nb::object>& outputs,
                        cuda::stream_view stream, std::vector<nb::object>& copies) {
    array_object* a = &settled(h);
    for (const nb::object& out : outputs)
        if (overlaps_differently(*a, settled(out))) {
            copies.push_back(converted(*a, *a->type, stream));
            a = &settled(copies.back());
            break;
        }
    return as_ndarray(*a, shape);
}

// f(x[, y]) into new arrays, or into `out` (functions of one result only). Returns the
// result, or for frexp and modf a tuple of both.
nb::object cumath(math_function f, nb::handle x, nb::handle y, nb::handle out, nb::handle stream_object) {
    const bool two_inputs = array::input_count(f) == 2;
    array_object& a = operand(x, f, two_inputs ? "x, y" : "x");
    array_object* b = two_inputs ? &operand(y, f, "x, y") : nullptr;
    if (!two_inputs && !y.is_none())
        throw nb::type_error((what(f, "x") + " takes one array").c_str());
    if (!out.is_none() && array::output_count(f) != 1)
        throw nb::type_error((what(f, "x") + " takes no out=").c_str());
    const array::elementwise_spec& spec = array::math_spec(f, *a.type, b ? b->type : std::nullopt);
    const cuda::stream_view stream = stream_object.is_none() ? stream_of(a) : stream_arg(stream_object);
    const std::vector<std::int64_t> shape =
        b ? broadcast_shapes(a.layout.shape(), b->layout.shape()) : a.layout.shape();

    std::vector<nb::object> outputs;
    for (const array::param& p : spec.params()) {
        if (p.kind != array::param_kind::output)
            continue;
        if (!out.is_none()) {
            checked_out(out, f, p.type, shape);
            outputs.push_back(nb::borrow(out));
        } else if (!two_inputs && array::output_count(f) == 1) {
            // PyCUDA asks the array for the result of a function of one array (a subclass
            // makes its own); fmod, ldexp, frexp and modf make plain arrays.
            outputs.push_back(new_result(x, shape, p.type, result_order(a, b)));
        } else {
            outputs.push_back(new_array(shape, p.type, a, result_order(a, b)));
        }
    }

    std::vector<nb::object> copies;
    std::vector<array::elementwise_arg> args;
    args.push_back(input_of(x, shape, outputs, stream, copies));
    if (b)
        args.push_back(input_of(y, shape, outputs, stream, copies));
    for (const nb::object& o : outputs)
        args.push_back(as_ndarray(settled(o)));
    {
        release_gil unlocked;
        array::run(spec, args, stream);
    }
    if (outputs.size() == 1)
        return outputs[0];
    return nb::make_tuple(outputs[0], outputs[1]);
}

}  // namespace

void bind_cumath(nb::module_& m) {
    nb::enum_<math_function>(m, "_MathFunction", "The functions of gpukit.cumath (array/math_functions.hpp).")
        .value("fabs", math_function::fabs)
        .value("ceil", math_function::ceil)
        .value("floor", math_function::floor)
        .value("exp", math_function::exp)
        .value("log", math_function::log)
        .value("log10", math_function::log10)
        .value("sqrt", math_function::sqrt)
        .value("sin", math_function::sin)
        .value("cos", math_function::cos)
        .value("tan", math_function::tan)
        .value("asin", math_function::asin)
        .value("acos", math_function::acos)
        .value("atan", math_function::atan)
        .value("sinh", math_function::sinh)
        .value("cosh", math_function::cosh)
        .value("tanh", math_function::tanh)
        .value("fmod", math_function::fmod)
        .value("ldexp", math_function::ldexp)
        .value("frexp", math_function::frexp)
        .value("modf", math_function::modf);
    m.def("_cumath", &cumath, "function"_a, "x"_a, "y"_a.none(), "out"_a.none(), "stream"_a.none(),
          "function(x[, y]) on GPUArrays into new arrays or `out`; a tuple for frexp and modf.");
    m.def(
        "_cumath_types",
        [](math_function f, const std::string& x, std::optional<std::string> y) {
            const array::elementwise_spec& spec =
                array::math_spec(f, array::dtype_from_name(x),
                                 y ? std::optional<array::dtype>(array::dtype_from_name(*y)) : std::nullopt);
            std::vector<std::string> types;
            for (const array::param& p : spec.params())
                if (p.kind == array::param_kind::output)
                    types.emplace_back(array::name(p.type));
            return types;
        },
        "function"_a, "x"_a, "y"_a = nb::none(), "The result dtypes of function for inputs of these dtype names.");
}

}  // namespace gpukit::python
