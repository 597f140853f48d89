// gpukit's memory pool over the OpenCL allocators, for real on whatever platform is installed
// (PoCL in CI): counters, bins, reuse of the same cl_mem, out-of-memory recovery through fault
// injection, kernels on pooled memory, and SVM where the device offers it.
#include "gpukit/cl/allocators.hpp"
#include "gpukit/cl/api.hpp"
#include "gpukit/cl/kernel.hpp"
#include "gpukit/cl/platform.hpp"
#include "gpukit/cl/pooled.hpp"
#include "gpukit/cl/svm.hpp"
#include "gpukit/memory/pool.hpp"

#include "cl_test_device.hpp"
#include "random_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using gpukit::testing::random_floats;
using gpukit::testing::why_no_opencl;

const char* const scale_source = R"(
__kernel void scale(__global float* out, __global const float* in, float factor) {
    const size_t i = get_global_id(0);
    out[i] = in[i] * factor;
}
)";

using ClPool = gpukit::testing::cl_queue_test;

TEST_F(ClPool, CountersBinsAndReuseOfTheSameBuffer) {
    memory::memory_pool<cl::immediate_allocator> pool{cl::immediate_allocator(*q)};
    cl_mem first = nullptr;
    {
        auto block = pool.allocate(4000);
        first = block.pointer();
        ASSERT_NE(first, nullptr);
        EXPECT_EQ(pool.active_blocks(), 1u);
        EXPECT_EQ(pool.active_bytes(), 4000u);
        EXPECT_EQ(pool.held_blocks(), 0u);
    }
    EXPECT_EQ(pool.active_blocks(), 0u);
    EXPECT_EQ(pool.held_blocks(), 1u);
    EXPECT_EQ(pool.managed_bytes(), pool.alloc_size(pool.bin_number(4000)));
    // A size of the same bin gets the very same cl_mem back, without calling the allocator.
    auto again = pool.allocate(pool.alloc_size(pool.bin_number(4000)));
    EXPECT_EQ(again.pointer(), first);
    EXPECT_EQ(pool.stats().hits, 1u);
    EXPECT_EQ(pool.stats().allocator_allocations, 1u);
    again.free();
    pool.free_held();
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(pool.managed_bytes(), 0u);
}

TEST_F(ClPool, KernelsRunOnPooledBuffers) {
    memory::memory_pool<cl::immediate_allocator> pool{cl::immediate_allocator(*q)};
    const size_t n = 1000;
    const std::vector<float> input = random_floats(n, 7);
    cl::pooled_buffer<cl::immediate_allocator> in(pool.allocate(n * sizeof(float)), CL_MEM_READ_WRITE);
    cl::pooled_buffer<cl::immediate_allocator> out(pool.allocate(n * sizeof(float)), CL_MEM_READ_WRITE);
    EXPECT_EQ(in.size(), 4095u);  // the block's size: 4000 = 0b11111'0100000 -> 0b11111'1111111
    cl::enqueue_write(*q, in, 0, input.data(), n * sizeof(float), true);
    cl::program prog = cl::program::create_with_source(*ctx, scale_source);
    prog.build();
    cl::kernel k = cl::kernel::create(prog, "scale");
    k.set_arg(0, out);
    k.set_arg(1, in);
    k.set_arg_value(2, 3.0f);
    const size_t global[] = {n};
    cl::enqueue_nd_range(*q, k, global);
    std::vector<float> result(n);
    cl::enqueue_read(*q, out, 0, result.data(), n * sizeof(float), true);
    for (size_t i = 0; i < n; ++i)
        ASSERT_FLOAT_EQ(result[i], input[i] * 3.0f) << "at " << i;
    in.release();
    EXPECT_EQ(in.handle(), nullptr);
    EXPECT_EQ(pool.active_blocks(), 1u);
    EXPECT_EQ(pool.held_blocks(), 1u);
}

