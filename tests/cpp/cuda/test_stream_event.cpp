#include "gpu_test.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/event.hpp"
#include "gpukit/cuda/stream.hpp"

namespace {

using gpukit::cuda::event;
using gpukit::cuda::stream;

using StreamEvent = gpukit::testing::gpu_test;

TEST_F(StreamEvent, StreamBasics) {
    stream s = stream::create();
    EXPECT_NE(s.handle(), nullptr);
    s.synchronize();
    EXPECT_TRUE(s.is_done());
    stream non_blocking = stream::create(CU_STREAM_NON_BLOCKING);
    EXPECT_EQ(non_blocking.flags(), static_cast<unsigned>(CU_STREAM_NON_BLOCKING));
    stream moved = std::move(s);
    EXPECT_EQ(s.handle(), nullptr);
    moved.synchronize();
    EXPECT_EQ(moved.view().context(), ctx->handle());
    EXPECT_EQ(gpukit::cuda::stream_view().context(), ctx->handle());  // the default stream: the current context
    EXPECT_THROW(stream::create(0x40), gpukit::cuda_error);
}

TEST_F(StreamEvent, StreamPriorities) {
    auto [least, greatest] = ctx->stream_priority_range();
    stream high = stream::create(CU_STREAM_DEFAULT, greatest);
    stream low = stream::create(CU_STREAM_DEFAULT, least);
    EXPECT_EQ(high.priority(), greatest);
    EXPECT_EQ(low.priority(), least);
}

TEST_F(StreamEvent, EventTiming) {
    stream s = stream::create();
    event start = event::create(), stop = event::create();
    start.record(s);
    stop.record(s);
    stop.synchronize();
    EXPECT_TRUE(stop.query());
    EXPECT_GE(stop.time_since(start), 0.0f);
    EXPECT_GE(start.time_till(stop), 0.0f);
    s.wait_for_event(stop);
    s.synchronize();
}

TEST_F(StreamEvent, UnrecordedEventsCannotBeTimed) {
    event a = event::create(), b = event::create();
    EXPECT_TRUE(a.query());  // CUDA treats a never-recorded event as complete
    try {
        b.time_since(a);
        FAIL() << "timed unrecorded events";
    } catch (const gpukit::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("never recorded"), std::string::npos) << e.what();
    }
    event untimed = event::create(CU_EVENT_DISABLE_TIMING);
    untimed.record();
    a.record();
    untimed.synchronize();
    a.synchronize();
    EXPECT_THROW(a.time_since(untimed), gpukit::logic_error);
}

TEST_F(StreamEvent, IpcHandleNeedsInterprocessFlags) {
    event plain = event::create();
    EXPECT_THROW(plain.ipc_handle(), gpukit::logic_error);
    event shared = event::create(CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING);
    CUipcEventHandle handle = shared.ipc_handle();
    (void)handle;  // opening it needs another process; the Python tests do that
    EXPECT_THROW(event::create(CU_EVENT_INTERPROCESS), gpukit::cuda_error);
}

TEST_F(StreamEvent, NoCurrentContextIsAClearError) {
    gpukit::cuda::context::pop();
    try {
        stream::create();
        FAIL() << "made a stream with no context";
    } catch (const gpukit::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("current CUDA context"), std::string::npos) << e.what();
    }
    EXPECT_THROW(event::create(), gpukit::logic_error);
    ctx->push();
}

}  // namespace
