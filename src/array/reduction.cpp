#include "gpukit/array/reduction.hpp"

#include "kernel_cache.hpp"
#include "kernel_text.hpp"
#include "reduction_launch.hpp"

#include "gpukit/array/cuda_backend.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/device.hpp"

#include <algorithm>
#include <optional>
#include <functional>
#include <mutex>
#include <set>
#include <unordered_map>

namespace gpukit::array {

value_type::value_type(array::dtype t) : c_name(c_type(t)), size(size_of(t)), dtype(t) {}

value_type::value_type(std::string c_name, std::size_t size, std::optional<array::dtype> dtype)
    : c_name(std::move(c_name)), size(size), dtype(dtype) {}

namespace {

using role = reduction_param_kind;

constexpr int max_ndim = 64;  // as numpy
constexpr unsigned warps_per_block = detail::block_size / 32;

bool is_element(const reduction_param& p) { return p.kind == role::element; }

std::size_t count_elements(const std::vector<reduction_param>& params) {
    return static_cast<std::size_t>(std::count_if(params.begin(), params.end(), is_element));
}

bool declares(const reduction_spec& spec, const std::string& name) {
    return std::any_of(spec.params().begin(), spec.params().end(),
                       [&](const reduction_param& p) { return p.name == name; });
}

}  // namespace

reduction_spec::reduction_spec(std::string name, std::vector<reduction_param> params, value_type accumulator,
                               value_type output, std::string neutral, std::string map, std::string reduce,
                               std::string preamble, empty_reduction empty)
    : name_(std::move(name)), params_(std::move(params)), accumulator_(std::move(accumulator)),
      output_(std::move(output)), neutral_(std::move(neutral)), map_(std::move(map)), reduce_(std::move(reduce)),
      preamble_(std::move(preamble)), empty_(empty), element_arrays_(count_elements(params_)),
      stage1_name_(name_ + "_stage1"), stage2_name_(name_ + "_stage2"), key_(detail::new_kernel_key()) {
    const std::string where = "reduction " + name_ + ": ";
    detail::require_name_prefix(name_, "reduction name ");
    std::set<std::string> seen;
    for (const reduction_param& p : params_) {
        detail::require_kernel_name(p.name, where + "parameter name ");
        if (p.name == "i" || p.name.starts_with("gk_"))
            throw logic_error(where + "parameter name '" + p.name +
                              "' is i or starts with gk_ (the kernel's own names)");
        if (!seen.insert(p.name).second)
            throw logic_error(where + "parameter '" + p.name + "' is declared twice");
        if (p.type.c_name.empty() || p.type.size == 0)
            throw logic_error(where + "parameter '" + p.name + "' has no type");
    }
    if (accumulator_.c_name.empty() || accumulator_.size == 0 || output_.c_name.empty() || output_.size == 0)
        throw logic_error(where + "the accumulator and output types must be named and have a size");
    const auto blank = [](const std::string& expression) { return split_words(expression).empty(); };
    if (blank(neutral_) || blank(map_) || blank(reduce_))
        throw logic_error(where + "the neutral, map and reduce expressions must not be empty");
}

// ---- the generated source

namespace {

// Device code every reduction shares, after the accumulator typedefs: moving an accumulator
// between lanes as 4-byte words (any type of any size, by its bytes), and the block
// reduction, whose result is valid in thread 0.
const char* const block_reduction_source = R"(
__device__ __forceinline__ gk_acc gk_shuffle_down(gk_acc v, int offset) {
    unsigned gk_words[(sizeof(gk_acc) + 3) / 4] = {};
    memcpy(gk_words, &v, sizeof(gk_acc));
#pragma unroll
    for (int k = 0; k < int((sizeof(gk_acc) + 3) / 4); ++k)
        gk_words[k] = __shfl_down_sync(0xffffffffu, gk_words[k], offset);
    memcpy(&v, gk_words, sizeof(gk_acc));
    return v;
}
// Raw storage: a __shared__ array of the accumulator type would need a trivial constructor.
struct alignas(gk_acc) gk_acc_bytes { unsigned char bytes[sizeof(gk_acc)]; };
template <class Reduce, class Neutral>
__device__ __forceinline__ gk_acc gk_block_reduce(gk_acc v, Reduce gk_reduce, Neutral gk_neutral) {
    __shared__ gk_acc_bytes gk_warps[GK_WARPS];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = gk_reduce(v, gk_shuffle_down(v, o));
    if ((threadIdx.x & 31) == 0) memcpy(&gk_warps[threadIdx.x >> 5], &v, sizeof(gk_acc));
    __syncthreads();
    if (threadIdx.x < 32) {
        if (threadIdx.x < GK_WARPS) memcpy(&v, &gk_warps[threadIdx.x], sizeof(gk_acc));
        else v = gk_neutral();
#pragma unroll
        for (int o = GK_WARPS / 2; o > 0; o >>= 1) v = gk_reduce(v, gk_shuffle_down(v, o));
    }
    return v;
}
__device__ __forceinline__ void gk_write_out(gk_out_t* out, gk_out_t value) { memcpy(out, &value, sizeof(gk_out_t)); }
// The byte offsets, in each of M element arrays, of the element at C-order index `index`
// over N axes (the strided variant).
template <int N, int M>
__device__ __forceinline__ void gk_offsets(long long index, const gk_dims<N>& shape, const gk_dims<N * M>& strides,
                                           long long (&offsets)[M]) {
#pragma unroll
    for (int m = 0; m < M; ++m) offsets[m] = 0;
    for (int d = N - 1; d >= 0; --d) {
        const long long c = d == 0 ? index : index % shape.e[d];
        if (d > 0) index /= shape.e[d];
#pragma unroll
        for (int m = 0; m < M; ++m) offsets[m] += c * strides.e[m * N + d];
    }
}
)";

// The declaration of parameter p in both kernels.
std::string declaration(const reduction_param& p) {
    switch (p.kind) {
    case role::element:
        return "const " + p.type.c_name + "* gk_p_" + p.name;
    case role::pointer:
        return p.declarator.empty() ? "const " + p.type.c_name + " *" + p.name : p.declarator;
    case role::scalar:
        return p.declarator.empty() ? p.type.c_name + " " + p.name : p.declarator;
    }
    return {};
}

void write_parameters(text_builder& s, const reduction_spec& spec) {
    for (const reduction_param& p : spec.params())
        s << declaration(p) << ", ";
}

// The lambdas both kernels use: gk_reduce(a, b) and gk_neutral().
void write_reduce_and_neutral(text_builder& s, const reduction_spec& spec) {
    s << "    auto gk_reduce = [&](gk_acc a, gk_acc b) -> gk_acc { return (" << spec.reduce() << "); };\n"
      << "    auto gk_neutral = [&]() -> gk_acc { return (" << spec.neutral() << "); };\n";
}

// gk_map(element pointers..., i): the map with each element array seen as name[i], the
// element its pointer points at.
void write_map(text_builder& s, const reduction_spec& spec) {
    s << "    auto gk_map = [&](";
    for (const reduction_param& p : spec.params())
        if (is_element(p))
            s << "const " << p.type.c_name << "* gk_e_" << p.name << ", ";
    s << "long long i) -> gk_acc {\n";
    for (const reduction_param& p : spec.params())
        if (is_element(p))
            s << "        gk_ref<const " << p.type.c_name << "> " << p.name << "{gk_e_" << p.name << "};\n";
    s << "        return (" << spec.map() << ");\n    };\n";
}

// Vectorized loads: one 16-byte word of the narrowest element array per thread and step.
int vector_width(const reduction_spec& spec) {
    std::size_t narrowest = 16;
    for (const reduction_param& p : spec.params())
        if (is_element(p))
            narrowest = std::min(narrowest, p.type.size);
    return static_cast<int>(16 / narrowest);
}

// `gk_map(...)` for index variable `index`, element array pointers from `at(param, m)` (m:
// the array's position among the element arrays).
std::string map_call(const reduction_spec& spec, const std::string& index,
                     const std::function<std::string(const reduction_param&, int)>& at) {
    text_builder s;
    s << "gk_map(";
    int m = 0;
    for (const reduction_param& p : spec.params())
        if (is_element(p))
            s << at(p, m++) << ", ";
    s << index << ")";
    return s.str();
}

void write_vectorized_loop(text_builder& s, const reduction_spec& spec) {
    s << "    constexpr int V = " << vector_width(spec) << ";\n"
      << "    const long long gk_whole = gk_count - gk_count % V;\n"
      << "    for (long long gk_base = gk_thread * V; gk_base < gk_whole; gk_base += gk_threads * V) {\n";
    for (const reduction_param& p : spec.params())
        if (is_element(p))
            s << "        alignas(16) " << p.type.c_name << " gk_v_" << p.name << "[V];\n"
              << "        gk_load(gk_v_" << p.name << ", gk_p_" << p.name << " + gk_base);\n";
    s << "#pragma unroll\n"
         "        for (int gk_k = 0; gk_k < V; ++gk_k)\n"
         "            gk_value = gk_reduce(gk_value, "
      << map_call(spec, "gk_base + gk_k", [](const reduction_param& p, int) { return "&gk_v_" + p.name + "[gk_k]"; })
      << ");\n    }\n"
         "    for (long long i = gk_whole + gk_thread; i < gk_count; i += gk_threads)\n"
         "        gk_value = gk_reduce(gk_value, "
      << map_call(spec, "i", [](const reduction_param& p, int) { return "gk_p_" + p.name + " + i"; }) << ");\n";
}

// The contiguous and strided loops: `unroll` (1 or 4) indices per thread and step, their
// loads in flight together, then the rest one at a time.
void write_index_loop(text_builder& s, const reduction_spec& spec, bool strided, int ndim, int unroll) {
    const int elements = static_cast<int>(spec.element_arrays());
    // Before a map call for index gk_i<j>: the strided variant's element offsets.
    const auto prepare = [&](int j) {
        if (strided)
            s << "        long long gk_o" << j << "[" << elements << "];\n"
              << "        gk_offsets<" << ndim << ", " << elements << ">(gk_i" << j << ", gk_shape, gk_strides, gk_o"
              << j << ");\n";
    };
    const auto call = [&](int j) {
        const std::string index = "gk_i" + std::to_string(j);
        return map_call(spec, index, [&](const reduction_param& p, int m) {
            if (strided)
                return "(const " + p.type.c_name + "*)((const char*)gk_p_" + p.name + " + gk_o" + std::to_string(j) +
                       "[" + std::to_string(m) + "])";
            return "gk_p_" + p.name + " + " + index;
        });
    };
    s << "    long long gk_k = gk_thread;\n";
    if (unroll == 4) {
        s << "    for (; gk_k + 3 * gk_threads < gk_count; gk_k += 4 * gk_threads) {\n";
        for (int j = 0; j < 4; ++j) {
            s << "        const long long gk_i" << j << " = gk_start + (gk_k + " << j << " * gk_threads) * gk_step;\n";
            prepare(j);
            s << "        const gk_acc gk_v" << j << " = " << call(j) << ";\n";
        }
        s << "        gk_value = gk_reduce(gk_value, gk_reduce(gk_reduce(gk_v0, gk_v1), gk_reduce(gk_v2, gk_v3)));\n"
             "    }\n";
    }
    s << "    for (; gk_k < gk_count; gk_k += gk_threads) {\n"
         "        const long long gk_i0 = gk_start + gk_k * gk_step;\n";
    prepare(0);
    s << "        gk_value = gk_reduce(gk_value, " << call(0) << ");\n    }\n";
}

}  // namespace

