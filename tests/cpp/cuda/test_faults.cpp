// Faults injected through the driver table (api_override): out of memory at every
// allocation site, a failed launch, NOT_READY storms, and a kernel that faults. Each must
// give the documented exception, leave nothing allocated, and leave gpukit usable.
#include "gpu_test.hpp"

#include "gpukit/core/api_override.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/context_cache.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/default_pool.hpp"
#include "gpukit/cuda/event.hpp"
#include "gpukit/cuda/host_memory.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/managed_memory.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/rtc/program.hpp"

#include <atomic>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::cuda;
using CudaFaults = gpukit::testing::gpu_test;

constexpr CUresult out_of_memory = CUDA_ERROR_OUT_OF_MEMORY;

// Every allocation entry point answers out of memory.
template <class... Args>
CUresult refuse(Args...) {
    return out_of_memory;
}

TEST_F(CudaFaults, OutOfMemoryAtEveryAllocationSiteIsAMemoryError) {
    driver_api& table = mutable_api();
    {
        api_override fail(table.cuMemAlloc, &refuse<CUdeviceptr*, std::size_t>);
        EXPECT_THROW(device_allocation::allocate(1 << 20), memory_error);
        EXPECT_THROW(allocate_from_default_pool(1 << 20), memory_error);
    }
    {
        api_override fail(table.cuMemAllocPitch,
                          &refuse<CUdeviceptr*, std::size_t*, std::size_t, std::size_t, unsigned int>);
        EXPECT_THROW(device_allocation::allocate_pitch(1024, 64, 4), memory_error);
    }
    {
        api_override fail(table.cuMemHostAlloc, &refuse<void**, std::size_t, unsigned int>);
        EXPECT_THROW(pagelocked_host_allocation::allocate(1 << 20, 0), memory_error);
    }
    {
        api_override fail(table.cuMemAllocManaged, &refuse<CUdeviceptr*, std::size_t, unsigned int>);
        EXPECT_THROW(managed_allocation::allocate(1 << 20, CU_MEM_ATTACH_GLOBAL), memory_error);
    }
    {
        api_override fail(table.cuArray3DCreate, &refuse<CUarray*, const CUDA_ARRAY3D_DESCRIPTOR*>);
        CUDA_ARRAY3D_DESCRIPTOR descriptor{};
        descriptor.Width = 64;
        descriptor.Height = 64;
        descriptor.Format = CU_AD_FORMAT_FLOAT;
        descriptor.NumChannels = 1;
        EXPECT_THROW(array::create(descriptor), memory_error);
    }
    // Everything works again once the driver does.
    EXPECT_NO_THROW(device_allocation::allocate(1 << 20));
    EXPECT_NO_THROW(allocate_from_default_pool(1 << 20));
}

// The staging area of pageable copies allocates three page-locked buffers: when the second
// fails, the first is freed, nothing is cached, and the next copy makes a whole new area.
std::atomic<int> host_allocations{0}, host_frees{0}, host_allocation_budget{0};
decltype(driver_api::cuMemHostAlloc) real_host_alloc = nullptr;
decltype(driver_api::cuMemFreeHost) real_free_host = nullptr;

CUresult limited_host_alloc(void** p, std::size_t bytes, unsigned int flags) {
    if (host_allocations.load() >= host_allocation_budget.load())
        return out_of_memory;
    const CUresult r = real_host_alloc(p, bytes, flags);
    if (r == CUDA_SUCCESS)
        ++host_allocations;
    return r;
}

CUresult counted_free_host(void* p) {
    const CUresult r = real_free_host(p);
    if (r == CUDA_SUCCESS)
        ++host_frees;
    return r;
}

TEST_F(CudaFaults, AFailedStagingAreaFreesWhatItHadAllocated) {
    driver_api& table = mutable_api();
    real_host_alloc = table.cuMemHostAlloc;
    real_free_host = table.cuMemFreeHost;
    host_allocations = host_frees = 0;
    host_allocation_budget = 1;
    const std::size_t bytes = std::size_t{64} << 20;  // large enough to be staged
    std::vector<char> host(bytes, 1);
    device_allocation device = device_allocation::allocate(bytes);
    {
        api_override alloc(table.cuMemHostAlloc, &limited_host_alloc);
        api_override free(table.cuMemFreeHost, &counted_free_host);
        EXPECT_THROW(memcpy_htod(device_pointer(device), host.data(), bytes), memory_error);
        EXPECT_EQ(host_allocations.load(), 1);
        EXPECT_EQ(host_frees.load(), 1);
    }
    memcpy_htod(device_pointer(device), host.data(), bytes);  // a new, whole staging area
    std::vector<char> back(bytes, 0);
    memcpy_dtoh(back.data(), device_pointer(device), bytes);
    EXPECT_EQ(back, host);
}

