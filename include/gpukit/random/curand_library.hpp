// cuRAND's host library (libcurand.so), loaded at run time (ARCHITECTURE.md rule 1) for what
// only it holds: the Sobol direction vectors and scramble constants (Joe and Kuo's tables,
// 20000 dimensions) and its version. Nothing links against it: without it, everything else
// works and these calls raise runtime_error naming the files tried.
//
// Looked for as libcurand.so.10, then libcurand.so: by the dynamic linker's own search,
// in $CUDA_HOME/lib64, $CUDA_PATH/lib64, the pip packages' nvidia/curand/lib and
// nvidia/cu13/lib, and /usr/local/cuda/lib64.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpukit::random {

// cuRAND's curandDirectionVectorSet values (PyCUDA's direction_vector_set).
enum class direction_vector_set {
    vectors_32 = 101,
    scrambled_vectors_32 = 102,
    vectors_64 = 103,
    scrambled_vectors_64 = 104,
};

// How many dimensions each set (and each table of scramble constants) has.
inline constexpr std::size_t sobol_dimensions = 20000;

// Whether `set` is one of the 64-bit sets (vectors_64, scrambled_vectors_64).
constexpr bool is_64_bit(direction_vector_set set) noexcept {
    return set == direction_vector_set::vectors_64 || set == direction_vector_set::scrambled_vectors_64;
}

// The direction vectors of the first `count` dimensions of `set`: 32 words per dimension for
// the 32-bit sets, 64 for the 64-bit ones (dimension d's vector k at d * words + k). The
// set must have that width (logic_error otherwise), and count at most sobol_dimensions.
std::vector<std::uint32_t> direction_vectors32(direction_vector_set set, std::size_t count);
// The same for the 64-bit sets: 64 words per dimension.
std::vector<std::uint64_t> direction_vectors64(direction_vector_set set, std::size_t count);

// The scramble constants of the first `count` dimensions (at most sobol_dimensions).
std::vector<std::uint32_t> scramble_constants32(std::size_t count);
// The 64-bit scramble constants of the first `count` dimensions (at most sobol_dimensions).
std::vector<std::uint64_t> scramble_constants64(std::size_t count);

// (major, minor, patch) of the library, from curandGetVersion.
std::array<int, 3> curand_library_version();

// The file of the library in use, links resolved; runtime_error when none can be loaded.
std::string curand_library_file();

// True when libcurand can be loaded; never throws.
bool curand_library_available() noexcept;

}  // namespace gpukit::random
