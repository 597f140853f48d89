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

#include <cstring>
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
        cl::api_override<fn> failing(
            cl::mutable_api().*TestFixture::traits::retain, +[](TypeParam) -> cl_int { return CL_OUT_OF_HOST_MEMORY; });
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
        cl::api_override<fn> failing(
            cl::mutable_api().*TestFixture::traits::release, +[](TypeParam) -> cl_int { return CL_INVALID_VALUE; });
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
                             std::is_nothrow_move_assignable_v<Owners>)&&...);
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

template <class Handle>
using owner_of = std::remove_cvref_t<decltype(std::declval<cl_objects&>().template owner<Handle>())>;

// wrap(handle) takes a reference of its own and wrap(handle, false) takes over the caller's;
// either is dropped with the wrapper.
TYPED_TEST(ClRetained, WrapTakesAReferenceOfItsOwnOrTheCallers) {
    using owner = owner_of<TypeParam>;
    const TypeParam h = this->handle(this->first);
    const cl_uint before = reference_count(h);
    {
        const owner again = owner::wrap(h);
        EXPECT_EQ(again.handle(), h);
        EXPECT_EQ(reference_count(h), before + 1);
    }
    EXPECT_EQ(reference_count(h), before);
    ASSERT_EQ((cl::api().*TestFixture::traits::retain)(h), CL_SUCCESS);
    {
        const owner adopted = owner::wrap(h, false);
        EXPECT_EQ(reference_count(h), before + 1);
    }
    EXPECT_EQ(reference_count(h), before);
    gpukit::test::expect_error<cl::logic_error>([] { owner::wrap(nullptr); }, "the handle is null");
}

// What each wrapper reads from OpenCL.
class ClWrap : public gpukit::testing::cl_queue_test {
protected:
    ClWrap() : cl_queue_test(true) {}
};

TEST_F(ClWrap, AContextHasItsDevices) {
    const cl::context again = cl::context::wrap(q->context_handle());
    EXPECT_EQ(again.handle(), ctx->handle());
    EXPECT_EQ(again.devices(), ctx->devices());
}

TEST_F(ClWrap, AQueueHasItsContextDeviceAndProfiling) {
    const cl::queue again = cl::queue::wrap(q->handle());
    EXPECT_EQ(again.context_handle(), ctx->handle());
    EXPECT_EQ(again.get_device(), *dev);
    EXPECT_TRUE(again.profiling());
    EXPECT_FALSE(cl::queue::wrap(cl::queue::create(*ctx, *dev).handle()).profiling());
}

TEST_F(ClWrap, AnOutOfOrderQueueIsRefused) {
    const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    cl_int status = CL_SUCCESS;
    const cl_command_queue h =
        cl::api().clCreateCommandQueueWithProperties(ctx->handle(), dev->handle(), properties, &status);
    if (status != CL_SUCCESS)
        GTEST_SKIP() << "the device has no out-of-order queues (" << cl::error_name(status) << ")";
    // Taken over and dropped again when refused, so the queue is gone after this.
    gpukit::test::expect_error<cl::logic_error>([&] { cl::queue::wrap(h, false); },
                                                "wrapping a command queue: it runs commands out of order");
}

TEST_F(ClWrap, ABufferHasItsSizeAndFlags) {
    const auto buf = cl::buffer::create(*ctx, CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 333);
    const cl::buffer again = cl::buffer::wrap(buf.handle());
    EXPECT_EQ(again.size(), 333u);
    EXPECT_EQ(again.flags(), cl_mem_flags{CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS});
}

// clGetMemObjectInfo, answering CL_MEM_TYPE as an image's and everything else as `real_mem_info`.
decltype(&::clGetMemObjectInfo) real_mem_info = nullptr;
cl_int image_type_info(cl_mem m, cl_mem_info param, size_t size, void* value, size_t* size_ret) {
    if (param != CL_MEM_TYPE)
        return real_mem_info(m, param, size, value, size_ret);
    const cl_mem_object_type type = CL_MEM_OBJECT_IMAGE2D;
    if (size_ret)
        *size_ret = sizeof type;
    if (value)
        std::memcpy(value, &type, sizeof type);
    return CL_SUCCESS;
}

