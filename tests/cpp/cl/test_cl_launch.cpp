// Launch options (global offset, sizes in work groups, empty ranges), markers, and what a kernel
// keeps of its arguments: a buffer's memory, an SVM owner.
#include "gpukit/cl/allocators.hpp"
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/kernel.hpp"
#include "gpukit/cl/svm.hpp"

#include "cl_test_device.hpp"
#include "expect_error.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using gpukit::test::expect_error;

// out[id] = 10 * id + 1 for every work item's global id.
constexpr const char* ids_source = R"(
    __kernel void ids(__global int *out) {
        const int i = (int)get_global_id(0);
        out[i] = 10 * i + 1;
    })";

constexpr int count = 64;

class ClLaunch : public gpukit::testing::cl_queue_test {
protected:
    void SetUp() override {
        cl_queue_test::SetUp();
        if (IsSkipped())
            return;
        prog.emplace(cl::program::create_with_source(*ctx, ids_source));
        prog->build();
        k.emplace(cl::kernel::create(*prog, "ids"));
        out.emplace(cl::buffer::create(*ctx, CL_MEM_READ_WRITE, count * sizeof(std::int32_t)));
        const std::vector<std::int32_t> unset(count, -1);
        cl::enqueue_write(*q, *out, 0, unset.data(), unset.size() * sizeof(std::int32_t), true);
        k->set_arg(0, *out);
    }

    std::vector<std::int32_t> read_out() {
        std::vector<std::int32_t> values(count);
        cl::enqueue_read(*q, *out, 0, values.data(), values.size() * sizeof(std::int32_t), true);
        return values;
    }

    // -1 everywhere but at the ids in [first, last), which hold 10 * id + 1.
    static std::vector<std::int32_t> expected(int first, int last) {
        std::vector<std::int32_t> values(count, -1);
        for (int i = first; i < last; ++i)
            values[i] = 10 * i + 1;
        return values;
    }

    std::optional<cl::program> prog;
    std::optional<cl::kernel> k;
    std::optional<cl::buffer> out;
};

TEST_F(ClLaunch, AGlobalOffsetShiftsTheIds) {
    const size_t global[] = {10}, offset[] = {5};
    cl::enqueue_nd_range(*q, *k, global, {}, {}, {.global_offset = offset}).wait();
    EXPECT_EQ(read_out(), expected(5, 15));
    const size_t two[] = {1, 2};
    expect_error<cl::logic_error>([&] { cl::enqueue_nd_range(*q, *k, global, {}, {}, {.global_offset = two}); },
                                  "global offset (1, 2) must have as many dimensions as global size (10)");
    const size_t huge[] = {SIZE_MAX - 3};
    expect_error<cl::logic_error>([&] { cl::enqueue_nd_range(*q, *k, global, {}, {}, {.global_offset = huge}); },
                                  "plus global size (10) is more than a 64-bit size_t holds");
}

TEST_F(ClLaunch, AGlobalSizeAndOffsetInWorkGroups) {
    const size_t groups[] = {3}, local[] = {8}, group_offset[] = {2};
    cl::enqueue_nd_range(*q, *k, groups, local, {}, {.global_times_local = true}).wait();
    EXPECT_EQ(read_out(), expected(0, 24));
    cl::enqueue_nd_range(*q, *k, groups, local, {}, {.global_offset = group_offset, .global_times_local = true}).wait();
    EXPECT_EQ(read_out(), expected(0, 40));  // ids 16 to 40 now, as PyOpenCL's g_times_l counts the offset
    const size_t huge[] = {SIZE_MAX / 4};
    expect_error<cl::logic_error>([&] { cl::enqueue_nd_range(*q, *k, huge, local, {}, {.global_times_local = true}); },
                                  "global size (" + std::to_string(SIZE_MAX / 4) +
                                      ") times local size (8) is more than a 64-bit size_t holds");
    expect_error<cl::logic_error>([&] { cl::enqueue_nd_range(*q, *k, groups, {}, {}, {.global_times_local = true}); },
                                  "the global size counts work groups (g_times_l), so a local size is needed");
}

