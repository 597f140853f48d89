// gpukit._gpukit.cl._ArrayEngine: the array engine (gpukit::array::device_array on an
// opencl_backend) for gpukit.cl.array, PyOpenCL's Array. Translation only: a Python Array
// (its base_data Buffer or SVM, offset, shape, strides and dtype) becomes a device_array
// borrowing that memory, the engine computes, and a result comes back as the pieces of a new
// Array.
//
// One engine serves one queue and one allocator (gpukit.cl.array keeps them): results take
// their memory from the allocator, as PyOpenCL's do (None: new Buffers of the context), and
// every engine of a context shares the compiled kernels (opencl_backend).
#include "array/array_object.hpp"  // kernel_type, numpy_dtype
#include "common/int_args.hpp"
#include "array/array_operators.hpp"  // scalar_of
#include "cl/cl_bindings.hpp"
#include "common/stub_types.hpp"

#include "gpukit/array/array.hpp"
#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/generic_scan.hpp"
#include "gpukit/array/indexing.hpp"
#include "gpukit/array/math_functions.hpp"
#include "gpukit/array/opencl_backend.hpp"
#include "gpukit/array/reduction.hpp"
#include "gpukit/array/sort.hpp"
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/svm.hpp"
#include "gpukit/random/philox.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;
using array::device_array;

namespace {

// PyOpenCL's and numpy's names of the binary operations gpukit.cl.array asks for.
array::binary_op binary_op_named(std::string_view name) {
    using array::binary_op;
    static constexpr std::pair<std::string_view, binary_op> names[] = {{"add", binary_op::add},
                                                                       {"subtract", binary_op::subtract},
                                                                       {"multiply", binary_op::multiply},
                                                                       {"divide", binary_op::true_divide},
                                                                       {"power", binary_op::power},
                                                                       {"equal", binary_op::equal},
                                                                       {"not_equal", binary_op::not_equal},
                                                                       {"less", binary_op::less},
                                                                       {"less_equal", binary_op::less_equal},
                                                                       {"greater", binary_op::greater},
                                                                       {"greater_equal", binary_op::greater_equal},
                                                                       {"minimum", binary_op::minimum},
                                                                       {"maximum", binary_op::maximum},
                                                                       {"logical_and", binary_op::logical_and},
                                                                       {"logical_or", binary_op::logical_or},
                                                                       {"bitwise_and", binary_op::bitwise_and},
                                                                       {"bitwise_or", binary_op::bitwise_or},
                                                                       {"bitwise_xor", binary_op::bitwise_xor}};
    for (const auto& [n, op] : names)
        if (n == name)
            return op;
    throw nb::value_error(("no binary operation named '" + std::string(name) + "'").c_str());
}

array::unary_op unary_op_named(std::string_view name) {
    using array::unary_op;
    static constexpr std::pair<std::string_view, unary_op> names[] = {{"negative", unary_op::negative},
                                                                      {"absolute", unary_op::absolute},
                                                                      {"conjugate", unary_op::conjugate},
                                                                      {"real", unary_op::real},
                                                                      {"imag", unary_op::imag},
                                                                      {"logical_not", unary_op::logical_not},
                                                                      {"invert", unary_op::invert}};
    for (const auto& [n, op] : names)
        if (n == name)
            return op;
    throw nb::value_error(("no unary operation named '" + std::string(name) + "'").c_str());
}

std::vector<std::int64_t> int_tuple(nb::handle t) {
    std::vector<std::int64_t> values;
    for (nb::handle v : t)
        values.push_back(nb::cast<std::int64_t>(v));
    return values;
}

// A result: (base_data, offset, shape, strides, dtype, event), the pieces of a new Array (see
// array_engine::result).
using result_tuple = nb::typed<nb::tuple, std::variant<cl::buffer, cl::svm_pointer>, std::int64_t, int_tuple_type,
                               int_tuple_type, python_type<"numpy.dtype[typing.Any]">, std::optional<cl::event>>;
// The arguments of a kernel (see kernel_args) and the arrays of indexed_copy.
using kernel_arg_list = nb::typed<nb::list, std::variant<python_type<"gpukit.cl.array.Array">, nb::bytes>>;
using cl_array_list = nb::typed<nb::list, python_type<"gpukit.cl.array.Array">>;

class array_engine {
public:
    array_engine(const cl::queue& q, nb::object allocator)
        : allocator_(std::move(allocator)),
          backend_(std::make_shared<array::opencl_backend>(
              q, [this](std::size_t bytes) { return buffer(bytes); }, device_include_option())) {}

