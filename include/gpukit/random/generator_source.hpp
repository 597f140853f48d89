// The CUDA C of a generator kind's kernels, on cuRAND's device API (curand_kernel.h).
//
// Every kernel runs one thread per generator state (state g lives at states[g]); a thread
// copies its state into registers, draws, and writes it back. The fills share one element
// layout: generator g (of `count`) fills the chunks g, g + count, g + 2 count, ... of the
// array in memory order, each chunk being V consecutive elements drawn one after the other:
//   - XORWOW and MRG32k3a: V is one 16-byte word (4 float32/int32/uint32, 2 float64), stored
//     with one 16-byte store when the array is aligned; normal and log-normal values come
//     in Box-Muller pairs (curand_normal2 and kin);
//   - Sobol: V = 1, PyCUDA's layout: element e is point e / count of dimension e % count,
//     so the array seen as (points, count) rows holds whole points.
// A chunk always takes the same draws, even the last, partial one, so skipping ahead by
// what a chunk draws is the same as generating it.
#pragma once

#include "gpukit/random/generator_kind.hpp"

#include <string>
#include <string_view>

namespace gpukit::random {

// The kernels of a generator module. Arguments (states, count) come first in each; then
//   init:                   seeds (const unsigned*) or direction vectors [, scramble
//                           constants], offset (unsigned long long)
//   uniform_*, normal_*:    out, n (long long)
//   log_normal_*:           out, n, mean, stddev (float for float32, double for float64)
//   poisson_*:              out, n, lambda (double), from_data (int: each element's own
//                           value is its lambda)
//   skip_ahead*:            the count (32 bits for the 32-bit Sobol generators, else 64),
//                           or a device array of one count per generator
// uniform_bits32 fills int32/uint32 (the high 32 bits of a 64-bit Sobol draw);
// uniform_bits64 exists for the 64-bit Sobol generators only, the sequence kernels for
// XORWOW and MRG32k3a, the subsequence ones for MRG32k3a.
enum class generator_kernel {
    init,
    uniform_float32,
    uniform_float64,
    uniform_bits32,
    uniform_bits64,
    normal_float32,
    normal_float64,
    log_normal_float32,
    log_normal_float64,
    poisson_uint32,
    poisson_float32,
    poisson_float64,
    skip_ahead,
    skip_ahead_array,
    skip_ahead_sequence,
    skip_ahead_sequence_array,
    skip_ahead_subsequence,
    skip_ahead_subsequence_array,
};
// The number of generator_kernel values (the kernels each generator's source defines).
inline constexpr int generator_kernel_count = 18;

// "gk_init", "gk_uniform_float32", ...
std::string_view kernel_name(generator_kernel k) noexcept;

// Whether `kind`'s module has kernel `k`.
bool has_kernel(generator_kind kind, generator_kernel k) noexcept;

// The name of the __device__ variable whose size is sizeof(the state type).
inline constexpr const char* state_size_variable = "gk_state_bytes";

// Threads per block of every kernel (their __launch_bounds__), which is also the number of
// generators per block.
inline constexpr unsigned generators_per_block = 256;

// The module's CUDA C: includes <curand_kernel.h> and declares its kernels extern "C".
std::string generator_source(generator_kind kind);

}  // namespace gpukit::random
