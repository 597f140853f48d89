// gpukit::array::device_array: the n-d device array of C++ programs, with numpy's semantics.
//
//     using namespace gpukit;
//     cuda::context ctx = ...;                       // a current context
//     array::device_array x = array::device_array::from_host(values);  // a std::vector<float>
//     array::device_array y = 2 * x + 1;               // float32, as numpy computes it
//     double total = array::sum(y).item<double>();     // sum() of float32 is float32
//     std::vector<float> back = y.to_host<float>();
//
// A device_array is a value: copying one copies a handle, and the copies (and every view made by
// reshape, transpose or indexing) share the device memory, which goes back to the current
// context's default pool when the last of them goes, as numpy's views share their base.
// copy() makes new memory.
//
// Operations follow numpy 2: the result type of a binary operation is numpy's (array/
// promotion.hpp), with a C++ scalar taking part as a Python scalar does (NEP 50: `2 * x`
// keeps x's float32; `x + 1.5` of an int32 array is float64; a scalar that does not fit the
// array's integer type is an error); shapes broadcast as numpy's do. Every operation is
// queued on the default stream of the current context and returns without waiting, except
// the copies to the host (to_host, item), which wait for it. Errors are gpukit's exceptions:
// type_error for an operation numpy refuses for the types, logic_error for shapes that do
// not broadcast or a wrong element type, and the driver's errors as cuda_error.
//
// An array may also live on a backend (array/backend.hpp), such as an OpenCL device:
//
//     auto device = std::make_shared<array::opencl_backend>(queue);
//     array::device_array x = array::device_array::from_host(device, values);
//     array::device_array y = 2 * x + 1;             // runs on `device`, as OpenCL C
//
// Its operations run on that backend, results live there too, and operands of two backends
// (or of a backend and the current CUDA context) are a logic_error. On OpenCL: the
// operators (comparisons and where() included), astype, copy, sum, dot, min, max, rand and
// the math functions of real numbers, over real and complex elements; scans, min and max of
// complex elements and the math functions of complex numbers are not there yet (logic_error
// saying so).
//
// Arithmetic fuses: the operators +, -, * and / of one statement run as one kernel where one
// feeds the next, so `z = 2 * x + y` reads x and y once and writes z once (one launch, no
// temporary array), as the Python operators do. An operator's result is computed by the end of
// the statement that made it (its operands, made where the operators are called, live that long;
// array_operand), so a later statement always sees it computed from its operands' values at
// that time; using it within its statement (to_host, view(), any function) computes it then.
// A launch that fails at the end of a statement is reported by the first use of the result.
//
// The engine underneath (elementwise, reduction, scan, math_functions, random) is usable on
// its own: view() gives the ndarray those functions take.
#pragma once

#include "gpukit/array/backend.hpp"
#include "gpukit/array/dtype.hpp"
#include "gpukit/array/expression.hpp"
#include "gpukit/array/fusion.hpp"
#include "gpukit/array/math_functions.hpp"
#include "gpukit/array/ndarray.hpp"
#include "gpukit/array/promotion.hpp"
#include "gpukit/array/scalar.hpp"

#include <complex>
#include <concepts>
#include <memory>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace gpukit::array {

// The dtype of a C++ element type: bool, the fixed-width integers (and the standard integer
// types of their sizes), float, double, std::complex<float> and std::complex<double>.
template <class T>
constexpr dtype dtype_of() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>)
        return dtype::bool_;
    else if constexpr (std::is_same_v<U, float>)
        return dtype::float32;
    else if constexpr (std::is_same_v<U, double>)
        return dtype::float64;
    else if constexpr (std::is_same_v<U, std::complex<float>>)
        return dtype::complex64;
    else if constexpr (std::is_same_v<U, std::complex<double>>)
        return dtype::complex128;
    else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>)
        return sizeof(U) == 1   ? dtype::int8
               : sizeof(U) == 2 ? dtype::int16
               : sizeof(U) == 4 ? dtype::int32
                                : dtype::int64;
    else if constexpr (std::is_integral_v<U>)
        return sizeof(U) == 1   ? dtype::uint8
               : sizeof(U) == 2 ? dtype::uint16
               : sizeof(U) == 4 ? dtype::uint32
                                : dtype::uint64;
    else
        static_assert(sizeof(U) == 0, "no gpukit dtype holds this C++ type");
}