    // The device_array of the Array `a` (its memory borrowed, kept alive by the Buffer or SVM
    // object).
    device_array borrowed(nb::handle a) const {
        nb::object base = a.attr("base_data");
        if (!nb::isinstance<cl::buffer>(base) && !nb::isinstance<cl::svm_pointer>(base))
            throw nb::type_error(
                ("the array's base_data must be a Buffer or SVM, got " + std::string(Py_TYPE(base.ptr())->tp_name))
                    .c_str());
        const std::optional<array::dtype> t = kernel_type(a.attr("dtype"));
        if (!t)
            throw nb::type_error(("arrays of dtype " +
                                  nb::cast<std::string>(nb::steal(PyObject_Str(nb::object(a.attr("dtype")).ptr()))) +
                                  " have no kernels")
                                     .c_str());
        const layout l(int_tuple(a.attr("shape")), int_tuple(a.attr("strides")),
                       static_cast<std::int64_t>(array::size_of(*t)), nb::cast<std::int64_t>(a.attr("offset")));
        return device_array(array::ndarray(memory_of(std::move(base)), *t, l), backend_);
    }

    // An operand: an Array (anything with base_data), or a scalar.
    struct operand {
        std::optional<device_array> a;
        std::optional<array::scalar> s;
    };
    operand operand_of(nb::handle h) const {
        if (nb::hasattr(h, "base_data"))
            return {borrowed(h), std::nullopt};
        std::optional<array::scalar> s = scalar_of(h);
        if (!s)
            throw nb::type_error(
                ("expected an Array or a scalar, got " + std::string(Py_TYPE(h.ptr())->tp_name)).c_str());
        return {std::nullopt, std::move(s)};
    }

    // (base_data, offset, shape, strides, dtype, event) of a result: the memory the allocator
    // gave, and the completion of the kernel that wrote it (None for a new empty array).
    result_tuple result(const device_array& r, bool written = true) const {
        const CUdeviceptr address = r.view().buffer()->address;
        nb::object base;
        for (const auto& [made_address, object] : made_)
            if (made_address == address)
                base = object;
        if (!base.is_valid())
            throw nb::value_error("internal: a result's Buffer was not made by the engine's allocator");
        const layout& l = r.view().layout();
        return nb::make_tuple(base, l.offset(), as_int_tuple(l.shape()), as_int_tuple(l.strides()),
                              nb::borrow(numpy_dtype(r.type())), written ? last_event() : nb::none());
    }

    // The completion of the last kernel queued (PyOpenCL's arrays keep one per operation), or
    // None before the first.
    nb::object last_event() const {
        std::optional<cl::event> e = backend_->last_event();
        return e ? nb::cast(std::move(*e)) : nb::none();
    }

    result_tuple empty(nb::handle shape, nb::handle dtype, bool fortran) {
        const call scope{*this};
        const std::optional<array::dtype> t = kernel_type(dtype);
        if (!t)
            throw nb::type_error("this dtype has no kernels");
        return result(device_array::empty(backend_, int_tuple(shape), *t, fortran ? order::f : order::c),
                      /*written=*/false);
    }

    result_tuple binary(std::string_view name, nb::handle x, nb::handle y) {
        const call scope{*this};
        const array::binary_op op = binary_op_named(name);
        operand a = operand_of(x), b = operand_of(y);
        if (a.a && b.a)
            return result(array::apply(op, *a.a, *b.a));
        if (a.a)
            return result(array::apply(op, *a.a, *b.s));
        if (b.a)
            return result(array::apply(op, *a.s, *b.a));
        throw nb::type_error("a binary operation needs an Array operand");
    }

    nb::object update(std::string_view name, nb::handle target, nb::handle y) {
        const call scope{*this};
        const array::binary_op op = binary_op_named(name);
        device_array t = borrowed(target);
        operand b = operand_of(y);
        if (b.a)
            t.update(op, *b.a);
        else
            t.update(op, *b.s);
        return last_event();
    }

    result_tuple unary(std::string_view name, nb::handle x) {
        const call scope{*this};
        return result(array::apply(unary_op_named(name), borrowed(x)));
    }

