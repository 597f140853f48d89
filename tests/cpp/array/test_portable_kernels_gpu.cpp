// The kernels written once for both languages (generic scans, sorts, the portable indexed
// copy), run on the CUDA backend, against the host: the OpenCL runs of the same kernels are
// test_generic_scan_opencl.cpp, test_sort_opencl.cpp and test_indexing_opencl.cpp.
#include "gpukit/array/cuda_backend.hpp"
#include "gpukit/array/generic_scan.hpp"
#include "gpukit/array/indexing.hpp"
#include "gpukit/array/sort.hpp"

#include "gpu_test.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using namespace gpukit;
using array::dtype;
using array::param_kind;

class PortableKernelsOnCuda : public gpukit::testing::gpu_test {
protected:
    template <class T>
    array::ndarray upload(const std::vector<T>& values, dtype t) {
        auto buffer = backend.allocate(std::max<std::size_t>(1, values.size()) * sizeof(T));
        backend.write(*buffer, 0, std::as_bytes(std::span(values)));
        const auto n = static_cast<std::int64_t>(values.size());
        return array::ndarray(buffer, t, layout::contiguous({n}, sizeof(T)));
    }
    template <class T>
    std::vector<T> download(const array::ndarray& a) {
        std::vector<T> values(static_cast<std::size_t>(a.size()));
        backend.read(*a.buffer(), 0, std::as_writable_bytes(std::span(values)));
        return values;
    }

    array::cuda_backend backend;
};

TEST_F(PortableKernelsOnCuda, SegmentedGenericScans) {
    const array::generic_scan_spec spec("segsums", "int", 4,
                                        {{"x", dtype::int32, param_kind::input},
                                         {"starts", dtype::uint8, param_kind::input},
                                         {"inc", dtype::int32, param_kind::output},
                                         {"exc", dtype::int32, param_kind::output}},
                                        "x[i]", "across_seg_boundary ? b : a + b", "0",
                                        "inc[i] = item; exc[i] = prev_item;", "starts[i]");
    std::mt19937 gen(1);
    for (std::int64_t n : {1, 1023, 1025, 131073, 1000003}) {
        std::vector<std::int32_t> x(static_cast<std::size_t>(n));
        std::vector<std::uint8_t> starts(x.size(), 0);
        for (auto& v : x)
            v = static_cast<std::int32_t>(gen() % 10);
        for (int k = 0; k < 30; ++k)
            starts[gen() % x.size()] = 1;
        const std::vector<array::elementwise_arg> args{upload(x, dtype::int32), upload(starts, dtype::uint8),
                                                       upload(std::vector<std::int32_t>(x.size()), dtype::int32),
                                                       upload(std::vector<std::int32_t>(x.size()), dtype::int32)};
        array::run(spec, args, n, backend);
        const auto inc = download<std::int32_t>(std::get<array::ndarray>(args[2]));
        const auto exc = download<std::int32_t>(std::get<array::ndarray>(args[3]));
        std::int32_t sum = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (starts[i])
                sum = 0;
            ASSERT_EQ(exc[i], sum) << "n = " << n << ", i = " << i;
            sum += x[i];
            ASSERT_EQ(inc[i], sum) << "n = " << n << ", i = " << i;
        }
    }
}

TEST_F(PortableKernelsOnCuda, SortsWithValuesAndIndexedCopies) {
    std::mt19937 gen(2);
    const std::int64_t n = 5001;
    std::vector<double> keys(static_cast<std::size_t>(n));
    std::vector<std::int64_t> index(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        keys[i] = static_cast<double>(gen() % 1000);
        index[i] = static_cast<std::int64_t>(i);
    }
    const array::ndarray k = upload(keys, dtype::float64), v = upload(index, dtype::int64);
    array::sort(k, &v, 0, backend);
    const auto sorted = download<double>(k);
    const auto moved = download<std::int64_t>(v);
    std::vector<double> expected = keys;
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(sorted, expected);
    for (std::size_t i = 0; i < moved.size(); ++i)
        ASSERT_EQ(keys[static_cast<std::size_t>(moved[i])], sorted[i]) << i;

    // Gather the sorted keys back into the original order through the moved indices.
    const array::ndarray back = upload(std::vector<double>(keys.size()), dtype::float64);
    const std::vector<array::ndarray> sources{k}, outs{back};
    array::indexed_copy(sources, outs, nullptr, &v, {}, backend);
    EXPECT_EQ(download<double>(back), keys);
}

}  // namespace
