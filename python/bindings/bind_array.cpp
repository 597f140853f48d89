// gpukit._gpukit array helpers: dtype promotion, elementwise kernels and reductions of
// gpukit::array, for gpukit.gpuarray and gpukit.cuda. Arrays cross as (address of element 0,
// shape, byte strides, dtype name); the Python objects keep the memory alive.
#include "bindings.hpp"
#include "memory_args.hpp"

#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/reduction.hpp"
#include "gpukit/core/error.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>

namespace gpukit::python {

using namespace nb::literals;
using namespace gpukit::array;

namespace {

using array_arg = std::tuple<std::uint64_t, std::vector<std::int64_t>, std::vector<std::int64_t>, std::string>;

ndarray to_ndarray(const array_arg& a) {
    const auto& [address, shape, strides, type_name] = a;
    const dtype t = dtype_from_name(type_name);
    const auto itemsize = static_cast<std::int64_t>(size_of(t));
    // Element 0 may not be the lowest address (negative strides): the buffer starts at the
    // lowest byte the view touches.
    const auto [low, high] = layout(shape, strides, itemsize, 0).byte_extent();
    const auto buffer = borrow(address + static_cast<std::uint64_t>(low), static_cast<std::size_t>(high - low));
    return ndarray(buffer, t, layout(shape, strides, itemsize, -low));
}

param_kind kind_from(const std::string& k) {
    if (k == "in") return param_kind::input;
    if (k == "out") return param_kind::output;
    if (k == "inout") return param_kind::inout;
    if (k == "scalar") return param_kind::scalar;
    throw nb::value_error(("parameter kind must be in, out, inout or scalar, got " + k).c_str());
}

std::string kind_name(param_kind k) {
    switch (k) {
    case param_kind::input: return "in";
    case param_kind::output: return "out";
    case param_kind::inout: return "inout";
    case param_kind::scalar: return "scalar";
    }
    return "?";
}

reduction reduction_from(const std::string& op) {
    if (op == "sum") return reduction::sum;
    if (op == "min") return reduction::min;
    if (op == "max") return reduction::max;
    if (op == "dot") return reduction::dot;
    throw nb::value_error(("reduction must be sum, min, max or dot, got " + op).c_str());
}

}  // namespace

void bind_array(nb::module_& m) {
    m.def("_promote_types", [](const std::string& a, const std::string& b) {
        return std::string(name(promote(dtype_from_name(a), dtype_from_name(b))));
    }, "a"_a, "b"_a, "numpy.promote_types for gpukit's dtypes, by name.");
    m.def("_dtype_supported", [](const std::string& t) {
        try {
            (void)dtype_from_name(t);
            return true;
        } catch (const logic_error&) {
            return false;
        }
    }, "t"_a, "Whether kernels exist for dtype `t`.");

    nb::class_<elementwise_spec>(m, "_ElementwiseSpec", "An elementwise kernel's parameters and operation.")
        .def("__init__", [](elementwise_spec* self, const std::string& name,
                            const std::vector<std::tuple<std::string, std::string, std::string>>& params,
                            const std::string& operation, const std::string& preamble) {
            std::vector<param> converted;
            for (const auto& [n, t, k] : params)
                converted.push_back({n, dtype_from_name(t), kind_from(k)});
            new (self) elementwise_spec{name, std::move(converted), operation, preamble};
        }, "name"_a, "params"_a, "operation"_a, "preamble"_a = "")
        .def_static("parse", &parse_elementwise, "arguments"_a, "operation"_a, "name"_a, "preamble"_a = "",
                    "A spec from a PyCUDA argument string such as 'float *x, float a'.")
        .def_prop_ro("name", [](const elementwise_spec& s) { return s.name; })
        .def_prop_ro("params", [](const elementwise_spec& s) {
            std::vector<std::tuple<std::string, std::string, std::string>> out;
            for (const auto& p : s.params)
                out.emplace_back(p.name, std::string(array::name(p.type)), kind_name(p.kind));
            return out;
        })
        .def("source", [](const elementwise_spec& s, const std::string& variant, int ndim) {
            const elementwise_variant v = variant == "vectorized"   ? elementwise_variant::vectorized
                                          : variant == "contiguous" ? elementwise_variant::contiguous
                                                                    : elementwise_variant::strided;
            return elementwise_source(s, v, ndim);
        }, "variant"_a, "ndim"_a = 1, "The CUDA C of 'vectorized', 'contiguous' or 'strided'.");

    // args: array_arg tuples for arrays, bytes (the value in the parameter's type) for scalars.
    m.def("_elementwise_run", [](const elementwise_spec& spec, const nb::list& args, nb::handle stream) {
        std::vector<elementwise_arg> converted;
        for (nb::handle a : args) {
            if (nb::isinstance<nb::bytes>(a)) {
                const auto b = nb::borrow<nb::bytes>(a);
                if (b.size() > 16)
                    throw nb::value_error("scalar arguments are at most 16 bytes");
                scalar_value s;
                std::memcpy(s.bytes.data(), b.c_str(), b.size());
                s.size = b.size();
                converted.emplace_back(s);
            } else {
                converted.emplace_back(to_ndarray(nb::cast<array_arg>(a)));
            }
        }
        const cuda::stream_view s = stream_arg(stream);
        nb::gil_scoped_release release;
        run(spec, converted, s);
    }, "spec"_a, "args"_a, "stream"_a = nb::none());

    m.def("_reduction_type", [](const std::string& op, const std::string& a, std::optional<std::string> b) {
        return std::string(name(reduction_type(reduction_from(op), dtype_from_name(a),
                                               b ? std::optional<dtype>(dtype_from_name(*b)) : std::nullopt)));
    }, "op"_a, "a"_a, "b"_a = nb::none());
    m.def("_reduction_scratch_bytes", &reduction_scratch_bytes);
    m.def("_reduce", [](const std::string& op, const array_arg& a, std::optional<array_arg> b, const array_arg& out,
                        std::uint64_t scratch, std::size_t scratch_bytes, nb::handle stream) {
        const ndarray in_a = to_ndarray(a), result = to_ndarray(out);
        const std::optional<ndarray> in_b = b ? std::optional<ndarray>(to_ndarray(*b)) : std::nullopt;
        const cuda::stream_view s = stream_arg(stream);
        nb::gil_scoped_release release;
        reduce(reduction_from(op), in_a, in_b ? &*in_b : nullptr, result, cuda::device_pointer(scratch, scratch_bytes),
               s);
    }, "op"_a, "a"_a, "b"_a, "out"_a, "scratch"_a, "scratch_bytes"_a, "stream"_a = nb::none());
}

}  // namespace gpukit::python
