// Types that say what a binding takes or returns, for its signature and the generated stubs,
// and change nothing at run time.
//
// nanobind's typed wrappers name what a container holds: a function returning
// nb::typed<nb::tuple, int, int> shows `-> tuple[int, int]`, one taking
// nb::typed<nb::list, nb::str> shows `list[str]`; each converts exactly as the plain
// nb::tuple or nb::list does (the items are not checked). Without them the stubs say a bare
// `tuple` or `list`, which mypy --strict refuses. The items are named by C++ types (int,
// std::string, a bound class, std::optional<T> for `T | None`, std::variant<A, B> for
// `A | B`, where that file includes nanobind/stl/optional.h or variant.h); named<> below
// names what has no C++ type here.
#pragma once

#include "common/bindings.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace gpukit::python {

// A string literal as a template argument.
template <std::size_t N>
struct type_text {
    char text[N];
    constexpr type_text(const char (&s)[N]) { std::copy_n(s, N, text); }  // NOLINT: implicit by design
};

// The nanobind object type T (nb::object, nb::tuple, ...), converting as T does, shown as
// `Text`: a Python type with no C++ class behind it (numpy.dtype, gpukit.gpuarray.GPUArray,
// the enum classes the module makes at run time), or a union of tuples nanobind cannot spell.
// Names are qualified ("gpukit._gpukit.capture_status"); the stub generator shortens them.
template <class T, type_text Text>
class named : public T {
public:
    static constexpr auto Name = nb::detail::const_name(Text.text);
    using T::T;
    using T::operator=;
    named(const T& o) : T(o) {}
    named(T&& o) : T(std::move(o)) {}
};

// An object of the Python type `Text`: the item of a typed container, or a result.
template <type_text Text>
using python_type = named<nb::object, Text>;

// tuple[int, ...]: a shape or strides.
using int_tuple_type = nb::typed<nb::tuple, int, nb::ellipsis>;

}  // namespace gpukit::python
