// The owner template of every CUDA resource, without a device: a fake release call counts
// what it releases, and a fake scope stands in for making the context current.
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace gpukit::cuda;

// What the fakes saw, reset by each test's fixture.
struct record {
    std::vector<int> released;         // handles, in release order
    std::vector<bool> scope_throwing;  // per scope entered: the throwing (free) form or not
    int scopes_open = 0;
    bool released_outside_scope = false;
    CUresult next_result = CUDA_SUCCESS;  // what the next release returns
    bool next_throws = false;             // the next release throws, as api() does without a driver
    bool scope_fails = false;             // the throwing scope throws, as without a driver
    std::vector<std::string> warnings;
};
record seen;

struct fake_scope {
    explicit fake_scope(const detail::context_state&) {
        if (seen.scope_fails)
            throw gpukit::runtime_error("no driver", 0, "cuCtxGetCurrent");
        seen.scope_throwing.push_back(true);
        ++seen.scopes_open;
    }
    fake_scope(const detail::context_state&, std::nothrow_t) noexcept {
        seen.scope_throwing.push_back(false);
        ++seen.scopes_open;
    }
    ~fake_scope() { --seen.scopes_open; }
    fake_scope(const fake_scope&) = delete;
    fake_scope& operator=(const fake_scope&) = delete;
};

struct fake_traits {
    using handle_type = int;
    static constexpr const char* release_name = "cuFakeDestroy";
    static CUresult release(int handle) {
        if (seen.scopes_open == 0)
            seen.released_outside_scope = true;
        if (std::exchange(seen.next_throws, false))
            throw gpukit::runtime_error("libcuda.so.1 could not be loaded", 0, "dlopen");
        seen.released.push_back(handle);
        return std::exchange(seen.next_result, CUDA_SUCCESS);
    }
};

using owner = detail::context_bound<fake_traits, fake_scope>;

static_assert(std::is_nothrow_move_constructible_v<owner> && std::is_nothrow_move_assignable_v<owner>);
static_assert(!std::is_copy_constructible_v<owner> && !std::is_copy_assignable_v<owner>);

context_state_ptr fake_context() {
    return std::make_shared<detail::context_state>(nullptr, 0, detail::context_state::ownership::borrowed);
}

class ContextBound : public ::testing::Test {
protected:
    void SetUp() override {
        seen = {};
        gpukit::set_cleanup_warning_hook([](const std::string& message) { seen.warnings.push_back(message); });
    }
    void TearDown() override {
        gpukit::set_cleanup_warning_hook(nullptr);
        EXPECT_FALSE(seen.released_outside_scope) << "a handle was released without its context made current";
        EXPECT_EQ(seen.scopes_open, 0);
    }
};

TEST_F(ContextBound, TheDestructorReleasesOnceInTheQuietScope) {
    const context_state_ptr ctx = fake_context();
    {
        owner o(7, ctx);
        EXPECT_FALSE(o.empty());
        EXPECT_EQ(o.handle(), 7);
        EXPECT_EQ(o.get("freed"), 7);
        EXPECT_EQ(o.context(), ctx);
        EXPECT_EQ(ctx.use_count(), 2);  // the owner keeps the context alive
    }
    EXPECT_EQ(seen.released, std::vector<int>{7});
    EXPECT_EQ(seen.scope_throwing, std::vector<bool>{false});
    EXPECT_EQ(ctx.use_count(), 1);
    EXPECT_TRUE(seen.warnings.empty());
}

TEST_F(ContextBound, AnEmptyOwnerReleasesNothing) {
    {
        owner o;
        EXPECT_TRUE(o.empty());
        EXPECT_EQ(o.context(), nullptr);
    }
    EXPECT_TRUE(seen.released.empty());
    EXPECT_TRUE(seen.scope_throwing.empty());
}

TEST_F(ContextBound, AMovedFromOwnerReleasesNothing) {
    const context_state_ptr ctx = fake_context();
    {
        owner a(3, ctx);
        owner b(std::move(a));
        EXPECT_TRUE(a.empty());
        EXPECT_EQ(a.context(), nullptr);
        EXPECT_THROW(a.get("gone"), gpukit::logic_error);
        EXPECT_EQ(b.handle(), 3);
        EXPECT_EQ(b.context(), ctx);
        EXPECT_TRUE(seen.released.empty());
    }
    EXPECT_EQ(seen.released, std::vector<int>{3});  // by b only
}

