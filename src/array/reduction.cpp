#include "gpukit/array/reduction.hpp"

#include "kernel_cache.hpp"
#include "kernel_text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/launch.hpp"

#include <algorithm>

namespace gpukit::array {

namespace {

const char* op_name(reduction op) {
    switch (op) {
    case reduction::sum: return "sum";
    case reduction::min: return "min";
    case reduction::max: return "max";
    case reduction::dot: return "dot";
    }
    return "?";
}

// The type partial results are kept in: wide enough for sums, and one that warp shuffles
// move (32- or 64-bit) for min and max.
dtype accumulator(reduction op, dtype input) {
    if (op == reduction::min || op == reduction::max) {
        if (size_of(input) >= 4)
            return input;
        return kind(input) == dtype_kind::signed_int ? dtype::int32 : dtype::uint32;
    }
    return kind(input) == dtype_kind::floating ? dtype::float64 : sum_type(input);
}

std::string limit_literal(dtype t, bool highest) {
    switch (t) {
    case dtype::float32: return highest ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
    case dtype::float64:
        return highest ? "__longlong_as_double(0x7ff0000000000000LL)" : "__longlong_as_double(0xfff0000000000000LL)";
    case dtype::bool_: return highest ? "1" : "0";
    case dtype::int8: return highest ? "127" : "(-128)";
    case dtype::int16: return highest ? "32767" : "(-32768)";
    case dtype::int32: return highest ? "2147483647" : "(-2147483647 - 1)";
    case dtype::int64: return highest ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)";
    case dtype::uint8: return highest ? "255u" : "0u";
    case dtype::uint16: return highest ? "65535u" : "0u";
    case dtype::uint32: return highest ? "4294967295u" : "0u";
    case dtype::uint64: return highest ? "18446744073709551615ULL" : "0ULL";
    default: throw logic_error("no limits for " + std::string(name(t)));
    }
}

void check_input(reduction op, dtype t) {
    if (kind(t) == dtype_kind::complex)
        throw logic_error(std::string(op_name(op)) + ": complex arrays are not supported");
}

}  // namespace

dtype reduction_type(reduction op, dtype a, std::optional<dtype> b) {
    check_input(op, a);
    switch (op) {
    case reduction::sum: return sum_type(a);
    case reduction::min:
    case reduction::max: return a;
    case reduction::dot:
        if (!b)
            throw logic_error("dot needs two arrays");
        check_input(op, *b);
        return promote(a, *b);
    }
    return a;
}

std::string reduction_source(reduction op, dtype a, std::optional<dtype> b, int vector_width) {
    const dtype out = reduction_type(op, a, b);
    const dtype acc = accumulator(op, op == reduction::dot ? out : a);
    const std::string acc_t(c_type(acc)), a_t(c_type(a)), out_t(c_type(out));
    const bool two = op == reduction::dot;
    const std::string b_t = two ? std::string(c_type(*b)) : std::string{};
    const int v = vector_width;

    std::string identity = "0", combine = "x + y";
    if (op == reduction::min || op == reduction::max) {
        identity = limit_literal(a, op == reduction::min);
        // x != x is true only for NaN, which then wins, as in numpy.
        combine = std::string("(x != x || x ") + (op == reduction::min ? "<" : ">") + " y) ? x : y";
    }
    const std::string map = two ? "(" + acc_t + ")(x) * (" + acc_t + ")(y)" : "(" + acc_t + ")(x)";

    text_builder s;
    s << detail::common_source;
    s << "typedef " << acc_t << " gk_acc;\n"
      << "__device__ __forceinline__ gk_acc gk_identity() { return " << identity << "; }\n"
      << "__device__ __forceinline__ gk_acc gk_combine(gk_acc x, gk_acc y) { return " << combine << "; }\n"
      << "template <class A, class B> __device__ __forceinline__ gk_acc gk_map(A x, B y) { return " << map
      << "; }\n"
      // Valid in thread 0 only.
      << "__device__ __forceinline__ gk_acc gk_block_reduce(gk_acc v) {\n"
         "    __shared__ gk_acc gk_warps[" << detail::block_size / 32 << "];\n"
         "#pragma unroll\n"
         "    for (int o = 16; o > 0; o >>= 1) v = gk_combine(v, __shfl_down_sync(0xffffffffu, v, o));\n"
         "    if ((threadIdx.x & 31) == 0) gk_warps[threadIdx.x >> 5] = v;\n"
         "    __syncthreads();\n"
         "    if (threadIdx.x < 32) {\n"
         "        v = threadIdx.x < " << detail::block_size / 32 << " ? gk_warps[threadIdx.x] : gk_identity();\n"
         "#pragma unroll\n"
         "        for (int o = 16; o > 0; o >>= 1) v = gk_combine(v, __shfl_down_sync(0xffffffffu, v, o));\n"
         "    }\n"
         "    return v;\n"
         "}\n";
    s << "extern \"C\" __global__ void __launch_bounds__(" << detail::block_size << ") gk_reduce(const " << a_t
      << "* a, const " << (two ? b_t : a_t) << "* b, gk_acc* partial, long long n) {\n"
      << "    constexpr int V = " << v << ";\n"
         "    const long long gk_thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    const long long gk_threads = (long long)gridDim.x * blockDim.x;\n"
         "    const long long gk_whole = n - n % V;\n"
         "    gk_acc acc = gk_identity();\n";
    if (v > 1) {
        s << "    for (long long base = gk_thread * V; base < gk_whole; base += gk_threads * V) {\n"
          << "        alignas(16) " << a_t << " av[V];\n        gk_load(av, a + base);\n";
        if (two)
            s << "        alignas(16) " << b_t << " bv[V];\n        gk_load(bv, b + base);\n";
        s << "#pragma unroll\n"
          << "        for (int k = 0; k < V; ++k) acc = gk_combine(acc, gk_map(av[k], " << (two ? "bv[k]" : "0") << "));\n"
          << "    }\n";
    }
    s << "    for (long long i = gk_whole + gk_thread; i < n; i += gk_threads)\n"
      << "        acc = gk_combine(acc, gk_map(a[i], " << (two ? "b[i]" : "0") << "));\n"
      << "    acc = gk_block_reduce(acc);\n"
         "    if (threadIdx.x == 0) partial[blockIdx.x] = acc;\n"
         "}\n";
    s << "extern \"C\" __global__ void __launch_bounds__(" << detail::block_size
      << ") gk_reduce_finish(const gk_acc* partial, " << out_t << "* out, int count) {\n"
         "    gk_acc acc = gk_identity();\n"
         "    for (int i = threadIdx.x; i < count; i += blockDim.x) acc = gk_combine(acc, partial[i]);\n"
         "    acc = gk_block_reduce(acc);\n"
         "    if (threadIdx.x == 0) *out = (" << out_t << ")(acc);\n"
         "}\n";
    return s.str();
}