CUresult refuse_launch(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                       void**, void**) {
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
}

CUresult refuse_launch_ex(const CUlaunchConfig*, CUfunction, void**, void**) {
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
}

const char* const kernels = R"(
extern "C" __global__ void add_one(float* x) { x[threadIdx.x] += 1.0f; }
extern "C" __global__ void write_null(float* x) { *(volatile float*)0 = 1.0f; }
)";

module load_kernels() {
    rtc::compile_options options;
    options.no_extern_c = true;
    return module::from_image(rtc::compile(kernels, options).image());
}

TEST_F(CudaFaults, AFailedLaunchIsALaunchErrorAndTheNextLaunchWorks) {
    const module m = load_kernels();
    const function add_one = m.get_function("add_one");
    device_allocation x = device_allocation::allocate(32 * sizeof(float));
    memset_d32(device_pointer(x), 0, 32);
    const CUdeviceptr address = device_pointer(x).address;
    driver_api& table = mutable_api();
    {
        api_override fail(table.cuLaunchKernel, &refuse_launch);
        api_override fail_ex(table.cuLaunchKernelEx, &refuse_launch_ex);
        EXPECT_THROW(launch(add_one, launch_config().block({32}), address), launch_error);
    }
    launch(add_one, launch_config().block({32}), address);
    std::vector<float> result(32);
    memcpy_dtoh(result.data(), device_pointer(x), 32 * sizeof(float));
    EXPECT_EQ(result, std::vector<float>(32, 1.0f));
}

// NOT_READY for a while, then the driver's own answer.
std::atomic<int> not_ready_left{0};
decltype(driver_api::cuEventQuery) real_event_query = nullptr;
decltype(driver_api::cuStreamQuery) real_stream_query = nullptr;

CUresult stormy_event_query(CUevent e) {
    return not_ready_left.fetch_sub(1) > 0 ? CUDA_ERROR_NOT_READY : real_event_query(e);
}

CUresult stormy_stream_query(CUstream s) {
    return not_ready_left.fetch_sub(1) > 0 ? CUDA_ERROR_NOT_READY : real_stream_query(s);
}

TEST_F(CudaFaults, NotReadyStormsAreAnswersNotErrors) {
    driver_api& table = mutable_api();
    real_event_query = table.cuEventQuery;
    real_stream_query = table.cuStreamQuery;
    stream s = stream::create();
    event e = event::create();
    e.record(s.view());
    s.synchronize();
    api_override events(table.cuEventQuery, &stormy_event_query);
    api_override streams(table.cuStreamQuery, &stormy_stream_query);
    not_ready_left = 10000;
    int not_ready = 0;
    while (!e.query())
        ++not_ready;
    EXPECT_EQ(not_ready, 10000);
    not_ready_left = 10000;
    not_ready = 0;
    while (!s.is_done())
        ++not_ready;
    EXPECT_EQ(not_ready, 10000);
}

// A kernel that faults loses its context, not the process: the error is a launch_error,
// the context can be given up, and a new context works.
// A kernel that faults (illegal address) loses its context, not the process: the fault is a
// launch_error, releasing what the context held reports but does not throw, and every later
// call, making a new context included, is a clean error or works. (Driver 580 keeps the
// device unusable for the rest of the process: cuCtxCreate and even cuDevicePrimaryCtxReset
// + Retain answer CUDA_ERROR_ILLEGAL_ADDRESS, measured with raw driver calls; a new process
// works. A driver that recovers must give a working context here.)
TEST(CudaFaultRecovery, AFaultingKernelLosesItsContextNotTheProcess) {
    GPUKIT_REQUIRE_GPU();
    {
        context faulty = device::get(0).make_context();
        {
            const module m = load_kernels();
            launch(m.get_function("write_null"), launch_config(), CUdeviceptr{0});
            EXPECT_THROW(faulty.synchronize(), launch_error);
            EXPECT_THROW(device_allocation::allocate(1024), cuda_error);
        }
        faulty.detach();
    }
    try {
        context fresh = device::get(0).make_context();
        {
            const module m = load_kernels();
            device_allocation x = device_allocation::allocate(32 * sizeof(float));
            memset_d32(device_pointer(x), 0, 32);
            launch(m.get_function("add_one"), launch_config().block({32}), device_pointer(x).address);
            std::vector<float> result(32);
            memcpy_dtoh(result.data(), device_pointer(x), 32 * sizeof(float));
            EXPECT_EQ(result, std::vector<float>(32, 1.0f));
        }
        fresh.detach();
    } catch (const launch_error& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << e.what();
    }
}

}  // namespace
