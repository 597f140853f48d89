#include "gpukit/random/generator_source.hpp"

#include "gpukit/core/text.hpp"

namespace gpukit::random {

namespace {

// The parts every module shares, after the kind's typedefs (gk_state, gk_word) and
// GK_QUASI: the fill loop and the draws that do not depend on the kind.
const char* const common = R"(
// sizeof(gk_state), read by the host as the size of this variable.
__device__ char gk_state_bytes[sizeof(gk_state)];

// Elements per chunk (generator_source.hpp): a 16-byte word, or one point for Sobol.
template <class T> __device__ constexpr int gk_width() { return GK_QUASI ? 1 : int(16 / sizeof(T)); }

__device__ __forceinline__ long long gk_generator() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }

// Generator g fills chunks g, g + count, ...; `draw(state, v)` fills the V values of a chunk,
// which hold the chunk's current elements first when `Reads` (zero past the array's end).
template <class T, bool Reads, class Draw>
__device__ __forceinline__ void gk_fill(gk_state* states, long long count, T* out, long long n, Draw draw)
{
    constexpr int V = gk_width<T>();
    constexpr bool vector = sizeof(T) * V == 16;
    const long long g = gk_generator();
    const long long chunks = (n + V - 1) / V;
    if (g >= count || g >= chunks)
        return;
    gk_state s = states[g];
    const bool aligned = reinterpret_cast<unsigned long long>(out) % 16 == 0;
    for (long long c = g; c < chunks; c += count) {
        T* chunk = out + c * V;
        const long long left = n - c * V;
        const int valid = left < V ? (int)left : V;
        const bool whole = vector && aligned && valid == V;
        alignas(16) T v[V] = {};
        if (Reads) {
            if (whole)
                *reinterpret_cast<uint4*>(v) = *reinterpret_cast<const uint4*>(chunk);
            else
                for (int j = 0; j < valid; ++j)
                    v[j] = chunk[j];
        }
        draw(&s, v);
        if (whole)
            *reinterpret_cast<uint4*>(chunk) = *reinterpret_cast<const uint4*>(v);
        else
            for (int j = 0; j < valid; ++j)
                chunk[j] = v[j];
    }
    states[g] = s;
}

// 32 random bits from a draw: the draw itself, or the high half of a 64-bit Sobol draw (its
// most significant bits; the low ones are zero for the first 2^32 points).
__device__ __forceinline__ unsigned int gk_bits32(unsigned int x) { return x; }
__device__ __forceinline__ unsigned int gk_bits32(unsigned long long x) { return (unsigned int)(x >> 32); }

// Poisson with mean lambda. A float element that is a negative or NaN lambda (numpy refuses
// those; a kernel cannot raise) gives NaN, an infinite one infinity; beyond what cuRAND's
// unsigned result holds, the normal approximation cuRAND itself uses above 4000 is taken
// in floating point.
__device__ __forceinline__ void gk_poisson(gk_state* s, double lambda, unsigned int& out)
{
    out = curand_poisson(s, lambda);
}
template <class F> __device__ __forceinline__ void gk_poisson(gk_state* s, double lambda, F& out)
{
    if (!(lambda >= 0.0))
        out = F(nan(""));
    else if (isinf(lambda))
        out = F(lambda);
    else if (lambda > 1e9)
        out = F(rint(lambda + sqrt(lambda) * curand_normal_double(s)));
    else
        out = F(curand_poisson(s, lambda));
}

#define GK_KERNEL extern "C" __global__ void __launch_bounds__(256)

GK_KERNEL gk_uniform_float32(gk_state* states, long long count, float* out, long long n)
{
    gk_fill<float, false>(states, count, out, n, [](gk_state* s, float (&v)[gk_width<float>()]) {
        for (int j = 0; j < gk_width<float>(); ++j)
            v[j] = curand_uniform(s);
    });
}
GK_KERNEL gk_uniform_float64(gk_state* states, long long count, double* out, long long n)
{
    gk_fill<double, false>(states, count, out, n, [](gk_state* s, double (&v)[gk_width<double>()]) {
        for (int j = 0; j < gk_width<double>(); ++j)
            v[j] = curand_uniform_double(s);
    });
}
GK_KERNEL gk_uniform_bits32(gk_state* states, long long count, unsigned int* out, long long n)
{
    gk_fill<unsigned int, false>(states, count, out, n, [](gk_state* s, unsigned int (&v)[gk_width<unsigned int>()]) {
        for (int j = 0; j < gk_width<unsigned int>(); ++j)
            v[j] = gk_bits32(curand(s));
    });
}
GK_KERNEL gk_poisson_uint32(gk_state* states, long long count, unsigned int* out, long long n, double lambda,
                            int from_data)
{
    gk_fill<unsigned int, true>(states, count, out, n, [=](gk_state* s, unsigned int (&v)[gk_width<unsigned int>()]) {
        for (int j = 0; j < gk_width<unsigned int>(); ++j)
            gk_poisson(s, from_data ? (double)v[j] : lambda, v[j]);
    });
}
GK_KERNEL gk_poisson_float32(gk_state* states, long long count, float* out, long long n, double lambda, int from_data)
{
    gk_fill<float, true>(states, count, out, n, [=](gk_state* s, float (&v)[gk_width<float>()]) {
        for (int j = 0; j < gk_width<float>(); ++j)
            gk_poisson(s, from_data ? (double)v[j] : lambda, v[j]);
    });
}
GK_KERNEL gk_poisson_float64(gk_state* states, long long count, double* out, long long n, double lambda, int from_data)
{
    gk_fill<double, true>(states, count, out, n, [=](gk_state* s, double (&v)[gk_width<double>()]) {
        for (int j = 0; j < gk_width<double>(); ++j)
            gk_poisson(s, from_data ? v[j] : lambda, v[j]);
    });
}

// Generator g's state, set by `change(&state, g)`: a fresh one (Reads false), or the
// stored one moved on (Reads true).
template <bool Reads, class Change>
__device__ __forceinline__ void gk_set_state(gk_state* states, long long count, Change change)
{
    const long long g = gk_generator();
    if (g < count) {
        gk_state s;
        if (Reads)
            s = states[g];
        change(&s, g);
        states[g] = s;
    }
}

// A skip kernel in its two forms: every generator skips n, or generator g skips n[g].
#define GK_SKIP_KERNELS(name, skip, word)                                                    \
    GK_KERNEL name(gk_state* states, long long count, word n)                                \
    {                                                                                        \
        gk_set_state<true>(states, count, [=](gk_state* s, long long) { skip(n, s); });      \
    }                                                                                        \
    GK_KERNEL name##_array(gk_state* states, long long count, const word* n)                 \
    {                                                                                        \
        gk_set_state<true>(states, count, [=](gk_state* s, long long g) { skip(n[g], s); }); \
    }

GK_SKIP_KERNELS(gk_skip_ahead, skipahead, gk_word)
)";

