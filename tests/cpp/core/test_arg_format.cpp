#include "gpukit/core/arg_format.hpp"
#include "gpukit/core/error.hpp"

#include <gtest/gtest.h>

namespace {

using namespace gpukit;

TEST(arg_format, struct_letters_map_to_kinds_and_sizes) {
    const std::vector<arg_spec> specs = parse_arg_format("iPfdFD?");
    ASSERT_EQ(specs.size(), 7u);
    EXPECT_EQ(specs[0].kind, arg_kind::signed_int);
    EXPECT_EQ(specs[0].size, 4u);
    EXPECT_EQ(specs[1].kind, arg_kind::pointer);
    EXPECT_EQ(specs[1].size, 8u);
    EXPECT_EQ(specs[2].kind, arg_kind::floating);
    EXPECT_EQ(specs[2].size, 4u);
    EXPECT_EQ(specs[3].size, 8u);
    EXPECT_EQ(specs[4].kind, arg_kind::complex);
    EXPECT_EQ(specs[4].size, 8u);
    EXPECT_EQ(specs[5].size, 16u);
    EXPECT_EQ(specs[6].kind, arg_kind::boolean);
}

TEST(arg_format, repeat_counts_prefixes_and_spaces) {
    const std::vector<arg_spec> specs = parse_arg_format("@2i P 3Q");
    ASSERT_EQ(specs.size(), 6u);
    EXPECT_EQ(specs[1].code, 'i');
    EXPECT_EQ(specs[2].code, 'P');
    EXPECT_EQ(specs[5].kind, arg_kind::unsigned_int);
    EXPECT_TRUE(parse_arg_format("").empty());
}

TEST(arg_format, unsupported_letters_are_named) {
    try {
        parse_arg_format("i>x");
        FAIL() << "expected logic_error";
    } catch (const logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("'>'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(parse_arg_format("0s"), logic_error);
    EXPECT_THROW(parse_arg_format("i3"), logic_error);
}

TEST(arg_format, a_counted_s_is_one_argument_of_raw_bytes) {
    // As in Python's struct module, "12s" is one 12-byte string, not twelve arguments.
    const std::vector<arg_spec> specs = parse_arg_format("i12sPs");
    ASSERT_EQ(specs.size(), 4u);
    EXPECT_EQ(specs[1].kind, arg_kind::bytes);
    EXPECT_EQ(specs[1].size, 12u);
    EXPECT_EQ(specs[1].code, 's');
    EXPECT_EQ(specs[2].kind, arg_kind::pointer);
    EXPECT_EQ(specs[3].kind, arg_kind::bytes);
    EXPECT_EQ(specs[3].size, 1u);
}

}  // namespace
