// OpenGL interop without a GPU: the registration flags are checked before the driver is
// asked, without a driver a registration says which library is missing, and a borrowed array
// (what a mapped image lends out) is never freed and refuses use once withdrawn.
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/graphics.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace {

using namespace gpukit::cuda;

// The message of the logic_error check_graphics_register_flags throws, or "" when it accepts.
std::string refusal(unsigned int flags, bool image) {
    try {
        check_graphics_register_flags("RegisteredImage(flags)", flags, image);
        return "";
    } catch (const gpukit::logic_error& e) {
        return e.what();
    }
}

TEST(GraphicsChecks, RegistrationFlags) {
    for (unsigned int flags : {CU_GRAPHICS_REGISTER_FLAGS_NONE, CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY,
                               CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD}) {
        EXPECT_EQ(refusal(flags, false), "") << flags;
        EXPECT_EQ(refusal(flags, true), "") << flags;
    }
    // Surface and gather access are an image's only.
    const unsigned int image_only = CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST | CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER;
    EXPECT_EQ(refusal(image_only | CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD, true), "");
    EXPECT_EQ(refusal(CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST, false),
              "RegisteredImage(flags): expected graphics_map_flags NONE, READ_ONLY or WRITE_DISCARD, got 4");
    EXPECT_NE(refusal(16, true).find("or'ed with graphics_register_flags SURFACE_LDST and TEXTURE_GATHER if wanted, "
                                     "got 16"),
              std::string::npos);
    // Read-only and write-discard contradict each other.
    EXPECT_NE(refusal(CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY | CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD, true), "");
}

TEST(GraphicsChecks, BadFlagsAreRefusedBeforeTheDriverIsNeeded) {
    EXPECT_THROW(graphics_resource::register_gl_buffer(1, CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST),
                 gpukit::logic_error);
    EXPECT_THROW(graphics_resource::register_gl_image(1, 0x0DE1, 3), gpukit::logic_error);
}

TEST(GraphicsChecks, WithoutADriverRegisteringNamesTheLibrary) {
    if (driver_available())
        GTEST_SKIP() << "a CUDA driver is installed here";
    try {
        graphics_resource::register_gl_buffer(1);
        FAIL() << "register_gl_buffer worked without a driver";
    } catch (const gpukit::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("libcuda.so.1"), std::string::npos) << e.what();
    }
}

// A lender whose arrays may be used until `withdraw` is set.
struct test_lender final : array_lender {
    bool withdraw = false;
    const char* withdrawn() const noexcept override { return withdraw ? "the test withdrew it" : nullptr; }
};

TEST(GraphicsChecks, ABorrowedArrayIsNeverFreedAndRefusesUseOnceWithdrawn) {
    auto lender = std::make_shared<test_lender>();
    auto ctx = std::make_shared<detail::context_state>(nullptr, 0, detail::context_state::ownership::borrowed);
    const auto handle = reinterpret_cast<CUarray>(std::uintptr_t{0xa77a});
    EXPECT_THROW(array::borrow(nullptr, ctx, lender), gpukit::logic_error);
    EXPECT_THROW(array::borrow(handle, nullptr, lender), gpukit::logic_error);
    EXPECT_THROW(array::borrow(handle, ctx, nullptr), gpukit::logic_error);

    array borrowed = array::borrow(handle, ctx, lender);
    EXPECT_TRUE(borrowed.is_borrowed());
    EXPECT_FALSE(borrowed.is_freed());
    EXPECT_EQ(borrowed.handle(), handle);
    EXPECT_EQ(borrowed.owner(), ctx);
    EXPECT_EQ(lender.use_count(), 2);  // the array keeps its lender

    array moved = std::move(borrowed);
    EXPECT_TRUE(borrowed.is_freed());
    EXPECT_THROW(borrowed.handle(), gpukit::logic_error);
    EXPECT_EQ(moved.handle(), handle);

    lender->withdraw = true;
    try {
        moved.handle();
        FAIL() << "a withdrawn array's handle was handed out";
    } catch (const gpukit::logic_error& e) {
        EXPECT_STREQ(e.what(), "the test withdrew it");
    }
    EXPECT_THROW(moved.owner(), gpukit::logic_error);
    // free() lets go without the driver (there is none here to destroy anything with).
    moved.free();
    moved.free();
    EXPECT_TRUE(moved.is_freed());
    EXPECT_FALSE(moved.is_borrowed());
    EXPECT_EQ(lender.use_count(), 1);
    EXPECT_THROW(moved.handle(), gpukit::logic_error);
}

}  // namespace