class device_array;

namespace detail {

struct pending_array;  // what a result waits for until its statement ends (array.cpp)
struct fusion_access;  // the operators' way to pending results (array.cpp)

// The operands of an operator live until the end of the statement that calls it (they are
// temporaries bound to its parameters); the first of them to go computes the operator's result,
// unless a later operator of the statement fused it away or the result is gone.
class settles_at_statement_end {
public:
    settles_at_statement_end() = default;
    settles_at_statement_end(const settles_at_statement_end&) = delete;
    settles_at_statement_end& operator=(const settles_at_statement_end&) = delete;
    ~settles_at_statement_end();

    // Called by the operator this operand was passed to, with its result.
    void settles(const std::shared_ptr<pending_array>& result) const noexcept { result_ = result; }

private:
    mutable std::weak_ptr<pending_array> result_;
};

}  // namespace detail

// An array operand of the elementwise operators. Made implicitly where an operator is called;
// a temporary (the result of another operator of the same statement) may be fused into the
// operator's kernel.
class array_operand : public detail::settles_at_statement_end {
public:
    // clang-format off

    // An array the caller holds (a named one): read as it is, never fused into the operator.
    array_operand(const device_array& a) noexcept : array_(&a) {}               // NOLINT(google-explicit-constructor)
    // A temporary array (another operator's result in the same statement): its pending
    // expression may be fused into this operator's kernel.
    array_operand(device_array&& a) noexcept : array_(&a), temporary_(true) {}  // NOLINT
    // clang-format on

    // The array passed (it lives until the end of the statement).
    const device_array& array() const noexcept { return *array_; }
    // Whether the array was passed as a temporary, so that the operator may fuse it.
    bool temporary() const noexcept { return temporary_; }

private:
    const device_array* array_;
    bool temporary_ = false;
};

// A scalar operand of the elementwise operators: a C++ number or a gpukit::array::scalar.
class scalar_operand : public detail::settles_at_statement_end {
public:
    // A scalar as given (a numpy scalar the bindings made keeps its dtype).
    scalar_operand(const scalar& s) : value_(s) {}  // NOLINT(google-explicit-constructor)
    // A C++ number, taking part as a Python scalar does (NEP 50); a bool is a typed bool.
    template <scalar_type T>
    scalar_operand(T v) : value_(v) {}  // NOLINT(google-explicit-constructor)

    // The scalar the operator reads.
    const scalar& value() const noexcept { return value_; }

private:
    scalar value_;
};

// An n-dimensional array of device memory with numpy's semantics: a handle, whose copies and
// views share the memory (see the top of this file).
class device_array {
public:
    // An array over the memory `view` refers to, kept alive by the view's buffer; `runs_on`:
    // the backend of that memory (null: the current CUDA context's).
    explicit device_array(ndarray view, std::shared_ptr<backend> runs_on = {})
        : view_(std::move(view)), backend_(std::move(runs_on)) {}

