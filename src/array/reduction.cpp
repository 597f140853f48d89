#include "gpukit/array/reduction.hpp"

#include "kernel_cache.hpp"
#include "kernel_text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/device.hpp"
#include "gpukit/cuda/launch.hpp"

#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace gpukit::array {

namespace {

// The names of the inputs in a spec's map expression, in order.
const char* const input_names[] = {"a", "b"};
constexpr std::size_t max_inputs = std::size(input_names);

// Warp shuffles move 32- and 64-bit values; partial results are at most this wide.
constexpr std::size_t max_accumulator_bytes = 8;

bool shuffles(dtype t) {
    return kind(t) != dtype_kind::complex && (size_of(t) == 4 || size_of(t) == max_accumulator_bytes);
}

// Elements per thread and step of the vectorized variant: one 16-byte word of the narrowest
// input.
int vector_width(const reduction_spec& spec) {
    std::size_t narrowest = 16;
    for (dtype t : spec.inputs())
        narrowest = std::min(narrowest, size_of(t));
    return static_cast<int>(16 / narrowest);
}

}  // namespace

reduction_spec::reduction_spec(std::string name, std::vector<dtype> inputs, dtype accumulator, dtype output,
                               std::string identity, std::string map, std::string combine, std::string preamble,
                               empty_reduction empty)
    : name_(std::move(name)), inputs_(std::move(inputs)), accumulator_(accumulator), output_(output),
      identity_(std::move(identity)), map_(std::move(map)), combine_(std::move(combine)),
      preamble_(std::move(preamble)), empty_(empty), stage1_name_(name_ + "_stage1"),
      stage2_name_(name_ + "_stage2"), key_(detail::new_kernel_key()) {
    if (!detail::is_identifier(name_))
        throw logic_error("reduction name '" + name_ + "' is not a C identifier");
    if (inputs_.empty() || inputs_.size() > max_inputs)
        throw logic_error("reduction " + name_ + ": reduces one or two arrays, not " + std::to_string(inputs_.size()));
    if (!shuffles(accumulator_))
        throw logic_error("reduction " + name_ + ": the accumulator must be a real type of 4 or 8 bytes (warp "
                          "shuffles move it), got " + std::string(array::name(accumulator_)));
    if (identity_.empty() || map_.empty() || combine_.empty())
        throw logic_error("reduction " + name_ + ": the identity, map and combine expressions must not be empty");
}

