#include "gpukit/random/philox.hpp"

#include "../array/kernel_cache.hpp"

#include "gpukit/array/cuda_backend.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/launch.hpp"

#include <algorithm>
#include <string>

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

// The same in OpenCL C, one source per output type (float64's asks for cl_khr_fp64, which a
// device may lack: the others must build without it). Kernels (T* out as a buffer and a byte
// offset, long n, ulong key); elements are written one at a time.
const char* const opencl_philox = R"(
uint4 gk_philox4x32_10(ulong counter, ulong key)
{
    uint c0 = (uint)counter, c1 = (uint)(counter >> 32), c2 = 0u, c3 = 0u;
    uint k0 = (uint)key, k1 = (uint)(key >> 32);
    for (int round = 0; round < 10; ++round) {
        const ulong p0 = (ulong)0xD2511F53u * c0, p1 = (ulong)0xCD9E8D57u * c2;
        c0 = (uint)(p1 >> 32) ^ c1 ^ k0;
        c1 = (uint)p1;
        c2 = (uint)(p0 >> 32) ^ c3 ^ k1;
        c3 = (uint)p0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return (uint4)(c0, c1, c2, c3);
}
)";

// The kernel `name` writing `per_block` elements of `type` per block (16 bytes), each
// `element(j)` of the block's words w: one 16-byte store where the block is whole and the
// array 16-byte aligned (one element at a time, a GPU's stores of neighbouring work items
// were 16 bytes apart), else element by element.
std::string opencl_rand_kernel(const char* name, const char* type, int per_block, const char* values) {
    const std::string p = std::to_string(per_block), vector = std::string(type) + p;
    std::string elements;
    for (int j = 0; j < per_block; ++j)
        elements += (j ? ", v[" : "v[") + std::to_string(j) + "]";
    return std::string(opencl_philox) + "__kernel void " + name + "(__global " + type + "* gk_out_p, long gk_out_f, " +
           "long n, ulong key)\n{\n    __global " + type + "* out = (__global " + type +
           "*)((__global char*)gk_out_p + gk_out_f);\n    const int aligned = ((ulong)out & 15) == 0;\n" +
           "    const long blocks = (n + " + std::to_string(per_block - 1) + ") / " + p +
           ";\n    for (long b = get_global_id(0); b < blocks; b += get_global_size(0)) {\n"
           "        const uint4 w = gk_philox4x32_10((ulong)b, key);\n        const " +
           type + " v[" + p + "] = {" + values + "};\n        const long e = b * " + p + ";\n" +
           "        if (aligned && e + " + p + " <= n) {\n            ((__global " + vector + "*)out)[b] = (" + vector +
           ")(" + elements + ");\n            continue;\n        }\n        for (int j = 0; j < " + p +
           " && e + j < n; ++j)\n            out[e + j] = v[j];\n    }\n}\n";
}

std::string opencl_rand_source(array::dtype t) {
    switch (t) {
    case array::dtype::float32:
        return opencl_rand_kernel("gk_rand_float32", "float", 4,
                                  "(float)(w.x >> 8) * 0x1p-24f, (float)(w.y >> 8) * 0x1p-24f, "
                                  "(float)(w.z >> 8) * 0x1p-24f, (float)(w.w >> 8) * 0x1p-24f");
    case array::dtype::float64:
        return "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" +
               opencl_rand_kernel("gk_rand_float64", "double", 2,
                                  "(double)((((ulong)w.x << 32) | w.y) >> 11) * 0x1p-53, "
                                  "(double)((((ulong)w.z << 32) | w.w) >> 11) * 0x1p-53");
    default:
        return opencl_rand_kernel("gk_rand_bits32", "uint", 4, "w.x, w.y, w.z, w.w");
    }
}

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

void fill_rand(const array::ndarray& out, std::uint64_t key, array::backend& b) {
    if (b.language() == kernel_language::cuda) {  // the CUDA kernels, on the backend's stream
        const auto* cuda_side = dynamic_cast<const array::cuda_backend*>(&b);
        if (!cuda_side)
            throw logic_error("rand: a CUDA backend other than array::cuda_backend (" + b.name() + ")");
        return fill_rand(out, key, cuda_side->stream());
    }
    const rand_kernel which = kernel_for(out.type());
    if (!out.layout().is_contiguous())
        throw logic_error("rand: the array must be contiguous, got " + out.layout().describe());
    if (out.buffer()->space != b.space())
        throw logic_error("rand: the array is not " + b.name() + " memory");
    if (std::string problem = b.type_problem(out.type()); !problem.empty())
        throw logic_error("rand: " + problem);
    const long long n = out.size();
    if (n == 0)
        return;
    // One source per output type, each found by its own key for the life of the process.
    static const std::uint64_t module_key = array::detail::new_kernel_key();
    const array::dtype source_type = out.type() == array::dtype::int32 ? array::dtype::uint32 : out.type();
    const array::loaded_kernel k = b.kernel(module_key + static_cast<std::uint64_t>(source_type), which.name,
                                            [&] { return opencl_rand_source(source_type); });
    const unsigned group = std::min(b.preferred_group_size(), k.max_group);
    const long long blocks = (n + which.per_block - 1) / which.per_block;
    const unsigned groups =
        static_cast<unsigned>(std::clamp<long long>((blocks + group - 1) / group, 1, array::compute_grid_limit(k)));
    const unsigned long long seed = key;
    const array::kernel_argument args[] = {array::kernel_argument::memory(*out.buffer(), out.layout().offset()),
                                           array::kernel_argument::bytes(&n, sizeof n),
                                           array::kernel_argument::bytes(&seed, sizeof seed)};
    b.launch(k, {groups, 1, group}, args);
}

}  // namespace gpukit::random
