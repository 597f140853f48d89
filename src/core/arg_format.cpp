#include "gpukit/core/arg_format.hpp"

#include "gpukit/core/error.hpp"

#include <cctype>
#include <optional>
#include <string>

namespace gpukit {
namespace {

// The struct letters gpukit takes, by size, with the kind of argument each stands for.
struct letter_kind {
    std::string_view letters;
    arg_kind kind;
    std::size_t size;
};

constexpr letter_kind letter_kinds[] = {
    {"cb", arg_kind::signed_int, 1},  {"B", arg_kind::unsigned_int, 1},   {"?", arg_kind::boolean, 1},
    {"h", arg_kind::signed_int, 2},   {"H", arg_kind::unsigned_int, 2},   {"e", arg_kind::floating, 2},
    {"i", arg_kind::signed_int, 4},   {"I", arg_kind::unsigned_int, 4},   {"f", arg_kind::floating, 4},
    {"lqn", arg_kind::signed_int, 8}, {"LQN", arg_kind::unsigned_int, 8}, {"d", arg_kind::floating, 8},
    {"F", arg_kind::complex, 8},      {"P", arg_kind::pointer, 8},        {"D", arg_kind::complex, 16},
};

// The spec of letter `code`; nullopt for a letter gpukit does not take.
std::optional<arg_spec> spec_for(char code) {
    for (const auto& [letters, kind, size] : letter_kinds)
        if (letters.find(code) != std::string_view::npos)
            return arg_spec{kind, size, code};
    return std::nullopt;
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
                throw logic_error("argument format '" + std::string(format) +
                                  "' ends with a repeat count; expected "
                                  "a type letter after it");
        }
        if (format[i] == 's') {
            // struct's "<n>s" is one n-byte string: here the raw bytes of one by-value argument
            // (a record or vector dtype), not n arguments.
            if (repeat == 0)
                throw logic_error("argument format '" + std::string(format) +
                                  "' has '0s'; a by-value argument "
                                  "has at least one byte");
            specs.push_back({arg_kind::bytes, repeat, 's'});
            ++i;
            continue;
        }
        const std::optional<arg_spec> spec = spec_for(format[i]);
        if (!spec)
            throw logic_error("argument format '" + std::string(format) + "': '" + std::string(1, format[i]) +
                              "' is not supported; expected struct letters (b B h H i I l L q Q n N e f d P ? c, "
                              "<n>s for n raw bytes) or F/D for complex, in native byte order");
        specs.insert(specs.end(), repeat, *spec);
        ++i;
    }
    return specs;
}

}  // namespace gpukit
