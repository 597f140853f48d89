// Integer arguments converted where the argument's name is known.
//
// nanobind's own integer casters refuse -1 for an unsigned parameter, 2**64, 2.5 or None with
// a generic "incompatible function arguments" that names no argument and says nothing of why.
// A parameter declared as int_arg<T> (shape_arg, int_sequence_arg) accepts any object at the
// call, and the function body converts it with the argument's name:
//
//     m.def("mem_alloc", [](int_arg<std::size_t> bytes) {
//         return device_allocation::allocate(bytes.get("mem_alloc(bytes)"));
//     }, "bytes"_a.none());
//
// (`.none()` lets None reach the conversion, which then names the argument.)
// so `mem_alloc(-1)` raises LogicError "mem_alloc(bytes): expected an integer from 0 to
// 18446744073709551615, got -1", and `mem_alloc(2.5)` a TypeError saying 2.5 is no integer.
// The stubs show `typing.SupportsIndex` (or sequences of it): what index_arg takes. nanobind
// adds `| None` to a `.none()` parameter's type; python/fix_stub_nones.py removes it after these
// types, which no other parameter renders, since the conversion refuses None.
#pragma once

#include "common/bindings.hpp"
#include "common/stub_types.hpp"

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpukit::python {

// `value` as a Python int: an int or anything with __index__ (numpy integers, 0-d integer
// arrays). A bool (numpy refuses True as a size), float, None or anything else is a
// TypeError naming `what`.
nb::int_ index_arg(nb::handle value, const char* what);

// The value of a Python int as T, or nullopt when it does not fit.
template <std::integral T>
std::optional<T> int_value(nb::handle python_int) {
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(python_int.ptr(), &overflow);
    if (overflow == 0)
        return std::in_range<T>(value) ? std::optional<T>(static_cast<T>(value)) : std::nullopt;
    if (overflow > 0 && std::numeric_limits<T>::max() > std::numeric_limits<long long>::max()) {
        const unsigned long long unsigned_value = PyLong_AsUnsignedLongLong(python_int.ptr());
        if (!PyErr_Occurred() && std::in_range<T>(unsigned_value))
            return static_cast<T>(unsigned_value);
        PyErr_Clear();
    }
    return std::nullopt;
}

// The message for the integer `index`, given as `what`, outside [min, max].
std::string out_of_range_text(nb::handle index, const char* what, const std::string& min, const std::string& max);

// Raises LogicError with out_of_range_text.
[[noreturn]] void throw_out_of_range(nb::handle index, const char* what, const std::string& min,
                                     const std::string& max);

// `value` as T: TypeError for non-integers (see index_arg), LogicError naming `what` and T's
// range when it does not fit.
template <std::integral T>
T integer_arg(nb::handle value, const char* what) {
    const nb::int_ index = index_arg(value, what);
    if (const std::optional<T> result = int_value<T>(index))
        return *result;
    throw_out_of_range(index, what, std::to_string(std::numeric_limits<T>::min()),
                       std::to_string(std::numeric_limits<T>::max()));
}

// `value` as a member of the CUDA constant group `group` ("address_mode", "array_format"):
// integer_arg's errors for a non-integer or one beyond int, a LogicError naming `what` and the
// group's members for an integer that is none of them (a C++ enum cannot hold it: the cast
// would be undefined).
long long constant_arg(nb::handle value, const char* what, const char* group);

template <class E>
E enum_arg(nb::handle value, const char* what, const char* group) {
    return static_cast<E>(constant_arg(value, what, group));
}

// `value` as int64, values beyond that range clamped to it: for slice bounds, split indices
// and the like, where every value beyond an axis means the same as the largest one.
std::int64_t clamped_int64(nb::handle value, const char* what);

template <std::integral T>
struct int_arg {
    nb::handle object;
    T get(const char* what) const { return integer_arg<T>(object, what); }
    static constexpr auto python_type = nb::detail::const_name("typing.SupportsIndex");
};

// A shape: an integer or a sequence of integers (converted by bind_layout.cpp's rules).
struct shape_arg {
    nb::handle object;
    static constexpr auto python_type =
        nb::detail::const_name("typing.SupportsIndex | collections.abc.Sequence[typing.SupportsIndex]");
};

// A sequence of integers (strides, axes, split indices).
struct int_sequence_arg {
    nb::handle object;
    static constexpr auto python_type = nb::detail::const_name("collections.abc.Sequence[typing.SupportsIndex]");
};

// One of the arguments above that may also be None, which its function checks for first
// (`object.is_none()`): the stubs show `None | <type>` (None first, so that fix_stub_nones.py,
// which may run more than once, never takes it for nanobind's).
template <class Arg>
struct or_none : Arg {
    static constexpr auto python_type = nb::detail::const_name("None | ") + Arg::python_type;
};

// The arguments above: each holds the object it was given as `object`, and the stubs show
// its `python_type`.
template <class Arg>
concept any_object_arg = requires(Arg a) {
    { a.object } -> std::same_as<nb::handle&>;
    Arg::python_type;
};

// A tuple of Python ints (a shape, strides).
int_tuple_type as_int_tuple(const std::vector<std::int64_t>& values);

}  // namespace gpukit::python

namespace nanobind::detail {

// Each accepts any object; the function body converts it (see above).
template <gpukit::python::any_object_arg Arg>
struct type_caster<Arg> {
    NB_TYPE_CASTER(Arg, Arg::python_type)
    bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
        value.object = src;
        return true;
    }
};

}  // namespace nanobind::detail