TEST_F(ClLaunch, AnEmptyRangeRunsNothingWhenAllowed) {
    const size_t empty[] = {0};
    expect_error<cl::logic_error>([&] { cl::enqueue_nd_range(*q, *k, empty); }, "sizes must be positive");
    const std::int32_t seven = 7;
    cl::event written = cl::enqueue_write(*q, *out, 0, &seven, sizeof seven, false);
    const cl_event after[] = {written.handle()};
    cl::event done = cl::enqueue_nd_range(*q, *k, empty, {}, after, {.allow_empty = true});
    done.wait();
    EXPECT_EQ(done.status(), CL_COMPLETE);
    EXPECT_EQ(written.status(), CL_COMPLETE);  // the marker waited for it
    std::vector<std::int32_t> want = expected(0, 0);
    want[0] = 7;
    EXPECT_EQ(read_out(), want);
}

TEST_F(ClLaunch, AMarkerCompletesAfterWhatItWaitsFor) {
    const size_t global[] = {count};
    cl::event ran = cl::enqueue_nd_range(*q, *k, global);
    cl::event marker = cl::enqueue_marker(*q);
    marker.wait();
    EXPECT_EQ(ran.status(), CL_COMPLETE);
    const cl_event after[] = {ran.handle()};
    cl::enqueue_marker(*q, after).wait();
    EXPECT_EQ(read_out(), expected(0, count));
}

TEST_F(ClLaunch, AKernelKeepsTheMemoryOfItsBufferArgument) {
    std::optional<cl::buffer> scratch(cl::buffer::create(*ctx, CL_MEM_READ_WRITE, count * sizeof(std::int32_t)));
    const cl_mem h = scratch->handle();
    cl_uint references = 0;
    auto reference_count = [&] {
        EXPECT_EQ(cl::api().clGetMemObjectInfo(h, CL_MEM_REFERENCE_COUNT, sizeof references, &references, nullptr),
                  CL_SUCCESS);
        return references;
    };
    EXPECT_EQ(reference_count(), 1u);
    k->set_arg(0, *scratch);
    EXPECT_EQ(reference_count(), 2u);
    // The buffer object goes; the kernel still runs on its memory, which a wrapper then reads.
    scratch.reset();
    EXPECT_EQ(reference_count(), 1u);
    const size_t global[] = {count};
    cl::enqueue_nd_range(*q, *k, global).wait();
    const cl::buffer again = cl::buffer::wrap(h);
    std::vector<std::int32_t> values(count);
    cl::enqueue_read(*q, again, 0, values.data(), values.size() * sizeof(std::int32_t), true);
    EXPECT_EQ(values, expected(0, count));
    EXPECT_EQ(reference_count(), 2u);
    k->set_arg(0, *out);  // setting the argument again drops the kernel's reference
    EXPECT_EQ(reference_count(), 1u);
}

TEST_F(ClLaunch, AKernelKeepsTheOwnerOfItsSvmArgument) {
    if (dev->svm_capabilities() == 0)
        GTEST_SKIP() << "device '" << dev->name() << "' has no SVM";
    auto svm = std::make_shared<cl::svm_allocation>(cl::svm_allocator(*ctx, 0, CL_MEM_READ_WRITE, nullptr),
                                                    count * sizeof(std::int32_t));
    const std::weak_ptr<cl::svm_allocation> watch = svm;
    k->set_arg(0, *svm, svm);
    svm.reset();
    EXPECT_FALSE(watch.expired());  // kept by the kernel
    const size_t global[] = {count};
    cl::event done = cl::enqueue_nd_range(*q, *k, global);
    k->set_arg(0, *out);  // the kernel lets go; the launch keeps it until done
    done.wait();
    EXPECT_TRUE(watch.expired());
}

}  // namespace
