#include "gpukit/random/generator.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/device.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/occupancy.hpp"
#include "gpukit/random/curand_headers.hpp"
#include "gpukit/random/curand_library.hpp"
#include "gpukit/rtc/cache.hpp"
#include "gpukit/rtc/compiler.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <utility>

namespace gpukit::random {

namespace {

using array::dtype;

// The module of `kind`'s kernels, compiled (or found in the compilation cache) for the
// current context's device and loaded into that context.
cuda::module load_module(generator_kind kind) {
    // First, so that without a device or a context the error comes at once, not after the
    // compile (tens of seconds for cuRAND's headers when the cache is cold).
    cuda::context::current_or_throw("a random number generator");
    const curand_headers headers = require_curand_headers();
    rtc::compile_request request;
    request.source = generator_source(kind);
    request.compiler = rtc::compiler_kind::nvrtc;
    request.options.options = {"--std=c++17"};
    request.options.name = "curandom_" + std::string(name(kind)) + ".cu";
    request.options.no_extern_c = true;  // the source declares its kernels extern "C" itself
    if (!headers.in_toolkit)
        request.options.system_include_dirs = {headers.include_dir};
    return cuda::module::from_image(rtc::compile_cached(request, rtc::default_cache_dir()).image);
}

bool is_integer_of_bits(dtype t, int bits) {
    const auto k = array::kind(t);
    return (k == array::dtype_kind::signed_int || k == array::dtype_kind::unsigned_int) &&
           array::size_of(t) * 8 == static_cast<std::size_t>(bits);
}

std::string type_name(dtype t) { return std::string(array::name(t)); }

// The kernel that `kernels` pairs with dtype `t`; nullopt when it pairs none.
std::optional<generator_kernel> kernel_for(dtype t, std::initializer_list<std::pair<dtype, generator_kernel>> kernels) {
    for (const auto& [type, k] : kernels)
        if (type == t)
            return k;
    return std::nullopt;
}

// "<where>: dtype <t> is not supported; expected <expected>".
type_error unsupported_dtype(const std::string& where, dtype t, const std::string& expected) {
    return type_error(where + ": dtype " + type_name(t) + " is not supported; expected " + expected);
}

// Elements per chunk of a fill (generator_source.hpp).
long long chunk_elements(generator_kind kind, dtype t) {
    return is_quasi(kind) ? 1 : static_cast<long long>(16 / array::size_of(t));
}

// Every kernel of `kind`'s module, by generator_kernel.
std::array<std::optional<cuda::function>, generator_kernel_count> load_kernels(generator_kind kind,
                                                                               const cuda::module& module) {
    std::array<std::optional<cuda::function>, generator_kernel_count> kernels;
    for (int k = 0; k < generator_kernel_count; ++k)
        if (has_kernel(kind, static_cast<generator_kernel>(k)))
            kernels[k] = module.get_function(std::string(kernel_name(static_cast<generator_kernel>(k))));
    return kernels;
}

// generators_per_block threads per block, and as many blocks as the device holds of `fill`
// at once (generator.hpp); at most cuRAND's dimensions for the Sobol generators.
generator_shape shape_for(generator_kind kind, const cuda::function& fill) {
    const cuda::device dev = cuda::context::current_or_throw("a random number generator").get_device();
    const int mps = std::max(1, dev.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
    const int per_mp =
        std::max(1, cuda::max_active_blocks_per_multiprocessor(fill, static_cast<int>(generators_per_block)));
    unsigned blocks = static_cast<unsigned>(mps * per_mp);
    if (is_quasi(kind))
        blocks = std::min(blocks, static_cast<unsigned>(sobol_dimensions / generators_per_block));
    return {blocks, generators_per_block};
}

}  // namespace

generator::generator(generator_kind kind)
    : kind_(kind), module_(load_module(kind)), kernels_(load_kernels(kind, module_)),
      shape_(shape_for(kind, kernel(generator_kernel::uniform_float32))),
      state_bytes_(module_.get_global(state_size_variable).second),
      state_(cuda::device_allocation::allocate(state_bytes_ * static_cast<std::size_t>(shape_.count()))) {}

generator generator::seeded(generator_kind kind, const seed_source& seeds, std::uint64_t offset) {
    const std::string what = std::string(name(kind)) + "RandomNumberGenerator";
    if (is_quasi(kind))
        throw logic_error(what + " takes direction vectors, not seeds");
    generator g(kind);
    const long long count = g.shape_.count();
    const array::ndarray given = seeds(count);
    if (!is_integer_of_bits(given.type(), 32))
        throw type_error(what + ": seeds must be int32 (or uint32), got " + type_name(given.type()));
    if (given.size() != count || !given.layout().is_contiguous())
        throw logic_error(what + ": seeds must be a contiguous array of one seed per generator, " +
                          std::to_string(count) + " of them (block_count * generators_per_block); got " +
                          given.layout().describe());
    g.launch(generator_kernel::init, g.shape_.block_count, {}, given.data(), static_cast<unsigned long long>(offset));
    // Construction finishes its work (and reports a failed kernel) before returning.
    cuda::context::current_or_throw(what.c_str()).synchronize();
    return g;
}

generator generator::sobol(generator_kind kind, const std::optional<array::ndarray>& vectors,
                           const std::optional<array::ndarray>& scramble, std::uint64_t offset) {
    const std::string what = std::string(name(kind)) + "RandomNumberGenerator";
    if (!is_quasi(kind))
        throw logic_error(what + " takes seeds, not direction vectors");
    if (scramble && !is_scrambled(kind))
        throw logic_error(what + " takes no scramble constants");
    const int bits = draw_bits(kind);
    if (bits == 32 && offset > std::numeric_limits<std::uint32_t>::max())
        throw logic_error(what + ": the offset must be below 2^32, got " + std::to_string(offset));
    generator g(kind);
    const generator_shape shape = g.shape_;
    const long long count = shape.count();
    const dtype word = bits == 64 ? dtype::uint64 : dtype::uint32;
    const std::vector<std::int64_t> vectors_shape = {count, bits};
    if (vectors &&
        (vectors->type() != word || vectors->shape() != vectors_shape || !vectors->layout().is_c_contiguous()))
        throw type_error(what + ": dir_vector must be a C-contiguous " + type_name(word) + " array of shape (" +
                         std::to_string(count) + ", " + std::to_string(bits) + ") (one dimension per generator), got " +
                         type_name(vectors->type()) + " " + vectors->layout().describe());
    if (scramble && (scramble->type() != word || scramble->shape() != std::vector<std::int64_t>{count} ||
                     !scramble->layout().is_contiguous()))
        throw type_error(what + ": scramble_vector must be a contiguous " + type_name(word) + " array of shape (" +
                         std::to_string(count) + ",), got " + type_name(scramble->type()) + " " +
                         scramble->layout().describe());

    // cuRAND's tables where none were given, in device memory until the states are made.
    std::optional<cuda::device_allocation> own_vectors, own_scramble;
    const auto upload = [](const auto& host) {
        cuda::device_allocation a = cuda::device_allocation::allocate(host.size() * sizeof(host[0]));
        cuda::memcpy_htod(a, host.data(), host.size() * sizeof(host[0]));
        return a;
    };
    const auto n = static_cast<std::size_t>(count);
    const bool scrambled = is_scrambled(kind);
    if (!vectors) {
        using set = direction_vector_set;
        const set which = bits == 64 ? (scrambled ? set::scrambled_vectors_64 : set::vectors_64)
                                     : (scrambled ? set::scrambled_vectors_32 : set::vectors_32);
        own_vectors = bits == 64 ? upload(direction_vectors64(which, n)) : upload(direction_vectors32(which, n));
    }
    if (scrambled && !scramble)
        own_scramble = bits == 64 ? upload(scramble_constants64(n)) : upload(scramble_constants32(n));
    const CUdeviceptr vectors_address = vectors ? vectors->data() : own_vectors->get();
    if (scrambled) {
        const CUdeviceptr scramble_address = scramble ? scramble->data() : own_scramble->get();
        g.launch(generator_kernel::init, shape.block_count, {}, vectors_address, scramble_address,
                 static_cast<unsigned long long>(offset));
    } else {
        g.launch(generator_kernel::init, shape.block_count, {}, vectors_address,
                 static_cast<unsigned long long>(offset));
    }
    // The tables may be freed only once the states are made.
    cuda::context::current_or_throw(what.c_str()).synchronize();
    return g;
}

std::string generator::where(const char* method) const {
    return std::string(name(kind_)) + "RandomNumberGenerator." + method;
}

void generator::require_context(const char* method) const {
    CUcontext current = nullptr;
    if (cuda::api().cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != module_.owner()->handle)
        throw logic_error(where(method) +
                          ": the generator was made in another context than the current one; "
                          "make its context current first");
}

template <class... Args>
void generator::launch(generator_kernel k, unsigned blocks, cuda::stream_view s, const Args&... args) const {
    const auto config = cuda::launch_config().grid({blocks}).block({shape_.generators_per_block}).stream(s);
    cuda::launch(kernel(k), config, state_.get(), shape_.count(), args...);
}

void generator::fill(generator_kernel k, const array::ndarray& out, const char* method, cuda::stream_view s,
                     const auto&... args) {
    if (!out.layout().is_contiguous())
        throw logic_error(where(method) + ": the array must be contiguous, got " + out.layout().describe() +
                          "; fill a contiguous array and copy it into the view");
    require_context(method);
    const long long n = out.size();
    if (n == 0)
        return;
    // Only the generators that have a chunk to fill run.
    const long long chunks = (n + chunk_elements(kind_, out.type()) - 1) / chunk_elements(kind_, out.type());
    const long long busy = std::min(chunks, shape_.count());
    const auto blocks = static_cast<unsigned>((busy + shape_.generators_per_block - 1) / shape_.generators_per_block);
    launch(k, blocks, s, out.data(), n, args...);
}

void generator::fill_uniform(const array::ndarray& out, cuda::stream_view s) {
    const dtype t = out.type();
    generator_kernel k;
    if (t == dtype::float32)
        k = generator_kernel::uniform_float32;
    else if (t == dtype::float64)
        k = generator_kernel::uniform_float64;
    else if (is_integer_of_bits(t, 32))
        k = generator_kernel::uniform_bits32;
    else if (is_integer_of_bits(t, 64) && draw_bits(kind_) == 64)
        k = generator_kernel::uniform_bits64;
    else
        throw unsupported_dtype(where("fill_uniform"), t,
                                std::string("float32, float64, int32 or uint32") +
                                    (draw_bits(kind_) == 64 ? ", int64 or uint64"
                                                            : " (int64 and uint64 need a 64-bit Sobol generator)"));
    fill(k, out, "fill_uniform", s);
}

void generator::fill_normal(const array::ndarray& out, cuda::stream_view s) {
    const dtype t = out.type();
    const auto k = kernel_for(t, {{dtype::float32, generator_kernel::normal_float32},
                                  {dtype::float64, generator_kernel::normal_float64}});
    if (!k)
        throw unsupported_dtype(where("fill_normal"), t, "float32 or float64");
    fill(*k, out, "fill_normal", s);
}

void generator::fill_log_normal(const array::ndarray& out, double mean, double stddev, cuda::stream_view s) {
    const dtype t = out.type();
    const auto k = kernel_for(t, {{dtype::float32, generator_kernel::log_normal_float32},
                                  {dtype::float64, generator_kernel::log_normal_float64}});
    if (!k)
        throw unsupported_dtype(where("fill_log_normal"), t, "float32 or float64");
    if (!std::isfinite(mean) || !std::isfinite(stddev) || stddev < 0)
        throw logic_error(where("fill_log_normal") + ": mean must be finite and stddev finite and not negative, got " +
                          std::to_string(mean) + " and " + std::to_string(stddev));
    if (t == dtype::float32)
        fill(*k, out, "fill_log_normal", s, static_cast<float>(mean), static_cast<float>(stddev));
    else
        fill(*k, out, "fill_log_normal", s, mean, stddev);
}

void generator::fill_poisson(const array::ndarray& out, std::optional<double> lambda, cuda::stream_view s) {
    const dtype t = out.type();
    const auto k = kernel_for(t, {{dtype::uint32, generator_kernel::poisson_uint32},
                                  {dtype::float32, generator_kernel::poisson_float32},
                                  {dtype::float64, generator_kernel::poisson_float64}});
    if (!k)
        throw unsupported_dtype(where("fill_poisson"), t, "uint32, float32 or float64");
    if (lambda && !(std::isfinite(*lambda) && *lambda >= 0))
        throw logic_error(where("fill_poisson") + ": lambda must be finite and not negative, got " +
                          std::to_string(*lambda));
    fill(*k, out, "fill_poisson", s, lambda.value_or(0.0), static_cast<int>(!lambda));
}

void generator::skip(generator_kernel k, std::uint64_t n, const char* method, cuda::stream_view s) {
    if (!has_kernel(kind_, k))
        throw logic_error(where(method) + " is not offered: " +
                          (k == generator_kernel::skip_ahead_sequence ? "only XORWOW and MRG32k3a have sequences"
                                                                      : "only MRG32k3a has subsequences"));
    require_context(method);
    // cuRAND's skipahead takes 32 bits for the 32-bit Sobol generators, else 64; its
    // sequence functions always take 64.
    if (k == generator_kernel::skip_ahead && skip_bits(kind_) == 32) {
        if (n > std::numeric_limits<std::uint32_t>::max())
            throw logic_error(where(method) + ": the count must be below 2^32, got " + std::to_string(n));
        launch(k, shape_.block_count, s, static_cast<std::uint32_t>(n));
    } else {
        launch(k, shape_.block_count, s, static_cast<unsigned long long>(n));
    }
}

void generator::skip(generator_kernel k, const array::ndarray& counts, const char* method, cuda::stream_view s) {
    if (!has_kernel(kind_, k))
        throw logic_error(where(method) + " is not offered: " +
                          (k == generator_kernel::skip_ahead_sequence_array ? "only XORWOW and MRG32k3a have sequences"
                                                                            : "only MRG32k3a has subsequences"));
    const int bits = k == generator_kernel::skip_ahead_array ? skip_bits(kind_) : 64;
    if (!is_integer_of_bits(counts.type(), bits))
        throw type_error(where(method) + ": the counts must be " + std::to_string(bits) + "-bit integers (int" +
                         std::to_string(bits) + " or uint" + std::to_string(bits) + "), got " +
                         type_name(counts.type()));
    if (counts.size() != shape_.count() || !counts.layout().is_contiguous())
        throw logic_error(where(method) + ": the counts must be a contiguous array of one count per generator, " +
                          std::to_string(shape_.count()) + " of them; got " + counts.layout().describe());
    require_context(method);
    launch(k, shape_.block_count, s, counts.data());
}

void generator::skip_ahead(std::uint64_t n, cuda::stream_view s) {
    skip(generator_kernel::skip_ahead, n, "call_skip_ahead", s);
}
void generator::skip_ahead(const array::ndarray& counts, cuda::stream_view s) {
    skip(generator_kernel::skip_ahead_array, counts, "call_skip_ahead_array", s);
}
void generator::skip_ahead_sequence(std::uint64_t n, cuda::stream_view s) {
    skip(generator_kernel::skip_ahead_sequence, n, "call_skip_ahead_sequence", s);
}
void generator::skip_ahead_sequence(const array::ndarray& counts, cuda::stream_view s) {
    skip(generator_kernel::skip_ahead_sequence_array, counts, "call_skip_ahead_sequence_array", s);
}
void generator::skip_ahead_subsequence(std::uint64_t n, cuda::stream_view s) {
    skip(generator_kernel::skip_ahead_subsequence, n, "call_skip_ahead_subsequence", s);
}
void generator::skip_ahead_subsequence(const array::ndarray& counts, cuda::stream_view s) {
    skip(generator_kernel::skip_ahead_subsequence_array, counts, "call_skip_ahead_subsequence_array", s);
}

}  // namespace gpukit::random
