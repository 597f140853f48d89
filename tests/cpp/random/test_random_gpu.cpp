// rand and cuRAND's generators on a device: rand against the host Philox reference, the
// generators' reproducibility, skip-ahead and Sobol points, and what bad input gets.
#include "gpukit/array/ndarray.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/random/curand_headers.hpp"
#include "gpukit/random/curand_library.hpp"
#include "gpukit/random/generator.hpp"
#include "gpukit/random/philox.hpp"
#include "gpu_test.hpp"
#include "random/philox_reference.hpp"

#include <cstdint>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::random;
using array::dtype;
using array::ndarray;

class RandomGpu : public gpukit::testing::gpu_test {};

template <class T>
std::vector<T> download(const ndarray& a) {
    std::vector<T> host(static_cast<std::size_t>(a.size()));
    if (!host.empty())
        cuda::memcpy_dtoh(host.data(), a.data(), host.size() * sizeof(T));
    return host;
}

template <class T>
ndarray upload(const std::vector<T>& host, std::vector<std::int64_t> shape, dtype t) {
    ndarray a = ndarray::empty(std::move(shape), t);
    cuda::memcpy_htod(a.data(), host.data(), host.size() * sizeof(T));
    return a;
}

// n elements of `t` starting 4 bytes into their memory, so no 16-byte store is aligned.
ndarray unaligned(long long n, dtype t) {
    const ndarray whole = ndarray::empty({n + 4}, t);
    return whole.view(gpukit::layout({n}, {static_cast<std::int64_t>(array::size_of(t))},
                                     static_cast<std::int64_t>(array::size_of(t)), 4));
}

TEST_F(RandomGpu, RandIsPhiloxOfTheBlockIndex) {
    const std::uint64_t key = 0x0123456789abcdefULL;
    for (long long n : {1LL, 5LL, 1000LL, 1025LL, (1LL << 20) + 3}) {
        SCOPED_TRACE(n);
        const ndarray f = ndarray::empty({n}, dtype::float32), d = ndarray::empty({n}, dtype::float64),
                      u = ndarray::empty({n}, dtype::uint32);
        fill_rand(f, key);
        fill_rand(d, key);
        fill_rand(u, key);
        const auto fs = download<float>(f);
        const auto ds = download<double>(d);
        const auto us = download<std::uint32_t>(u);
        for (long long e = 0; e < n; ++e) {
            const auto w = gpukit::testing::rand_block(static_cast<std::uint64_t>(e / 4), key);
            ASSERT_EQ(us[e], w[e % 4]) << e;
            ASSERT_EQ(fs[e], static_cast<float>(w[e % 4] >> 8) * 0x1p-24f) << e;
            const auto wd = gpukit::testing::rand_block(static_cast<std::uint64_t>(e / 2), key);
            const std::uint64_t bits = (std::uint64_t{wd[2 * (e % 2)]} << 32) | wd[2 * (e % 2) + 1];
            ASSERT_EQ(ds[e], static_cast<double>(bits >> 11) * 0x1p-53) << e;
        }
    }
}

TEST_F(RandomGpu, RandIsTheSameUnaligned) {
    const long long n = 1027;
    const ndarray aligned = ndarray::empty({n}, dtype::float32), shifted = unaligned(n, dtype::float32);
    fill_rand(aligned, 7);
    fill_rand(shifted, 7);
    EXPECT_EQ(download<float>(aligned), download<float>(shifted));
}

TEST_F(RandomGpu, RandRefusesBadArrays) {
    const ndarray strided = ndarray::empty({10}, dtype::float32).view(gpukit::layout({5}, {8}, 4, 0));
    EXPECT_THROW(fill_rand(strided, 1), logic_error);
    EXPECT_THROW(fill_rand(ndarray::empty({4}, dtype::int64), 1), type_error);
    fill_rand(ndarray::empty({0}, dtype::float32), 1);  // nothing to do
}

class GeneratorGpu : public RandomGpu {
protected:
    void SetUp() override {
        RandomGpu::SetUp();
        if (!IsSkipped() && !find_curand_headers())
            GTEST_SKIP() << "cuRAND's headers (curand_kernel.h) are not installed";
    }
    // An XORWOW generator whose seeds are always the same: seed_source gives their count.
    static generator xorwow(std::uint64_t offset = 0) {
        return generator::seeded(generator_kind::xorwow, seeds_of_count, offset);
    }
    static ndarray seeds_of_count(long long count) {
        std::vector<std::int32_t> seeds(static_cast<std::size_t>(count));
        for (long long g = 0; g < count; ++g)
            seeds[g] = static_cast<std::int32_t>(g * 2654435761u % 2147483647u);
        return upload(seeds, {count}, dtype::int32);
    }
};

