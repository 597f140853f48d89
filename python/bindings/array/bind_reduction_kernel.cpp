// gpukit._gpukit._ReductionKernel, the C++ half of gpukit.reduction.ReductionKernel
// (PyCUDA's): the kernel (array/reduction_kernel.hpp) and a __call__ that is one crossing:
// arguments converted (arrays to addresses, through a C-order copy when not contiguous;
// scalars by the Python converter ElementwiseKernel uses), range= or slice= resolved, the
// 0-d result and the scratch for partial results allocated in one block, and the launches.
#include "array/array_object.hpp"
#include "common/object_text.hpp"
#include "array/array_operators.hpp"
#include "array/array_reductions.hpp"
#include "cuda/compile_request.hpp"
#include "common/int_args.hpp"
#include "common/memory_args.hpp"
#include "common/stub_types.hpp"

#include "gpukit/array/reduction_kernel.hpp"
#include "gpukit/core/error.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

struct reduction_kernel_object {
    array::reduction_kernel kernel;
    nb::object dtype_out;     // the result's numpy dtype
    nb::object allocator;     // for results when the call names none (None: the first array's)
    nb::list arguments;       // the parameters as VectorArg / ScalarArg (for converting scalars)
    nb::object scalar_bytes;  // gpukit.elementwise._scalar_bytes: (value, argument) -> bytes
    nb::object as_gpuarray;   // gpukit.gpuarray.asarray: other libraries' arrays, wrapped
};

// A parameter as Python describes it: (declarator, name, is_array, C type, numpy dtype).
using parameter_tuple = std::tuple<std::string, std::string, bool, std::string, nb::object>;

array::value_type value_type_of(const std::string& c_type, nb::handle numpy_dtype) {
    return array::value_type(c_type, nb::cast<std::size_t>(numpy_dtype.attr("itemsize")), kernel_type(numpy_dtype));
}

std::string kernel_name(const reduction_kernel_object& k) { return "ReductionKernel '" + k.kernel.spec().name() + "'"; }

// The array passed for pointer parameter `p` (a GPUArray, or an object another library
// exports, wrapped), checked for its item size.
nb::object array_argument(const reduction_kernel_object& k, nb::handle value, const array::reduction_param& p) {
    nb::object array = nb::borrow(value);
    if (!nb::isinstance<array_object>(value)) {
        try {
            array = k.as_gpuarray(value);
        } catch (const nb::python_error&) {
            throw nb::type_error((kernel_name(k) + ": argument " + p.name + " is a pointer (" + p.declarator +
                                  "): expected a GPUArray or an object with __cuda_array_interface__, got " +
                                  short_type_name_of(value))
                                     .c_str());
        }
    }
    const array_object& a = settled(array);
    if (static_cast<std::size_t>(a.layout.itemsize()) != p.type.size)
        throw nb::type_error((kernel_name(k) + ": argument " + p.name + " is declared " + p.type.c_name + " (" +
                              std::to_string(p.type.size) + " bytes), got an array of " +
                              nb::cast<std::string>(nb::str(a.dtype)) + " (" + std::to_string(a.layout.itemsize()) +
                              " bytes): x[j] would not be element j")
                                 .c_str());
    return array;
}

// A contiguous array for `array` (itself, or a C-order copy, so that x[j] is element j).
nb::object contiguous(const reduction_kernel_object& k, nb::object array, const std::string& name,
                      cuda::stream_view stream) {
    array_object& a = settled(array);
    if (a.layout.is_contiguous())
        return array;
    if (!a.type)
        throw nb::value_error((kernel_name(k) + ": argument " + name + " is not contiguous (" + a.layout.describe() +
                               ") and its dtype has no kernels to copy it; pass a contiguous array")
                                  .c_str());
    return converted(a, *a.type, stream);
}

struct index_range {
    long long start, step, count;
};

