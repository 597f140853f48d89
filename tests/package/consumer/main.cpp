// Builds against gpukit and runs anywhere: without a driver it reports that plainly.
#include <gpukit/gpukit.hpp>

#include <cstdio>

int main() {
    std::printf("gpukit %s, CUDA headers %d\n", gpukit::version_text, CUDA_VERSION);
    if (!gpukit::cuda::driver_available()) {
        std::printf("no CUDA driver\n");
        return 0;
    }
    std::printf("%d CUDA device(s)\n", gpukit::cuda::device::count());
    return 0;
}