TEST_F(ClWrap, OtherMemoryObjectsAreRefused) {
    const auto buf = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 64);
    real_mem_info = cl::api().clGetMemObjectInfo;
    cl::api_override<decltype(&::clGetMemObjectInfo)> as_image(cl::mutable_api().clGetMemObjectInfo, &image_type_info);
    gpukit::test::expect_error<cl::logic_error>([&] { cl::buffer::wrap(buf.handle()); },
                                                "the memory object is of type " + std::to_string(CL_MEM_OBJECT_IMAGE2D),
                                                "expected a buffer");
}

TEST_F(ClWrap, AProgramIsBuiltAsOpenCLReportsIt) {
    constexpr const char* source = "__kernel void seven(__global int *out) { out[get_global_id(0)] = 7 * N; }";
    cl::program prog = cl::program::create_with_source(*ctx, source);
    EXPECT_FALSE(cl::program::wrap(prog.handle()).built());
    prog.build("-DN=3");
    const cl::kernel first = cl::kernel::create(prog, "seven");
    cl::program again = cl::program::wrap(prog.handle());
    EXPECT_TRUE(again.built() && again.built_for(*dev));
    EXPECT_EQ(again.devices(), ctx->devices());
    EXPECT_EQ(again.kernel_names(), std::vector<std::string>{"seven"});
    again.build("-DN=3");  // the options OpenCL reports: nothing to build (kernels exist, so OpenCL would refuse)
    gpukit::test::expect_error<cl::logic_error>([&] { again.build("-DN=4"); },
                                                "(it is built with options '-DN=3' for '" + dev->name() + "')");
}

TEST_F(ClWrap, AKernelIsDescribedAndRunsOnceItsArgumentsAreSet) {
    cl::program prog = cl::program::create_with_source(*ctx, R"(
        __kernel void affine(__global int *out, int a, int b) {
            const int i = get_global_id(0);
            out[i] = a * i + b;
        })");
    prog.build();
    const cl::kernel original = cl::kernel::create(prog, "affine");
    cl::kernel again = cl::kernel::wrap(original.handle());
    EXPECT_EQ(again.name(), "affine");
    EXPECT_EQ(again.num_args(), 3u);
    ASSERT_EQ(again.parameters().size(), original.parameters().size());
    for (size_t i = 0; i < again.parameters().size(); ++i) {
        EXPECT_EQ(again.parameters()[i].name, original.parameters()[i].name);
        EXPECT_EQ(again.parameters()[i].kind, original.parameters()[i].kind);
    }
    const size_t global[] = {40};
    gpukit::test::expect_error<cl::logic_error>([&] { cl::enqueue_nd_range(*q, again, global); },
                                                "argument 0 ('out', __global int*) of kernel 'affine' was never set");
    auto out = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, 40 * sizeof(int));
    again.set_arg(0, out);
    again.set_arg_value(1, -6);
    again.set_arg_value(2, 11);
    cl::enqueue_nd_range(*q, again, global);
    std::vector<int> result(40);
    cl::enqueue_read(*q, out, 0, result.data(), result.size() * sizeof(int), true);
    for (int i = 0; i < 40; ++i)
        ASSERT_EQ(result[i], -6 * i + 11) << "at " << i;
}

TEST_F(ClWrap, AnEventCanBeWaitedFor) {
    auto buf = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, sizeof(int));
    const int value = 5;
    const cl::event written = cl::enqueue_write(*q, buf, 0, &value, sizeof value, false);
    const cl::event again = cl::event::wrap(written.handle());
    again.wait();
    EXPECT_EQ(again.status(), CL_COMPLETE);
    EXPECT_LE(again.profile().start, again.profile().end);
}

}  // namespace
