// A scalar operand of an elementwise operation (a C++ number, or a Python or numpy scalar the
// bindings translate) and its bytes in the type an operation reads it as.
#pragma once

#include "gpukit/array/dtype.hpp"
#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/promotion.hpp"

#include <complex>
#include <type_traits>

namespace gpukit::array {

// The C++ types an operation takes as a scalar operand.
template <class T>
concept scalar_type =
    std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// A scalar: how type resolution sees it (a C++ integer, floating or complex number is a
// "weak" Python-like scalar without a dtype of its own, NEP 50; a bool, or a numpy scalar
// the bindings pass, is typed) and its value.
struct scalar {
    // The kinds of number a scalar holds.
    enum class number_kind { integer, floating, complex };

    // How type resolution sees the scalar; for an integer, also its exact value (how.value).
    operand how;
    // Which kind of number the scalar is: an integer's value is in `how`, the others' in `value`.
    number_kind number = number_kind::integer;
    // The value of a floating or complex scalar. An integer's value is how.value (exact);
    // for one of more than 64 bits this holds its nearest double, infinite beyond float64's
    // range (as the bindings find it).
    std::complex<double> value;

    scalar() = default;
    // The C++ number `v`: a bool is a typed bool; an integer, floating or complex number is a
    // weak scalar of that kind (NEP 50), as a Python scalar of the same value would be.
    template <scalar_type T>
    scalar(T v) {  // NOLINT(google-explicit-constructor): scalars convert, as in `2 * x`
        if constexpr (std::is_same_v<T, bool>) {
            how = {operand::kind::typed, dtype::bool_, {false, v ? 1u : 0u, false}};
        } else if constexpr (std::is_integral_v<T>) {
            const bool negative = v < 0;
            const auto bits = static_cast<unsigned long long>(v);
            how = {operand::kind::python_int, dtype::int64, {negative, negative ? 0ull - bits : bits, false}};
        } else if constexpr (std::is_floating_point_v<T>) {
            how = {operand::kind::python_float, dtype::float64, {}};
            number = number_kind::floating;
            value = static_cast<double>(v);
        } else {
            how = {operand::kind::python_complex, dtype::complex128, {}};
            number = number_kind::complex;
            value = {static_cast<double>(v.real()), static_cast<double>(v.imag())};
        }
    }
};

// The scalar's value in type `t`, as numpy converts a scalar for an operation computed in t:
// an integer converts exactly to an integer type (wrapping, two's complement, where the
// caller's type resolution allowed it: resolve_binary, check_wrapped) and to the nearest value
// of a floating type (std::overflow_error "int too large to convert to float" beyond float64's
// range, as Python's float() says); bool is "non-zero"; a floating or complex value converts
// C-style (a float or complex scalar never meets an integer type after type resolution).
scalar_value scalar_bytes(const scalar& s, dtype t);

}  // namespace gpukit::array
