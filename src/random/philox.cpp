#include "gpukit/random/philox.hpp"

#include "../array/kernel_cache.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/launch.hpp"

namespace gpukit::random {

namespace {

// The rounds of Philox4x32-10 and the conversions of its words, then one kernel per output
// type. Counters and indices are 64-bit: arrays may hold more than 2^32 blocks.
const char* const source = R"(
__device__ __forceinline__ uint4 gk_philox4x32_10(unsigned long long counter, unsigned long long key)
{
    unsigned int c0 = (unsigned int)counter, c1 = (unsigned int)(counter >> 32), c2 = 0u, c3 = 0u;
    unsigned int k0 = (unsigned int)key, k1 = (unsigned int)(key >> 32);
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        // One 32 x 32 -> 64-bit multiply each gives both halves (IMAD.WIDE).
        const unsigned long long p0 = 0xD2511F53ull * c0, p1 = 0xCD9E8D57ull * c2;
        c0 = (unsigned int)(p1 >> 32) ^ c1 ^ k0;
        c1 = (unsigned int)p1;
        c2 = (unsigned int)(p0 >> 32) ^ c3 ^ k1;
        c3 = (unsigned int)p0;
        k0 += 0x9E3779B9u;  // the Weyl sequence of the key schedule
        k1 += 0xBB67AE85u;
    }
    return make_uint4(c0, c1, c2, c3);
}

// One 16-byte block of output from the four words.
__device__ __forceinline__ void gk_values(uint4 w, float (&v)[4])
{
    v[0] = (float)(w.x >> 8) * 0x1p-24f;
    v[1] = (float)(w.y >> 8) * 0x1p-24f;
    v[2] = (float)(w.z >> 8) * 0x1p-24f;
    v[3] = (float)(w.w >> 8) * 0x1p-24f;
}
__device__ __forceinline__ void gk_values(uint4 w, double (&v)[2])
{
    v[0] = (double)((((unsigned long long)w.x << 32) | w.y) >> 11) * 0x1p-53;
    v[1] = (double)((((unsigned long long)w.z << 32) | w.w) >> 11) * 0x1p-53;
}
__device__ __forceinline__ void gk_values(uint4 w, unsigned int (&v)[4])
{
    v[0] = w.x;
    v[1] = w.y;
    v[2] = w.z;
    v[3] = w.w;
}

// Block b (V elements) from counter b: a 16-byte store when the whole block is in range and
// the array is aligned, else element by element.
template <class T, int V>
__device__ __forceinline__ void gk_rand(T* out, long long n, unsigned long long key)
{
    const long long blocks = (n + V - 1) / V;
    const bool aligned = reinterpret_cast<unsigned long long>(out) % 16 == 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += stride) {
        alignas(16) T v[V];
        gk_values(gk_philox4x32_10((unsigned long long)b, key), v);
        const long long e = b * V;
        if (aligned && e + V <= n) {
            *reinterpret_cast<uint4*>(out + e) = *reinterpret_cast<const uint4*>(v);
        } else {
            for (int j = 0; j < V && e + j < n; ++j)
                out[e + j] = v[j];
        }
    }
}

extern "C" __global__ void __launch_bounds__(256) gk_rand_float32(float* out, long long n, unsigned long long key)
{
    gk_rand<float, 4>(out, n, key);
}
extern "C" __global__ void __launch_bounds__(256) gk_rand_float64(double* out, long long n, unsigned long long key)
{
    gk_rand<double, 2>(out, n, key);
}
extern "C" __global__ void __launch_bounds__(256) gk_rand_bits32(unsigned int* out, long long n,
                                                                  unsigned long long key)
{
    gk_rand<unsigned int, 4>(out, n, key);
}
)";

// The kernel for `t` and the elements of one 16-byte block.
struct rand_kernel {
    const char* name;
    int per_block;
};

rand_kernel kernel_for(array::dtype t) {
    switch (t) {
    case array::dtype::float32:
        return {"gk_rand_float32", 4};
    case array::dtype::float64:
        return {"gk_rand_float64", 2};
    case array::dtype::int32:
    case array::dtype::uint32:
        return {"gk_rand_bits32", 4};
    default:
        throw type_error("rand: dtype " + std::string(array::name(t)) + " is not supported; " +
                         std::string(rand_dtypes()));
    }
}

}  // namespace

std::string_view rand_dtypes() noexcept {
    return "expected float32, float64 (uniform in [0, 1)), int32 or uint32 (random bits)";
}

bool rand_supports(array::dtype t) noexcept {
    return t == array::dtype::float32 || t == array::dtype::float64 || t == array::dtype::int32 ||
           t == array::dtype::uint32;
}

std::string rand_source() { return source; }

void fill_rand(const array::ndarray& out, std::uint64_t key, cuda::stream_view s) {
    const rand_kernel which = kernel_for(out.type());
    if (!out.layout().is_contiguous())
        throw logic_error("rand: the array must be contiguous, got " + out.layout().describe());
    const long long n = out.size();
    if (n == 0)
        return;
    // One module holds the three kernels, found by one key for the life of the process.
    static const std::uint64_t module_key = array::detail::new_kernel_key();
    const array::detail::cached_kernel k = array::detail::kernel(module_key, which.name, rand_source);
    const unsigned blocks = array::detail::grid_for(k, n, which.per_block);
    const auto config = cuda::launch_config().grid({blocks}).block({array::detail::block_size}).stream(s);
    cuda::launch(*k.function, config, out.data(), n, static_cast<unsigned long long>(key));
}

}  // namespace gpukit::random
