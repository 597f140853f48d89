// Shared by the tests of error messages: a call must throw a given gpukit error whose message
// says what was wrong.
#pragma once

#include "gpukit/core/error.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace gpukit::test {

// Runs `call`, expecting it to throw `Error` (or an error derived from it) whose what()
// contains each of `parts`.
template <class Error, class Call, class... Parts>
void expect_error(Call&& call, const Parts&... parts) {
    static_assert(sizeof...(parts) > 0, "name at least one part of the expected message");
    const std::initializer_list<std::string_view> expected{parts...};
    try {
        std::forward<Call>(call)();
        ::testing::Message message;
        message << "no exception; expected an error mentioning";
        for (const std::string_view part : expected)
            message << " \"" << part << "\"";
        ADD_FAILURE() << message;
    } catch (const Error& e) {
        const std::string what = e.what();
        for (const std::string_view part : expected)
            EXPECT_NE(what.find(part), std::string::npos) << "\"" << part << "\" is not in: " << what;
    }
}

// The common case: a logic_error, raised for a bad argument before any driver call.
template <class Call>
void expect_logic_error(Call&& call, std::string_view part) {
    expect_error<logic_error>(std::forward<Call>(call), part);
}

}  // namespace gpukit::test