std::string reduction_source(const reduction_spec& spec, reduction_variant variant) {
    const std::size_t inputs = spec.inputs().size();
    const std::string_view out_t = c_type(spec.output());
    text_builder s;
    s << detail::common_source << spec.preamble() << "\n";
    s << "typedef " << c_type(spec.accumulator()) << " gk_acc;\n"
      << "__device__ __forceinline__ gk_acc gk_identity() { return (" << spec.identity() << "); }\n"
      << "__device__ __forceinline__ gk_acc gk_combine(gk_acc x, gk_acc y) { return (" << spec.combine() << "); }\n";
    // The map sees each input as name[i]: gk_ref returns the element it points at.
    s << "__device__ __forceinline__ gk_acc gk_map(";
    for (std::size_t k = 0; k < inputs; ++k)
        s << "const " << c_type(spec.inputs()[k]) << "* gk_p" << input_names[k] << ", ";
    s << "long long i) {\n";
    for (std::size_t k = 0; k < inputs; ++k)
        s << "    gk_ref<const " << c_type(spec.inputs()[k]) << "> " << input_names[k] << "{gk_p" << input_names[k]
          << "};\n";
    s << "    return (" << spec.map() << ");\n}\n";
    // Valid in thread 0 only.
    s << "__device__ __forceinline__ gk_acc gk_block_reduce(gk_acc v) {\n"
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

    // Stage 1: each block's share (grid-stride) to one partial result.
    s << "extern \"C\" __global__ void __launch_bounds__(" << detail::block_size << ") " << spec.stage1_name() << "(";
    for (std::size_t k = 0; k < inputs; ++k)
        s << "const " << c_type(spec.inputs()[k]) << "* gk_p" << input_names[k] << ", ";
    s << "gk_acc* gk_partial, long long n) {\n"
         "    const long long gk_thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    const long long gk_threads = (long long)gridDim.x * blockDim.x;\n"
         "    gk_acc gk_value = gk_identity();\n";
    // The elements at i of every input, from pointers `at(k)` (k: the input).
    const auto map_call = [&](const auto& at, const char* index) {
        s << "gk_map(";
        for (std::size_t k = 0; k < inputs; ++k)
            s << at(k) << ", ";
        s << index << ")";
    };
    const auto in_memory = [](std::size_t k) { return std::string("gk_p") + input_names[k] + " + i"; };
    std::string tail_start = "gk_thread";
    if (variant == reduction_variant::vectorized) {
        s << "    constexpr int V = " << vector_width(spec) << ";\n"
          << "    const long long gk_whole = n - n % V;\n"
          << "    for (long long gk_base = gk_thread * V; gk_base < gk_whole; gk_base += gk_threads * V) {\n";
        for (std::size_t k = 0; k < inputs; ++k)
            s << "        alignas(16) " << c_type(spec.inputs()[k]) << " gk_v" << input_names[k] << "[V];\n"
              << "        gk_load(gk_v" << input_names[k] << ", gk_p" << input_names[k] << " + gk_base);\n";
        s << "#pragma unroll\n"
             "        for (int gk_k = 0; gk_k < V; ++gk_k)\n"
             "            gk_value = gk_combine(gk_value, ";
        map_call([](std::size_t k) { return std::string("&gk_v") + input_names[k] + "[gk_k]"; }, "gk_base + gk_k");
        s << ");\n    }\n";
        tail_start = "gk_whole + gk_thread";  // the last n % V elements
    }
    s << "    for (long long i = " << tail_start << "; i < n; i += gk_threads)\n"
         "        gk_value = gk_combine(gk_value, ";
    map_call(in_memory, "i");
    s << ");\n"
         "    gk_value = gk_block_reduce(gk_value);\n"
         "    if (threadIdx.x == 0) gk_partial[blockIdx.x] = gk_value;\n"
         "}\n";

    // Stage 2: the partial results to the output, in one block.
    s << "extern \"C\" __global__ void __launch_bounds__(" << detail::block_size << ") " << spec.stage2_name()
      << "(const gk_acc* gk_partial, " << out_t << "* gk_out, int gk_count) {\n"
         "    gk_acc gk_value = gk_identity();\n"
         "    for (int gk_j = threadIdx.x; gk_j < gk_count; gk_j += blockDim.x)\n"
         "        gk_value = gk_combine(gk_value, gk_partial[gk_j]);\n"
         "    gk_value = gk_block_reduce(gk_value);\n"
         "    if (threadIdx.x == 0) *gk_out = (" << out_t << ")(gk_value);\n"
         "}\n";
    return s.str();
}

// ---- numpy's reductions

