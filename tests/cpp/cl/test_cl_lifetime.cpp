// Host memory of asynchronous OpenCL commands lives until they complete (event::
// keep_until_complete, buffer::create's host owner), for real on whatever platform is installed
// (PoCL in CI). Under AddressSanitizer, a command that used its memory after the owner let go
// would be reported as a heap-use-after-free.
//
// Each test first queues a kernel that keeps the in-order queue busy for a while, so the command
// under test surely runs after the program has dropped its own references.
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/kernel.hpp"

#include "cl_test_device.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <numeric>
#include <optional>
#include <thread>
#include <vector>

namespace {

using namespace gpukit;
using gpukit::testing::why_no_opencl;

const char* const spin_source = R"(
__kernel void spin(__global int* out, int rounds) {
    int x = get_global_id(0);
    for (int i = 0; i < rounds; ++i)
        x = x * 1103515245 + 12345;
    out[0] = x;
}
)";

constexpr size_t element_count = 1 << 18;

// Host memory handed to OpenCL as an owner: when it goes, it records what it held and that it
// went, so a test can see when it was dropped and what the command had written into it.
struct tracked_memory {
    std::vector<int> values;
    std::atomic<bool>* dropped = nullptr;
    std::vector<int>* last_values = nullptr;

    ~tracked_memory() {
        *last_values = values;
        dropped->store(true);
    }
};

class ClLifetime : public gpukit::testing::cl_queue_test {
protected:
    void SetUp() override {
        cl_queue_test::SetUp();
        if (IsSkipped())
            return;
        cl::program prog = cl::program::create_with_source(*ctx, spin_source);
        prog.build();
        spin.emplace(cl::kernel::create(prog, "spin"));
        scratch.emplace(cl::buffer::create(*ctx, CL_MEM_READ_WRITE, sizeof(int)));
        spin->set_arg(0, *scratch);
        spin->set_arg_value(1, cl_int{20'000'000});
    }

    // Queues about a tenth of a second of work.
    void keep_busy() {
        const size_t one[] = {1};
        cl::enqueue_nd_range(*q, *spin, one);
    }

    std::shared_ptr<tracked_memory> tracked(std::vector<int> values) {
        auto memory = std::make_shared<tracked_memory>();
        memory->values = std::move(values);
        memory->dropped = &dropped;
        memory->last_values = &last_values;
        return memory;
    }

    // OpenCL reports completion on a thread of its own, a little after the command is done.
    bool dropped_within_seconds(int seconds) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        while (!dropped.load() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return dropped.load();
    }

    std::optional<cl::kernel> spin;
    std::optional<cl::buffer> scratch;
    std::atomic<bool> dropped{false};
    std::vector<int> last_values;
};

std::vector<int> iota_values(int first) {
    std::vector<int> values(element_count);
    std::iota(values.begin(), values.end(), first);
    return values;
}

TEST_F(ClLifetime, ADroppedReadWritesIntoMemoryThatIsStillOwned) {
    const std::vector<int> expected = iota_values(-5);
    cl::buffer source = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, element_count * sizeof(int));
    cl::enqueue_write(*q, source, 0, expected.data(), element_count * sizeof(int), true);
    keep_busy();
    {
        auto destination = tracked(std::vector<int>(element_count, 0));
        cl::event done =
            cl::enqueue_read(*q, source, 0, destination->values.data(), element_count * sizeof(int), false);
        done.keep_until_complete(destination);
    }  // the event and the program's reference are gone; the read has not even started
    EXPECT_FALSE(dropped.load());
    q->finish();
    ASSERT_TRUE(dropped_within_seconds(10));
    EXPECT_EQ(last_values, expected);
}

TEST_F(ClLifetime, ADroppedWriteReadsMemoryThatIsStillOwned) {
    const std::vector<int> expected = iota_values(11);
    cl::buffer destination = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, element_count * sizeof(int));
    keep_busy();
    {
        auto source = tracked(expected);
        cl::enqueue_write(*q, destination, 0, source->values.data(), element_count * sizeof(int), false)
            .keep_until_complete(source);
    }
    EXPECT_FALSE(dropped.load());
    q->finish();
    std::vector<int> back(element_count);
    cl::enqueue_read(*q, destination, 0, back.data(), element_count * sizeof(int), true);
    EXPECT_EQ(back, expected);
    EXPECT_TRUE(dropped_within_seconds(10));
}

TEST_F(ClLifetime, WaitLetsGoOfTheOwnerAtOnce) {
    cl::buffer source = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, element_count * sizeof(int));
    const std::vector<int> expected = iota_values(3);
    cl::enqueue_write(*q, source, 0, expected.data(), element_count * sizeof(int), true);
    keep_busy();
    auto destination = tracked(std::vector<int>(element_count, 0));
    cl::event done = cl::enqueue_read(*q, source, 0, destination->values.data(), element_count * sizeof(int), false);
    done.keep_until_complete(std::move(destination));
    done.wait();
    EXPECT_TRUE(dropped.load());  // in this thread, before wait() returned
    EXPECT_EQ(last_values, expected);
}

TEST_F(ClLifetime, AnEventKeepsOneOwner) {
    cl::buffer b = cl::buffer::create(*ctx, CL_MEM_READ_WRITE, sizeof(int));
    const int value = 7;
    cl::event done = cl::enqueue_write(*q, b, 0, &value, sizeof value, true);
    done.keep_until_complete(std::make_shared<int>(1));
    EXPECT_THROW(done.keep_until_complete(std::make_shared<int>(2)), cl::logic_error);
}

TEST_F(ClLifetime, UseHostPtrMemoryLivesUntilOpenClDestroysTheBuffer) {
    const std::vector<int> expected = iota_values(100);
    auto host = tracked(std::vector<int>(element_count, 0));
    void* host_ptr = host->values.data();
    std::optional<cl::buffer> b;
    b.emplace(cl::buffer::create(*ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, element_count * sizeof(int), host_ptr,
                                 std::move(host)));
    keep_busy();
    cl::event written = cl::enqueue_write(*q, *b, 0, expected.data(), element_count * sizeof(int), false);
    b.reset();           // the queued write still holds the buffer, and so its host memory
    if (dropped.load())  // a fast device may have finished the write already
        EXPECT_EQ(written.status(), CL_COMPLETE);
    written.wait();
    ASSERT_TRUE(dropped_within_seconds(10));  // the buffer went with the write's last reference
    // What the host memory holds at the end is the implementation's choice: PoCL writes
    // through to it; NVIDIA keeps the data on the device and writes back only when mapped.
    if (last_values != std::vector<int>(element_count, 0))
        EXPECT_EQ(last_values, expected);
}

}  // namespace
