#include "array/array_operators.hpp"

#include "array/array_fusion.hpp"
#include "common/exit_cleanup.hpp"
#include "common/memory_args.hpp"

#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/scalar.hpp"
#include "gpukit/array/views.hpp"
#include "gpukit/core/error.hpp"

#include <nanobind/stl/string.h>

#include <cmath>
#include <complex>
#include <span>
#include <cstring>
#include <string>
#include <vector>

namespace gpukit::python {

using array::binary_op;
using array::dtype;
using array::expression;

namespace {

// ---- scalars

using scalar_operand = array::scalar;

// The value of a Python int: its sign and magnitude (python_int_of), and for one of more than
// 64 bits its nearest double, infinite beyond float64's range (scalar_bytes raises Python's
// OverflowError text where it must convert such an int to a float).
void set_integer(scalar_operand& s, nb::handle value) {
    s.how.value = python_int_of(value);
    if (s.how.value.beyond_64_bits) {
        double nearest = PyLong_AsDouble(value.ptr());
        if (nearest == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            nearest = HUGE_VAL;
        }
        s.value = nearest;
    }
}

}  // namespace

std::optional<array::scalar> scalar_of(nb::handle h) {
    scalar_operand s;
    PyObject* p = h.ptr();
    const auto complex_value = [](PyObject* c) {
        const Py_complex v = PyComplex_AsCComplex(c);
        return std::complex<double>(v.real, v.imag);
    };
    // numpy's scalars first: np.float64 is a Python float and np.complex128 a complex, but
    // they are typed ("strong") operands, where Python's own are weak (NEP 50).
    if (!PyFloat_CheckExact(p) && !PyLong_CheckExact(p) && !PyBool_Check(p) && !PyComplex_CheckExact(p) &&
        nb::hasattr(h, "dtype") && !is_array(h)) {
        static cached_object generic([]() -> nb::object { return nb::module_::import_("numpy").attr("generic"); });
        const bool numpy_scalar = PyObject_IsInstance(p, generic.get().ptr()) == 1;
        // A class such as numpy.float32 has these attributes too, as descriptors: ndim must be an int.
        int ndim = -1;
        const bool zero_d = !numpy_scalar && nb::hasattr(h, "ndim") && nb::hasattr(h, "item") &&
                            nb::try_cast(h.attr("ndim"), ndim) && ndim == 0 && nb::hasattr(h, "__array_interface__");
        if (!numpy_scalar && !zero_d)
            return std::nullopt;
        const auto t = kernel_type(h.attr("dtype"));
        if (!t)
            return std::nullopt;
        s.how = {array::operand::kind::typed, *t, {}};
        nb::object value = h.attr("item")();
        if (array::kind(*t) == array::dtype_kind::complex) {
            s.number = scalar_operand::number_kind::complex;
            s.value = complex_value(value.ptr());
        } else if (array::kind(*t) == array::dtype_kind::floating) {
            s.number = scalar_operand::number_kind::floating;
            s.value = PyFloat_AsDouble(value.ptr());
        } else {
            set_integer(s, value);  // a Python int or bool
        }
        return s;
    }
    if (PyBool_Check(p)) {
        s.how = {array::operand::kind::typed, dtype::bool_, {}};
        s.how.value.magnitude = p == Py_True;
        return s;
    }
    if (PyLong_Check(p)) {
        s.how = {array::operand::kind::python_int, dtype::int64, {}};
        set_integer(s, h);
        return s;
    }
    if (PyFloat_Check(p)) {
        s.how.k = array::operand::kind::python_float;
        s.number = scalar_operand::number_kind::floating;
        s.value = PyFloat_AsDouble(p);
        return s;
    }
    if (PyComplex_Check(p)) {
        s.how.k = array::operand::kind::python_complex;
        s.number = scalar_operand::number_kind::complex;
        s.value = complex_value(p);
        return s;
    }
    return std::nullopt;
}

namespace {

// ---- building an expression and its operands (the engine's fusion, array/fusion.hpp)

using fused = array::fused_expression<nb::object>;
using term = array::fusion_term<nb::object>;

// The term of array `h`, offering its pending expression for fusion when `fuse`.
term array_term(nb::handle h, bool fuse, const char* what) {
    const array_object& a = array_of(h);
    const dtype t = require_kernel_type(a, what);
    if (!a.pending)
        require_aligned(a, t);  // before the result is allocated (a pending array's memory will be)
    return term::of_array(nb::borrow(h), h.ptr(), t, a.layout.shape(), fuse ? a.pending.get() : nullptr);
}

// The term of an array or scalar `h`; nullopt for anything else.
std::optional<term> term_of(nb::handle h, bool fuse, const char* what) {
    if (is_array(h))
        return array_term(h, fuse, what);
    std::optional<scalar_operand> s = scalar_of(h);
    if (!s)
        return std::nullopt;
    return term::of_scalar(*s);
}

// The expression of array `h` alone (element i of it), joining `into`'s operands.
expression array_expression(nb::handle h, fused& into, const char* what) {
    const term t = array_term(h, false, what);
    return array::materialize(t, t.how.type, into);
}

// `into` made ready to run: the expression and shape of its last term.
void take(fused& into, term&& t) {
    into.e = std::move(*t.built);
    into.shape = std::move(t.shape);
}

std::size_t launches = 0;  // kernels the operators have run (a test counts them); GIL held

// Runs `spec` on `args`; the GIL is released while the kernel is queued.
void run_counted(const array::elementwise_spec& spec, std::span<const array::elementwise_arg> args,
                 cuda::stream_view stream) {
    ++launches;
    release_gil unlocked;
    array::run(spec, args, stream);
}

// Runs `e` over `operands` into `out` (whose shape the operands broadcast to); a pending
// operand is computed first.
void launch(const expression& e, const std::vector<expression_operand>& operands, array_object& out,
            cuda::stream_view stream) {
    const array::elementwise_spec& spec = array::expression_kernel(e);
    std::vector<array::elementwise_arg> args;
    args.reserve(operands.size() + 1);
    std::vector<nb::object> copies;  // inputs copied because they overlap the output
    for (const expression_operand& o : operands) {
        if (!o.array) {
            args.emplace_back(o.scalar);
            continue;
        }
        array_object* input = &settled(*o.array);
        if (overlaps_differently(*input, out)) {
            copies.push_back(converted(*input, *input->type, stream));
            input = &array_of(copies.back());
        }
        args.emplace_back(as_ndarray(*input, out.layout.shape()));
    }
    args.emplace_back(as_ndarray(out));
    run_counted(spec, args, stream);
}

// A TypeError for a host array operand (returning NotImplemented would let numpy's reflected
// operator make an object array of GPUArrays); nothing for other objects.
void refuse_host_array(nb::handle h, const char* what) {
    static cached_object host_array([]() -> nb::object { return nb::module_::import_("numpy").attr("ndarray"); });
    if (PyObject_IsInstance(h.ptr(), host_array.get().ptr()) == 1)
        throw nb::type_error(("GPUArray " + std::string(what) +
                              " numpy.ndarray: copy the host array to the device first (gpuarray.to_gpu)")
                                 .c_str());
}

// TypeError "<what>: <expected>, got <the type of h>".
[[noreturn]] void throw_wrong_type(const char* what, const char* expected, nb::handle h) {
    throw nb::type_error(
        (std::string(what) + ": " + expected + ", got " + nb::cast<std::string>(nb::str(h.type()))).c_str());
}

// An operand that is neither a GPUArray nor a scalar: refuse_host_array's TypeError for a
// host array, else throw_wrong_type's.
[[noreturn]] void refuse_operand(nb::handle h, const char* what, const char* expected) {
    refuse_host_array(h, what);
    throw_wrong_type(what, expected, h);
}

// The expression and operands of `self <op> other` (reflected: other <op> self); nullopt
// when `other` is neither an array nor a scalar.
std::optional<fused> build_binary(binary_op op, nb::handle self, nb::handle other, bool reflected, bool fuse) {
    const char* what = array::symbol(op).data();
    const term mine = array_term(self, fuse, what);
    const std::optional<term> theirs = term_of(other, fuse, what);
    if (!theirs) {
        refuse_host_array(other, what);
        return std::nullopt;
    }
    fused b;
    take(b, reflected ? array::combine(op, *theirs, mine, b) : array::combine(op, mine, *theirs, b));
    return b;
}

// Writes `b` into `target`, cast as numpy's same_kind rule allows; `what` names the operation.
void write_into(fused& b, array_object& target, const char* what, cuda::stream_view stream) {
    const dtype target_type = require_kernel_type(target, what);
    array::require_same_kind_output(what, b.e.type(), target_type);
    if (b.shape != target.layout.shape())
        throw nb::value_error(("non-broadcastable output operand with shape " + shape_text(target.layout.shape()) +
                               " doesn't match the broadcast shape " + shape_text(b.shape))
                                  .c_str());
    if (b.e.type() != target_type)
        b.e = expression::unary(array::unary_op::cast, b.e, b.e.type(), target_type);
    launch(b.e, b.operands, target, stream);
}

// How a function's new result is made for an operand of a subclass gpukit does not make
// results of: as PyCUDA makes it, from the operand's _new_like_me (with the order, as for
// real, imag and conj), or as a plain GPUArray (PyCUDA's empty_like).
enum class subclass_result { plain, new_like_me, new_like_me_with_order };

// Runs `b` into target.out, or into a new array like `like` (C order unless `new_layout`).
nb::object finish(fused& b, nb::handle like_object, const result_target& target, const char* what, subclass_result rule,
                  const std::optional<gpukit::layout>& new_layout = std::nullopt) {
    const array_object& like = array_of(like_object);
    if (!target.out.is_none()) {
        if (!is_array(target.out))
            throw_wrong_type(what, "out must be a GPUArray", target.out);
        array_object& out = settled(target.out);
        write_into(b, out, what, target.stream.is_none() ? stream_of(out) : stream_arg(target.stream));
        return nb::borrow(target.out);
    }
    const dtype type = b.e.type();
    const cuda::stream_view stream = target.stream.is_none() ? stream_of(like) : stream_arg(target.stream);
    if (rule != subclass_result::plain && target.allocator.is_none() && !makes_own_results(like_object.type())) {
        const bool fortran = new_layout && new_layout->is_f_contiguous() && !new_layout->is_c_contiguous();
        nb::object out = new_result(like_object, b.shape, type, fortran ? order::f : order::c,
                                    rule == subclass_result::new_like_me_with_order);
        launch(b.e, b.operands, array_of(out), stream);
        return out;
    }
    const gpukit::layout l =
        new_layout ? *new_layout : gpukit::layout::contiguous(b.shape, static_cast<std::int64_t>(array::size_of(type)));
    nb::object out = new_array(l, numpy_dtype(type),
                               target.allocator.is_none() ? nb::handle(like.allocator) : target.allocator, like.stream);
    launch(b.e, b.operands, array_of(out), stream);
    return out;
}

// The operand PyCUDA asks for the result of `self <op> other` (_new_like_me): self when it
// has the result's shape, else `other` when it is an array of that shape; None when neither
// has it (a broadcast PyCUDA refuses, which gpukit answers with a plain GPUArray).
nb::handle result_operand(nb::handle self, nb::handle other, const std::vector<std::int64_t>& shape) {
    if (array_of(self).layout.shape() == shape)
        return self;
    if (is_array(other) && array_of(other).layout.shape() == shape)
        return other;
    return nb::handle();
}

// A pending array standing for `b`, with the allocator and stream of `like`.
nb::object pending_array(fused&& b, const array_object& like) {
    array_object result;
    const dtype type = b.e.type();
    result.layout = gpukit::layout::contiguous(b.shape, static_cast<std::int64_t>(array::size_of(type)));
    result.dtype = nb::borrow(numpy_dtype(type));
    result.type = type;
    result.gpudata = result.base = nb::none();
    result.allocator = like.allocator;
    result.stream = like.stream;
    result.pending = std::make_unique<pending_result>(std::move(b));
    return wrap_array(result_class(), std::move(result));
}

}  // namespace

bool overlaps_differently(const array_object& a, const array_object& b) {
    return array::overlaps_differently(a.address, a.layout, b.address, b.layout, a.type != b.type);
}

nb::object binary_operator(binary_op op, nb::handle self, nb::handle other, bool reflected) {
    // The fusion check comes first and only for fusable operators: it reads the caller's
    // bytecode position, which only matters while this operator runs.
    const bool fuse = array::fusable(op) && result_feeds_next_operator();
    std::optional<fused> b = build_binary(op, self, other, reflected, array::fusable(op));
    if (!b)
        return nb::borrow(Py_NotImplemented);
    const array_object& like = array_of(self);
    const nb::handle asked = result_operand(self, other, b->shape);
    if (asked.is_valid() && !makes_own_results(asked.type())) {
        nb::object out = new_result(asked, b->shape, b->e.type());
        launch(b->e, b->operands, array_of(out), stream_of(like));
        return out;
    }
    if (fuse && b->operands.size() < array::max_fused_operands && !b->operands.empty())
        return pending_array(std::move(*b), like);
    nb::object out = new_array(b->shape, b->e.type(), like);
    array_object& result = array_of(out);
    launch(b->e, b->operands, result, stream_of(result));
    return out;
}

nb::object in_place_operator(binary_op op, nb::handle self, nb::handle other) {
    std::optional<fused> b = build_binary(op, self, other, false, false);
    if (!b)
        return nb::borrow(Py_NotImplemented);
    array_object& target = settled(self);
    write_into(*b, target, array::symbol(op).data(), stream_of(target));
    return nb::borrow(self);
}

nb::object unary_operator(array::unary_op op, nb::handle self) {
    array_object& a = settled(self);
    const dtype t = require_kernel_type(a, op == array::unary_op::negative ? "-" : "abs");
    const array::unary_types types = array::resolve_unary(op, t);
    fused operands;
    const expression e =
        expression::unary(op, array_expression(self, operands, "unary operator"), types.compute, types.result);
    nb::object out = new_result(self, a.layout.shape(), types.result);
    launch(e, operands.operands, array_of(out), stream_of(a));
    return out;
}

nb::object binary_function(binary_op op, nb::handle x, nb::handle y, const result_target& target) {
    const char* what = array::symbol(op).data();
    const std::optional<term> tx = term_of(x, false, what), ty = term_of(y, false, what);
    for (const auto& [t, h] : {std::pair{&tx, x}, std::pair{&ty, y}})
        if (!*t)
            refuse_operand(h, what, "operands are GPUArrays or scalars");
    if (!tx->array && !ty->array)
        throw nb::type_error((std::string(what) + ": at least one operand must be a GPUArray").c_str());
    fused b;
    take(b, array::combine(op, *tx, *ty, b));
    // PyCUDA's logical_and and logical_or ask the array for their result; minimum and
    // maximum make a plain one.
    const bool logical = op == binary_op::logical_and || op == binary_op::logical_or;
    return finish(b, tx->array ? x : y, target, what, logical ? subclass_result::new_like_me : subclass_result::plain);
}

nb::object unary_function(array::unary_op op, nb::handle x, const result_target& target) {
    const char* what = op == array::unary_op::conjugate ? "conj"
                       : op == array::unary_op::real    ? "real"
                       : op == array::unary_op::imag    ? "imag"
                                                        : "logical_not";
    if (!is_array(x))
        throw_wrong_type(what, "expected a GPUArray", x);
    array_object& a = settled(x);
    const array::unary_types types = array::resolve_unary(op, require_kernel_type(a, what));
    const dtype result = types.result;
    fused b;
    b.e = expression::unary(op, array_expression(x, b, what), types.compute, result);
    b.shape = a.layout.shape();
    // PyCUDA asks the array for conj, real and imag, in its order; logical_not is a plain array.
    return finish(b, x, target, what,
                  op == array::unary_op::logical_not ? subclass_result::plain : subclass_result::new_like_me_with_order,
                  gpukit::layout::contiguous_like(a.layout, static_cast<std::int64_t>(array::size_of(result))));
}

nb::object select_function(bool positive, nb::handle criterion, nb::handle then, nb::handle otherwise,
                           const result_target& target) {
    const char* what = positive ? "if_positive" : "where";
    if (!is_array(criterion))
        throw_wrong_type(what, "the criterion must be a GPUArray", criterion);
    const std::optional<term> t_then = term_of(then, false, what), t_otherwise = term_of(otherwise, false, what);
    for (const auto& [t, h] : {std::pair{&t_then, then}, std::pair{&t_otherwise, otherwise}})
        if (!*t)
            refuse_operand(h, what, "the choices are GPUArrays or scalars");
    fused b;
    const term c = array_term(criterion, false, what);
    const expression condition =
        positive ? *array::combine(binary_op::greater, c, term::of_scalar(array::scalar(0)), b).built
                 : array::materialize(c, c.how.type, b);
    const dtype type = array::select_type(t_then->how, t_otherwise->how);
    const expression e_then = array::materialize(*t_then, type, b);
    const expression e_otherwise = array::materialize(*t_otherwise, type, b);
    b.e = expression::select(condition, e_then, e_otherwise, type);
    b.shape = broadcast_shapes(broadcast_shapes(c.shape, t_then->shape), t_otherwise->shape);
    return finish(b,
                  t_then->array        ? then
                  : t_otherwise->array ? otherwise
                                       : criterion,
                  target, what, subclass_result::plain);
}

nb::object mul_add(nb::handle self, nb::handle selffac, nb::handle other, nb::handle otherfac,
                   const result_target& target) {
    const char* what = "mul_add";
    const term mine = array_term(self, false, what);
    std::optional<term> terms[3] = {term_of(selffac, false, what), term_of(other, false, what),
                                    term_of(otherfac, false, what)};
    for (const auto& t : terms)
        if (!t)
            throw nb::type_error(
                "mul_add(selffac, other, otherfac): the factors are scalars, other a GPUArray or "
                "a scalar");
    fused b;
    const term left = array::combine(binary_op::multiply, *terms[0], mine, b);
    const term right = array::combine(binary_op::multiply, *terms[2], *terms[1], b);
    take(b, array::combine(binary_op::add, left, right, b));
    return finish(b, self, target, what, subclass_result::new_like_me);
}

nb::object converted(array_object& source, dtype to, cuda::stream_view stream, order o) {
    nb::object out = new_array(source.layout.shape(), to, source, o);
    convert_into(source, array_of(out), stream);
    return out;
}

void convert_into(array_object& source, array_object& target, cuda::stream_view stream) {
    const dtype from = require_kernel_type(source, "astype"), to = require_kernel_type(target, "astype");
    const expression e = expression::unary(array::unary_op::cast, expression::array(0, from), from, to);
    const array::elementwise_spec& spec = array::expression_kernel(e);
    const array::elementwise_arg args[] = {as_ndarray(source), as_ndarray(target)};
    run_counted(spec, args, stream);
}

void assign(nb::handle target_object, nb::handle source_object, cuda::stream_view stream) {
    array_object& target = settled(target_object);
    array_object& source = settled(source_object);
    const dtype to = require_kernel_type(target, "__setitem__"), from = require_kernel_type(source, "__setitem__");
    const std::vector<std::int64_t>& shape = target.layout.shape();
    if (broadcast_shapes(source.layout.shape(), shape) != shape)
        throw nb::value_error(("could not broadcast input array from shape " + shape_text(source.layout.shape()) +
                               " into shape " + shape_text(shape))
                                  .c_str());
    const expression e = expression::unary(array::unary_op::cast, expression::array(0, from), from, to);
    // An input that overlaps the target differently is copied first (launch() does that).
    launch(e, {{nb::borrow(source_object), {}}}, target, stream);
}

void fill(array_object& target, const array::scalar_value& value, cuda::stream_view stream) {
    const dtype t = require_kernel_type(target, "fill");
    const expression e = expression::scalar(0, t);
    const array::elementwise_spec& spec = array::expression_kernel(e);
    const array::elementwise_arg args[] = {value, as_ndarray(target)};
    run_counted(spec, args, stream);
}

std::size_t operator_kernel_launches() noexcept { return launches; }

const array::elementwise_spec& operator_spec(binary_op op, nb::handle left, nb::handle right) {
    // Each side: a dtype name (an array of it) or a scalar, as the operators see them.
    std::optional<term> sides[2];
    for (int k = 0; k < 2; ++k) {
        nb::handle side = k == 0 ? left : right;
        if (nb::isinstance<nb::str>(side)) {
            const dtype t = array::dtype_from_name(nb::cast<std::string>(side));
            sides[k] = term::of_array(nb::object(), &sides[k], t, {});
        } else if (std::optional<scalar_operand> s = scalar_of(side)) {
            sides[k] = term::of_scalar(*s);
        } else {
            throw nb::type_error("_operator_spec: each side is a dtype name or a scalar");
        }
    }
    fused f;
    return array::expression_kernel(*array::combine(op, *sides[0], *sides[1], f).built);
}

void settle(array_object& a) {
    std::unique_ptr<pending_result> p = std::move(a.pending);
    try {
        allocate(a);
        launch(p->e, p->operands, a, stream_of(a));
    } catch (...) {
        a.pending = std::move(p);  // still pending: a later use tries again
        a.gpudata = nb::none();
        a.address = 0;
        throw;
    }
}

array::python_int python_int_of(nb::handle value) {
    array::python_int result;
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred())
        nb::raise_python_error();
    if (overflow == 0) {
        result.negative = v < 0;
        result.magnitude = v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
        return result;
    }
    result.negative = overflow < 0;
    nb::object magnitude = nb::steal(PyNumber_Absolute(value.ptr()));
    const unsigned long long m = PyLong_AsUnsignedLongLong(magnitude.ptr());
    if (m == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        result.beyond_64_bits = true;
    } else {
        result.magnitude = m;
    }
    return result;
}

}  // namespace gpukit::python
