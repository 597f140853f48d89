// CUDA graphs by stream capture on a real GPU (label gpu; skipped without one).
#include "gpu_test.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/graph.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/rtc/program.hpp"

#include <random>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::cuda;

constexpr const char* kernels = R"(
__global__ void add(float *a, float v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += v; }
__global__ void scale(float *a, float s, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= s; }
__global__ void accumulate(float *sum, const float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) sum[i] += a[i];
}
)";

using graph_test = gpukit::testing::gpu_test;

TEST_F(graph_test, captured_kernels_and_memset_replay) {
    const module m = module::from_image(rtc::compile(kernels).image());
    const function add = m.get_function("add"), scale = m.get_function("scale");
    const function accumulate = m.get_function("accumulate");
    const int n = 1000;
    std::vector<float> host(n);
    std::mt19937 generator(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& v : host)
        v = uniform(generator);
    const device_allocation a = device_allocation::allocate(n * sizeof(float));
    const device_allocation sum = device_allocation::allocate(n * sizeof(float));
    memcpy_htod(a, host.data(), n * sizeof(float));
    memset_d32(sum, 0, n);

    const stream s = stream::create();
    const launch_config config = launch_config().grid({(n + 255) / 256}).block({256}).stream(s);
    begin_capture(s);
    EXPECT_TRUE(is_capturing(s));
    // One replay: a = (a + 1) * 2; sum += a; a = 0.
    launch(add, config, a.get(), 1.0f, n);
    launch(scale, config, a.get(), 2.0f, n);
    launch(accumulate, config, sum.get(), a.get(), n);
    memset_d32_async(a, 0, n, s);
    const graph g = end_capture(s);
    EXPECT_FALSE(is_capturing(s));
    EXPECT_EQ(g.node_count(), 4u);

    std::vector<float> result(n);
    memcpy_dtoh(result.data(), sum, n * sizeof(float));
    for (float v : result)
        ASSERT_EQ(v, 0.0f) << "captured work must not run before the graph is launched";

    const graph_exec exec = g.instantiate();
    exec.launch(s);
    s.synchronize();
    memcpy_dtoh(result.data(), sum, n * sizeof(float));
    for (int i = 0; i < n; ++i)
        ASSERT_FLOAT_EQ(result[i], (host[i] + 1) * 2) << i;
    exec.launch(s);  // `a` is 0 now: sum gains (0 + 1) * 2
    s.synchronize();
    memcpy_dtoh(result.data(), sum, n * sizeof(float));
    for (int i = 0; i < n; ++i)
        ASSERT_FLOAT_EQ(result[i], (host[i] + 1) * 2 + 2) << i;
}

TEST_F(graph_test, misuse_is_a_logic_error) {
    const stream s = stream::create();
    EXPECT_THROW(end_capture(s), logic_error);
    EXPECT_THROW(begin_capture(stream_view{}), logic_error);
}

}  // namespace