std::string reduction_source(const reduction_spec& spec, reduction_variant variant, int ndim,
                             kernel_language language) {
    const bool has_elements = spec.element_arrays() > 0;
    if (variant != reduction_variant::contiguous && !has_elements)
        throw logic_error("reduction " + spec.name() + ": the vectorized and strided variants need element arrays");
    if (ndim < 1 || ndim > max_ndim)
        throw logic_error("reduction " + spec.name() + ": ndim must be 1 to 64, got " + std::to_string(ndim));
    if (language == kernel_language::opencl)
        return detail::opencl_reduction_source(spec, variant, ndim);
    text_builder s;
    s << detail::common_source << spec.preamble() << "\n"
      << "typedef " << spec.accumulator().c_name << " gk_acc;\n"
      << "typedef gk_acc out_type;  // PyCUDA's name for it\n"
      << "typedef " << spec.output().c_name << " gk_out_t;\n"
      << "#define GK_WARPS " << warps_per_block << "\n"
      << block_reduction_source;

    // Stage 1: each block's share to one partial result (or, alone, to the output).
    s << "extern \"C\" __global__ void __launch_bounds__(" << detail::block_size << ") " << spec.stage1_name() << "(";
    write_parameters(s, spec);
    if (variant == reduction_variant::strided)
        s << "gk_dims<" << ndim << "> gk_shape, gk_dims<" << ndim * static_cast<int>(spec.element_arrays())
          << "> gk_strides, ";
    s << "gk_acc* gk_partial, gk_out_t* gk_out, long long gk_start, long long gk_step, long long gk_count) {\n";
    if (!declares(spec, "n"))
        s << "    const long long n = gk_count;\n    (void)n;\n";
    write_reduce_and_neutral(s, spec);
    write_map(s, spec);
    s << "    const long long gk_thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    const long long gk_threads = (long long)gridDim.x * blockDim.x;\n"
         "    gk_acc gk_value = gk_neutral();\n";
    if (variant == reduction_variant::vectorized)
        write_vectorized_loop(s, spec);
    else
        write_index_loop(s, spec, variant == reduction_variant::strided, ndim,
                         static_cast<int>(detail::indices_per_step(spec, variant, ndim)));
    s << "    gk_value = gk_block_reduce(gk_value, gk_reduce, gk_neutral);\n"
         "    if (threadIdx.x == 0) {\n"
         "        if (gridDim.x == 1) gk_write_out(gk_out, (gk_out_t)(gk_value));\n"
         "        else memcpy(gk_partial + blockIdx.x, &gk_value, sizeof(gk_acc));\n"
         "    }\n"
         "}\n";

    // Stage 2: the partial results to the output, in one block.
    s << "extern \"C\" __global__ void __launch_bounds__(" << detail::block_size << ") " << spec.stage2_name() << "(";
    write_parameters(s, spec);
    s << "const gk_acc* gk_partial, gk_out_t* gk_out, int gk_count) {\n";
    write_reduce_and_neutral(s, spec);
    s << "    gk_acc gk_value = gk_neutral();\n"
         "    for (int gk_j = threadIdx.x; gk_j < gk_count; gk_j += blockDim.x)\n"
         "        gk_value = gk_reduce(gk_value, gk_partial[gk_j]);\n"
         "    gk_value = gk_block_reduce(gk_value, gk_reduce, gk_neutral);\n"
         "    if (threadIdx.x == 0) gk_write_out(gk_out, (gk_out_t)(gk_value));\n"
         "}\n";
    return s.str();
}

