#include "gpu_test.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/default_device.hpp"
#include "gpukit/cuda/stream.hpp"

#include <thread>

namespace {

using gpukit::cuda::api;
using gpukit::cuda::context;
using gpukit::cuda::device;

CUcontext current_handle() {
    CUcontext h = nullptr;
    api().cuCtxGetCurrent(&h);
    return h;
}

// Pops whatever a test left current, so the next test starts from an empty stack.
void drain_stack() {
    while (current_handle())
        context::pop();
}

TEST(Context, MakePushPop) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    context ctx = device::get(0).make_context();
    EXPECT_EQ(current_handle(), ctx.handle());
    ASSERT_TRUE(context::current());
    EXPECT_EQ(*context::current(), ctx);
    EXPECT_EQ(ctx.get_device(), device::get(0));
    EXPECT_GE(ctx.api_version(), 3020u);
    ctx.synchronize();
    context::pop();
    EXPECT_EQ(current_handle(), nullptr);
    EXPECT_FALSE(context::current());
    ctx.push();
    EXPECT_EQ(current_handle(), ctx.handle());
    ctx.detach();
    EXPECT_EQ(current_handle(), nullptr);
}

TEST(Context, PopOnAnEmptyStackIsALogicError) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    try {
        context::pop();
        FAIL() << "pop() on an empty stack worked";
    } catch (const gpukit::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    }
    EXPECT_THROW(context::current_or_throw("test"), gpukit::logic_error);
}

TEST(Context, UseAfterDetachIsALogicError) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    context ctx = device::get(0).make_context();
    ctx.detach();
    EXPECT_TRUE(ctx.is_detached());
    EXPECT_THROW(ctx.push(), gpukit::logic_error);
    EXPECT_THROW(ctx.synchronize(), gpukit::logic_error);
    EXPECT_THROW(ctx.get_device(), gpukit::logic_error);
    ctx.detach();  // a second detach is harmless
}

TEST(Context, FailedCreationLeavesTheStackAsItWas) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    context outer = device::get(0).make_context();
    {
        gpukit::cuda::api_override fail(
            gpukit::cuda::mutable_api().cuCtxCreate,
            +[](CUcontext*, CUctxCreateParams*, unsigned int, CUdevice) { return CUDA_ERROR_OUT_OF_MEMORY; });
        EXPECT_THROW(device::get(0).make_context(), gpukit::memory_error);
    }
    EXPECT_EQ(current_handle(), outer.handle());
    EXPECT_THROW(device::get(0).make_context(0xFFFF), gpukit::cuda_error);  // invalid flags
    EXPECT_EQ(current_handle(), outer.handle());
    outer.detach();
}

TEST(Context, ResourcesKeepTheirContextAlive) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    std::optional<gpukit::cuda::stream> s;
    {
        context ctx = device::get(0).make_context();
        s.emplace(gpukit::cuda::stream::create());
        ctx.detach();  // pops and drops the handle; the stream still holds the context
    }
    EXPECT_EQ(current_handle(), nullptr);
    s->synchronize();  // the context is alive, though not current
    EXPECT_TRUE(s->is_done());
    s.reset();  // destroys the stream, then the context
}

TEST(Context, UsableFromAnotherThreadAfterPush) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    context ctx = device::get(0).make_context();
    context::pop();
    bool worked = false;
    std::thread worker([&] {
        ctx.push();
        auto s = gpukit::cuda::stream::create();
        s.synchronize();
        worked = context::current() && *context::current() == ctx;
        context::pop();
    });
    worker.join();
    EXPECT_TRUE(worked);
    EXPECT_EQ(current_handle(), nullptr);  // the other thread's stack is its own
    ctx.detach();
}

TEST(Context, PrimaryContextIsSharedAndNotMadeCurrent) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    context a = device::get(0).retain_primary_context();
    context b = device::get(0).retain_primary_context();
    EXPECT_EQ(a, b);
    EXPECT_EQ(current_handle(), nullptr);
    a.push();
    EXPECT_EQ(*context::current(), b);
    context::pop();
    a.detach();
    b.detach();
}

// Another library's primary context made current (as CuPy's runtime calls do): gpukit keeps
// one state for it, so its kernels and pool are made once, not at every operation.
TEST(Context, AForeignPrimaryContextKeepsOneState) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    CUdevice dev = 0;
    ASSERT_EQ(api().cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    CUcontext primary = nullptr;
    ASSERT_EQ(api().cuDevicePrimaryCtxRetain(&primary, dev), CUDA_SUCCESS);  // the other library's retain
    ASSERT_EQ(api().cuCtxPushCurrent(primary), CUDA_SUCCESS);
    std::weak_ptr<const void> first;
    {
        const context seen = *context::current();
        first = seen.state();
    }
    EXPECT_FALSE(first.expired()) << "the state went with the first object that used it";
    EXPECT_EQ(context::current()->state().get(), first.lock().get());
    // A context made by hand but not primary is borrowed only while used.
    CUcontext own = nullptr;
    ASSERT_EQ(api().cuCtxCreate(&own, nullptr, 0, dev), CUDA_SUCCESS);
    std::weak_ptr<const void> borrowed_state;
    {
        const context seen = *context::current();
        borrowed_state = seen.state();
    }
    EXPECT_TRUE(borrowed_state.expired());
    ASSERT_EQ(api().cuCtxDestroy(own), CUDA_SUCCESS);
    CUcontext popped = nullptr;
    ASSERT_EQ(api().cuCtxPopCurrent(&popped), CUDA_SUCCESS);
    EXPECT_EQ(popped, primary);
    EXPECT_EQ(api().cuDevicePrimaryCtxRelease(dev), CUDA_SUCCESS);
}

TEST(Context, ConfigurationAndLimits) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    context ctx = device::get(0).make_context();
    ctx.set_cache_config(CU_FUNC_CACHE_PREFER_L1);
    EXPECT_EQ(ctx.cache_config(), CU_FUNC_CACHE_PREFER_L1);
    ctx.set_limit(CU_LIMIT_PRINTF_FIFO_SIZE, 1 << 20);
    EXPECT_GE(ctx.limit(CU_LIMIT_PRINTF_FIFO_SIZE), std::size_t{1} << 20);
    (void)ctx.shared_config();
    auto [least, greatest] = ctx.stream_priority_range();
    EXPECT_LE(greatest, least);
    EXPECT_THROW(ctx.set_limit(static_cast<CUlimit>(999), 1), gpukit::cuda_error);
    ctx.detach();
}

TEST(Context, DefaultContextTriesDevices) {
    GPUKIT_REQUIRE_GPU();
    drain_stack();
    unsetenv("CUDA_DEVICE");
    context ctx = gpukit::cuda::make_default_context();
    EXPECT_EQ(current_handle(), ctx.handle());
    ctx.detach();
}

}  // namespace