namespace {

constexpr std::size_t dtype_count = static_cast<std::size_t>(dtype::complex128) + 1;

std::size_t index_of(dtype t) { return static_cast<std::size_t>(t); }

void refuse_complex(const char* operation, dtype t) {
    if (kind(t) == dtype_kind::complex)
        throw logic_error(std::string(operation) + ": complex arrays are not supported");
}

std::string converted(dtype to, const char* expression) {
    text_builder s;
    s << "(" << c_type(to) << ")(" << expression << ")";
    return s.str();
}

// Sums (and dot) accumulate floating types in float64 and integers in 64 bits, as numpy's
// sum() does.
dtype sum_accumulator(dtype t) { return kind(t) == dtype_kind::floating ? dtype::float64 : sum_type(t); }

// min and max keep the input's type where warp shuffles move it, else widen it to 32 bits.
dtype extremum_accumulator(dtype t) {
    if (size_of(t) >= 4)
        return t;
    return kind(t) == dtype_kind::signed_int ? dtype::int32 : dtype::uint32;
}

// The highest or lowest value of `t`: the identity of min or max.
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

reduction_spec make_sum(dtype t) {
    const dtype acc = sum_accumulator(t);
    return reduction_spec("sum", {t}, acc, sum_type(t), "0", converted(acc, "a[i]"), "x + y");
}

reduction_spec make_extremum(const char* operation, dtype t, bool is_min) {
    const dtype acc = extremum_accumulator(t);
    // x != x is true only for NaN, which then wins, as in numpy.
    std::string combine = std::string("(x != x || x ") + (is_min ? "<" : ">") + " y) ? x : y";
    return reduction_spec(operation, {t}, acc, t, limit_literal(t, is_min), converted(acc, "a[i]"), std::move(combine),
                          {}, empty_reduction::error);
}

reduction_spec make_dot(dtype a, dtype b) {
    const dtype out = promote(a, b);
    const dtype acc = sum_accumulator(out);
    return reduction_spec("dot", {a, b}, acc, out, "0", converted(acc, "a[i]") + " * " + converted(acc, "b[i]"),
                          "x + y");
}

using spec_table = std::vector<std::optional<reduction_spec>>;

// make(t) for every real dtype t, at index_of(t).
template <class Make>
spec_table per_type(Make make) {
    spec_table table(dtype_count);
    for (std::size_t k = 0; k < dtype_count; ++k)
        if (kind(static_cast<dtype>(k)) != dtype_kind::complex)
            table[k].emplace(make(static_cast<dtype>(k)));
    return table;
}

}  // namespace

const reduction_spec& sum_spec(dtype t) {
    refuse_complex("sum", t);
    static const spec_table table = per_type(make_sum);
    return *table[index_of(t)];
}

const reduction_spec& min_spec(dtype t) {
    refuse_complex("min", t);
    static const spec_table table = per_type([](dtype u) { return make_extremum("min", u, true); });
    return *table[index_of(t)];
}

const reduction_spec& max_spec(dtype t) {
    refuse_complex("max", t);
    static const spec_table table = per_type([](dtype u) { return make_extremum("max", u, false); });
    return *table[index_of(t)];
}

const reduction_spec& dot_spec(dtype a, dtype b) {
    refuse_complex("dot", a);
    refuse_complex("dot", b);
    // Row a, column b.
    static const spec_table table = [] {
        spec_table made(dtype_count * dtype_count);
        for (std::size_t row = 0; row < dtype_count; ++row)
            for (std::size_t column = 0; column < dtype_count; ++column) {
                const auto ta = static_cast<dtype>(row), tb = static_cast<dtype>(column);
                if (kind(ta) != dtype_kind::complex && kind(tb) != dtype_kind::complex)
                    made[row * dtype_count + column].emplace(make_dot(ta, tb));
            }
        return made;
    }();
    return *table[index_of(a) * dtype_count + index_of(b)];
}

// ---- running a reduction

std::size_t reduction_scratch_bytes() {
    const int ordinal = cuda::context::current_or_throw("reductions").state()->device_ordinal;
    // Stage 1 runs at most as many blocks as the device holds at once: asked of the driver
    // once per device, since reductions ask for it on every call.
    static std::mutex mutex;
    static std::unordered_map<int, std::size_t> bytes_by_device;
    std::lock_guard lock(mutex);
    if (const auto found = bytes_by_device.find(ordinal); found != bytes_by_device.end())
        return found->second;
    const cuda::device dev = cuda::device::get(ordinal);
    const auto blocks = static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)) *
                        static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)) /
                        detail::block_size;
    return bytes_by_device.emplace(ordinal, std::max<std::size_t>(blocks, 1) * max_accumulator_bytes).first->second;
}