    // Uninitialised memory from the current context's default pool (logic_error without a
    // current context).
    static device_array empty(std::vector<std::int64_t> shape, dtype t, order o = order::c);
    // Zeros.
    static device_array zeros(std::vector<std::int64_t> shape, dtype t, order o = order::c);
    // The same on backend `b` (its memory; logic_error for a null b).
    static device_array empty(std::shared_ptr<backend> b, std::vector<std::int64_t> shape, dtype t, order o = order::c);
    // Zeros in memory of backend `b`, written from the host by b's write() (logic_error for a
    // null b).
    static device_array zeros(std::shared_ptr<backend> b, std::vector<std::int64_t> shape, dtype t, order o = order::c);
    // `values` copied to the device, as a 1-d array of `dtype_of<T>()` in memory of the current
    // context's default pool; returns when the copy is done.
    template <class T>
    static device_array from_host(std::span<const T> values) {
        return from_host(values, {static_cast<std::int64_t>(values.size())});
    }
    // `values` copied to the device as an array of `shape`, in C order ({} for a 0-d array of
    // one value); logic_error when the shape's size is not values.size().
    template <class T>
    static device_array from_host(std::span<const T> values, std::vector<std::int64_t> shape) {
        return from_host_bytes({}, std::as_bytes(values), dtype_of<T>(), values.size(), std::move(shape));
    }
    // The elements of a vector copied to the device, as a 1-d array (a std::vector of bool
    // gives a bool array).
    template <class T>
    static device_array from_host(const std::vector<T>& values) {
        return from_host(values, {static_cast<std::int64_t>(values.size())});
    }
    // The elements of a vector copied to the device as an array of `shape`, in C order;
    // logic_error when the shape's size is not values.size().
    template <class T>
    static device_array from_host(const std::vector<T>& values, std::vector<std::int64_t> shape) {
        return from_host(std::shared_ptr<backend>{}, values, std::move(shape));
    }
    // The same into memory of backend `b` (null: the current CUDA context).
    template <class T>
    static device_array from_host(std::shared_ptr<backend> b, const std::vector<T>& values) {
        return from_host(std::move(b), values, {static_cast<std::int64_t>(values.size())});
    }
    // The elements of a vector copied into memory of backend `b` (null: the current CUDA
    // context) as an array of `shape`, in C order; logic_error when the shape's size is not
    // values.size().
    template <class T>
    static device_array from_host(std::shared_ptr<backend> b, const std::vector<T>& values,
                                  std::vector<std::int64_t> shape) {
        if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> packs its bits
            const std::vector<unsigned char> bytes(values.begin(), values.end());
            return from_host_bytes(b, std::as_bytes(std::span(bytes)), dtype::bool_, bytes.size(), std::move(shape));
        } else {
            return from_host_bytes(b, std::as_bytes(std::span<const T>(values)), dtype_of<T>(), values.size(),
                                   std::move(shape));
        }
    }

    // The array's memory and layout (an operator's result is computed first, if its statement
    // has not ended yet).
    const ndarray& view() const {
        if (pending_) [[unlikely]]
            settle();
        return view_;
    }
    // The backend the array's memory belongs to and its operations run on; null for the
    // current CUDA context (its default pool and stream).
    const std::shared_ptr<backend>& runs_on() const noexcept { return backend_; }
    // The element type (known before a pending result is computed, as are the shape and size).
    dtype type() const noexcept { return view_.type(); }
    // The extent of each axis; empty for a 0-d array.
    const std::vector<std::int64_t>& shape() const noexcept { return view_.shape(); }
    // The number of elements: the product of the extents (1 for a 0-d array).
    std::int64_t size() const noexcept { return view_.size(); }
    // The number of axes (0 for a 0-d array).
    int ndim() const noexcept { return view_.ndim(); }

    // The elements in C order, copied to the host (waiting for the work queued before);
    // logic_error when T is not the array's element type.
    template <class T>
    std::vector<T> to_host() const {
        if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> packs its bits
            std::vector<unsigned char> bytes(static_cast<std::size_t>(size()));
            to_host_bytes(std::as_writable_bytes(std::span(bytes)), dtype::bool_);
            return std::vector<bool>(bytes.begin(), bytes.end());
        } else {
            std::vector<T> values(static_cast<std::size_t>(size()));
            to_host_bytes(std::as_writable_bytes(std::span<T>(values)), dtype_of<T>());
            return values;
        }
    }
    // The one element of a 0-d or one-element array, converted to T (a real T takes the real
    // part; logic_error for an array of another size).
    template <scalar_type T>
    T item() const {
        const std::complex<double> v = item_value();
        if constexpr (std::is_arithmetic_v<T>)
            return static_cast<T>(v.real());
        else
            return T(static_cast<typename T::value_type>(v.real()), static_cast<typename T::value_type>(v.imag()));
    }

    // A view of the elements in another shape, sharing this array's memory: the elements read
    // in order `o`, one extent may be -1. invalid_argument when the sizes differ, logic_error
    // when the new shape is not a view of this layout (numpy would copy).
    device_array reshape(std::vector<std::int64_t> shape, order o = order::c) const {
        return device_array(view().reshape(std::move(shape), o), backend_);
    }
    // A view with the axes reversed (numpy's `a.T`), sharing this array's memory.
    device_array transpose() const { return device_array(view().transpose(), backend_); }
    // numpy's basic indexing, `a[items]`, as a view sharing this array's memory: an integer
    // drops its axis (negative counts from the end), a slice keeps it, new_axis adds one, an
    // ellipsis stands for the axes not named. std::out_of_range for an index beyond its axis
    // or more indices than axes.
    device_array operator[](const std::vector<index_item>& items) const {
        return device_array(view()[items], backend_);
    }

    // In place, as numpy's: the result of `*this op other` written into this array's memory
    // (every view of it sees the change). `other` broadcasts to this array's shape (an
    // invalid_argument otherwise, as numpy's "non-broadcastable output operand"), and the
    // result type must cast to this array's by numpy's same_kind rule (type_error otherwise:
    // int32 += 1.5 is refused). An `other` sharing memory with this array is read in full
    // before anything is written.
    device_array& operator+=(const device_array& other) { return update(binary_op::add, &other, nullptr); }
    // this - other written into this array, as operator+= does.
    device_array& operator-=(const device_array& other) { return update(binary_op::subtract, &other, nullptr); }
    // this * other written into this array, as operator+= does.
    device_array& operator*=(const device_array& other) { return update(binary_op::multiply, &other, nullptr); }
    // this / other (true division) written into this array, as operator+= does: the quotient
    // of integers is float64, which an integer array cannot take (type_error, as numpy's).
    device_array& operator/=(const device_array& other) { return update(binary_op::true_divide, &other, nullptr); }
    // this + a scalar written into this array (a C++ number taking part as a Python scalar:
    // one that the array's integer type cannot hold is std::overflow_error, as numpy's).
    device_array& operator+=(const scalar& other) { return update(binary_op::add, nullptr, &other); }
    // this - a scalar written into this array, as operator+=(const scalar&) does.
    device_array& operator-=(const scalar& other) { return update(binary_op::subtract, nullptr, &other); }
    // this * a scalar written into this array, as operator+=(const scalar&) does.
    device_array& operator*=(const scalar& other) { return update(binary_op::multiply, nullptr, &other); }
    // this / a scalar (true division) written into this array, as operator+=(const scalar&)
    // does; type_error for an integer array, whose quotients are floats.
    device_array& operator/=(const scalar& other) { return update(binary_op::true_divide, nullptr, &other); }
    // Bitwise and of this and other written into this array, as operator+= does; integer and
    // bool arrays only (type_error otherwise).
    device_array& operator&=(const device_array& other) { return update(binary_op::bitwise_and, &other, nullptr); }
    // Bitwise or of this and other written into this array, as operator&= does.
    device_array& operator|=(const device_array& other) { return update(binary_op::bitwise_or, &other, nullptr); }
    // Bitwise exclusive or of this and other written into this array, as operator&= does.
    device_array& operator^=(const device_array& other) { return update(binary_op::bitwise_xor, &other, nullptr); }
    // Bitwise and with a scalar written into this array; integer and bool arrays only.
    device_array& operator&=(const scalar& other) { return update(binary_op::bitwise_and, nullptr, &other); }
    // Bitwise or with a scalar written into this array; integer and bool arrays only.
    device_array& operator|=(const scalar& other) { return update(binary_op::bitwise_or, nullptr, &other); }
    // Bitwise exclusive or with a scalar written into this array; integer and bool arrays only.
    device_array& operator^=(const scalar& other) { return update(binary_op::bitwise_xor, nullptr, &other); }

    // The same for any binary_op (power, minimum, the comparisons, ...).
    device_array& update(binary_op op, const device_array& other) { return update(op, &other, nullptr); }
    // The same with a scalar `value` as the right operand.
    device_array& update(binary_op op, const scalar& value) { return update(op, nullptr, &value); }

    // numpy's `this[...] = source`: source broadcast to this array's shape (invalid_argument
    // otherwise) and converted to its type as numpy's assignment converts (C-style, any
    // kinds); a source sharing memory with this array is read in full first.
    device_array& assign(const device_array& source);
    // Every element set to `value` converted to the array's type (numpy's fill: a float
    // truncates into an integer type; a Python int out of the type's range is
    // std::overflow_error, as numpy's).
    device_array& assign(const scalar& value);
    // this[...] = the elements `bytes` of this array's type, in C order (size() of them;
    // logic_error otherwise); blocking.
    void assign_from_host(std::span<const std::byte> bytes);
    // The elements in C order as bytes (size() * itemsize of them; logic_error otherwise),
    // waiting for the work queued before.
    void to_host_bytes(std::span<std::byte> out) const { to_host_bytes(out, type()); }

    // A new array holding the elements converted to `t` (C-style casts, as numpy's astype).
    device_array astype(dtype t) const;
    // A new array holding the same elements, C-contiguous.
    device_array copy() const;