// ---- running a reduction

std::size_t reduction_scratch_bytes(const reduction_spec& spec) {
    const int ordinal = cuda::context::current_or_throw("reductions").state()->device_ordinal;
    // Stage 1 runs at most as many blocks as the device holds at once: asked of the driver
    // once per device, since reductions ask for it on every call.
    static std::mutex mutex;
    static std::unordered_map<int, std::size_t> blocks_by_device;
    std::lock_guard lock(mutex);
    auto found = blocks_by_device.find(ordinal);
    if (found == blocks_by_device.end()) {
        const cuda::device dev = cuda::device::get(ordinal);
        const auto blocks =
            static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)) *
            static_cast<std::size_t>(dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)) /
            detail::block_size;
        found = blocks_by_device.emplace(ordinal, std::max<std::size_t>(blocks, 1)).first;
    }
    return found->second * spec.accumulator().size;
}

namespace detail {

long long indices_per_step(const reduction_spec& spec, reduction_variant variant, int ndim) {
    switch (variant) {
    case reduction_variant::vectorized:
        return vector_width(spec);
    case reduction_variant::contiguous:
        return 4;
    case reduction_variant::strided:
        return ndim == 1 ? 4 : 1;
    }
    return 1;
}

std::size_t checked_scratch(const reduction_spec& spec, const cuda::device_pointer& scratch) {
    const std::size_t capacity = scratch.capacity ? *scratch.capacity : reduction_scratch_bytes(spec);
    if (capacity < spec.accumulator().size || scratch.address % 16 != 0)
        throw logic_error(spec.name() + ": the scratch buffer must hold one partial result (" +
                          std::to_string(spec.accumulator().size) + " bytes) at least and be 16-byte aligned");
    return capacity;
}

void launch_reduction(const reduction_spec& spec, backend& b, const loaded_kernel& stage1, const loaded_kernel& stage2,
                      std::span<const kernel_argument> params, std::span<const kernel_argument> layout,
                      long long per_thread, const reduction_extent& extent) {
    const std::size_t partials = extent.partial_capacity / spec.accumulator().size;
    if (partials == 0)
        throw logic_error(spec.name() + ": the memory for partial results must hold one (" +
                          std::to_string(spec.accumulator().size) + " bytes) at least");
    const unsigned group = std::min(b.preferred_group_size(), stage1.max_group);
    const long long per_group = static_cast<long long>(group) * per_thread;
    const long long needed = std::clamp<long long>((extent.count + per_group - 1) / per_group, 1, stage1.full_grid);
    const unsigned groups =
        static_cast<unsigned>(std::min<long long>(needed, std::min<std::size_t>(partials, 1u << 30)));

    // Stage 1: the parameters, the layout, then partial, out, start, step, count.
    std::vector<kernel_argument> first(params.begin(), params.end());
    first.insert(first.end(), layout.begin(), layout.end());
    first.push_back(extent.partial);
    first.push_back(extent.out);
    first.push_back(kernel_argument::bytes(&extent.start, sizeof extent.start));
    first.push_back(kernel_argument::bytes(&extent.step, sizeof extent.step));
    first.push_back(kernel_argument::bytes(&extent.count, sizeof extent.count));
    b.launch(stage1, {groups, 1, group}, first);
    if (groups == 1)
        return;  // stage 1 wrote the output

    // Stage 2: the parameters, then partial, out, count.
    std::vector<kernel_argument> second(params.begin(), params.end());
    const int count = static_cast<int>(groups);
    second.push_back(extent.partial);
    second.push_back(extent.out);
    second.push_back(kernel_argument::bytes(&count, sizeof count));
    b.launch(stage2, {1, 1, std::min(b.preferred_group_size(), stage2.max_group)}, second);
}

}  // namespace detail