// The indices range= (a slice, PyCUDA's start/stop/step over i, start 0 and step 1 by
// default) or slice= (Python's slicing of the first array's `size` indices) stand for.
index_range range_of(const reduction_kernel_object& k, nb::handle range, nb::handle slice, std::int64_t size) {
    if (!range.is_none() && !slice.is_none())
        throw nb::type_error((kernel_name(k) + ": may not specify both range and slice").c_str());
    if (range.is_none() && slice.is_none())
        return {0, 1, size};
    const nb::handle given = range.is_none() ? slice : range;
    if (!PySlice_Check(given.ptr()))
        throw nb::type_error((kernel_name(k) + ": " + (range.is_none() ? "slice" : "range") +
                              "= must be a slice object, got " + short_type_name_of(given))
                                 .c_str());
    if (!slice.is_none()) {
        Py_ssize_t start = 0, stop = 0, step = 0;
        if (PySlice_Unpack(given.ptr(), &start, &stop, &step) < 0)
            throw nb::python_error();
        const Py_ssize_t count = PySlice_AdjustIndices(static_cast<Py_ssize_t>(size), &start, &stop, step);
        return {start, step, count};
    }
    const nb::object start_object = given.attr("start"), stop_object = given.attr("stop"),
                     step_object = given.attr("step");
    if (stop_object.is_none())
        throw nb::type_error((kernel_name(k) + ": range= needs a stop").c_str());
    const long long start =
        start_object.is_none() ? 0 : integer_arg<long long>(start_object, "ReductionKernel(range.start)");
    const long long stop = integer_arg<long long>(stop_object, "ReductionKernel(range.stop)");
    const long long step =
        step_object.is_none() ? 1 : integer_arg<long long>(step_object, "ReductionKernel(range.step)");
    if (step == 0)
        throw nb::value_error((kernel_name(k) + ": the range step must not be zero").c_str());
    // len(range(start, stop, step)), in unsigned arithmetic: stop - start may not fit a long long.
    const bool forward = step > 0;
    if (forward ? stop <= start : stop >= start)
        return {start, step, 0};
    const unsigned long long span =
        forward ? static_cast<unsigned long long>(stop) - static_cast<unsigned long long>(start)
                : static_cast<unsigned long long>(start) - static_cast<unsigned long long>(stop);
    const unsigned long long stride =
        forward ? static_cast<unsigned long long>(step) : 0ULL - static_cast<unsigned long long>(step);
    return {start, step, static_cast<long long>((span - 1) / stride + 1)};
}

// out= must be a GPUArray of one element of dtype_out.
void check_out(const reduction_kernel_object& k, nb::handle out) {
    if (!nb::isinstance<array_object>(out))
        throw nb::type_error((kernel_name(k) + ": out= must be a GPUArray, got " + short_type_name_of(out)).c_str());
    const array_object& o = settled(out);
    if (!o.dtype.equal(k.dtype_out) || o.layout.size() != 1)
        throw nb::value_error((kernel_name(k) + ": out= must hold one element of dtype " +
                               nb::cast<std::string>(nb::str(k.dtype_out)) + ", got " +
                               std::to_string(o.layout.size()) + " of " + nb::cast<std::string>(nb::str(o.dtype)))
                                  .c_str());
}

nb::object call_reduction(const reduction_kernel_object& k, const nb::args& args, nb::handle stream_object,
                          nb::handle out, nb::handle range, nb::handle slice, nb::handle allocator) {
    const std::vector<array::reduction_param>& params = k.kernel.spec().params();
    if (args.size() != params.size()) {
        std::string names;
        for (const array::reduction_param& p : params)
            names += (names.empty() ? "" : ", ") + p.name;
        throw nb::type_error((kernel_name(k) + " takes " + std::to_string(params.size()) + " arguments (" + names +
                              "), got " + std::to_string(args.size()))
                                 .c_str());
    }
    // Arrays first: the first one gives the stream, the allocator and the default range.
    std::vector<nb::object> arrays(params.size());
    const array_object* first = nullptr;
    for (std::size_t i = 0; i < params.size(); ++i)
        if (params[i].kind == array::reduction_param_kind::pointer) {
            arrays[i] = array_argument(k, args[i], params[i]);
            first = first ? first : &settled(arrays[i]);
        }
    const cuda::stream_view stream = stream_object.is_none() ? stream_of(*first) : stream_arg(stream_object);
    const index_range indices = range_of(k, range, slice, first->layout.size());
    if (!out.is_none())
        check_out(k, out);

    // Each parameter's bytes: an array's address of element 0, a scalar's value. Copies and
    // converted scalars are held here until the launch.
    std::vector<nb::object> launched(params.size());
    std::vector<CUdeviceptr> addresses(params.size());
    std::vector<nb::bytes> scalars;
    scalars.reserve(params.size());
    std::vector<std::span<const std::byte>> values;
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (arrays[i].is_valid()) {
            launched[i] = contiguous(k, arrays[i], params[i].name, stream);
            const array_object& a = settled(launched[i]);
            addresses[i] = a.layout.size() ? a.data() : 0;
            values.emplace_back(reinterpret_cast<const std::byte*>(&addresses[i]), sizeof(CUdeviceptr));
        } else {
            scalars.push_back(nb::cast<nb::bytes>(k.scalar_bytes(args[i], k.arguments[i])));
            values.emplace_back(static_cast<const std::byte*>(scalars.back().data()), scalars.back().size());
        }
    }

    const nb::handle result_allocator = !allocator.is_none()     ? allocator
                                        : !k.allocator.is_none() ? nb::handle(k.allocator)
                                                                 : nb::handle(first->allocator);
    const std::size_t scratch_bytes = array::reduction_scratch_bytes(k.kernel.spec());
    nb::object result, scratch_owner;
    cuda::device_pointer scratch(0);
    CUdeviceptr target = 0;
    if (out.is_none()) {
        reduction_result made =
            new_reduction_result(k.dtype_out, kernel_type(k.dtype_out), result_allocator, first->stream, scratch_bytes);
        result = made.array;
        scratch = made.scratch;
        target = settled(result).data();
    } else {
        result = nb::borrow(out);
        target = settled(out).data();
        scratch_owner = new_scratch(result_allocator, scratch_bytes, scratch);
    }
    release_gil unlocked;
    k.kernel.run(values, indices.start, indices.step, indices.count, target, scratch, stream);
    return result;
}

}  // namespace