private:
    static device_array from_host_bytes(const std::shared_ptr<backend>& b, std::span<const std::byte> bytes, dtype t,
                                        std::size_t count, std::vector<std::int64_t> shape);
    void to_host_bytes(std::span<std::byte> out, dtype t) const;
    std::complex<double> item_value() const;
    device_array& update(binary_op op, const device_array* other, const scalar* value);
    // Computes a pending result into view_ (or throws the failure of its computation).
    void settle() const;

    friend struct detail::fusion_access;

    // A pending array's view_ is its shape and type over no memory yet (placeholder_view()).
    mutable ndarray view_;
    std::shared_ptr<backend> backend_;
    mutable std::shared_ptr<detail::pending_array> pending_;  // set until the result is computed
};

// Elementwise binary operations (binary_op), numpy's types and broadcasting: +, -, *, /
// (true division), power, the comparisons (bool arrays), minimum and maximum (NaN wins),
// logical_and and logical_or, and &, |, ^ of integers and bools. At least one operand is an
// array. +, -, * and / fuse with each other within a statement (see the top of this file).
device_array apply(binary_op op, const array_operand& a, const array_operand& b);
// `a <op> b` of an array and a scalar (`x + 1`), the scalar taking part as a Python scalar
// does (NEP 50).
device_array apply(binary_op op, const array_operand& a, const scalar_operand& b);
// `a <op> b` of a scalar and an array (`2 * x`), the scalar taking part as a Python scalar does.
device_array apply(binary_op op, const scalar_operand& a, const array_operand& b);
// The sum `a + b` of two arrays, broadcast together (binary_op::add); fuses within its statement.
inline device_array operator+(const array_operand& a, const array_operand& b) { return apply(binary_op::add, a, b); }
// `a + b` of an array and a scalar (`x + 2`), as for two arrays.
inline device_array operator+(const array_operand& a, const scalar_operand& b) { return apply(binary_op::add, a, b); }
// `a + b` of a scalar and an array (`2 + x`), as for two arrays.
inline device_array operator+(const scalar_operand& a, const array_operand& b) { return apply(binary_op::add, a, b); }
// The difference `a - b` of two arrays, broadcast together (binary_op::subtract); fuses within its
// statement.
inline device_array operator-(const array_operand& a, const array_operand& b) {
    return apply(binary_op::subtract, a, b);
}
// `a - b` of an array and a scalar (`x - 2`), as for two arrays.
inline device_array operator-(const array_operand& a, const scalar_operand& b) {
    return apply(binary_op::subtract, a, b);
}
// `a - b` of a scalar and an array (`2 - x`), as for two arrays.
inline device_array operator-(const scalar_operand& a, const array_operand& b) {
    return apply(binary_op::subtract, a, b);
}
// The product `a * b` of two arrays, broadcast together (binary_op::multiply); fuses within its statement.
inline device_array operator*(const array_operand& a, const array_operand& b) {
    return apply(binary_op::multiply, a, b);
}
// `a * b` of an array and a scalar (`x * 2`), as for two arrays.
inline device_array operator*(const array_operand& a, const scalar_operand& b) {
    return apply(binary_op::multiply, a, b);
}
// `a * b` of a scalar and an array (`2 * x`), as for two arrays.
inline device_array operator*(const scalar_operand& a, const array_operand& b) {
    return apply(binary_op::multiply, a, b);
}
// The quotient `a / b` of two arrays, broadcast together: true division (binary_op::true_divide), in
// which integers give float64; fuses within its statement.
inline device_array operator/(const array_operand& a, const array_operand& b) {
    return apply(binary_op::true_divide, a, b);
}
// `a / b` of an array and a scalar (`x / 2`), as for two arrays.
inline device_array operator/(const array_operand& a, const scalar_operand& b) {
    return apply(binary_op::true_divide, a, b);
}
// `a / b` of a scalar and an array (`2 / x`), as for two arrays.
inline device_array operator/(const scalar_operand& a, const array_operand& b) {
    return apply(binary_op::true_divide, a, b);
}
// The bitwise and `a & b` of two integer or bool arrays, broadcast together (type_error for other types).
inline device_array operator&(const array_operand& a, const array_operand& b) {
    return apply(binary_op::bitwise_and, a, b);
}
// `a & b` of an array and a scalar (`x & 2`), as for two arrays.
inline device_array operator&(const array_operand& a, const scalar_operand& b) {
    return apply(binary_op::bitwise_and, a, b);
}
// `a & b` of a scalar and an array (`2 & x`), as for two arrays.
inline device_array operator&(const scalar_operand& a, const array_operand& b) {
    return apply(binary_op::bitwise_and, a, b);
}
// The bitwise or `a | b` of two integer or bool arrays, broadcast together (type_error for other types).
inline device_array operator|(const array_operand& a, const array_operand& b) {
    return apply(binary_op::bitwise_or, a, b);
}
// `a | b` of an array and a scalar (`x | 2`), as for two arrays.
inline device_array operator|(const array_operand& a, const scalar_operand& b) {
    return apply(binary_op::bitwise_or, a, b);
}
// `a | b` of a scalar and an array (`2 | x`), as for two arrays.
inline device_array operator|(const scalar_operand& a, const array_operand& b) {
    return apply(binary_op::bitwise_or, a, b);
}
// The bitwise exclusive or `a ^ b` of two integer or bool arrays, broadcast together (type_error for
// other types).
inline device_array operator^(const array_operand& a, const array_operand& b) {
    return apply(binary_op::bitwise_xor, a, b);
}
// `a ^ b` of an array and a scalar (`x ^ 2`), as for two arrays.
inline device_array operator^(const array_operand& a, const scalar_operand& b) {
    return apply(binary_op::bitwise_xor, a, b);
}
// `a ^ b` of a scalar and an array (`2 ^ x`), as for two arrays.
inline device_array operator^(const scalar_operand& a, const array_operand& b) {
    return apply(binary_op::bitwise_xor, a, b);
}
// -x, elementwise, in x's type (unary_op::negative); type_error for a bool array, as numpy's.
device_array operator-(const device_array& a);
// numpy's unary functions (unary_op): negative, absolute, conjugate, real, imag,
// logical_not, in numpy's result types (abs of a complex array is real); cast is astype.
device_array apply(unary_op op, const device_array& a);

