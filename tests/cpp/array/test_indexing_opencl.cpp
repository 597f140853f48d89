// indexed_copy on the backend seam (indexing.hpp) on the OpenCL backend, against the same
// copies on the host: gathers with negative and out-of-range indices, scatters, offsets per
// pair, 1- and 16-byte elements, and what it refuses. The CUDA C is compiled by
// test_scan_source.cpp.
#include "gpukit/array/indexing.hpp"
#include "gpukit/array/opencl_backend.hpp"

#include "opencl_array_test.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace {

using namespace gpukit;
using array::dtype;

using IndexedCopyOnOpencl = gpukit::testing::opencl_array_test;

TEST_F(IndexedCopyOnOpencl, GathersScattersAndOffsets) {
    std::vector<std::int8_t> source(50);
    for (std::size_t i = 0; i < source.size(); ++i)
        source[i] = static_cast<std::int8_t>(i + 1);
    const std::vector<std::int32_t> from{0, 49, -1, -50, 50, -51, 7};  // the last but one: out of range
    const array::ndarray s = upload(source, dtype::int8);
    const array::ndarray idx = upload(from, dtype::int32);
    const array::ndarray out = upload(std::vector<std::int8_t>(7, 99), dtype::int8);
    const std::vector<array::ndarray> sources{s}, outs{out};
    array::indexed_copy(sources, outs, &idx, nullptr, {}, *backend);
    EXPECT_EQ(download<std::int8_t>(out), (std::vector<std::int8_t>{1, 50, 50, 1, 0, 0, 8}));

    // A scatter with an offset per pair, of complex128 (16-byte) elements; the out-of-range
    // destination 9 is not written.
    const std::vector<double> pairs{1, 2, 3, 4, 5, 6, 7, 8};  // four complex numbers
    const std::vector<std::int64_t> to{3, -1, 9};
    const std::vector<std::int64_t> read{0, 1, 2};
    const array::ndarray c = upload(pairs, dtype::complex128);
    const array::ndarray target = upload(std::vector<double>(10, 0), dtype::complex128);  // five
    const std::vector<array::ndarray> csources{c}, couts{target};
    const array::ndarray to_idx = upload(to, dtype::int64), read_idx = upload(read, dtype::int64);
    const std::array<std::int64_t, 1> offset{1};
    array::indexed_copy(csources, couts, &read_idx, &to_idx, offset, *backend);
    EXPECT_EQ(download<double>(target), (std::vector<double>{0, 0, 0, 0, 0, 0, 3, 4, 5, 6}));
}

TEST_F(IndexedCopyOnOpencl, RefusesWhatDoesNotFit) {
    const array::ndarray a = upload(std::vector<float>(4), dtype::float32);
    const array::ndarray d = upload(std::vector<double>(4), dtype::float64);
    const array::ndarray f = upload(std::vector<float>(4), dtype::float32);
    const std::vector<array::ndarray> one{a}, other_size{d}, none;
    EXPECT_THROW(array::indexed_copy(one, other_size, nullptr, nullptr, {}, *backend), logic_error);
    EXPECT_THROW(array::indexed_copy(one, none, nullptr, nullptr, {}, *backend), logic_error);
    EXPECT_THROW(array::indexed_copy(one, one, &f, nullptr, {}, *backend), logic_error);  // float indices
    const std::vector<array::ndarray> strided{a.view(layout({2}, {8}, 4, 0))};
    EXPECT_THROW(array::indexed_copy(strided, one, nullptr, nullptr, {}, *backend), logic_error);
}

}  // namespace