namespace {

void check_input(const reduction_spec& spec, const ndarray& input, std::size_t k) {
    const dtype expected = spec.inputs()[k];
    if (input.type() != expected)
        throw logic_error(spec.name() + ": input " + input_names[k] + " is " + std::string(name(input.type())) +
                          ", expected " + std::string(name(expected)));
    if (!input.layout().is_contiguous())
        throw logic_error(spec.name() + ": the input must be contiguous, got " + input.layout().describe() +
                          " (copy it first)");
}

void check_arguments(const reduction_spec& spec, const ndarray& a, const ndarray* b, const ndarray& out) {
    const std::size_t given = b ? 2 : 1;
    if (given != spec.inputs().size())
        throw logic_error(spec.name() + ": reduces " + std::to_string(spec.inputs().size()) + " array(s), got " +
                          std::to_string(given));
    check_input(spec, a, 0);
    if (b) {
        check_input(spec, *b, 1);
        if (b->shape() != a.shape())
            throw logic_error(spec.name() + ": shapes differ: " + a.layout().describe() + " and " +
                              b->layout().describe());
        // Element i in memory must be element i of both.
        const bool same_order = (a.layout().is_c_contiguous() && b->layout().is_c_contiguous()) ||
                                (a.layout().is_f_contiguous() && b->layout().is_f_contiguous());
        if (!same_order)
            throw logic_error(spec.name() + ": the inputs must be contiguous in the same order (both C or both "
                              "Fortran), got " + a.layout().describe() + " and " + b->layout().describe());
    }
    if (out.type() != spec.output() || out.size() != 1)
        throw logic_error(spec.name() + ": the output must be one " + std::string(name(spec.output())) + ", got " +
                          std::to_string(out.size()) + " of " + std::string(name(out.type())));
    if (a.size() == 0 && spec.empty() == empty_reduction::error)
        throw logic_error("zero-size array to reduction operation " + spec.name() + " which has no identity");
}

}  // namespace

void reduce(const reduction_spec& spec, const ndarray& a, const ndarray* b, const ndarray& out,
            cuda::device_pointer scratch, cuda::stream_view s) {
    check_arguments(spec, a, b, out);
    const bool aligned = a.data() % 16 == 0 && (!b || b->data() % 16 == 0);
    const reduction_variant variant = aligned ? reduction_variant::vectorized : reduction_variant::contiguous;
    const std::uint64_t key = spec.key() + static_cast<std::uint64_t>(variant);
    const std::function<std::string()> source = [&] { return reduction_source(spec, variant); };
    const detail::cached_kernel stage1 = detail::kernel(key, spec.stage1_name(), source);
    const detail::cached_kernel stage2 = detail::kernel(key, spec.stage2_name(), source);

    const std::size_t scratch_bytes = scratch.capacity ? *scratch.capacity : reduction_scratch_bytes();
    const std::size_t partials = scratch_bytes / size_of(spec.accumulator());
    if (partials == 0 || scratch.address % size_of(spec.accumulator()) != 0)
        throw logic_error(spec.name() + ": the scratch buffer must hold one partial result at least and be aligned "
                          "to " + std::to_string(size_of(spec.accumulator())) + " bytes");
    const long long per_thread = variant == reduction_variant::vectorized ? vector_width(spec) : 1;
    const unsigned grid = static_cast<unsigned>(
        std::min<std::size_t>(detail::grid_for(stage1, a.size(), per_thread), partials));
    const CUdeviceptr a_data = a.data(), partial = scratch.address, out_data = out.data();
    const long long n = a.size();
    const int count = static_cast<int>(grid);
    const auto first = cuda::launch_config().grid({grid}).block({detail::block_size}).stream(s);
    if (b) {
        const CUdeviceptr b_data = b->data();
        cuda::launch(stage1.function, first, a_data, b_data, partial, n);
    } else {
        cuda::launch(stage1.function, first, a_data, partial, n);
    }
    cuda::launch(stage2.function, cuda::launch_config().grid({1}).block({detail::block_size}).stream(s), partial,
                 out_data, count);
}

}  // namespace gpukit::array
