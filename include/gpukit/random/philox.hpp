// rand(): uniform random numbers from Philox4x32-10, a counter-based generator written here
// (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011), so they need no
// cuRAND headers and work wherever NVRTC does.
//
// A counter-based generator keeps no state: block b of an array is a pure function of b and
// the key, so any thread computes any block, the grid can be anything, and the same key gives
// the same numbers on every device. Elements are taken in memory order, in blocks of 16
// bytes: block b is Philox4x32-10 of the counter (b mod 2^32, b / 2^32, 0, 0) under the key
// (key mod 2^32, key / 2^32), four 32-bit words w0..w3, and
//   float32: element 4b + j = (wj >> 8) * 2^-24            (24 random bits, in [0, 1))
//   float64: element 2b + j = ((w2j << 32 | w2j+1) >> 11) * 2^-53   (53 bits, in [0, 1))
//   int32, uint32: element 4b + j = wj                      (every bit pattern)
// Each thread writes its blocks with one 16-byte store (when the array is 16-byte aligned),
// in a grid-stride loop over a grid that fills the device.
#pragma once

#include "gpukit/array/backend.hpp"
#include "gpukit/array/ndarray.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace gpukit::random {

// Whether fill_rand() fills arrays of `t`: float32, float64, int32, uint32.
bool rand_supports(array::dtype t) noexcept;
// "expected float32, float64 (...) ...": the supported dtypes, for error messages.
std::string_view rand_dtypes() noexcept;

// The CUDA C of the kernels: gk_rand_float32, gk_rand_float64 and gk_rand_bits32, each
// (T* out, long long n, unsigned long long key).
std::string rand_source();

// Fills `out` as described above, on `s`. type_error for a dtype rand_supports() refuses;
// logic_error for an array that is not contiguous (C or Fortran order).
void fill_rand(const array::ndarray& out, std::uint64_t key, cuda::stream_view s = {});
// The same on backend `b` (a cuda_backend: the CUDA kernels on its stream; an OpenCL one: the
// same numbers from the same algorithm in OpenCL C, float64 where the device has it).
// logic_error also for memory of another backend.
void fill_rand(const array::ndarray& out, std::uint64_t key, array::backend& b);

}  // namespace gpukit::random