TEST_F(ContextBound, MoveAssignmentReleasesTheOldHandleOnce) {
    const context_state_ptr first = fake_context(), second = fake_context();
    {
        owner a(1, first);
        owner b(2, second);
        a = std::move(b);
        EXPECT_EQ(seen.released, std::vector<int>{1});  // the old handle, at once
        EXPECT_EQ(a.handle(), 2);
        EXPECT_EQ(a.context(), second);
        EXPECT_EQ(first.use_count(), 1);
        EXPECT_TRUE(b.empty());
        a = std::move(a);  // self-assignment keeps the handle
        EXPECT_EQ(a.handle(), 2);
        EXPECT_EQ(seen.released, std::vector<int>{1});
        owner empty;
        a = std::move(empty);  // releases 2, holds nothing
        EXPECT_TRUE(a.empty());
    }
    EXPECT_EQ(seen.released, (std::vector<int>{1, 2}));
}

TEST_F(ContextBound, FreeReleasesInTheThrowingScopeAndASecondCallDoesNothing) {
    const context_state_ptr ctx = fake_context();
    owner o(9, ctx);
    o.free();
    EXPECT_EQ(seen.released, std::vector<int>{9});
    EXPECT_EQ(seen.scope_throwing, std::vector<bool>{true});
    EXPECT_TRUE(o.empty());
    EXPECT_EQ(ctx.use_count(), 1);  // the context is let go with the handle
    o.free();
    EXPECT_EQ(seen.released, std::vector<int>{9});
    try {
        o.get("this FakeObject has been freed; it can no longer be used");
        FAIL() << "get() worked after free()";
    } catch (const gpukit::logic_error& e) {
        EXPECT_STREQ(e.what(), "this FakeObject has been freed; it can no longer be used");
    }
}

TEST_F(ContextBound, AFailedFreeThrowsAndKeepsTheHandleForTheDestructor) {
    const context_state_ptr ctx = fake_context();
    {
        owner o(5, ctx);
        seen.next_result = CUDA_ERROR_INVALID_VALUE;
        try {
            o.free();
            FAIL() << "free() hid the failed release";
        } catch (const gpukit::logic_error& e) {  // the error throw_cuda_error picks for INVALID_VALUE
            EXPECT_EQ(e.routine(), "cuFakeDestroy");
            EXPECT_EQ(e.code(), CUDA_ERROR_INVALID_VALUE);
        }
        EXPECT_FALSE(o.empty());
        EXPECT_EQ(o.context(), ctx);
    }
    EXPECT_EQ(seen.released, (std::vector<int>{5, 5}));  // tried by free(), then by the destructor
    EXPECT_TRUE(seen.warnings.empty());
}

TEST_F(ContextBound, FreeWithoutADriverThrowsAndReleasesNothing) {
    const context_state_ptr ctx = fake_context();
    owner o(4, ctx);
    seen.scope_fails = true;
    EXPECT_THROW(o.free(), gpukit::runtime_error);
    EXPECT_FALSE(o.empty());
    EXPECT_TRUE(seen.released.empty());
}

TEST_F(ContextBound, AFailedReleaseInTheDestructorIsReportedNotThrown) {
    const context_state_ptr ctx = fake_context();
    {
        owner o(6, ctx);
        seen.next_result = CUDA_ERROR_INVALID_VALUE;
    }
    EXPECT_EQ(seen.released, std::vector<int>{6});
    ASSERT_EQ(seen.warnings.size(), 1u);
    EXPECT_NE(seen.warnings[0].find("cuFakeDestroy failed while releasing a resource"), std::string::npos)
        << seen.warnings[0];
}

TEST_F(ContextBound, AReleaseAfterTheDriverShutDownIsNotReported) {
    const context_state_ptr ctx = fake_context();
    {
        owner o(8, ctx);
        seen.next_result = CUDA_ERROR_DEINITIALIZED;  // at process exit
    }
    EXPECT_TRUE(seen.warnings.empty());
}

TEST_F(ContextBound, AReleaseThatThrowsInTheDestructorIsSwallowed) {
    const context_state_ptr ctx = fake_context();
    {
        owner o(2, ctx);
        seen.next_throws = true;  // api() without a driver
    }
    EXPECT_TRUE(seen.released.empty());
    EXPECT_EQ(ctx.use_count(), 1);  // let go all the same
}

TEST_F(ContextBound, ReleaseFreesAHandleNoOwnerHolds) {
    const context_state_ptr ctx = fake_context();
    owner::release(*ctx, 11);
    EXPECT_EQ(seen.released, std::vector<int>{11});
    EXPECT_EQ(seen.scope_throwing, std::vector<bool>{false});
    seen.next_result = CUDA_ERROR_ILLEGAL_ADDRESS;
    owner::release(*ctx, 12);
    EXPECT_EQ(seen.warnings.size(), 1u);
}

}  // namespace