    // The engine's math function `name` ("sin", ...) of x, in numpy's result type.
    result_tuple math(std::string_view name, nb::handle x) {
        const call scope{*this};
        for (int k = 0; k < array::math_function_count; ++k) {
            const auto f = static_cast<array::math_function>(k);
            if (array::name(f) == name && array::input_count(f) == 1 && array::output_count(f) == 1)
                return result(array::apply(f, borrowed(x)));
        }
        throw nb::value_error(("no math function of one array named '" + std::string(name) + "'").c_str());
    }

    result_tuple astype(nb::handle x, nb::handle dtype) {
        const call scope{*this};
        const std::optional<array::dtype> t = kernel_type(dtype);
        if (!t)
            throw nb::type_error("astype: this dtype has no kernels");
        return result(borrowed(x).astype(*t));
    }

    result_tuple copy(nb::handle x) {
        const call scope{*this};
        return result(borrowed(x).copy());
    }

    nb::object assign(nb::handle target, nb::handle value) {
        const call scope{*this};
        device_array t = borrowed(target);
        operand v = operand_of(value);
        if (v.a)
            t.assign(*v.a);
        else
            t.assign(*v.s);
        return last_event();
    }

    result_tuple where(nb::handle condition, nb::handle then, nb::handle otherwise) {
        const call scope{*this};
        const device_array c = borrowed(condition);
        operand a = operand_of(then), b = operand_of(otherwise);
        if (a.a && b.a)
            return result(array::where(c, *a.a, *b.a));
        if (a.a)
            return result(array::where(c, *a.a, *b.s));
        if (b.a)
            return result(array::where(c, *a.s, *b.a));
        return result(array::where(c, *a.s, *b.s));
    }

    // sum, min, max of x; dot of x and y: a 0-d result.
    result_tuple reduce(std::string_view name, nb::handle x, nb::handle y) {
        const call scope{*this};
        const device_array a = borrowed(x);
        if (name == "sum")
            return result(array::sum(a));
        if (name == "min")
            return result(array::min(a));
        if (name == "max")
            return result(array::max(a));
        if (name == "dot")
            return result(array::dot(a, borrowed(y)));
        throw nb::value_error(("no reduction named '" + std::string(name) + "'").c_str());
    }

    // numpy's reduction `name` of x (and y, for dot) over x[subset[k]] (and y[subset[k]]).
    result_tuple subset_reduce(std::string_view name, nb::handle subset, nb::handle x, nb::handle y) {
        const call scope{*this};
        std::optional<device_array> b;
        if (!y.is_none())
            b = borrowed(y);
        return result(array::subset_reduce(array::reduction_op_from_name(name), borrowed(subset), borrowed(x),
                                           b ? &*b : nullptr));
    }

    // The reduction `spec` over i = start, start + step, ... (count of them), its arguments
    // as run()'s: a 0-d result of the spec's output type.
    result_tuple reduce_range(const array::reduction_spec& spec, kernel_arg_list args, long long start, long long step,
                              long long count) {
        const call scope{*this};
        std::vector<device_array> arrays;
        std::vector<array::param> params;
        for (const array::reduction_param& p : spec.params())
            params.push_back(
                {p.name, *p.type.dtype,
                 p.kind == array::reduction_param_kind::scalar ? array::param_kind::scalar : array::param_kind::input});
        const std::vector<array::elementwise_arg> values = kernel_args(spec.name(), params, args, arrays);
        // A struct of the caller's: its bytes (Python sees them as the record dtype).
        const array::value_type& output = spec.output();
        device_array out =
            output.dtype ? device_array::empty(backend_, {}, *output.dtype)
                         : device_array::empty(backend_, {static_cast<std::int64_t>(output.size)}, array::dtype::uint8);
        array::reduce(spec, values, start, step, count, out.view(), *backend_);
        return result(out);
    }

    result_tuple rand(nb::handle shape, nb::handle dtype, std::uint64_t seed) {
        const call scope{*this};
        const std::optional<array::dtype> t = kernel_type(dtype);
        if (!t)
            throw nb::type_error("rand: this dtype has no kernels");
        return result(array::rand(backend_, int_tuple(shape), *t, seed));
    }

    // Philox's uniform numbers (or bits) of `key` written into the contiguous `target`.
    nb::object fill_rand(nb::handle target, std::uint64_t key) {
        const device_array t = borrowed(target);
        random::fill_rand(t.view(), key, *backend_);
        return last_event();
    }

