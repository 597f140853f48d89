// Texture and surface objects on a real GPU, on random data: kernels read arrays and
// linear memory through texture objects passed straight to launch(), and write arrays
// through surface objects.
#include "gpu_test.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/cuda/texture.hpp"
#include "gpukit/rtc/program.hpp"

#include <memory>
#include <random>
#include <vector>

namespace {

using namespace gpukit::cuda;
using Textures = gpukit::testing::gpu_test;

constexpr const char* kernels = R"(
__global__ void read_2d(float* out, cudaTextureObject_t tex, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h)
        out[y * w + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}

__global__ void fetch_1d(float* out, cudaTextureObject_t tex, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch<float>(tex, i);
}

__global__ void write_surface_2d(cudaSurfaceObject_t surf, const float* in, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h)
        surf2Dwrite(2.0f * in[y * w + x], surf, x * (int)sizeof(float), y);
}
)";

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> value(-100.0f, 100.0f);
    std::vector<float> out(n);
    for (auto& v : out)
        v = value(engine);
    return out;
}

CUDA_ARRAY3D_DESCRIPTOR float_2d(std::size_t w, std::size_t h, unsigned flags = 0) {
    CUDA_ARRAY3D_DESCRIPTOR d{};
    d.Width = w;
    d.Height = h;
    d.Format = CU_AD_FORMAT_FLOAT;
    d.NumChannels = 1;
    d.Flags = flags;
    return d;
}

module load_kernels() { return module::from_image(gpukit::rtc::compile(kernels).image()); }

// Launches `kernel` with a new buffer of `n` floats as its first argument and `args` after it,
// and returns what the kernel wrote there.
template <class... Args>
std::vector<float> launch_and_read(const char* kernel, const launch_config& config, std::size_t n,
                                   const Args&... args) {
    auto out = device_allocation::allocate(n * sizeof(float));
    const module m = load_kernels();
    launch(m.get_function(kernel), config, out.get(), args...);
    std::vector<float> back(n);
    memcpy_dtoh(back.data(), out, n * sizeof(float));
    return back;
}

TEST_F(Textures, ArrayTexture2dReadsBackTheInput) {
    const int w = 37, h = 19;
    const auto host = random_floats(w * h, 1);
    auto a = std::make_shared<array>(array::create(float_2d(w, h)));
    memcpy_htoa(*a, 0, host.data(), host.size() * sizeof(float));
    const texture_object tex = texture_object::from_array(a);
    a.reset();  // the texture keeps the array alive
    EXPECT_EQ(launch_and_read("read_2d", launch_config().grid({1, h}).block({64}), host.size(), tex, w, h), host);
}

TEST_F(Textures, LinearTextureFetch) {
    const int n = 1000;
    const auto host = random_floats(n, 2);
    auto in = device_allocation::allocate(n * sizeof(float));
    memcpy_htod(in, host.data(), n * sizeof(float));
    const texture_object tex = texture_object::from_linear(in, CU_AD_FORMAT_FLOAT, 1, n * sizeof(float));
    EXPECT_EQ(launch_and_read("fetch_1d", launch_config().grid({(n + 127) / 128}).block({128}), n, tex, n), host);
    EXPECT_THROW(texture_object::from_linear(in, CU_AD_FORMAT_FLOAT, 1, n * sizeof(float) + 4), gpukit::logic_error);
}

TEST_F(Textures, PitchedTexture2d) {
    const int w = 50, h = 13;
    const auto host = random_floats(w * h, 3);
    auto [memory, pitch] = device_allocation::allocate_pitch(w * sizeof(float), h, 4);
    for (int y = 0; y < h; ++y)
        memcpy_htod(device_pointer(memory.get() + y * pitch), host.data() + y * w, w * sizeof(float));
    const texture_object tex = texture_object::from_pitch2d(memory, CU_AD_FORMAT_FLOAT, 1, w, h, pitch);
    EXPECT_EQ(launch_and_read("read_2d", launch_config().grid({1, h}).block({64}), host.size(), tex, w, h), host);
}

TEST_F(Textures, SurfaceWrite2d) {
    const int w = 29, h = 11;
    const auto host = random_floats(w * h, 4);
    auto in = device_allocation::allocate(host.size() * sizeof(float));
    memcpy_htod(in, host.data(), host.size() * sizeof(float));
    auto a = std::make_shared<array>(array::create(float_2d(w, h, CUDA_ARRAY3D_SURFACE_LDST)));
    const surface_object surf(a);
    const module m = load_kernels();
    launch(m.get_function("write_surface_2d"), launch_config().grid({1, h}).block({32}), surf, in.get(), w, h);
    std::vector<float> back(host.size());
    memcpy_atoh(back.data(), *a, 0, back.size() * sizeof(float));
    for (std::size_t i = 0; i < host.size(); ++i)
        EXPECT_EQ(back[i], 2.0f * host[i]) << "element " << i;
}

TEST_F(Textures, SurfaceNeedsSurfaceLdstAndDestroyIsFinal) {
    auto plain = std::make_shared<array>(array::create(float_2d(4, 4)));
    EXPECT_THROW(surface_object{plain}, gpukit::logic_error);
    texture_object tex = texture_object::from_array(plain);
    tex.destroy();
    tex.destroy();
    EXPECT_THROW(tex.handle(), gpukit::logic_error);
}

}  // namespace
