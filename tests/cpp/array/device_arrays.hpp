// Host <-> device copies of one-dimensional data, shared by the array tests that run on a
// device.
#pragma once

#include "gpukit/array/ndarray.hpp"
#include "gpukit/cuda/copy.hpp"

#include <cstdint>
#include <vector>

namespace gpukit::test {

// A new contiguous array of dtype `t` holding `host` (T has t's size).
template <class T>
array::ndarray upload(const std::vector<T>& host, array::dtype t) {
    array::ndarray a = array::ndarray::empty({static_cast<std::int64_t>(host.size())}, t);
    cuda::memcpy_htod(a.data(), host.data(), host.size() * sizeof(T));
    return a;
}

// The n values of type T at device address `address`.
template <class T>
std::vector<T> download(CUdeviceptr address, std::size_t n) {
    std::vector<T> host(n);
    cuda::memcpy_dtoh(host.data(), address, n * sizeof(T));
    return host;
}

// Every element of the contiguous array `a`, as T.
template <class T>
std::vector<T> download(const array::ndarray& a) {
    return download<T>(a.data(), static_cast<std::size_t>(a.size()));
}

}  // namespace gpukit::test
