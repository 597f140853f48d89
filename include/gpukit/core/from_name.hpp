// An enumerator read from its name (options that arrive as strings from Python or the command
// line): one lookup and one form of error for every enum that has names.
#pragma once

#include "gpukit/core/error.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace gpukit {

// The value `names` pairs with `name`; else logic_error
// "<what> must be 'a', 'b' or 'c', got '<name>'".
template <class Enum, std::size_t N>
Enum from_name(std::string_view name, const std::pair<std::string_view, Enum> (&names)[N], std::string_view what) {
    for (const auto& [text, value] : names)
        if (name == text)
            return value;
    std::string message(what);
    message += " must be ";
    for (std::size_t i = 0; i < N; ++i) {
        message += i == 0 ? "" : i + 1 == N ? " or " : ", ";
        message += '\'';
        message += names[i].first;
        message += '\'';
    }
    message += ", got '";
    message += name;
    message += '\'';
    throw logic_error(message);
}

}  // namespace gpukit
