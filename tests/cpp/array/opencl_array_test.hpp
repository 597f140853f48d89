// Shared by the array engine's OpenCL tests: a fixture with an opencl_backend on the test
// device's queue (cl_queue_test: PoCL in CI, NVIDIA's OpenCL on the GPU machine), and host
// vectors moved to and from its memory.
#pragma once

#include "gpukit/array/opencl_backend.hpp"

#include "cl/cl_test_device.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace gpukit::testing {

class opencl_array_test : public cl_queue_test {
public:
    void SetUp() override {
        cl_queue_test::SetUp();
        if (IsSkipped())
            return;
        backend.emplace(*q);
    }

    // A buffer holding `values`.
    template <class T>
    std::shared_ptr<const array::device_buffer> upload(const std::vector<T>& values) {
        auto buffer = backend->allocate(values.size() * sizeof(T));
        backend->write(*buffer, 0, std::as_bytes(std::span(values)));
        return buffer;
    }
    // `values` as a contiguous array of `t` and `shape` (empty: 1-d, as many elements of t as
    // the values' bytes hold; two floats make one complex64).
    template <class T>
    array::ndarray upload(const std::vector<T>& values, array::dtype t, std::vector<std::int64_t> shape = {}) {
        const auto itemsize = static_cast<std::int64_t>(array::size_of(t));
        if (shape.empty())
            shape = {static_cast<std::int64_t>(values.size() * sizeof(T)) / itemsize};
        return array::ndarray(upload(values), t, layout::contiguous(std::move(shape), itemsize));
    }
    // Every element of T in `buffer`, or in the buffer of `a`.
    template <class T>
    std::vector<T> download(const array::device_buffer& buffer) {
        std::vector<T> values(buffer.size / sizeof(T));
        backend->read(buffer, 0, std::as_writable_bytes(std::span(values)));
        return values;
    }
    template <class T>
    std::vector<T> download(const array::ndarray& a) {
        return download<T>(*a.buffer());
    }

    std::optional<array::opencl_backend> backend;
};

}  // namespace gpukit::testing
