// CUDA arrays and structured copies on a real GPU, on random data.
#include "gpu_test.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/array.hpp"
#include "gpukit/cuda/structured_copy.hpp"

#include <cstdint>
#include <random>
#include <vector>

namespace {

using namespace gpukit::cuda;
using Arrays = gpukit::testing::gpu_test;

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 engine(seed);
    std::normal_distribution<float> value;
    std::vector<float> out(n);
    for (auto& v : out)
        v = value(engine);
    return out;
}

CUDA_ARRAY3D_DESCRIPTOR float_descriptor(std::size_t w, std::size_t h, std::size_t d = 0) {
    CUDA_ARRAY3D_DESCRIPTOR desc{};
    desc.Width = w;
    desc.Height = h;
    desc.Depth = d;
    desc.Format = CU_AD_FORMAT_FLOAT;
    desc.NumChannels = 1;
    return desc;
}

TEST_F(Arrays, CreateDescribeFree) {
    array a = array::create(float_descriptor(31, 7));
    EXPECT_EQ(a.descriptor().Width, 31u);
    EXPECT_EQ(a.descriptor_3d().Height, 7u);
    EXPECT_EQ(a.size_bytes(), 31u * 7 * 4);
    a.free();
    a.free();
    EXPECT_THROW(a.handle(), gpukit::logic_error);
    auto bad = float_descriptor(4, 4);
    bad.NumChannels = 3;
    EXPECT_THROW(array::create(bad), gpukit::logic_error);
}

TEST_F(Arrays, UnstructuredRoundTrip) {
    const auto host = random_floats(20 * 9, 1);
    array a = array::create(float_descriptor(20, 9));
    memcpy_htoa(a, 0, host.data(), host.size() * 4);
    std::vector<float> back(host.size());
    memcpy_atoh(back.data(), a, 0, back.size() * 4);
    EXPECT_EQ(back, host);
    EXPECT_THROW(memcpy_htoa(a, 4, host.data(), host.size() * 4), gpukit::logic_error);
}

TEST_F(Arrays, ThreeDimensionalSubBoxThroughAnArray) {
    const std::size_t w = 8, h = 6, d = 5;
    const auto host = random_floats(w * h * d, 2);
    array a = array::create(float_descriptor(w, h, d));
    copy_location src, dst;
    src.set_host(host.data(), host.size() * 4);
    dst.set_array(a);
    memcpy_3d(src, dst, copy_extent{.width_in_bytes = w * 4, .height = h, .depth = d});
    // Back: the box x 2..6, y 1..4, z 3..4 into a packed host buffer.
    std::vector<float> box(4 * 3 * 2);
    copy_location from, to;
    from.set_array(a);
    from.x_in_bytes = 2 * 4;
    from.y = 1;
    from.z = 3;
    to.set_host(box.data(), box.size() * 4);
    memcpy_3d(from, to, copy_extent{.width_in_bytes = 4 * 4, .height = 3, .depth = 2});
    for (std::size_t z = 0; z < 2; ++z)
        for (std::size_t y = 0; y < 3; ++y)
            for (std::size_t x = 0; x < 4; ++x)
                EXPECT_EQ(box[(z * 3 + y) * 4 + x], host[((z + 3) * h + y + 1) * w + x + 2]);
}

}  // namespace