    // target[...] = host (C-contiguous, of target's dtype and size); blocking.
    void write(nb::handle target, nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu> host) {
        const call scope{*this};
        const auto* bytes = static_cast<const std::byte*>(host.data());
        borrowed(target).assign_from_host(std::span(bytes, host.nbytes()));
    }
    // host[...] = source's elements in C order (host C-contiguous, of source's dtype and size).
    void read(nb::handle source, nb::ndarray<nb::c_contig, nb::device::cpu> host) {
        const call scope{*this};
        auto* bytes = static_cast<std::byte*>(host.data());
        borrowed(source).to_host_bytes(std::span(bytes, host.nbytes()));
    }

    // The kernel of `spec` (gpukit._gpukit._ElementwiseSpec) over `args`: Arrays for its array
    // parameters (of one shape), the bytes of a value of the parameter's type for its scalars.
    nb::object run(const array::elementwise_spec& spec, kernel_arg_list args) {
        std::vector<device_array> arrays;  // keep the borrowed buffers through the launch
        const std::vector<array::elementwise_arg> values = kernel_args(spec.name(), spec.params(), args, arrays);
        array::run(spec, values, *backend_);
        return last_event();
    }

    // The generic scan `spec` over i in [0, n), its arguments as run()'s; the scratch memory
    // comes from the allocator.
    nb::object scan(const array::generic_scan_spec& spec, kernel_arg_list args, std::int64_t n) {
        const call scope{*this};
        std::vector<device_array> arrays;
        const std::vector<array::elementwise_arg> values = kernel_args(spec.name_prefix(), spec.params(), args, arrays);
        array::run(spec, values, n, *backend_);
        return last_event();
    }

    // Sorts `keys` along `axis` in place, moving `values` (None, or an Array of keys' shape)
    // with them.
    nb::object sort(nb::handle keys, nb::handle values, int axis) {
        const call scope{*this};
        const device_array k = borrowed(keys);
        std::optional<device_array> v;
        if (!values.is_none())
            v = borrowed(values);
        array::sort(k.view(), v ? &v->view() : nullptr, axis, *backend_);
        return last_event();
    }

    // outs[k][dest[i]] = sources[k][source[i] + offsets[k]] (indexing.hpp's indexed_copy).
    nb::object indexed_copy(cl_array_list sources, cl_array_list outs, nb::handle source_indices,
                            nb::handle dest_indices, const std::vector<std::int64_t>& offsets) {
        const call scope{*this};
        std::vector<array::ndarray> from, to;
        for (nb::handle a : sources)
            from.push_back(borrowed(a).view());
        for (nb::handle a : outs)
            to.push_back(borrowed(a).view());
        std::optional<device_array> source_index, dest_index;
        if (!source_indices.is_none())
            source_index = borrowed(source_indices);
        if (!dest_indices.is_none())
            dest_index = borrowed(dest_indices);
        array::indexed_copy(from, to, source_index ? &source_index->view() : nullptr,
                            dest_index ? &dest_index->view() : nullptr, offsets, *backend_);
        return last_event();
    }

    void finish() { backend_->synchronize(); }

    // Forgets the buffers the allocator made during one call, when the call ends (a result's
    // Buffer goes to Python; a reduction's scratch goes back to the allocator's pool).
    struct call {
        array_engine& engine;
        ~call() { engine.made_.clear(); }
    };

private:
    // A kernel's arguments: Arrays for its array parameters (their borrowed memory kept in
    // `arrays` through the launch), the bytes of a value of the parameter's type for scalars.
    std::vector<array::elementwise_arg> kernel_args(const std::string& kernel, const std::vector<array::param>& params,
                                                    nb::list args, std::vector<device_array>& arrays) const {
        if (args.size() != params.size())
            throw nb::type_error(("the kernel '" + kernel + "' takes " + std::to_string(params.size()) +
                                  " arguments, got " + std::to_string(args.size()))
                                     .c_str());
        arrays.reserve(params.size());
        std::vector<array::elementwise_arg> values;
        for (std::size_t k = 0; k < params.size(); ++k) {
            if (params[k].kind != array::param_kind::scalar) {
                arrays.push_back(borrowed(args[k]));
                values.emplace_back(arrays.back().view());
                continue;
            }
            const nb::bytes bytes = nb::cast<nb::bytes>(args[k]);
            array::scalar_value v;
            if (bytes.size() != array::size_of(params[k].type) || bytes.size() > v.bytes.size())
                throw nb::value_error(("the value of '" + params[k].name + "' has " + std::to_string(bytes.size()) +
                                       " bytes, its type " + std::to_string(array::size_of(params[k].type)))
                                          .c_str());
            std::memcpy(v.bytes.data(), bytes.c_str(), bytes.size());
            v.size = bytes.size();
            values.emplace_back(v);
        }
        return values;
    }