// Fault injection: clCreateBuffer reports CL_MEM_OBJECT_ALLOCATION_FAILURE until the pool
// has released a buffer, the way a full device behaves.
cl::opencl_api real_api;
bool device_full = false;

cl_mem CL_API_CALL create_buffer_unless_full(cl_context ctx, cl_mem_flags flags, size_t size, void* host,
                                             cl_int* status) {
    if (device_full) {
        *status = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return nullptr;
    }
    return real_api.clCreateBuffer(ctx, flags, size, host, status);
}

cl_int CL_API_CALL release_frees_room(cl_mem block) {
    device_full = false;
    return real_api.clReleaseMemObject(block);
}

template <class Allocator>
void check_recovery(Allocator allocator) {
    real_api = cl::api();
    memory::memory_pool<Allocator> pool(std::move(allocator));
    pool.allocate(1 << 12).free();
    ASSERT_EQ(pool.held_blocks(), 1u);
    cl::api_override create(cl::mutable_api().clCreateBuffer, &create_buffer_unless_full);
    cl::api_override release(cl::mutable_api().clReleaseMemObject, &release_frees_room);
    device_full = true;
    auto block = pool.allocate(1 << 16);  // another bin: the held block must go first
    EXPECT_NE(block.pointer(), nullptr);
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(pool.stats().allocator_failures, 1u);
    // Nothing left to release: the shortage reaches the caller, naming the OpenCL status.
    device_full = true;
    try {
        pool.allocate(1 << 20);
        FAIL() << "allocate succeeded on a full device";
    } catch (const gpukit::memory_error& e) {
        EXPECT_NE(std::string(e.what()).find("CL_MEM_OBJECT_ALLOCATION_FAILURE"), std::string::npos) << e.what();
        EXPECT_EQ(e.code(), CL_MEM_OBJECT_ALLOCATION_FAILURE);
    }
    device_full = false;
}

TEST_F(ClPool, ImmediatePoolRecoversFromShortage) { check_recovery(cl::immediate_allocator(*q)); }

TEST_F(ClPool, DeferredPoolRecoversWhenCreateBufferReportsShortage) { check_recovery(cl::deferred_allocator(*ctx)); }

TEST_F(ClPool, AllocatorsRefuseBadRequests) {
    EXPECT_THROW(cl::immediate_allocator(*q, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY), cl::logic_error);
    EXPECT_THROW(cl::deferred_allocator(*ctx, CL_MEM_COPY_HOST_PTR), cl::logic_error);
    cl::deferred_allocator deferred(*ctx);
    EXPECT_THROW(deferred.allocate(0), cl::logic_error);
    memory::memory_pool<cl::deferred_allocator> pool(std::move(deferred));
    EXPECT_FALSE(pool.allocate(0));  // size 0: an empty handle, no allocator call
}

TEST_F(ClPool, SharedVirtualMemory) {
    if (dev->svm_capabilities() == 0)
        GTEST_SKIP() << "device '" << dev->name() << "' reports no SVM capabilities";
    EXPECT_THROW(cl::svm_allocator(*ctx, 3), cl::logic_error);
    EXPECT_THROW(cl::svm_allocator(*ctx, 0, CL_MEM_SVM_ATOMICS), cl::logic_error);
    memory::memory_pool<cl::svm_allocator> pool{cl::svm_allocator(*ctx, 0, CL_MEM_READ_WRITE, &*q)};
    const size_t n = 512;
    const std::vector<float> input = random_floats(n, 11);
    std::vector<float> result(n);
    {
        auto in = cl::pooled_svm::allocate(pool, n * sizeof(float));
        auto out = cl::pooled_svm::allocate(pool, n * sizeof(float));
        in.bind_to_queue(*q);
        cl::enqueue_svm_copy(*q, in.pointer(), input.data(), n * sizeof(float), true);
        cl::program prog = cl::program::create_with_source(*ctx, scale_source);
        prog.build();
        cl::kernel k = cl::kernel::create(prog, "scale");
        k.set_arg(0, out);
        k.set_arg(1, in);
        k.set_arg_value(2, -2.0f);
        const size_t global[] = {n};
        cl::enqueue_nd_range(*q, k, global);
        cl::enqueue_svm_copy(*q, result.data(), out.pointer(), n * sizeof(float), true);
        in.release();
        EXPECT_EQ(in.pointer(), nullptr);
        EXPECT_EQ(pool.held_blocks(), 1u);
    }
    for (size_t i = 0; i < n; ++i)
        ASSERT_FLOAT_EQ(result[i], input[i] * -2.0f) << "at " << i;
    EXPECT_EQ(pool.held_blocks(), 2u);
    // Same bin: served from what the pool holds, without a new clSVMAlloc.
    auto reused = cl::pooled_svm::allocate(pool, n * sizeof(float));
    EXPECT_EQ(pool.held_blocks(), 1u);
    EXPECT_EQ(pool.stats().allocator_allocations, 2u);
}

