#include "gpukit/array/scalar.hpp"

#include "gpukit/core/error.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace gpukit::array {

namespace {

// An integer scalar's nearest double: exactly what Python's float() gives (the conversion of
// a 64-bit magnitude rounds to nearest, ties to even, as Python's does).
double integer_as_double(const scalar& s) {
    const python_int& v = s.how.value;
    if (v.beyond_64_bits) {
        if (std::isinf(s.value.real()))
            throw std::overflow_error("int too large to convert to float");
        return s.value.real();
    }
    const double magnitude = static_cast<double>(v.magnitude);
    return v.negative ? -magnitude : magnitude;
}

template <class T>
scalar_value value_as(const scalar& s) {
    const bool integer = s.number == scalar::number_kind::integer;
    const python_int& v = s.how.value;
    if constexpr (std::is_same_v<T, bool>) {
        return scalar_value::of(integer ? v.magnitude != 0 || v.beyond_64_bits : s.value != std::complex<double>());
    } else if constexpr (std::is_integral_v<T>) {
        return scalar_value::of(static_cast<T>(v.negative ? 0ull - v.magnitude : v.magnitude));  // two's complement
    } else {
        const std::complex<double> value = integer ? std::complex<double>(integer_as_double(s), 0.0) : s.value;
        if constexpr (std::is_floating_point_v<T>)
            return scalar_value::of(static_cast<T>(value.real()));
        else
            return scalar_value::of(T(static_cast<typename T::value_type>(value.real()),
                                      static_cast<typename T::value_type>(value.imag())));
    }
}

}  // namespace

scalar_value scalar_bytes(const scalar& s, dtype t) {
    switch (t) {
    case dtype::bool_:
        return value_as<bool>(s);
    case dtype::int8:
        return value_as<std::int8_t>(s);
    case dtype::int16:
        return value_as<std::int16_t>(s);
    case dtype::int32:
        return value_as<std::int32_t>(s);
    case dtype::int64:
        return value_as<std::int64_t>(s);
    case dtype::uint8:
        return value_as<std::uint8_t>(s);
    case dtype::uint16:
        return value_as<std::uint16_t>(s);
    case dtype::uint32:
        return value_as<std::uint32_t>(s);
    case dtype::uint64:
        return value_as<std::uint64_t>(s);
    case dtype::float32:
        return value_as<float>(s);
    case dtype::float64:
        return value_as<double>(s);
    case dtype::complex64:
        return value_as<std::complex<float>>(s);
    case dtype::complex128:
        return value_as<std::complex<double>>(s);
    }
    throw logic_error("scalar_bytes: an unknown dtype");
}

}  // namespace gpukit::array