    // A Buffer or SVM object as the engine's memory, whose owner keeps the Python object (and
    // so a pool's block) alive.
    static std::shared_ptr<const array::device_buffer> memory_of(nb::object base) {
        std::shared_ptr<void> holder(new nb::object(base), [](void* p) {
            nb::gil_scoped_acquire gil;
            delete static_cast<nb::object*>(p);
        });
        if (nb::isinstance<cl::svm_pointer>(base)) {
            const cl::svm_pointer* svm = nb::inst_ptr<cl::svm_pointer>(base);
            if (svm->released())
                throw cl::logic_error("the array's SVM was released; keep SVM until the arrays over it are done",
                                      CL_INVALID_VALUE, "Array");
            return array::borrow(std::shared_ptr<const cl::svm_pointer>(holder, svm));
        }
        return array::borrow(std::shared_ptr<const cl::buffer>(holder, nb::inst_ptr<cl::buffer>(base)));
    }

    // The engine's buffer_source: the allocator's Buffer or SVM (or a new Buffer of the
    // context), remembered so that result() finds the Python object of a result's memory.
    std::shared_ptr<const array::device_buffer> buffer(std::size_t bytes) {
        nb::object made;
        if (allocator_.is_none()) {
            const cl::context ctx = cl::context::wrap(backend_->queue().context_handle());
            made = nb::cast(cl::buffer::create(ctx, CL_MEM_READ_WRITE, bytes));
        } else {
            made = allocator_(bytes);
            if (!nb::isinstance<cl::buffer>(made) && !nb::isinstance<cl::svm_pointer>(made))
                throw nb::type_error(("the array's allocator must return a Buffer or SVM, got " +
                                      std::string(Py_TYPE(made.ptr())->tp_name))
                                         .c_str());
        }
        std::shared_ptr<const array::device_buffer> memory = memory_of(made);
        made_.emplace_back(memory->address, std::move(made));
        return memory;
    }

    nb::object allocator_;
    std::vector<std::pair<CUdeviceptr, nb::object>> made_;  // the memory made since the last result()
    std::shared_ptr<array::opencl_backend> backend_;
};

}  // namespace

void bind_cl_array(nb::module_& m) {
    nb::class_<array_engine>(m, "_ArrayEngine",
                             "The array engine on one queue with one allocator (gpukit.cl.array's kernels).")
        .def(nb::init<const cl::queue&, nb::object>(), "queue"_a, "allocator"_a.none())
        .def("empty", &array_engine::empty, "shape"_a, "dtype"_a, "fortran"_a)
        .def("binary", &array_engine::binary, "name"_a, "x"_a, "y"_a)
        .def("update", &array_engine::update, "name"_a, "target"_a, "y"_a)
        .def("unary", &array_engine::unary, "name"_a, "x"_a)
        .def("math", &array_engine::math, "name"_a, "x"_a)
        .def("astype", &array_engine::astype, "x"_a, "dtype"_a)
        .def("copy", &array_engine::copy, "x"_a)
        .def("assign", &array_engine::assign, "target"_a, "value"_a)
        .def("where", &array_engine::where, "condition"_a, "then"_a, "otherwise"_a)
        .def("reduce", &array_engine::reduce, "name"_a, "x"_a, "y"_a.none())
        .def("rand", &array_engine::rand, "shape"_a, "dtype"_a, "seed"_a)
        .def("fill_rand", &array_engine::fill_rand, "target"_a, "key"_a)
        .def("write", &array_engine::write, "target"_a, "host"_a)
        .def("read", &array_engine::read, "source"_a, "host"_a)
        .def("run", &array_engine::run, "spec"_a, "args"_a)
        .def("scan", &array_engine::scan, "spec"_a, "args"_a, "n"_a)
        .def("sort", &array_engine::sort, "keys"_a, "values"_a.none(), "axis"_a)
        .def("indexed_copy", &array_engine::indexed_copy, "sources"_a, "outs"_a, "source_indices"_a.none(),
             "dest_indices"_a.none(), "offsets"_a)
        .def("subset_reduce", &array_engine::subset_reduce, "name"_a, "subset"_a, "x"_a, "y"_a.none())
        .def("reduce_range", &array_engine::reduce_range, "spec"_a, "args"_a, "start"_a, "step"_a, "count"_a)
        .def("finish", &array_engine::finish);
}

}  // namespace gpukit::python