// Normal and log-normal draws: Box-Muller pairs for XORWOW and MRG32k3a (a chunk holds an
// even number of values), one inverse-CDF value per element for Sobol.
const char* const pseudo_normals = R"(
// A chunk filled two values at a time from `pair()` (a float2 or double2).
template <class T, int V, class Pair> __device__ __forceinline__ void gk_pairs(T (&v)[V], Pair pair)
{
    for (int j = 0; j < V; j += 2) {
        const auto p = pair();
        v[j] = p.x;
        v[j + 1] = p.y;
    }
}

GK_KERNEL gk_normal_float32(gk_state* states, long long count, float* out, long long n)
{
    gk_fill<float, false>(states, count, out, n, [](gk_state* s, float (&v)[gk_width<float>()]) {
        gk_pairs(v, [=] { return curand_normal2(s); });
    });
}
GK_KERNEL gk_normal_float64(gk_state* states, long long count, double* out, long long n)
{
    gk_fill<double, false>(states, count, out, n, [](gk_state* s, double (&v)[gk_width<double>()]) {
        gk_pairs(v, [=] { return curand_normal2_double(s); });
    });
}
GK_KERNEL gk_log_normal_float32(gk_state* states, long long count, float* out, long long n, float mean, float stddev)
{
    gk_fill<float, false>(states, count, out, n, [=](gk_state* s, float (&v)[gk_width<float>()]) {
        gk_pairs(v, [=] { return curand_log_normal2(s, mean, stddev); });
    });
}
GK_KERNEL gk_log_normal_float64(gk_state* states, long long count, double* out, long long n, double mean,
                                double stddev)
{
    gk_fill<double, false>(states, count, out, n, [=](gk_state* s, double (&v)[gk_width<double>()]) {
        gk_pairs(v, [=] { return curand_log_normal2_double(s, mean, stddev); });
    });
}
)";

const char* const quasi_normals = R"(
GK_KERNEL gk_normal_float32(gk_state* states, long long count, float* out, long long n)
{
    gk_fill<float, false>(states, count, out, n, [](gk_state* s, float (&v)[1]) { v[0] = curand_normal(s); });
}
GK_KERNEL gk_normal_float64(gk_state* states, long long count, double* out, long long n)
{
    gk_fill<double, false>(states, count, out, n, [](gk_state* s, double (&v)[1]) { v[0] = curand_normal_double(s); });
}
GK_KERNEL gk_log_normal_float32(gk_state* states, long long count, float* out, long long n, float mean, float stddev)
{
    gk_fill<float, false>(states, count, out, n, [=](gk_state* s, float (&v)[1]) {
        v[0] = curand_log_normal(s, mean, stddev);
    });
}
GK_KERNEL gk_log_normal_float64(gk_state* states, long long count, double* out, long long n, double mean,
                                double stddev)
{
    gk_fill<double, false>(states, count, out, n, [=](gk_state* s, double (&v)[1]) {
        v[0] = curand_log_normal_double(s, mean, stddev);
    });
}
)";