namespace {

bool same_type(const value_type& t, dtype d) { return t.dtype && *t.dtype == d; }

std::string type_name(const value_type& t) { return t.dtype ? std::string(name(*t.dtype)) : t.c_name; }

// The element arrays of `args`, checked against the spec's parameters; the first one's
// shape is every element array's.
// The element arrays of `args`; `count` is the number of indices when the caller gives it
// (then there must be no element arrays), nullopt when it comes from the element arrays.
std::vector<const ndarray*> checked_arguments(const reduction_spec& spec, std::span<const elementwise_arg> args,
                                              const ndarray& out, std::optional<long long> count = std::nullopt) {
    if (args.size() != spec.params().size())
        throw logic_error(spec.name() + ": expected " + std::to_string(spec.params().size()) + " arguments, got " +
                          std::to_string(args.size()));
    std::vector<const ndarray*> elements;
    for (std::size_t k = 0; k < args.size(); ++k) {
        const reduction_param& p = spec.params()[k];
        const auto* array = std::get_if<ndarray>(&args[k]);
        // Messages are made only when an argument is wrong: this runs on every reduction.
        const auto where = [&] { return spec.name() + ", argument " + p.name + ": "; };
        if ((p.kind != role::scalar) != (array != nullptr))
            throw logic_error(where() +
                              (array ? "expected a scalar, got an array" : "expected an array, got a scalar"));
        if (!array) {
            if (std::get<scalar_value>(args[k]).size != p.type.size)
                throw logic_error(where() + "a scalar of " + std::to_string(std::get<scalar_value>(args[k]).size) +
                                  " bytes for a " + type_name(p.type));
            continue;
        }
        if (!same_type(p.type, array->type()))
            throw logic_error(where() + "expected dtype " + type_name(p.type) + ", got " +
                              std::string(name(array->type())));
        if (p.kind == role::pointer && !array->layout().is_contiguous())
            throw logic_error(where() + "must be contiguous, got " + array->layout().describe() + " (copy it first)");
        if (p.kind == role::element) {
            if (!elements.empty() && array->shape() != elements.front()->shape())
                throw logic_error(where() + "shape " + array->layout().describe() + " differs from " +
                                  elements.front()->layout().describe());
            elements.push_back(array);
        }
    }
    if (count && !elements.empty())
        throw logic_error(spec.name() +
                          ": a reduction over an index range reads arrays through pointers only; "
                          "this spec has element arrays");
    if (!count && elements.empty())
        throw logic_error(spec.name() + ": reduce() takes its count from element arrays; this spec has none");
    // One element of the output's dtype, or for a C type of the caller's (a struct), its bytes.
    const value_type& output = spec.output();
    const bool fits = output.dtype ? same_type(output, out.type()) && out.size() == 1
                                   : out.layout().is_c_contiguous() &&
                                         out.layout().nbytes() == static_cast<std::int64_t>(output.size);
    if (!fits)
        throw logic_error(spec.name() + ": the output must be one " + type_name(output) +
                          (output.dtype ? "" : " (" + std::to_string(output.size) + " bytes)") + ", got " +
                          std::to_string(out.size()) + " of " + std::string(name(out.type())));
    if (count && *count < 0)
        throw logic_error(spec.name() + ": the index count is negative (" + std::to_string(*count) + ")");
    if ((count ? *count : elements.front()->size()) == 0 && spec.empty() == empty_reduction::error)
        throw logic_error("zero-size array to reduction operation " + spec.name() + " which has no identity");
    return elements;
}

reduction_variant choose_variant(const std::vector<const ndarray*>& elements, kernel_language language) {
    bool all_c = true, all_f = true, aligned = language == kernel_language::cuda;
    for (const ndarray* a : elements) {
        all_c = all_c && a->layout().is_c_contiguous();
        all_f = all_f && a->layout().is_f_contiguous();
        aligned = aligned && a->data() % 16 == 0;
    }
    if (!all_c && !all_f)
        return reduction_variant::strided;
    return aligned ? reduction_variant::vectorized : reduction_variant::contiguous;
}

// What a backend of another language than CUDA cannot take in `spec` (OpenCL: each type
// backend::type_problem refuses, and parameters without a dtype; the accumulator and output
// may be a C type the preamble declares), or "".
std::string spec_problem(const reduction_spec& spec, const backend& b) {
    if (b.language() == kernel_language::cuda)
        return {};
    const auto problem = [&](const value_type& t) -> std::string { return t.dtype ? b.type_problem(*t.dtype) : ""; };
    for (const reduction_param& p : spec.params()) {
        if (!p.type.dtype)
            return "parameter " + p.name + ": the C type " + p.type.c_name +
                   " has no dtype, and the OpenCL backend's parameters take dtypes only";
        if (std::string why = problem(p.type); !why.empty())
            return "parameter " + p.name + ": " + why;
    }
    if (std::string why = problem(spec.accumulator()); !why.empty())
        return "the accumulator: " + why;
    if (std::string why = problem(spec.output()); !why.empty())
        return "the output: " + why;
    return {};
}

// reduce() on `b`, its partial results in `scratch` (`capacity` bytes), or, when nullptr, in
// memory of b's own.
// `range`: i = start, start + step, ... (count of them) for a spec without element arrays;
// nullopt: the C-order indices of the element arrays.
struct index_range {
    long long start, step, count;
};
void reduce_on(backend& b, const reduction_spec& spec, std::span<const elementwise_arg> args, const ndarray& out,
               const device_buffer* scratch, std::size_t capacity, std::optional<index_range> range = std::nullopt) {
    const std::vector<const ndarray*> elements =
        checked_arguments(spec, args, out, range ? std::optional(range->count) : std::nullopt);
    for (const elementwise_arg& a : args)
        if (const auto* array = std::get_if<ndarray>(&a); array && array->buffer()->space != b.space())
            throw logic_error(spec.name() + ": an array is not " + b.name() +
                              " memory; a backend runs kernels on its own memory only");
    if (out.buffer()->space != b.space())
        throw logic_error(spec.name() + ": the output is not " + b.name() + " memory");
    if (std::string problem = spec_problem(spec, b); !problem.empty())
        throw logic_error(spec.name() + ", " + problem);
    const reduction_variant variant = range ? reduction_variant::contiguous : choose_variant(elements, b.language());
    const std::vector<std::int64_t> shape = range ? std::vector<std::int64_t>{range->count} : elements.front()->shape();
    const int ndim = variant == reduction_variant::strided ? std::max(1, static_cast<int>(shape.size())) : 1;
    if (ndim > max_ndim)
        throw logic_error(spec.name() + ": arrays of " + std::to_string(ndim) + " axes; at most 64 are supported");
    // The variant's key: the strided variant is compiled per number of axes.
    const std::uint64_t key =
        spec.key() + (variant == reduction_variant::strided ? 2 + static_cast<std::uint64_t>(ndim)
                                                            : static_cast<std::uint64_t>(variant));
    const std::function<std::string()> source = [&] { return reduction_source(spec, variant, ndim, b.language()); };
    const loaded_kernel stage1 = b.kernel(key, spec.stage1_name(), source);
    const loaded_kernel stage2 = b.kernel(key, spec.stage2_name(), source);

    // Argument storage, kept in place until the launches.
    std::vector<kernel_argument> params;
    params.reserve(args.size());
    for (const elementwise_arg& a : args) {
        if (const auto* array = std::get_if<ndarray>(&a)) {
            params.push_back(kernel_argument::memory(*array->buffer(), array->layout().offset()));
        } else {
            const scalar_value& value = std::get<scalar_value>(a);
            params.push_back(kernel_argument::bytes(value.bytes.data(), value.size));
        }
    }
    std::vector<std::int64_t> extents, strides;
    std::vector<kernel_argument> layout;
    if (variant == reduction_variant::strided) {
        extents = shape.empty() ? std::vector<std::int64_t>{1} : shape;
        for (const ndarray* a : elements) {
            const std::vector<std::int64_t>& st = a->layout().strides();
            strides.insert(strides.end(), st.begin(), st.end());
            if (st.empty())
                strides.push_back(0);
        }
        layout.push_back(kernel_argument::bytes(extents.data(), extents.size() * sizeof(std::int64_t)));
        layout.push_back(kernel_argument::bytes(strides.data(), strides.size() * sizeof(std::int64_t)));
    }
    std::shared_ptr<const device_buffer> own_scratch;
    if (!scratch) {
        // One partial result per group of a device-filling grid.
        capacity = static_cast<std::size_t>(stage1.full_grid) * spec.accumulator().size;
        own_scratch = b.allocate(capacity);
        scratch = own_scratch.get();
    }
    const long long per_thread =
        b.language() == kernel_language::cuda ? detail::indices_per_step(spec, variant, ndim) : 1;
    const detail::reduction_extent extent{range ? range->start : 0,
                                          range ? range->step : 1,
                                          range ? range->count : elements.front()->size(),
                                          kernel_argument::memory(*out.buffer(), out.layout().offset()),
                                          kernel_argument::memory(*scratch, 0),
                                          capacity};
    detail::launch_reduction(spec, b, stage1, stage2, params, layout, per_thread, extent);
}

}  // namespace

void reduce(const reduction_spec& spec, std::span<const elementwise_arg> args, const ndarray& out,
            cuda::device_pointer scratch, cuda::stream_view s) {
    cuda_backend b(s);
    const std::size_t capacity = detail::checked_scratch(spec, scratch);
    const device_buffer scratch_buffer{scratch.address, capacity, {}, memory_space::cuda};
    reduce_on(b, spec, args, out, &scratch_buffer, capacity);
}

void reduce(const reduction_spec& spec, std::span<const elementwise_arg> args, const ndarray& out, backend& b) {
    reduce_on(b, spec, args, out, nullptr, 0);
}

void reduce(const reduction_spec& spec, std::span<const elementwise_arg> args, long long start, long long step,
            long long count, const ndarray& out, backend& b) {
    if (step == 0)
        throw logic_error(spec.name() + ": the index step is 0");
    reduce_on(b, spec, args, out, nullptr, 0, index_range{start, step, count});
}

}  // namespace gpukit::array