// numpy.where(condition, then, otherwise): `then` where the condition is non-zero, else
// `otherwise`, all three broadcast together, in numpy.result_type(then, otherwise) (a scalar
// taking part as a Python scalar does; where(c, uint8_array, -1) gives 255 where c is false).
device_array where(const device_array& condition, const device_array& then, const device_array& otherwise);
// numpy.where with a scalar `otherwise` (`where(c, x, 0)`).
device_array where(const device_array& condition, const device_array& then, const scalar& otherwise);
// numpy.where with a scalar `then` (`where(c, 1, x)`).
device_array where(const device_array& condition, const scalar& then, const device_array& otherwise);
// numpy.where with two scalar choices, shaped as the condition (`where(c, 1.0, 0.0)`).
device_array where(const device_array& condition, const scalar& then, const scalar& otherwise);

// numpy's function `f` (cumath: exp, sin, sqrt, ...) of the elements, in numpy's result type
// (float64 for integers, float32 for float32). type_error where numpy has no loop for the
// type; logic_error for the functions of two inputs or two outputs (fmod, ldexp, frexp,
// modf: use math_spec and run).
device_array apply(math_function f, const device_array& x);

// numpy.sum of every element, as a 0-d array in numpy's result type: int64 for bool and
// narrower signed integers, uint64 for unsigned ones (sum_type); 0 for an empty array.
device_array sum(const device_array& a);
// numpy.dot of two 1-d arrays of one size (logic_error otherwise), without conjugation, as a
// 0-d array of their promoted type.
device_array dot(const device_array& a, const device_array& b);
// numpy.min: the smallest element, as a 0-d array of a's type. NaN wins; complex numbers are
// ordered by real, then imaginary part, as numpy orders them. logic_error for an empty
// array, as numpy's.
device_array min(const device_array& a);
// numpy.max: the largest element, as min() orders them; logic_error for an empty array.
device_array max(const device_array& a);