// XORWOW and MRG32k3a: generator g starts subsequence g of the stream its seed picks.
const char* const seeded_init = R"(
GK_KERNEL gk_init(gk_state* states, long long count, const unsigned int* seeds, unsigned long long offset)
{
    gk_set_state<false>(states, count, [=](gk_state* s, long long g) { curand_init(seeds[g], g, offset, s); });
}
)";

// Sobol: generator g is the dimension whose direction vectors are vectors[g].
const char* const sobol_init = R"(
GK_KERNEL gk_init(gk_state* states, long long count, gk_vectors* vectors, unsigned long long offset)
{
    gk_set_state<false>(states, count, [=](gk_state* s, long long g) { curand_init(vectors[g], (gk_word)offset, s); });
}
)";

const char* const scrambled_sobol_init = R"(
GK_KERNEL gk_init(gk_state* states, long long count, gk_vectors* vectors, const gk_word* scramble,
                  unsigned long long offset)
{
    gk_set_state<false>(states, count, [=](gk_state* s, long long g) {
        curand_init(vectors[g], scramble[g], (gk_word)offset, s);
    });
}
)";

const char* const uniform_bits64 = R"(
GK_KERNEL gk_uniform_bits64(gk_state* states, long long count, unsigned long long* out, long long n)
{
    gk_fill<unsigned long long, false>(states, count, out, n, [](gk_state* s, unsigned long long (&v)[1]) {
        v[0] = curand(s);
    });
}
)";

const char* const sequences = R"(
GK_SKIP_KERNELS(gk_skip_ahead_sequence, skipahead_sequence, unsigned long long)
)";

const char* const subsequences = R"(
GK_SKIP_KERNELS(gk_skip_ahead_subsequence, skipahead_subsequence, unsigned long long)
)";

}  // namespace

std::string_view kernel_name(generator_kernel k) noexcept {
    static constexpr std::string_view names[generator_kernel_count] = {
        "gk_init",
        "gk_uniform_float32",
        "gk_uniform_float64",
        "gk_uniform_bits32",
        "gk_uniform_bits64",
        "gk_normal_float32",
        "gk_normal_float64",
        "gk_log_normal_float32",
        "gk_log_normal_float64",
        "gk_poisson_uint32",
        "gk_poisson_float32",
        "gk_poisson_float64",
        "gk_skip_ahead",
        "gk_skip_ahead_array",
        "gk_skip_ahead_sequence",
        "gk_skip_ahead_sequence_array",
        "gk_skip_ahead_subsequence",
        "gk_skip_ahead_subsequence_array",
    };
    return names[static_cast<int>(k)];
}

bool has_kernel(generator_kind kind, generator_kernel k) noexcept {
    switch (k) {
    case generator_kernel::uniform_bits64:
        return draw_bits(kind) == 64;
    case generator_kernel::skip_ahead_sequence:
    case generator_kernel::skip_ahead_sequence_array:
        return has_sequences(kind);
    case generator_kernel::skip_ahead_subsequence:
    case generator_kernel::skip_ahead_subsequence_array:
        return has_subsequences(kind);
    default:
        return true;
    }
}

std::string generator_source(generator_kind kind) {
    text_builder source;
    source << "#include <curand_kernel.h>\n\n"
           << "typedef " << state_type(kind) << " gk_state;\n"
           << "// The generator's word: skip counts, offsets, scramble constants.\n"
           << "typedef " << (skip_bits(kind) == 64 ? "unsigned long long" : "unsigned int") << " gk_word;\n"
           << "#define GK_QUASI " << (is_quasi(kind) ? "1" : "0") << "\n";
    if (is_quasi(kind))
        source << "typedef " << (draw_bits(kind) == 64 ? "curandDirectionVectors64_t" : "curandDirectionVectors32_t")
               << " gk_vectors;\n";
    source << common << (is_quasi(kind) ? quasi_normals : pseudo_normals);
    source << (!is_quasi(kind) ? seeded_init : is_scrambled(kind) ? scrambled_sobol_init : sobol_init);
    if (has_kernel(kind, generator_kernel::uniform_bits64))
        source << uniform_bits64;
    if (has_sequences(kind))
        source << sequences;
    if (has_subsequences(kind))
        source << subsequences;
    return source.str();
}

}  // namespace gpukit::random
