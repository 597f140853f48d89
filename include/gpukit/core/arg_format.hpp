// Kernel argument formats for prepared calls: the letters of Python's struct module
// ("iPf", "2i", "12s": one argument of 12 raw bytes, such as a float3), plus 'F' and 'D' for
// single and double precision complex numbers.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace gpukit {

// What one kernel argument is, as its format letter says: a signed_int (b h i l q n, and c)
// or an unsigned_int (B H I L Q N) of 1 to 8 bytes, a one-byte boolean (?), a floating
// number (e f d: half, float, double), a complex number (F D: two floats, two doubles), a
// device pointer (P, 8 bytes), or bytes: raw bytes passed by value (`<n>s`).
enum class arg_kind { signed_int, unsigned_int, boolean, floating, complex, pointer, bytes };

// One kernel argument of a format: its kind, its size and the letter it was read from.
struct arg_spec {
    // What the argument is: integer, floating, complex, pointer or raw bytes.
    arg_kind kind;
    std::size_t size;  // bytes in the kernel's parameter space
    char code;         // the format letter it came from ('s', or 'V' for a record dtype, for raw bytes)
};

// One spec per argument; logic_error naming the offending letter for anything that is not
// a native-size, native-order (little-endian) scalar format.
std::vector<arg_spec> parse_arg_format(std::string_view format);

}  // namespace gpukit
