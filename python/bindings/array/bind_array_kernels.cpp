// gpukit._gpukit array helpers: dtype promotion and elementwise kernels of
// gpukit::array, for gpukit.gpuarray and gpukit.cuda. Arrays cross as (address of element 0,
// shape, byte strides, dtype name); the Python objects keep the memory alive.
#include "common/bindings.hpp"
#include "cuda/compile_request.hpp"
#include "common/int_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/elementwise_kernel.hpp"
#include "gpukit/array/generic_scan.hpp"
#include "gpukit/array/reduction.hpp"
#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/from_name.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <filesystem>
#include <span>
#include <variant>

namespace gpukit::python {

using namespace nb::literals;

namespace {

using array_description = std::tuple<std::uint64_t, std::vector<std::int64_t>, std::vector<std::int64_t>, std::string>;

array::ndarray to_ndarray(const array_description& a) {
    const auto& [address, shape, strides, type_name] = a;
    const array::dtype t = array::dtype_from_name(type_name);
    const auto itemsize = static_cast<std::int64_t>(size_of(t));
    // Element 0 may not be the lowest address (negative strides): the buffer starts at the
    // lowest byte the view touches.
    const auto [low, high] = layout(shape, strides, itemsize, 0).byte_extent();
    const auto buffer = array::borrow(address + static_cast<std::uint64_t>(low), static_cast<std::size_t>(high - low));
    return array::ndarray(buffer, t, layout(shape, strides, itemsize, -low));
}

array::param_kind param_kind_from(const std::string& k) {
    if (k == "in")
        return array::param_kind::input;
    if (k == "out")
        return array::param_kind::output;
    if (k == "inout")
        return array::param_kind::inout;
    if (k == "scalar")
        return array::param_kind::scalar;
    throw nb::value_error(("parameter kind must be in, out, inout or scalar, got " + k).c_str());
}

std::string kind_name(array::param_kind k) {
    switch (k) {
    case array::param_kind::input:
        return "in";
    case array::param_kind::output:
        return "out";
    case array::param_kind::inout:
        return "inout";
    case array::param_kind::scalar:
        return "scalar";
    }
    return "?";
}

using kernel_params = std::vector<std::tuple<std::string, std::string, bool>>;  // (declarator, name, is_array)

array::elementwise_kernel_spec kernel_spec(std::string name, const kernel_params& params, std::string operation,
                                           std::string preamble, std::string loop_prep, std::string after_loop) {
    array::elementwise_kernel_spec spec{std::move(name),      {},
                                        std::move(operation), std::move(preamble),
                                        std::move(loop_prep), std::move(after_loop)};
    for (const auto& [declarator, param_name, is_array] : params)
        spec.params.push_back({declarator, param_name, is_array});
    return spec;
}

}  // namespace

void bind_array_kernels(nb::module_& m) {
    m.def(
        "_promote_types",
        [](const std::string& a, const std::string& b) {
            return std::string(array::name(array::promote(array::dtype_from_name(a), array::dtype_from_name(b))));
        },
        "a"_a, "b"_a, "numpy.promote_types for gpukit's dtypes, by name.");
    m.def(
        "_dtype_supported",
        [](const std::string& t) {
            try {
                (void)array::dtype_from_name(t);
                return true;
            } catch (const logic_error&) {
                return false;
            }
        },
        "t"_a, "Whether kernels exist for dtype `t`.");

    nb::class_<array::elementwise_spec>(m, "_ElementwiseSpec", "An elementwise kernel's parameters and operation.")
        .def(
            "__init__",
            [](array::elementwise_spec* self, const std::string& name,
               const std::vector<std::tuple<std::string, std::string, std::string>>& params,
               const std::string& operation, const std::string& preamble) {
                std::vector<array::param> converted;
                for (const auto& [n, t, k] : params)
                    converted.push_back({n, array::dtype_from_name(t), param_kind_from(k)});
                new (self) array::elementwise_spec{name, std::move(converted), operation, preamble};
            },
            "name"_a, "params"_a, "operation"_a, "preamble"_a = "")
        .def_prop_ro("name", [](const array::elementwise_spec& s) { return s.name(); })
        .def_prop_ro("params",
                     [](const array::elementwise_spec& s) {
                         std::vector<std::tuple<std::string, std::string, std::string>> out;
                         for (const auto& p : s.params())
                             out.emplace_back(p.name, std::string(array::name(p.type)), kind_name(p.kind));
                         return out;
                     })
        .def(
            "source",
            [](const array::elementwise_spec& s, const std::string& variant, int_arg<int> ndim) {
                if (variant != "vectorized" && variant != "contiguous" && variant != "strided" && variant != "rows")
                    throw nb::value_error(
                        ("source(variant): expected 'vectorized', 'contiguous', 'strided' or 'rows', got '" + variant +
                         "'")
                            .c_str());
                const array::elementwise_variant v = variant == "vectorized"   ? array::elementwise_variant::vectorized
                                                     : variant == "contiguous" ? array::elementwise_variant::contiguous
                                                     : variant == "strided"    ? array::elementwise_variant::strided
                                                                               : array::elementwise_variant::rows;
                return elementwise_source(s, v, ndim.get("source(ndim)"));
            },
            "variant"_a, "ndim"_a.none() = 1, "The CUDA C of 'vectorized', 'contiguous', 'strided' or 'rows'.");

    // A generic scan (PyOpenCL's GenericScanKernel): parameters as _ElementwiseSpec's, fetches
    // as (name, array parameter, offset); run by an engine (gpukit.cl.array's _ArrayEngine.scan).
    nb::class_<array::generic_scan_spec>(m, "_GenericScanSpec", "A generic scan's parameters and C text.")
        .def(
            "__init__",
            [](array::generic_scan_spec* self, std::string name_prefix, std::string scan_type,
               int_arg<std::size_t> scan_size,
               const std::vector<std::tuple<std::string, std::string, std::string>>& params, std::string input_expr,
               std::string scan_expr, std::string neutral, std::string output_statement,
               std::string is_segment_start_expr, const std::vector<std::tuple<std::string, std::string, int>>& fetches,
               std::string preamble) {
                std::vector<array::param> converted;
                for (const auto& [n, t, k] : params)
                    converted.push_back({n, array::dtype_from_name(t), param_kind_from(k)});
                std::vector<array::scan_fetch> fetch_list;
                for (const auto& [n, a, offset] : fetches)
                    fetch_list.push_back({n, a, offset});
                new (self) array::generic_scan_spec(std::move(name_prefix), std::move(scan_type),
                                                    scan_size.get("_GenericScanSpec(scan_size)"), std::move(converted),
                                                    std::move(input_expr), std::move(scan_expr), std::move(neutral),
                                                    std::move(output_statement), std::move(is_segment_start_expr),
                                                    std::move(fetch_list), std::move(preamble));
            },
            "name_prefix"_a, "scan_type"_a, "scan_size"_a, "params"_a, "input_expr"_a, "scan_expr"_a, "neutral"_a,
            "output_statement"_a, "is_segment_start_expr"_a, "fetches"_a, "preamble"_a)
        .def_prop_ro("name_prefix", [](const array::generic_scan_spec& s) { return s.name_prefix(); })
        .def(
            "source",
            [](const array::generic_scan_spec& s, const std::string& language) {
                static constexpr std::pair<std::string_view, kernel_language> languages[] =
                    {{"cuda", kernel_language::cuda}, {"opencl", kernel_language::opencl}};
                return generic_scan_source(s, from_name(language, languages, "language"));
            },
            "language"_a, "The three kernels' source in 'cuda' or 'opencl' C.");

    // A reduction over an index range whose arrays are pointers (PyOpenCL's ReductionKernel):
    // parameters as (name, dtype name, "pointer" or "scalar"); run by an engine
    // (gpukit.cl.array's _ArrayEngine.reduce_range).
    // The accumulator and output are dtype names, or (C type name, size) for a struct of the
    // caller's (declared in the preamble).
    const auto value_type_of = [](nb::handle t, const char* what) -> array::value_type {
        if (nb::isinstance<nb::str>(t))
            return array::dtype_from_name(nb::cast<std::string>(t));
        if (nb::isinstance<nb::tuple>(t) && nb::len(t) == 2)
            return array::value_type(nb::cast<std::string>(t[0]), nb::cast<std::size_t>(t[1]));
        throw nb::type_error(
            (std::string("_ReductionSpec(") + what + "): a dtype name or a (C type name, size) pair").c_str());
    };
    nb::class_<array::reduction_spec>(m, "_ReductionSpec", "A reduction's parameters and C text.")
        .def(
            "__init__",
            [value_type_of](array::reduction_spec* self, std::string name,
                            const std::vector<std::tuple<std::string, std::string, std::string>>& params,
                            nb::handle accumulator, nb::handle output, std::string neutral, std::string map,
                            std::string reduce, std::string preamble) {
                std::vector<array::reduction_param> converted;
                for (const auto& [n, t, k] : params) {
                    if (k != "pointer" && k != "scalar")
                        throw nb::value_error(("parameter kind must be pointer or scalar, got " + k).c_str());
                    converted.push_back(
                        {n, array::dtype_from_name(t),
                         k == "pointer" ? array::reduction_param_kind::pointer : array::reduction_param_kind::scalar});
                }
                new (self)
                    array::reduction_spec(std::move(name), std::move(converted),
                                          value_type_of(accumulator, "accumulator"), value_type_of(output, "output"),
                                          std::move(neutral), std::move(map), std::move(reduce), std::move(preamble));
            },
            "name"_a, "params"_a, "accumulator"_a, "output"_a, "neutral"_a, "map"_a, "reduce"_a, "preamble"_a)
        .def_prop_ro("name", [](const array::reduction_spec& s) { return s.name(); });

    // args: array_description tuples for arrays, bytes (the value in the parameter's type) for scalars.
    m.def(
        "_elementwise_run",
        [](const array::elementwise_spec& spec,
           const nb::typed<nb::list, std::variant<nb::bytes, array_description>>& args, nb::handle stream) {
            std::vector<array::elementwise_arg> converted;
            for (nb::handle a : args) {
                if (nb::isinstance<nb::bytes>(a)) {
                    const auto b = nb::borrow<nb::bytes>(a);
                    if (b.size() > 16)
                        throw nb::value_error("scalar arguments are at most 16 bytes");
                    array::scalar_value s;
                    std::memcpy(s.bytes.data(), b.c_str(), b.size());
                    s.size = b.size();
                    converted.emplace_back(s);
                } else {
                    converted.emplace_back(to_ndarray(nb::cast<array_description>(a)));
                }
            }
            const cuda::stream_view s = stream_arg(stream);
            release_gil release;
            array::run(spec, converted, s);
        },
        "spec"_a, "args"_a, "stream"_a = nb::none());

    // Why `name` cannot name a kernel parameter in `language` ("cuda" or "opencl"), or "" when
    // it can: the check of the argument classes of gpukit.tools and gpukit.cl.tools.
    m.def(
        "_kernel_name_problem",
        [](const std::string& name, const std::string& language) {
            static constexpr std::pair<std::string_view, kernel_language> languages[] =
                {{"cuda", kernel_language::cuda}, {"opencl", kernel_language::opencl}};
            return kernel_name_problem(name, from_name(language, languages, "language"));
        },
        "name"_a, "language"_a);

    // PyCUDA's ElementwiseKernel. Parameters cross as (declarator, name, is_array); the
    // compile request as gpukit.compiler._request gives it. Each call's values are bytes:
    // addresses of arrays, values of scalars in their C type.
    m.def(
        "_elementwise_kernel_source",
        [](std::string name, const kernel_params& params, std::string operation, std::string preamble,
           std::string loop_prep, std::string after_loop, bool use_range) {
            return array::elementwise_kernel_source(kernel_spec(std::move(name), params, std::move(operation),
                                                                std::move(preamble), std::move(loop_prep),
                                                                std::move(after_loop)),
                                                    use_range);
        },
        "name"_a, "params"_a, "operation"_a, "preamble"_a, "loop_prep"_a, "after_loop"_a, "use_range"_a,
        "The CUDA C of PyCUDA's elementwise kernel for these parameters.");

    nb::class_<array::elementwise_kernel>(m, "_ElementwiseKernel", "An ElementwiseKernel's spec and compiled kernels.")
        .def(
            "__init__",
            [](array::elementwise_kernel* self, std::string name, const kernel_params& params, std::string operation,
               std::string preamble, std::string loop_prep, std::string after_loop, std::vector<std::string> options,
               std::string arch, path_list_arg include_dirs, path_list_arg system_include_dirs,
               const std::string& compiler, path_arg nvcc, path_arg cache_dir) {
                array::elementwise_kernel_spec spec =
                    kernel_spec(std::move(name), params, std::move(operation), std::move(preamble),
                                std::move(loop_prep), std::move(after_loop));
                rtc::compile_request request =
                    generated_kernel_request(std::move(options), std::move(arch), include_dirs, system_include_dirs,
                                             compiler, nvcc, "ElementwiseKernel");
                std::optional<std::filesystem::path> dir = cache_dir_path(cache_dir, "ElementwiseKernel");
                new (self) array::elementwise_kernel(std::move(spec), std::move(request), std::move(dir));
            },
            "name"_a, "params"_a, "operation"_a, "preamble"_a, "loop_prep"_a, "after_loop"_a, "options"_a, "arch"_a,
            "include_dirs"_a.none(), "system_include_dirs"_a.none(), "compiler"_a, "nvcc"_a.none(),
            "cache_dir"_a.none())
        .def("source", &array::elementwise_kernel::source, "use_range"_a = false, "The generated CUDA C.")
        .def(
            "run",
            [](const array::elementwise_kernel& k, const std::vector<nb::bytes>& values,
               int_arg<unsigned long long> n_arg, nb::handle stream) {
                const unsigned long long n = n_arg.get("ElementwiseKernel(n)");
                std::vector<std::span<const std::byte>> spans;
                for (const nb::bytes& v : values)
                    spans.emplace_back(static_cast<const std::byte*>(v.data()), v.size());
                const cuda::stream_view s = stream_arg(stream);
                release_gil release;  // the first call compiles
                k.run(spans, n, s);
            },
            "values"_a, "n"_a.none(), "stream"_a.none())
        .def(
            "run_range",
            [](const array::elementwise_kernel& k, const std::vector<nb::bytes>& values, int_arg<long long> start_arg,
               int_arg<long long> stop_arg, int_arg<long long> step_arg, nb::handle stream) {
                const long long start = start_arg.get("ElementwiseKernel(range.start)"),
                                stop = stop_arg.get("ElementwiseKernel(range.stop)"),
                                step = step_arg.get("ElementwiseKernel(range.step)");
                std::vector<std::span<const std::byte>> spans;
                for (const nb::bytes& v : values)
                    spans.emplace_back(static_cast<const std::byte*>(v.data()), v.size());
                const cuda::stream_view s = stream_arg(stream);
                release_gil release;
                k.run_range(spans, start, stop, step, s);
            },
            "values"_a, "start"_a.none(), "stop"_a.none(), "step"_a.none(), "stream"_a.none());
}

}  // namespace gpukit::python