void bind_reduction_kernel(nb::module_& m) {
    nb::class_<reduction_kernel_object>(m, "_ReductionKernel", "A ReductionKernel's spec and compiled kernels.")
        .def(
            "__init__",
            [](reduction_kernel_object* self, std::string name, const std::vector<parameter_tuple>& params,
               nb::object dtype_out, const std::string& out_c_type, std::string neutral, std::string reduce_expr,
               std::string map_expr, std::string preamble, std::vector<std::string> options, std::string arch,
               path_list_arg include_dirs, path_list_arg system_include_dirs, const std::string& compiler,
               path_arg nvcc, path_arg cache_dir, nb::object allocator,
               nb::typed<nb::list, python_type<"gpukit._array.c_types.DtypedArgument">> arguments,
               nb::object scalar_bytes, nb::object as_gpuarray) {
                std::vector<array::reduction_param> converted_params;
                for (const auto& [declarator, param_name, is_array, c_type, numpy_dtype] : params)
                    converted_params.push_back(
                        {param_name, value_type_of(c_type, numpy_dtype),
                         is_array ? array::reduction_param_kind::pointer : array::reduction_param_kind::scalar,
                         declarator});
                const array::value_type out = value_type_of(out_c_type, dtype_out);
                array::reduction_spec spec(std::move(name), std::move(converted_params), out, out, std::move(neutral),
                                           std::move(map_expr), std::move(reduce_expr), std::move(preamble));
                rtc::compile_request request =
                    generated_kernel_request(std::move(options), std::move(arch), include_dirs, system_include_dirs,
                                             compiler, nvcc, "ReductionKernel");
                std::optional<std::filesystem::path> dir = cache_dir_path(cache_dir, "ReductionKernel");
                new (self) reduction_kernel_object{array::reduction_kernel(std::move(spec), std::move(request),
                                                                           std::move(dir)),
                                                   std::move(dtype_out),
                                                   std::move(allocator),
                                                   std::move(arguments),
                                                   std::move(scalar_bytes),
                                                   std::move(as_gpuarray)};
            },
            "name"_a, "params"_a, "dtype_out"_a, "out_c_type"_a, "neutral"_a, "reduce_expr"_a, "map_expr"_a,
            "preamble"_a, "options"_a, "arch"_a, "include_dirs"_a.none(), "system_include_dirs"_a.none(), "compiler"_a,
            "nvcc"_a.none(), "cache_dir"_a.none(), "allocator"_a.none(), "arguments"_a, "scalar_bytes"_a,
            "as_gpuarray"_a)
        .def(
            "get_source", [](const reduction_kernel_object& k) { return k.kernel.source(); },
            "The CUDA C of both kernels (name_stage1, name_stage2).")
        .def("__call__", &call_reduction, "args"_a, "stream"_a = nb::none(), "out"_a = nb::none(),
             "range"_a = nb::none(), "slice"_a = nb::none(), "allocator"_a = nb::none(),
             "The reduction of map(i) over every i (range= or slice= choose them) as a 0-d GPUArray of dtype_out, "
             "or written into out=.");
}

}  // namespace gpukit::python