// A range of an allocation (PyOpenCL's SVM(ary)) lies within it, ends with it, and maps for the host.
TEST_F(ClPool, SvmRangesLieWithinTheirOwnerAndEndWithIt) {
    if (dev->svm_capabilities() == 0)
        GTEST_SKIP() << "device '" << dev->name() << "' reports no SVM capabilities";
    cl::svm_allocation owner(cl::svm_allocator(*ctx, 0, CL_MEM_READ_WRITE, &*q), 64);
    auto* bytes = static_cast<unsigned char*>(owner.pointer());
    cl::svm_range middle(owner, bytes + 16, 32);
    EXPECT_EQ(middle.pointer(), bytes + 16);
    EXPECT_EQ(middle.context_handle(), ctx->handle());
    EXPECT_THROW(cl::svm_range(owner, bytes + 40, 32), cl::logic_error);  // past the end
    EXPECT_THROW(cl::svm_range(owner, bytes - 8, 8), cl::logic_error);    // before the start
    cl::enqueue_svm_map(*q, true, CL_MAP_WRITE, middle);
    std::fill(bytes + 16, bytes + 48, static_cast<unsigned char>(7));
    cl::enqueue_svm_unmap(*q, middle).wait();
    std::vector<unsigned char> back(32);
    cl::enqueue_svm_copy(*q, back.data(), middle.pointer(), 32, true);
    EXPECT_EQ(back, std::vector<unsigned char>(32, 7));
    EXPECT_FALSE(middle.released());
    owner.release();
    EXPECT_TRUE(middle.released());
    EXPECT_THROW(cl::enqueue_svm_map(*q, true, CL_MAP_READ, middle), cl::logic_error);
    EXPECT_THROW(cl::svm_range(owner, bytes, 8), cl::logic_error);
}

