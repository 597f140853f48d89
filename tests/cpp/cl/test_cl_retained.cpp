// detail::retained, the one owner of every OpenCL handle, and the classes built on it: who
// takes a reference, who drops one, and what a failure does, checked through the reference
// counts OpenCL reports (clGet*Info(CL_*_REFERENCE_COUNT)) for each kind of object.
//
// OpenCL objects also hold references to each other (a queue to its context, a kernel to its
// program), so every check compares with the count read just before.
#include "gpukit/cl/detail/retained.hpp"
#include "gpukit/cl/kernel.hpp"

#include "cl_test_device.hpp"
#include "expect_error.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

namespace {

using namespace gpukit;
using cl::detail::retained;

// The reference count OpenCL reports for `h`.
template <class Handle>
cl_uint reference_count(Handle h) {
    cl_uint count = 0;
    auto read = [&](auto query, cl_uint param) {
        EXPECT_EQ((cl::api().*query)(h, param, sizeof count, &count, nullptr), CL_SUCCESS);
    };
    if constexpr (std::is_same_v<Handle, cl_context>)
        read(&cl::opencl_api::clGetContextInfo, CL_CONTEXT_REFERENCE_COUNT);
    else if constexpr (std::is_same_v<Handle, cl_command_queue>)
        read(&cl::opencl_api::clGetCommandQueueInfo, CL_QUEUE_REFERENCE_COUNT);
    else if constexpr (std::is_same_v<Handle, cl_mem>)
        read(&cl::opencl_api::clGetMemObjectInfo, CL_MEM_REFERENCE_COUNT);
    else if constexpr (std::is_same_v<Handle, cl_event>)
        read(&cl::opencl_api::clGetEventInfo, CL_EVENT_REFERENCE_COUNT);
    else if constexpr (std::is_same_v<Handle, cl_program>)
        read(&cl::opencl_api::clGetProgramInfo, CL_PROGRAM_REFERENCE_COUNT);
    else
        read(&cl::opencl_api::clGetKernelInfo, CL_KERNEL_REFERENCE_COUNT);
    return count;
}

// One object of each kind, each held by its gpukit owner.
struct cl_objects {
    cl::context ctx;
    cl::queue q;
    cl::buffer buf;
    cl::program prog;
    cl::kernel kern;
    cl::event done;

    static cl_objects create(const cl::device& dev) {
        cl::context ctx = cl::context::create(std::span<const cl::device>(&dev, 1));
        cl::queue q = cl::queue::create(ctx, dev);
        cl::buffer buf = cl::buffer::create(ctx, CL_MEM_READ_WRITE, sizeof(int));
        cl::program prog = cl::program::create_with_source(ctx, "__kernel void k(__global int* out) { *out = 7; }");
        prog.build();
        cl::kernel kern = cl::kernel::create(prog, "k");
        const int value = 3;
        cl::event done = cl::enqueue_write(q, buf, 0, &value, sizeof value, true);
        q.finish();
        return {std::move(ctx), std::move(q), std::move(buf), std::move(prog), std::move(kern), std::move(done)};
    }

    // The owner of the object of kind `Handle`.
    template <class Handle>
    auto& owner() {
        if constexpr (std::is_same_v<Handle, cl_context>)
            return ctx;
        else if constexpr (std::is_same_v<Handle, cl_command_queue>)
            return q;
        else if constexpr (std::is_same_v<Handle, cl_mem>)
            return buf;
        else if constexpr (std::is_same_v<Handle, cl_program>)
            return prog;
        else if constexpr (std::is_same_v<Handle, cl_kernel>)
            return kern;
        else
            return done;
    }
};

template <class Handle>
class ClRetained : public ::testing::Test {
protected:
    using traits = cl::detail::retain_traits<Handle>;

    void SetUp() override {
        if (const char* why = gpukit::testing::why_no_opencl())
            GTEST_SKIP() << why;
        const cl::device dev = gpukit::testing::cl_test_device();
        first.emplace(cl_objects::create(dev));
        second.emplace(cl_objects::create(dev));
    }

    Handle handle(std::optional<cl_objects>& objects) { return objects->template owner<Handle>().handle(); }

