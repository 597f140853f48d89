#include "raw_launch.hpp"

#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/cuda/stream.hpp"

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

}  // namespace gpukit::bench