// PyOpenCL lets a released PooledSVM be bound to a queue; there is nothing left to wait for,
// so gpukit says so (as it does for a queue of another context).
TEST_F(ClPool, AReleasedSvmIsBoundToNoQueue) {
    if (dev->svm_capabilities() == 0)
        GTEST_SKIP() << "device '" << dev->name() << "' reports no SVM capabilities";
    memory::memory_pool<cl::svm_allocator> pool{cl::svm_allocator(*ctx, 0, CL_MEM_READ_WRITE, &*q)};
    auto svm = cl::pooled_svm::allocate(pool, 64);
    svm.bind_to_queue(*q);
    EXPECT_EQ(svm.bound_queue(), q->handle());
    svm.release();
    try {
        svm.bind_to_queue(*q);
        ADD_FAILURE() << "a released PooledSVM was bound to a queue";
    } catch (const cl::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("PooledSVM.bind_to_queue: the SVM memory was released"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(svm.bound_queue(), nullptr);
    const cl::context other = cl::context::create(std::span<const cl::device>(&*dev, 1));
    const cl::queue other_queue = cl::queue::create(other, *dev);
    auto live = cl::pooled_svm::allocate(pool, 64);
    EXPECT_THROW(live.bind_to_queue(other_queue), cl::logic_error);
}

const char* const touch_source = R"(
__kernel void touch(__global int* out, int n) { if (n) out[0] = 7; }
)";

// PyOpenCL's zero-byte objects: a pool's block of bin 0 (1 byte), a NULL pointer argument, and
// an SVM allocation of 0 bytes (null) that releases once.
TEST_F(ClPool, ZeroByteRequestsAndNullArguments) {
    memory::memory_pool<cl::immediate_allocator> pool{cl::immediate_allocator(*q)};
    cl::pooled_buffer<cl::immediate_allocator> zero(pool.allocate_block(0), CL_MEM_READ_WRITE);
    EXPECT_NE(zero.handle(), nullptr);
    EXPECT_EQ(zero.size(), 1u);
    EXPECT_EQ(pool.active_bytes(), 0u);
    EXPECT_EQ(pool.managed_bytes(), 1u);
    cl::program prog = cl::program::create_with_source(*ctx, touch_source);
    prog.build();
    cl::kernel k = cl::kernel::create(prog, "touch");
    k.set_arg(0, zero);
    k.set_arg_value(1, 0);
    const size_t global[] = {1};
    cl::enqueue_nd_range(*q, k, global).wait();
    k.set_arg(0, nullptr);
    cl::enqueue_nd_range(*q, k, global).wait();
    EXPECT_THROW(k.set_arg(1, nullptr), cl::logic_error);  // a by-value parameter takes no pointer
    zero.release();
    EXPECT_EQ(pool.held_blocks(), 1u);
    if (dev->svm_capabilities() == 0)
        return;
    cl::svm_allocation null_svm(cl::svm_allocator(*ctx), 0);
    EXPECT_EQ(null_svm.pointer(), nullptr);
    EXPECT_FALSE(null_svm.released());
    k.set_arg(0, null_svm);
    cl::enqueue_nd_range(*q, k, global).wait();
    null_svm.enqueue_release(&*q).wait();  // nothing to free: a marker gives the event
    EXPECT_TRUE(null_svm.released());
    EXPECT_THROW(k.set_arg(0, null_svm), cl::logic_error);
    EXPECT_THROW(null_svm.enqueue_release(&*q), cl::logic_error);
    cl::svm_allocation block(cl::svm_allocator(*ctx), 64);
    EXPECT_THROW(block.enqueue_release(), cl::logic_error);  // no queue given, none in the allocator
    block.enqueue_release(&*q).wait();
    EXPECT_EQ(block.pointer(), nullptr);
}

TEST_F(ClPool, BufferAndKernelInfo) {
    auto b = cl::buffer::create(*ctx, CL_MEM_READ_ONLY, 100);
    const std::vector<std::byte> size = b.info_bytes(CL_MEM_SIZE);
    ASSERT_EQ(size.size(), sizeof(size_t));
    size_t value = 0;
    std::memcpy(&value, size.data(), sizeof value);
    EXPECT_EQ(value, 100u);
    cl::program prog = cl::program::create_with_source(*ctx, touch_source);
    prog.build();
    const std::vector<std::byte> multiple =
        cl::kernel::create(prog, "touch").work_group_info_bytes(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, *dev);
    ASSERT_EQ(multiple.size(), sizeof(size_t));
    std::memcpy(&value, multiple.data(), sizeof value);
    EXPECT_GE(value, 1u);
}

TEST_F(ClPool, SvmAllocatorRefusesDevicesWithoutSvm) {
    if (dev->svm_capabilities() != 0)
        GTEST_SKIP() << "device '" << dev->name() << "' supports SVM";
    EXPECT_THROW(cl::svm_allocator(*ctx), cl::logic_error);
}

}  // namespace