    std::optional<cl_objects> first;
    std::optional<cl_objects> second;
};

using handle_types = ::testing::Types<cl_context, cl_command_queue, cl_mem, cl_event, cl_program, cl_kernel>;
TYPED_TEST_SUITE(ClRetained, handle_types);

TYPED_TEST(ClRetained, RetainingConstructorTakesAReferenceOfItsOwn) {
    const TypeParam h = this->handle(this->first);
    const cl_uint before = reference_count(h);
    {
        const retained<TypeParam> r(h);
        EXPECT_EQ(r.get(), h);
        EXPECT_TRUE(r);
        EXPECT_EQ(reference_count(h), before + 1);
    }
    EXPECT_EQ(reference_count(h), before);
}

TYPED_TEST(ClRetained, AdoptingConstructorTakesOverTheCallersReference) {
    const TypeParam h = this->handle(this->first);
    const cl_uint before = reference_count(h);
    ASSERT_EQ((cl::api().*TestFixture::traits::retain)(h), CL_SUCCESS);  // the reference a clCreate* would return
    {
        const retained<TypeParam> r(h, cl::detail::adopt);
        EXPECT_EQ(r.get(), h);
        EXPECT_EQ(reference_count(h), before + 1);
    }
    EXPECT_EQ(reference_count(h), before);
}

TYPED_TEST(ClRetained, CopiesRetainAndMovesHandTheReferenceOn) {
    const TypeParam h = this->handle(this->first);
    const TypeParam other = this->handle(this->second);
    const cl_uint before = reference_count(h);
    const cl_uint other_before = reference_count(other);
    {
        retained<TypeParam> r(h);
        const retained<TypeParam> copy(r);
        EXPECT_EQ(copy.get(), h);
        EXPECT_EQ(reference_count(h), before + 2);

        const retained<TypeParam> moved(std::move(r));
        EXPECT_EQ(moved.get(), h);
        EXPECT_EQ(r.get(), nullptr);
        EXPECT_FALSE(r);
        EXPECT_EQ(reference_count(h), before + 2);

        // Assigning drops the reference held before and takes (copy) or takes over (move) the new one.
        retained<TypeParam> target(other);
        EXPECT_EQ(reference_count(other), other_before + 1);
        target = copy;
        EXPECT_EQ(target.get(), h);
        EXPECT_EQ(reference_count(other), other_before);
        EXPECT_EQ(reference_count(h), before + 3);

        retained<TypeParam> source(other);
        target = std::move(source);
        EXPECT_EQ(target.get(), other);
        EXPECT_EQ(source.get(), nullptr);
        EXPECT_EQ(reference_count(other), other_before + 1);
        EXPECT_EQ(reference_count(h), before + 2);

        auto& self = target;
        target = self;
        EXPECT_EQ(target.get(), other);
        EXPECT_EQ(reference_count(other), other_before + 1);
    }
    EXPECT_EQ(reference_count(h), before);
    EXPECT_EQ(reference_count(other), other_before);
}

TYPED_TEST(ClRetained, ResetDropsTheReferenceAndForgetKeepsIt) {
    const TypeParam h = this->handle(this->first);
    const cl_uint before = reference_count(h);
    retained<TypeParam> r(h);
    r.reset();
    EXPECT_EQ(r.get(), nullptr);
    EXPECT_EQ(reference_count(h), before);
    r.reset();  // an empty one has nothing to drop
    EXPECT_EQ(reference_count(h), before);

    retained<TypeParam> borrowed(h);
    borrowed.forget();
    EXPECT_EQ(borrowed.get(), nullptr);
    EXPECT_EQ(reference_count(h), before + 1);
    EXPECT_EQ((cl::api().*TestFixture::traits::release)(h), CL_SUCCESS);  // the reference forget() left behind
}

TYPED_TEST(ClRetained, EmptyReferencesCallNothing) {
    using fn = std::remove_reference_t<decltype(cl::mutable_api().*TestFixture::traits::retain)>;
    cl::api_override<fn> no_retain(cl::mutable_api().*TestFixture::traits::retain, nullptr);
    const retained<TypeParam> empty{};
    const retained<TypeParam> from_null(nullptr);
    const retained<TypeParam> copy(from_null);
    EXPECT_FALSE(empty);
    EXPECT_FALSE(copy);
}

TYPED_TEST(ClRetained, AFailedRetainThrowsNamingTheRoutine) {
    using fn = std::remove_reference_t<decltype(cl::mutable_api().*TestFixture::traits::retain)>;
    const TypeParam h = this->handle(this->first);
    const cl_uint before = reference_count(h);
    {
        cl::api_override<fn> failing(cl::mutable_api().*TestFixture::traits::retain,
                                     +[](TypeParam) -> cl_int { return CL_OUT_OF_HOST_MEMORY; });
        try {
            const retained<TypeParam> r(h);
            FAIL() << "retaining should have thrown";
        } catch (const cl::memory_error& e) {
            EXPECT_EQ(e.routine(), TestFixture::traits::retain_name);
            EXPECT_EQ(e.code(), CL_OUT_OF_HOST_MEMORY);
        }
    }
    {
        cl::api_override<fn> missing(cl::mutable_api().*TestFixture::traits::retain, nullptr);
        EXPECT_THROW(const retained<TypeParam> r(h), cl::logic_error);
    }
    EXPECT_EQ(reference_count(h), before);
}

TYPED_TEST(ClRetained, AFailedReleaseBecomesACleanupWarning) {
    using fn = std::remove_reference_t<decltype(cl::mutable_api().*TestFixture::traits::release)>;
    static std::string warning;
    warning.clear();
    const TypeParam h = this->handle(this->first);
    const cl_uint before = reference_count(h);
    set_cleanup_warning_hook([](const std::string& message) { warning = message; });
    {
        // Declared first so that it is restored only after the reference has gone.
        cl::api_override<fn> failing(cl::mutable_api().*TestFixture::traits::release,
                                     +[](TypeParam) -> cl_int { return CL_INVALID_VALUE; });
        const retained<TypeParam> r(h);
    }
    set_cleanup_warning_hook(nullptr);
    EXPECT_EQ(warning, std::string(TestFixture::traits::release_name) + " failed: CL_INVALID_VALUE");
    EXPECT_EQ(reference_count(h), before + 1);
    EXPECT_EQ((cl::api().*TestFixture::traits::release)(h), CL_SUCCESS);  // the release the failure skipped
}

// The owners (context, queue, buffer, event, program, kernel) hold exactly one reference each.
template <class... Owners>
constexpr bool move_only = ((!std::is_copy_constructible_v<Owners> && !std::is_copy_assignable_v<Owners> &&
                             std::is_nothrow_move_constructible_v<Owners> &&
                             std::is_nothrow_move_assignable_v<Owners>) && ...);
static_assert(move_only<cl::context, cl::queue, cl::buffer, cl::event, cl::program, cl::kernel>);

TYPED_TEST(ClRetained, AnOwnerDropsItsReferenceWhenDestroyed) {
    auto& owner = this->first->template owner<TypeParam>();
    const TypeParam h = owner.handle();
    const retained<TypeParam> watch(h);  // keeps the object alive to read its count
    const cl_uint before = reference_count(h);
    {
        const auto moved = std::move(owner);
        EXPECT_EQ(moved.handle(), h);
        EXPECT_EQ(owner.handle(), nullptr);
        EXPECT_EQ(reference_count(h), before);
    }
    EXPECT_EQ(reference_count(h), before - 1);
}

TYPED_TEST(ClRetained, MoveAssigningAnOwnerDropsTheReferenceItHeld) {
    auto& target = this->first->template owner<TypeParam>();
    auto& source = this->second->template owner<TypeParam>();
    const TypeParam old_handle = target.handle();
    const TypeParam new_handle = source.handle();
    const retained<TypeParam> watch_old(old_handle);
    const retained<TypeParam> watch_new(new_handle);
    const cl_uint old_before = reference_count(old_handle);
    const cl_uint new_before = reference_count(new_handle);
    target = std::move(source);
    EXPECT_EQ(target.handle(), new_handle);
    EXPECT_EQ(source.handle(), nullptr);
    EXPECT_EQ(reference_count(old_handle), old_before - 1);
    EXPECT_EQ(reference_count(new_handle), new_before);
}

}  // namespace

namespace {

class ClWrap : public gpukit::testing::cl_queue_test {};

TEST_F(ClWrap, AWrappedContextHasItsDevicesAndAReferenceOfItsOwn) {
    const cl_context h = ctx->handle();
    const cl_uint before = reference_count(h);
    {
        const cl::context again = cl::context::wrap(q->context_handle());
        EXPECT_EQ(again.handle(), h);
        EXPECT_EQ(again.devices(), ctx->devices());
        EXPECT_EQ(reference_count(h), before + 1);
    }
    EXPECT_EQ(reference_count(h), before);
    // Without retain, the wrapper takes over a reference the caller holds.
    EXPECT_EQ(cl::api().clRetainContext(h), CL_SUCCESS);
    {
        const cl::context adopted = cl::context::wrap(h, false);
        EXPECT_EQ(reference_count(h), before + 1);
    }
    EXPECT_EQ(reference_count(h), before);
    gpukit::test::expect_error<cl::logic_error>([] { cl::context::wrap(nullptr); },
                                                "wrapping a context: the handle is null");
}

}  // namespace