enum class reduction_op;  // reduction.hpp

// The same over the elements a[subset[k]] (and b[subset[k]]) for each k, the integer array
// `subset` of any layout, negative indices counting from the end as in Python (PyOpenCL's
// subset_sum, subset_min, subset_max, subset_dot). a and b must be contiguous.
device_array subset_reduce(reduction_op op, const device_array& subset, const device_array& a,
                           const device_array* b = nullptr);

// Running sums of a 1-d array, in numpy's cumsum type (sum()'s: int64 for bool and narrower
// signed integers, uint64 for unsigned ones): out[k] = a[0] + ... + a[k] (numpy.cumsum).
// type_error for complex arrays, logic_error for other than 1-d or an array on a backend
// (scans run on the current CUDA context only).
device_array inclusive_scan(const device_array& a);
// The exclusive form of inclusive_scan(): out[k] = a[0] + ... + a[k - 1], with out[0] = 0.
device_array exclusive_scan(const device_array& a);

// Uniform random numbers in [0, 1) (float32, float64) or random bits (int32, uint32), as
// gpukit.curandom.rand makes them (Philox); one `seed` gives one sequence.
device_array rand(std::vector<std::int64_t> shape, dtype t = dtype::float32, std::uint64_t seed = 0);
// The same numbers in memory of backend `b`.
device_array rand(std::shared_ptr<backend> b, std::vector<std::int64_t> shape, dtype t = dtype::float32,
                  std::uint64_t seed = 0);

}  // namespace gpukit::array