TEST_F(GeneratorGpu, SameSeedsSameNumbersAndSkipAheadIsGenerateAndDrop) {
    generator a = xorwow(), b = xorwow();
    const long long count = a.shape().count();
    // Each generator fills chunks of 4 float32: two chunks per generator, then one.
    const ndarray two = ndarray::empty({8 * count}, dtype::float32);
    const ndarray again = ndarray::empty({8 * count}, dtype::float32);
    a.fill_uniform(two);
    b.fill_uniform(again);
    const auto first = download<float>(two);
    EXPECT_EQ(first, download<float>(again));

    generator c = xorwow();
    c.skip_ahead(4);  // a chunk of uniform float32 takes 4 draws
    const ndarray one = ndarray::empty({4 * count}, dtype::float32);
    c.fill_uniform(one);
    const auto skipped = download<float>(one);
    for (long long e = 0; e < 4 * count; ++e)
        ASSERT_EQ(skipped[e], first[4 * count + e]) << e;

    // The offset of curand_init is the same skip.
    generator d = xorwow(4);
    d.fill_uniform(one);
    EXPECT_EQ(download<float>(one), skipped);
}

TEST_F(GeneratorGpu, SobolGivesTheGrayCodeSequence) {
    if (!curand_library_available())
        GTEST_SKIP() << "cuRAND's library (libcurand.so) is not installed";
    generator g = generator::sobol(generator_kind::sobol32, std::nullopt, std::nullopt, 0);
    const long long count = g.shape().count();
    const long long points = 5;
    const ndarray out = ndarray::empty({points * count}, dtype::uint32);
    g.fill_uniform(out);
    const auto got = download<std::uint32_t>(out);
    const auto v = direction_vectors32(direction_vector_set::vectors_32, static_cast<std::size_t>(count));
    for (long long dim = 0; dim < count; dim += 997) {
        std::uint32_t x = 0;
        for (long long i = 0; i < points; ++i) {
            ASSERT_EQ(got[i * count + dim], x) << "point " << i << " of dimension " << dim;
            int zero = 0;  // the lowest zero bit of i picks the next vector
            while ((i >> zero) & 1)
                ++zero;
            x ^= v[dim * 32 + zero];
        }
    }
}

TEST_F(GeneratorGpu, BadArgumentsAreRefused) {
    generator g = xorwow();
    EXPECT_THROW(g.fill_uniform(ndarray::empty({4}, dtype::int16)), type_error);
    EXPECT_THROW(g.fill_uniform(ndarray::empty({4}, dtype::uint64)), type_error);
    EXPECT_THROW(g.fill_normal(ndarray::empty({4}, dtype::int32)), type_error);
    EXPECT_THROW(g.fill_log_normal(ndarray::empty({4}, dtype::float32), 0, -1), logic_error);
    EXPECT_THROW(g.fill_poisson(ndarray::empty({4}, dtype::uint32), -2.0), logic_error);
    const ndarray strided = ndarray::empty({10}, dtype::float32).view(gpukit::layout({5}, {8}, 4, 0));
    EXPECT_THROW(g.fill_uniform(strided), logic_error);
    EXPECT_THROW(g.skip_ahead_subsequence(1), logic_error);
    EXPECT_THROW(g.skip_ahead(ndarray::empty({3}, dtype::uint64)), logic_error);
    EXPECT_THROW(g.skip_ahead(ndarray::empty({g.shape().count()}, dtype::uint32)), type_error);
    EXPECT_THROW(generator::seeded(
                     generator_kind::xorwow, [](long long) { return ndarray::empty({3}, dtype::int32); }, 0),
                 logic_error);
    EXPECT_THROW(generator::seeded(
                     generator_kind::xorwow, [](long long count) { return ndarray::empty({count}, dtype::float32); },
                     0),
                 type_error);
    EXPECT_THROW(generator::seeded(generator_kind::sobol32, seeds_of_count, 0), logic_error);
    EXPECT_THROW(generator::sobol(generator_kind::xorwow, std::nullopt, std::nullopt, 0), logic_error);

    // Another context current: refused, not launched into the wrong one.
    cuda::context other = cuda::device::get(0).make_context();
    EXPECT_THROW(g.fill_uniform(ndarray::empty({4}, dtype::float32)), logic_error);
    other.detach();
}

}  // namespace