std::size_t reduction_scratch_bytes() {
    const cuda::device dev = cuda::context::current_or_throw("reductions").get_device();
    const auto blocks = static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)) *
                        static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)) /
                        detail::block_size;
    return std::max<std::size_t>(blocks, 1) * 8;
}

void reduce(reduction op, const ndarray& a, const ndarray* b, const ndarray& out, cuda::device_pointer scratch,
            cuda::stream_view s) {
    const std::string what = op_name(op);
    const dtype out_type = reduction_type(op, a.type(), b ? std::optional<dtype>(b->type()) : std::nullopt);
    if (op == reduction::dot) {
        if (!b)
            throw logic_error("dot needs two arrays");
        if (b->shape() != a.shape())
            throw logic_error("dot: shapes differ: " + a.layout().describe() + " and " + b->layout().describe());
    }
    for (const ndarray* input : {&a, b})
        if (input && !input->layout().is_contiguous())
            throw logic_error(what + ": the input must be contiguous, got " + input->layout().describe() +
                              " (copy it first)");
    if (out.type() != out_type || out.size() != 1)
        throw logic_error(what + ": the output must be one " + std::string(name(out_type)) + ", got " +
                          std::to_string(out.size()) + " of " + std::string(name(out.type())));
    if (a.size() == 0 && (op == reduction::min || op == reduction::max))
        throw logic_error("zero-size array to reduction operation " + what + " which has no identity");

    bool aligned = a.data() % 16 == 0 && (!b || b->data() % 16 == 0);
    std::size_t narrowest = size_of(a.type());
    if (b)
        narrowest = std::min(narrowest, size_of(b->type()));
    const int v = aligned ? static_cast<int>(16 / narrowest) : 1;
    const std::string source =
        reduction_source(op, a.type(), b ? std::optional<dtype>(b->type()) : std::nullopt, v);
    const detail::cached_kernel first = detail::kernel(source, "gk_reduce");
    const detail::cached_kernel finish = detail::kernel(source, "gk_reduce_finish");

    const std::size_t capacity = scratch.capacity.value_or(reduction_scratch_bytes()) / 8;
    const unsigned grid = std::min<unsigned>(detail::grid_for(first, a.size(), v), static_cast<unsigned>(capacity));
    if (grid == 0)
        throw logic_error(what + ": the scratch buffer is smaller than 8 bytes");
    const CUdeviceptr a_data = a.data(), b_data = b ? b->data() : a.data(), partial = scratch.address,
                      out_data = out.data();
    const long long n = a.size();
    const int count = static_cast<int>(grid);
    cuda::launch(first.function, cuda::launch_config().grid({grid}).block({detail::block_size}).stream(s), a_data,
                 b_data, partial, n);
    cuda::launch(finish.function, cuda::launch_config().grid({1}).block({detail::block_size}).stream(s), partial,
                 out_data, count);
}

}  // namespace gpukit::array
