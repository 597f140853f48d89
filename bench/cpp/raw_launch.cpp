#include "raw_launch.hpp"

#include "batch_timing.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/rtc/program.hpp"

#include <cstring>

#include <chrono>

namespace gpukit::bench {
namespace {

// An empty kernel in PTX, so the baseline needs no compiler: the driver JITs it.
constexpr const char* empty_kernel_ptx = R"(
.version 7.8
.target sm_75
.address_size 64
.visible .entry gpukit_empty_kernel()
{
    ret;
}
)";

// The floor of the small-array `x + y`: one thread per element, nothing else.
constexpr const char* add_kernel_source = R"(
__global__ void gpukit_bench_add(const float* x, const float* y, float* z, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = x[i] + y[i];
}
)";

}  // namespace

std::vector<double> raw_launch_seconds(int launches, int repeats) {
    CUmodule module = nullptr;
    CUfunction kernel = nullptr;
    CUstream stream = nullptr;
    GPUKIT_CU(cuModuleLoadData, &module, empty_kernel_ptx);
    GPUKIT_CU(cuModuleGetFunction, &kernel, module, "gpukit_empty_kernel");
    GPUKIT_CU(cuStreamCreateWithPriority, &stream, CU_STREAM_NON_BLOCKING, 0);
    const cuda::driver_api& driver = cuda::api();

    auto launch_all = [&] {
        for (int i = 0; i < launches; ++i)
            driver.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr);
    };
    launch_all();  // warm-up
    GPUKIT_CU(cuStreamSynchronize, stream);

    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        launch_all();
        const auto stop = std::chrono::steady_clock::now();
        GPUKIT_CU(cuStreamSynchronize, stream);
        seconds.push_back(std::chrono::duration<double>(stop - start).count() / launches);
    }
    driver.cuStreamDestroy(stream);
    driver.cuModuleUnload(module);
    return seconds;
}

std::vector<double> gpukit_launch_seconds(int launches, int repeats) {
    const cuda::module module = cuda::module::from_image(empty_kernel_ptx, std::strlen(empty_kernel_ptx) + 1);
    const cuda::function kernel = module.get_function("gpukit_empty_kernel");
    const cuda::stream stream = cuda::stream::create(CU_STREAM_NON_BLOCKING);
    const cuda::launch_config config = cuda::launch_config().grid({1}).block({1}).stream(stream);

    auto launch_all = [&] {
        for (int i = 0; i < launches; ++i)
            cuda::launch(kernel, config);
    };
    launch_all();  // warm-up
    stream.synchronize();

    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        launch_all();
        const auto stop = std::chrono::steady_clock::now();
        stream.synchronize();
        seconds.push_back(std::chrono::duration<double>(stop - start).count() / launches);
    }
    return seconds;
}

std::vector<double> raw_add_launch_seconds(int elements, int launches, int batches, int repeats) {
    if (elements <= 0 || launches <= 0 || batches <= 0 || repeats <= 0)
        throw logic_error("raw_add_launch_seconds: elements, launches, batches and repeats must be positive");
    // Compiling, loading and allocating go through gpukit (owning types, so nothing leaks on
    // an error); only the timed loop is the bare driver call.
    const cuda::module module = cuda::module::from_image(rtc::compile(add_kernel_source).image());
    const cuda::function kernel = module.get_function("gpukit_bench_add");
    const cuda::stream stream = cuda::stream::create(CU_STREAM_NON_BLOCKING);
    const std::size_t bytes = static_cast<std::size_t>(elements) * sizeof(float);
    const cuda::device_allocation x = cuda::device_allocation::allocate(bytes);
    const cuda::device_allocation y = cuda::device_allocation::allocate(bytes);
    const cuda::device_allocation z = cuda::device_allocation::allocate(bytes);
    for (const cuda::device_allocation* operand : {&x, &y})
        GPUKIT_CU(cuMemsetD32, operand->get(), 0x3f800000u, static_cast<std::size_t>(elements));  // 1.0f
    GPUKIT_CU(cuCtxSynchronize);  // the memsets ran on the legacy stream, which `stream` does not wait for

    CUdeviceptr x_address = x.get(), y_address = y.get(), z_address = z.get();
    unsigned int n = static_cast<unsigned int>(elements);
    void* params[] = {&x_address, &y_address, &z_address, &n};
    constexpr unsigned int block = 256;
    const unsigned int grid = (n + block - 1) / block;
    const cuda::driver_api& driver = cuda::api();

    auto batch = [&] {
        for (int i = 0; i < launches; ++i)
            driver.cuLaunchKernel(kernel.handle(), grid, 1, 1, block, 1, 1, 0, stream.handle(), params, nullptr);
        GPUKIT_CU(cuStreamSynchronize, stream.handle());
    };
    // Warm-up, with the one launch whose result is checked: a floor that adds nothing
    // would be no floor.
    GPUKIT_CU(cuLaunchKernel, kernel.handle(), grid, 1, 1, block, 1, 1, 0, stream.handle(), params, nullptr);
    batch();
    std::vector<float> sums(static_cast<std::size_t>(elements));
    GPUKIT_CU(cuMemcpyDtoH, sums.data(), z_address, bytes);
    for (float sum : sums)
        if (sum != 2.0f)
            throw runtime_error("raw_add_launch_seconds: the add kernel computed a wrong sum");

    return seconds_per_operation(batch, launches, batches, repeats);
}

}  // namespace gpukit::bench
