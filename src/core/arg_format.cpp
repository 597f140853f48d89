#include "gpukit/core/arg_format.hpp"

#include "gpukit/core/error.hpp"

#include <cctype>
#include <string>

namespace gpukit {
namespace {

bool spec_for(char code, arg_spec& spec) {
    switch (code) {
    case 'c': spec = {arg_kind::signed_int, 1, code}; return true;
    case 'b': spec = {arg_kind::signed_int, 1, code}; return true;
    case 'B': spec = {arg_kind::unsigned_int, 1, code}; return true;
    case '?': spec = {arg_kind::boolean, 1, code}; return true;
    case 'h': spec = {arg_kind::signed_int, 2, code}; return true;
    case 'H': spec = {arg_kind::unsigned_int, 2, code}; return true;
    case 'i': spec = {arg_kind::signed_int, 4, code}; return true;
    case 'I': spec = {arg_kind::unsigned_int, 4, code}; return true;
    case 'l': case 'q': case 'n': spec = {arg_kind::signed_int, 8, code}; return true;
    case 'L': case 'Q': case 'N': spec = {arg_kind::unsigned_int, 8, code}; return true;
    case 'e': spec = {arg_kind::floating, 2, code}; return true;
    case 'f': spec = {arg_kind::floating, 4, code}; return true;
    case 'd': spec = {arg_kind::floating, 8, code}; return true;
    case 'F': spec = {arg_kind::complex, 8, code}; return true;
    case 'D': spec = {arg_kind::complex, 16, code}; return true;
    case 'P': spec = {arg_kind::pointer, 8, code}; return true;
    default: return false;
    }
}

}  // namespace

std::vector<arg_spec> parse_arg_format(std::string_view format) {
    std::vector<arg_spec> specs;
    std::size_t i = 0;
    // Native order and size is what the GPU uses; '<' is the same on the little-endian hosts CUDA supports.
    if (!format.empty() && (format[0] == '@' || format[0] == '=' || format[0] == '<'))
        ++i;
    while (i < format.size()) {
        const char c = format[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        std::size_t repeat = 1;
        if (std::isdigit(static_cast<unsigned char>(c))) {
            repeat = 0;
            while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i])))
                repeat = repeat * 10 + static_cast<std::size_t>(format[i++] - '0');
            if (i == format.size())
                throw logic_error("argument format '" + std::string(format) + "' ends with a repeat count; expected "
                                  "a type letter after it");
        }
        if (format[i] == 's') {
            // struct's "<n>s" is one n-byte string: here the raw bytes of one by-value argument
            // (a record or vector dtype), not n arguments.
            if (repeat == 0)
                throw logic_error("argument format '" + std::string(format) + "' has '0s'; a by-value argument "
                                  "has at least one byte");
            specs.push_back({arg_kind::bytes, repeat, 's'});
            ++i;
            continue;
        }
        arg_spec spec{};
        if (!spec_for(format[i], spec))
            throw logic_error("argument format '" + std::string(format) + "': '" + std::string(1, format[i]) +
                              "' is not supported; expected struct letters (b B h H i I l L q Q n N e f d P ? c, "
                              "<n>s for n raw bytes) or F/D for complex, in native byte order");
        specs.insert(specs.end(), repeat, spec);
        ++i;
    }
    return specs;
}

}  // namespace gpukit
