// Kernel argument formats for prepared calls: the letters of Python's struct module
// ("iPf", "2i", "12s": one argument of 12 raw bytes, such as a float3), plus 'F' and 'D' for
// single and double precision complex numbers.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace gpukit {

enum class arg_kind { signed_int, unsigned_int, boolean, floating, complex, pointer, bytes };

struct arg_spec {
    arg_kind kind;
    std::size_t size;  // bytes in the kernel's parameter space
    char code;         // the format letter it came from ('s', or 'V' for a record dtype, for raw bytes)
};

// One spec per argument; logic_error naming the offending letter for anything that is not
// a native-size, native-order (little-endian) scalar format.
std::vector<arg_spec> parse_arg_format(std::string_view format);

}  // namespace gpukit
