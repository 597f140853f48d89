// array::sort (sort.hpp) on the OpenCL backend (PoCL in CI, NVIDIA's OpenCL on the GPU
// machine), against std::sort on the host: lengths that are and are not powers of two, every
// axis of a 3-d array, reversed and strided views, values moved with their keys, NaNs last,
// and what it refuses. The CUDA C of the same kernel is compiled by test_scan_source.cpp.
#include "gpukit/array/opencl_backend.hpp"
#include "gpukit/array/sort.hpp"

#include "opencl_array_test.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace gpukit;
using array::dtype;

using SortOnOpencl = gpukit::testing::opencl_array_test;

TEST_F(SortOnOpencl, OneAxisOfEveryLengthWithItsValues) {
    std::mt19937 gen(1);
    for (std::int64_t n : {2, 3, 4, 5, 16, 17, 1000, 1024, 4099}) {
        std::vector<float> keys(static_cast<std::size_t>(n));
        for (auto& k : keys)
            k = static_cast<float>(gen() % 50);  // many ties
        std::vector<std::int32_t> index(keys.size());
        for (std::size_t i = 0; i < index.size(); ++i)
            index[i] = static_cast<std::int32_t>(i);
        const array::ndarray k = upload(keys, dtype::float32, {n});
        const array::ndarray v = upload(index, dtype::int32, {n});
        array::sort(k, &v, 0, *backend);
        const auto sorted = download<float>(k);
        const auto moved = download<std::int32_t>(v);
        std::vector<float> expected = keys;
        std::sort(expected.begin(), expected.end());
        ASSERT_EQ(sorted, expected) << "n = " << n;
        std::vector<int> seen(keys.size(), 0);
        for (std::size_t i = 0; i < moved.size(); ++i) {
            ASSERT_EQ(keys[static_cast<std::size_t>(moved[i])], sorted[i]) << "n = " << n << ", i = " << i;
            ++seen[static_cast<std::size_t>(moved[i])];
        }
        EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; })) << "n = " << n;
    }
}

TEST_F(SortOnOpencl, EveryAxisOfA3dArrayAndReversedStridedViews) {
    const std::int64_t shape[3] = {3, 37, 5};
    std::vector<std::int64_t> data(3 * 37 * 5);
    std::mt19937 gen(2);
    for (auto& x : data)
        x = static_cast<std::int64_t>(gen() % 2001) - 1000;
    for (int axis : {0, 1, 2, -1}) {
        const array::ndarray a = upload(data, dtype::int64, {3, 37, 5});
        array::sort(a, nullptr, axis, *backend);
        const auto got = download<std::int64_t>(a);
        const int ax = axis < 0 ? axis + 3 : axis;
        // Each line along ax, sorted on the host.
        std::vector<std::int64_t> expected = data;
        const std::int64_t strides[3] = {37 * 5, 5, 1};
        for (std::int64_t i0 = 0; i0 < (ax == 0 ? 1 : shape[0]); ++i0)
            for (std::int64_t i1 = 0; i1 < (ax == 1 ? 1 : shape[1]); ++i1)
                for (std::int64_t i2 = 0; i2 < (ax == 2 ? 1 : shape[2]); ++i2) {
                    std::vector<std::int64_t> line;
                    const std::int64_t base = i0 * strides[0] + i1 * strides[1] + i2 * strides[2];
                    for (std::int64_t j = 0; j < shape[ax]; ++j)
                        line.push_back(data[static_cast<std::size_t>(base + j * strides[ax])]);
                    std::sort(line.begin(), line.end());
                    for (std::int64_t j = 0; j < shape[ax]; ++j)
                        expected[static_cast<std::size_t>(base + j * strides[ax])] = line[static_cast<std::size_t>(j)];
                }
        ASSERT_EQ(got, expected) << "axis " << axis;
    }
    // A reversed view of every other element: the view ends ascending, which is the memory
    // descending; the skipped elements stay.
    std::vector<std::int32_t> flat(41);
    for (std::size_t i = 0; i < flat.size(); ++i)
        flat[i] = static_cast<std::int32_t>((i * 7919) % 41);
    const array::ndarray whole = upload(flat, dtype::int32, {41});
    const array::ndarray view = whole.view(layout({21}, {-8}, 4, 40 * 4));
    array::sort(view, nullptr, 0, *backend);
    const auto got = download<std::int32_t>(whole);
    std::vector<std::int32_t> picked;
    for (std::size_t i = 0; i < flat.size(); i += 2)
        picked.push_back(flat[i]);
    std::sort(picked.begin(), picked.end());
    for (std::size_t j = 0; j < picked.size(); ++j)
        EXPECT_EQ(got[40 - 2 * j], picked[j]) << j;
    for (std::size_t i = 1; i < flat.size(); i += 2)
        EXPECT_EQ(got[i], flat[i]) << i;
}

TEST_F(SortOnOpencl, NansGoLastAndRefusalsComeFirst) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const array::ndarray k = upload(std::vector<float>{3, nan, -1, nan, 2, -5}, dtype::float32, {6});
    array::sort(k, nullptr, 0, *backend);
    const auto got = download<float>(k);
    EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + 4), (std::vector<float>{-5, -1, 2, 3}));
    EXPECT_TRUE(std::isnan(got[4]) && std::isnan(got[5]));

    const array::ndarray c = upload(std::vector<double>(2), dtype::complex64, {2});
    EXPECT_THROW(array::sort(c, nullptr, 0, *backend), logic_error);
    const array::ndarray other = upload(std::vector<std::int32_t>(5), dtype::int32, {5});
    EXPECT_THROW(array::sort(k, &other, 0, *backend), logic_error);  // another shape
    EXPECT_THROW(array::sort(k, nullptr, 1, *backend), logic_error);
    EXPECT_THROW(array::sort(k, nullptr, -2, *backend), logic_error);
    const array::ndarray empty = upload(std::vector<float>{}, dtype::float32, {0});
    array::sort(empty, nullptr, 0, *backend);  // nothing to do
}

}  // namespace
