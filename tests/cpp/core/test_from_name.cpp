// from_name: the enumerator a name stands for, and the one error form for a name that is not
// in the table; the three rtc option parsers that use it.
#include "gpukit/core/from_name.hpp"
#include "gpukit/rtc/compiler.hpp"
#include "gpukit/rtc/linker.hpp"
#include "gpukit/rtc/nvcc.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

enum class fruit { apple, pear, plum };
constexpr std::pair<std::string_view, fruit> fruits[] = {{"apple", fruit::apple},
                                                         {"pear", fruit::pear},
                                                         {"plum", fruit::plum}};

std::string refusal(const auto& parse) {
    try {
        parse();
    } catch (const gpukit::logic_error& e) {
        return e.what();
    }
    return "(accepted)";
}

TEST(FromName, EveryNameGivesItsValue) {
    EXPECT_EQ(gpukit::from_name("apple", fruits, "fruit"), fruit::apple);
    EXPECT_EQ(gpukit::from_name("pear", fruits, "fruit"), fruit::pear);
    EXPECT_EQ(gpukit::from_name("plum", fruits, "fruit"), fruit::plum);
}

TEST(FromName, AnotherNameIsRefusedWithTheNamesAllowed) {
    EXPECT_EQ(refusal([] { gpukit::from_name("Apple", fruits, "fruit"); }),
              "fruit must be 'apple', 'pear' or 'plum', got 'Apple'");
    EXPECT_EQ(refusal([] { gpukit::from_name("", fruits, "fruit"); }),
              "fruit must be 'apple', 'pear' or 'plum', got ''");
}

TEST(FromName, TheRtcOptionsParseTheirNames) {
    using namespace gpukit::rtc;
    EXPECT_EQ(compiler_kind_from_name("auto"), compiler_kind::automatic);
    EXPECT_EQ(compiler_kind_from_name("nvcc"), compiler_kind::nvcc);
    EXPECT_EQ(output_kind_from_name("fatbin"), output_kind::fatbin);
    EXPECT_EQ(link_input_from_name("library"), link_input::library);
    EXPECT_EQ(refusal([] { compiler_kind_from_name("clang"); }),
              "compiler must be 'auto', 'nvrtc' or 'nvcc', got 'clang'");
    EXPECT_EQ(refusal([] { output_kind_from_name("elf"); }), "target must be 'cubin', 'ptx' or 'fatbin', got 'elf'");
    EXPECT_EQ(refusal([] { link_input_from_name("so"); }),
              "link input type must be 'cubin', 'ptx', 'ltoir', 'fatbin', 'object' or 'library', got 'so'");
}

}  // namespace
