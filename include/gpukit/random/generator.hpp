// cuRAND generators on the device (PyCUDA's curandom classes): XORWOW, MRG32k3a and the
// four Sobol generators, compiled from cuRAND's device API by NVRTC (curand_headers.hpp).
//
// A generator is block_count * generators_per_block independent generator states in device
// memory, one per thread of every kernel (generator_source.hpp gives the kernels and the
// element layout of the fills): generators_per_block threads per block, and as many blocks as
// the device holds at once of the uniform float32 fill, so that fill runs on the whole device
// in one wave. The Sobol generators stop at cuRAND's 20000 dimensions (one per generator),
// so no two of them repeat a dimension. The states are initialised once, when the generator is
// made (curand_init is costly: XORWOW's skips to subsequence g for state g), and kept
// between calls, each of which copies a thread's state into registers, draws and stores
// it back. The generator owns its state memory and its loaded module, both of which hold
// the context it was made in; every call must be made with that context current.
#pragma once

#include "gpukit/array/ndarray.hpp"
#include "gpukit/cuda/function.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/random/generator_kind.hpp"
#include "gpukit/random/generator_source.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace gpukit::random {

// How a generator's states are laid out over the grid: one state per thread of every kernel.
struct generator_shape {
    unsigned block_count = 0;           // blocks of a launch over all the states
    unsigned generators_per_block = 0;  // threads per block, one state each
    // The number of generators (states): block_count * generators_per_block.
    long long count() const noexcept { return static_cast<long long>(block_count) * generators_per_block; }
};

// A set of cuRAND generators of one kind with their states on the device (see above), made by
// seeded() or sobol(). Move-only: it owns its state memory and its module.
class generator {
public:
    // The seeds of `count` generators: one 32-bit integer (int32 or uint32) each, contiguous.
    // Asked for once the generator knows how many it has.
    using seed_source = std::function<array::ndarray(long long count)>;

    // XORWOW or MRG32k3a in the current context: generator g is curand_init(seeds[g],
    // subsequence g, offset). runtime_error when cuRAND's headers are missing; type_error /
    // logic_error for seeds that do not fit.
    static generator seeded(generator_kind kind, const seed_source& seeds, std::uint64_t offset);

    // A Sobol generator in the current context. `vectors`: the direction vectors, one
    // dimension per generator, (count, 32) uint32 for the 32-bit kinds or (count, 64) uint64
    // for the 64-bit ones; `scramble` (scrambled kinds only): count constants of the same
    // type. nullopt takes cuRAND's own (curand_library.hpp); `offset` points are skipped
    // (below 2^32 for the 32-bit kinds).
    static generator sobol(generator_kind kind, const std::optional<array::ndarray>& vectors,
                           const std::optional<array::ndarray>& scramble, std::uint64_t offset);

    // Which cuRAND generator this is.
    generator_kind kind() const noexcept { return kind_; }
    // How many generators there are, as blocks of generators_per_block (fixed when it is made).
    const generator_shape& shape() const noexcept { return shape_; }
    // The states: shape().count() of cuRAND's state type, state_bytes() each.
    cuda::device_allocation& state() noexcept { return state_; }
    // The size of one state in bytes: sizeof of cuRAND's state type, as the module reports it.
    std::size_t state_bytes() const noexcept { return state_bytes_; }

    // Fills `out` (contiguous, any shape; its elements in memory order) on `s`. Dtypes:
    //   uniform:    float32, float64 (in (0, 1], as cuRAND's); int32, uint32 (random bits);
    //               int64, uint64 with the 64-bit Sobol generators
    //   normal:     float32, float64 (mean 0, standard deviation 1)
    //   log_normal: float32, float64; exp of a normal with `mean` and `stddev`
    //   poisson:    uint32, float32, float64; with mean `lambda`, or when nullopt with each
    //               element's own value as its mean (in place)
    // type_error for other dtypes, logic_error for a non-contiguous array, non-finite
    // parameters, a negative stddev or lambda, or another context current.
    //
    // fill_uniform: uniform values as listed above.
    void fill_uniform(const array::ndarray& out, cuda::stream_view s = {});
    // Fills `out` (float32 or float64) with normal values of mean 0 and standard deviation 1,
    // as fill_uniform fills (same layout, errors and context).
    void fill_normal(const array::ndarray& out, cuda::stream_view s = {});
    // Fills `out` (float32 or float64) with exp of normal values of mean `mean` and standard
    // deviation `stddev`. logic_error for a non-finite mean or stddev, or a negative stddev.
    void fill_log_normal(const array::ndarray& out, double mean, double stddev, cuda::stream_view s = {});
    // Fills `out` (uint32, float32 or float64) with Poisson counts of mean `lambda`; with
    // nullopt, each element's own value is its mean and is replaced by its draw (in place).
    // logic_error for a non-finite or negative lambda.
    void fill_poisson(const array::ndarray& out, std::optional<double> lambda, cuda::stream_view s = {});

    // Every generator skips `n` draws, as if it had made and dropped them. n must be below
    // 2^32 for the 32-bit Sobol generators.
    void skip_ahead(std::uint64_t n, cuda::stream_view s = {});
    // Generator g skips counts[g] draws: one count per generator, contiguous, 64-bit integers
    // (32-bit for the 32-bit Sobol generators), signed or not.
    void skip_ahead(const array::ndarray& counts, cuda::stream_view s = {});
    // XORWOW and MRG32k3a skip sequences: 2^67 draws for XORWOW (the distance between its
    // generators), 2^127 for MRG32k3a; MRG32k3a also subsequences of 2^76 draws (the
    // distance between its generators). logic_error for other kinds.
    void skip_ahead_sequence(std::uint64_t n, cuda::stream_view s = {});
    // Generator g skips counts[g] sequences: one count per generator, contiguous, 64-bit
    // integers. logic_error for the Sobol kinds, or counts of the wrong length; type_error
    // for other dtypes.
    void skip_ahead_sequence(const array::ndarray& counts, cuda::stream_view s = {});
    // Every generator skips `n` subsequences of 2^76 draws. MRG32k3a only: logic_error for
    // other kinds.
    void skip_ahead_subsequence(std::uint64_t n, cuda::stream_view s = {});
    // Generator g skips counts[g] subsequences: as skip_ahead_sequence(counts), MRG32k3a only.
    void skip_ahead_subsequence(const array::ndarray& counts, cuda::stream_view s = {});

private:
    // Loads the kernels and allocates the states, not yet initialised (the factories do that).
    explicit generator(generator_kind kind);

    // "XORWOWRandomNumberGenerator.<method>", for messages.
    std::string where(const char* method) const;
    // logic_error unless the generator's context is current.
    void require_context(const char* method) const;
    const cuda::function& kernel(generator_kernel k) const { return *kernels_[static_cast<int>(k)]; }
    // Launches `k` over `blocks` blocks with (states, count, args...).
    template <class... Args>
    void launch(generator_kernel k, unsigned blocks, cuda::stream_view s, const Args&... args) const;
    void fill(generator_kernel k, const array::ndarray& out, const char* method, cuda::stream_view s,
              const auto&... args);
    void skip(generator_kernel k, std::uint64_t n, const char* method, cuda::stream_view s);
    void skip(generator_kernel k, const array::ndarray& counts, const char* method, cuda::stream_view s);

    generator_kind kind_;
    cuda::module module_;
    std::array<std::optional<cuda::function>, generator_kernel_count> kernels_;
    generator_shape shape_;
    std::size_t state_bytes_;
    cuda::device_allocation state_;
};

}  // namespace gpukit::random
