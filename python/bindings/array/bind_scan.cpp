// gpukit._gpukit._ScanKernel: the C++ half of PyCUDA's InclusiveScanKernel and
// ExclusiveScanKernel (gpukit.scan derives them from it). A call is one crossing: the arrays
// are checked, a new output made when asked for, and gpukit::array::scan launched.
#include "array/array_object.hpp"
#include "common/object_text.hpp"
#include "common/bindings.hpp"
#include "cuda/compile_request.hpp"
#include "common/memory_args.hpp"

#include "gpukit/array/scan.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/context.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

struct scan_kernel {
    array::scan_spec spec;
    nb::object dtype;                         // the elements' numpy dtype
    std::optional<std::vector<int>> devices;  // the devices (ordinals) it may run on; nullopt: any

    const char* class_name() const {
        return spec.kind() == array::scan_kind::inclusive ? "InclusiveScanKernel" : "ExclusiveScanKernel";
    }
};

// The array passed as `what`, settled, after checking that it is one and has the kernel's dtype.
array_object& operand(const scan_kernel& k, nb::handle h, const char* what) {
    if (!nb::isinstance<array_object>(h))
        throw nb::type_error((std::string(k.class_name()) + ": " + what + " must be a GPUArray, got " +
                              text_of(h.type().attr("__name__")))
                                 .c_str());
    array_object& a = settled(h);
    if (!a.dtype.is(k.dtype) && !a.dtype.equal(k.dtype))
        throw nb::type_error((std::string(k.class_name()) + ": " + what + " has dtype " + text_of(a.dtype) +
                              ", but the kernel scans " + text_of(k.dtype))
                                 .c_str());
    if (a.layout.ndim() != 1)
        throw nb::value_error((std::string(k.class_name()) + ": " + what + " must be one-dimensional, got shape " +
                               text_of(h.attr("shape")))
                                  .c_str());
    return a;
}

// A new contiguous array like `in`, its memory from `allocator` (None: in's allocator).
nb::object new_output(const array_object& in, nb::handle allocator) {
    array_object a;
    a.layout = gpukit::layout::contiguous(in.layout.shape(), in.layout.itemsize());
    a.dtype = in.dtype;
    a.type = in.type;
    a.base = nb::none();
    a.allocator = allocator.is_none() ? in.allocator : nb::borrow(allocator);
    a.stream = in.stream;
    allocate(a);
    return wrap_array(result_class(), std::move(a));
}

nb::object call_scan(const scan_kernel& k, nb::handle input, nb::handle output, nb::handle allocator,
                     nb::handle queue) {
    const array_object& in = operand(k, input, "input_ary");
    if (!allocator.is_none() && !PyCallable_Check(allocator.ptr()))
        throw nb::type_error((std::string(k.class_name()) +
                              ": allocator must be callable (bytes -> device "
                              "memory) or None, got " +
                              text_of(allocator.type().attr("__name__")))
                                 .c_str());
    nb::object result;
    if (output.is_none()) {
        result = nb::borrow(input);  // in place, as PyCUDA
    } else if (nb::isinstance<nb::str>(output)) {
        if (nb::cast<std::string>(output) != "new")
            throw nb::value_error((std::string(k.class_name()) +
                                   ": output_ary must be a GPUArray, None (in place) "
                                   "or \"new\", got \"" +
                                   nb::cast<std::string>(output) + "\"")
                                      .c_str());
        result = new_output(in, allocator);
    } else {
        const array_object& out = operand(k, output, "output_ary");
        if (out.layout.shape() != in.layout.shape())
            throw nb::value_error((std::string(k.class_name()) + ": input and output must have the same shape, got " +
                                   text_of(input.attr("shape")) + " and " + text_of(output.attr("shape")))
                                      .c_str());
        result = nb::borrow(output);
    }
    const cuda::stream_view stream = queue.is_none() ? stream_of(in) : stream_arg(queue);
    if (k.devices) {
        const int ordinal = cuda::context::current_or_throw(k.class_name()).state()->device_ordinal;
        if (std::find(k.devices->begin(), k.devices->end(), ordinal) == k.devices->end())
            throw logic_error(std::string(k.class_name()) + ": the current context is on device " +
                              std::to_string(ordinal) + ", not one of the devices the kernel was made for");
    }
    const array_object& out = settled(result);
    const array::scan_operand from{in.data(), in.layout.strides()[0]}, to{out.data(), out.layout.strides()[0]};
    const std::int64_t n = in.layout.size();
    release_gil unlocked;  // the first call in a context compiles
    array::scan(k.spec, from, to, n, stream);
    return result;
}

}  // namespace

void bind_scan(nb::module_& m) {
    nb::class_<scan_kernel>(m, "_ScanKernel", "The C++ half of InclusiveScanKernel and ExclusiveScanKernel.")
        .def(
            "__init__",
            [](scan_kernel* self, bool inclusive, nb::handle dtype, std::string c_type, std::string scan_expr,
               std::optional<std::string> neutral, std::string name_prefix, std::string preamble,
               std::vector<std::string> options, std::string arch, path_list_arg include_dirs,
               path_list_arg system_include_dirs, const std::string& compiler, path_arg nvcc, path_arg cache_dir,
               std::optional<std::vector<int>> devices) {
                nb::object numpy_dtype = as_numpy_dtype(dtype);
                const auto item_size = nb::cast<std::size_t>(numpy_dtype.attr("itemsize"));
                const char* kernel = inclusive ? "InclusiveScanKernel" : "ExclusiveScanKernel";
                rtc::compile_request request =
                    generated_kernel_request(std::move(options), std::move(arch), include_dirs, system_include_dirs,
                                             compiler, nvcc, kernel);
                std::optional<std::filesystem::path> dir = cache_dir_path(cache_dir, kernel);
                array::scan_spec spec(inclusive ? array::scan_kind::inclusive : array::scan_kind::exclusive,
                                      std::move(c_type), item_size, std::move(scan_expr), std::move(neutral),
                                      std::move(name_prefix), std::move(preamble), std::move(request), std::move(dir));
                new (self) scan_kernel{std::move(spec), std::move(numpy_dtype), std::move(devices)};
            },
            "inclusive"_a, "dtype"_a, "c_type"_a, "scan_expr"_a, "neutral"_a.none(), "name_prefix"_a, "preamble"_a,
            "options"_a, "arch"_a, "include_dirs"_a.none(), "system_include_dirs"_a.none(), "compiler"_a,
            "nvcc"_a.none(), "cache_dir"_a.none(), "devices"_a.none())
        .def_prop_ro(
            "dtype", [](const scan_kernel& k) { return k.dtype; }, "The numpy dtype of the elements.")
        .def(
            "get_source",
            [](const scan_kernel& k, bool vectorized) {
                return array::scan_source(k.spec,
                                          vectorized ? array::scan_variant::vectorized : array::scan_variant::strided);
            },
            "vectorized"_a = true,
            "The kernel's CUDA C: for contiguous 16-byte aligned arrays, or (vectorized=False) for any other.")
        .def("__call__", &call_scan, "input_ary"_a, "output_ary"_a.none() = nb::none(),
             "allocator"_a.none() = nb::none(), "queue"_a.none() = nb::none(),
             "Scans input_ary into output_ary (None: in place; \"new\": a new array from allocator, else "
             "input_ary's) on stream `queue` (None: input_ary's) and returns output_ary.");
}

}  // namespace gpukit::python
