// rand on a device, against the host Philox reference, and what bad input gets.
#include "gpukit/array/ndarray.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/random/philox.hpp"
#include "gpu_test.hpp"
#include "random/philox_reference.hpp"

#include <cstdint>
#include <cstring>
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

}  // namespace
