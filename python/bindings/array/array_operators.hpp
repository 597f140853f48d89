// GPUArray's operators and numpy's elementwise functions of arrays and scalars (minimum,
// where, logical_and, conj, ...), each one crossing from Python: the operand types resolved by
// the C++ promotion table (array/promotion.hpp), shapes broadcast by the layout code, the
// result taken from the context's pool, and the kernel found by the expression's few bytes
// (array/expression.hpp). Fusable results may be left pending (array_fusion.hpp).
#pragma once

#include "array/array_object.hpp"

#include "gpukit/array/expression.hpp"
#include "gpukit/array/promotion.hpp"
#include "gpukit/array/scalar.hpp"

namespace gpukit::python {

// The Python int `value` as the promotion table sees it: its sign and magnitude, or only its
// sign when the magnitude needs more than 64 bits.
array::python_int python_int_of(nb::handle value);

// The scalar `h`, or nullopt when it is not one gpukit takes (Python bool, int, float and
// complex and their subclasses, numpy scalars and 0-d numpy arrays of a kernel type; numpy's
// are typed operands, Python's weak ones, NEP 50).
std::optional<array::scalar> scalar_of(nb::handle h);

// self <op> other (reflected: other <op> self). NotImplemented for operands that are not
// arrays or scalars, so Python tries the other operand's method.
nb::object binary_operator(array::binary_op op, nb::handle self, nb::handle other, bool reflected);
// self <op>= other: the result is written into self (cast as numpy's same_kind rule allows).
nb::object in_place_operator(array::binary_op op, nb::handle self, nb::handle other);
// -self, abs(self).
nb::object unary_operator(array::unary_op op, nb::handle self);

// Where the functions below put their result: into `out` when it is an array (cast as
// numpy's same_kind rule allows; its shape must be the result's), else into a new array
// from `allocator` (None: the allocator of the first array operand). The kernel runs on
// `stream` (None: out's, else the first array operand's).
struct result_target {
    nb::handle out, allocator, stream;
};

// numpy's function `op` (minimum, maximum, logical_and, logical_or, or an operator) of x and
// y: arrays, Python scalars or numpy scalars, at least one an array (TypeError otherwise).
nb::object binary_function(array::binary_op op, nb::handle x, nb::handle y, const result_target& target);
// numpy's function `op` (conjugate, real, imag, logical_not) of the array x; a new result
// keeps x's order of axes (numpy's order 'K').
nb::object unary_function(array::unary_op op, nb::handle x, const result_target& target);
// numpy.where(criterion, then, otherwise) (positive: PyCUDA's if_positive, the criterion
// tested for > 0 instead of non-zero): the criterion an array, the others arrays or scalars,
// all broadcast together; the result type is numpy.result_type(then, otherwise).
nb::object select_function(bool positive, nb::handle criterion, nb::handle then, nb::handle otherwise,
                           const result_target& target);
// selffac * self + otherfac * other in one kernel, typed as numpy types that expression.
nb::object mul_add(nb::handle self, nb::handle selffac, nb::handle other, nb::handle otherfac,
                   const result_target& target);

// A new contiguous array (in order `o`) with the values of `source` converted to `to`, on `stream`.
nb::object converted(array_object& source, array::dtype to, cuda::stream_view stream, order o = order::c);
// target[...] = source converted to target's type (one shape), on `stream`.
void convert_into(array_object& source, array_object& target, cuda::stream_view stream);
// target[...] = source (both _Array objects), converting and broadcasting source as numpy does.
void assign(nb::handle target, nb::handle source, cuda::stream_view stream);
// Every element of `target` set to `value` (bytes of target's type).
void fill(array_object& target, const array::scalar_value& value, cuda::stream_view stream);

// Whether the bytes two arrays touch overlap without being the same elements in the same
// order: then a kernel reading one while writing the other would race (numpy copies first).
bool overlaps_differently(const array_object& a, const array_object& b);

// How many kernels the operators, fills and conversions have run in this process.
std::size_t operator_kernel_launches() noexcept;

// The kernel `left <op> right` runs, without running it (for compile tests of every
// generated kernel): each side is a dtype name (an array of that type) or a scalar.
const array::elementwise_spec& operator_spec(array::binary_op op, nb::handle left, nb::handle right);

// Computes a pending array into memory of its own.
void settle(array_object& a);

// The class of the arrays operators return (GPUArray; set once from Python).
void set_result_class(nb::handle cls);

}  // namespace gpukit::python
