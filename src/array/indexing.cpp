#include "gpukit/array/indexing.hpp"

#include "kernel_cache.hpp"
#include "kernel_text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/cuda/launch.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace gpukit::array {

namespace {

// Positions each thread handles per step when one pair of arrays is copied: their loads are
// issued before their stores, so several gathers are in flight per thread.
constexpr int positions_per_thread = 4;

bool is_index_type(dtype t) { return kind(t) != dtype_kind::floating && kind(t) != dtype_kind::complex; }

void check(const indexed_copy_spec& spec) {
    const bool word_ok = spec.word == 1 || spec.word == 2 || spec.word == 4 || spec.word == 8 || spec.word == 16;
    if (!word_ok || spec.words < 1 || spec.arrays < 1 || spec.arrays > max_indexed_arrays || spec.source_ndim < 0 ||
        spec.source_ndim > 64 || (spec.source_ndim > 0 && spec.arrays != 1))
        throw logic_error("indexed copy: unsupported kernel (word " + std::to_string(spec.word) + ", " +
                          std::to_string(spec.words) + " words, " + std::to_string(spec.arrays) + " arrays, " +
                          std::to_string(spec.source_ndim) + " source axes)");
    for (const auto& t : {spec.source_index, spec.dest_index})
        if (t && !is_index_type(*t))
            throw logic_error("indexed copy: indices must be of an integer type or bool, got " + std::string(name(*t)));
    if (!spec.source_index && !spec.dest_index)
        throw logic_error("indexed copy: needs a source or a destination index");
}

std::string word_type(int word) {
    switch (word) {
    case 1:
        return "unsigned char";
    case 2:
        return "unsigned short";
    case 4:
        return "unsigned int";
    case 8:
        return "unsigned long long";
    default:
        return "uint4";
    }
}

// C code setting gk_at_<side> (a long long element number) and gk_<side>_ok for the index
// gk_raw_<side> (of type t; the position i itself without an index) into array k of
// gk_<side>_n.e[k] elements, with array k's offset added when `offset`.
void write_position(text_builder& out, const std::string& side, const std::optional<dtype>& t, bool offset) {
    const std::string at = "gk_at_" + side, ok = "gk_" + side + "_ok", raw = "gk_raw_" + side;
    const std::string n = "gk_" + side + "_n.e[gk_k]";
    if (!t) {
        out << "                const long long " << at << " = i;\n"
            << "                const bool " << ok << " = true;\n";
        return;
    }
    const std::string added = offset ? " + (unsigned long long)gk_off.e[gk_k]" : "";
    if (kind(*t) == dtype_kind::signed_int) {
        out << "                long long " << at << " = (long long)((unsigned long long)" << raw << added << ");\n";
    } else {
        // An unsigned index beyond the signed range is beyond every array.
        out << "                long long " << at << " = " << raw << " > 0x7fffffffffffffffull ? -1 - " << n
            << " : (long long)((unsigned long long)" << raw << added << ");\n";
    }
    out << "                if (" << at << " < 0) " << at << " += " << n << ";\n"
        << "                const bool " << ok << " = " << at << " >= 0 && " << at << " < " << n << ";\n";
}

}  // namespace

std::string indexed_copy_source(const indexed_copy_spec& spec) {
    check(spec);
    const int v = spec.arrays;
    const int per_thread = v == 1 ? positions_per_thread : 1;
    text_builder out;
    out << detail::common_source << "\n";
    if (spec.words == 1)
        out << "typedef " << word_type(spec.word) << " gk_element;\n";
    else
        out << "struct gk_element { " << word_type(spec.word) << " w[" << spec.words << "]; };\n";
    out << "extern \"C\" __global__ void __launch_bounds__(" << detail::block_size << ") gk_indexed_copy("
        << "gk_dims<" << v << "> gk_src, gk_dims<" << v << "> gk_dst, gk_dims<" << v << "> gk_src_n, gk_dims<" << v
        << "> gk_dst_n, ";
    if (spec.offsets)
        out << "gk_dims<" << v << "> gk_off, ";
    if (spec.source_index)
        out << "const " << c_type(*spec.source_index) << "* gk_si, ";
    if (spec.dest_index)
        out << "const " << c_type(*spec.dest_index) << "* gk_di, ";
    if (spec.source_ndim > 0)
        out << "gk_dims<" << spec.source_ndim << "> gk_shape, gk_dims<" << spec.source_ndim << "> gk_strides, ";
    out << "long long n) {\n"
        << "    constexpr int U = " << per_thread << ";\n"
        << "    const long long gk_step = (long long)gridDim.x * blockDim.x * U;\n"
        << "    for (long long gk_base = (long long)blockIdx.x * blockDim.x * U + threadIdx.x; gk_base < n;\n"
        << "         gk_base += gk_step) {\n"
        << "        gk_element gk_value[U][" << v << "];\n"
        << "        long long gk_where[U][" << v << "];\n"
        << "        bool gk_write[U][" << v << "];\n"
        << "#pragma unroll\n"
        << "        for (int gk_u = 0; gk_u < U; ++gk_u) {\n"
        << "            const long long i = gk_base + (long long)gk_u * blockDim.x;\n"
        << "            if (i >= n) break;\n";
    if (spec.source_index)
        out << "            const auto gk_raw_src = gk_si[i];\n";
    if (spec.dest_index)
        out << "            const auto gk_raw_dst = gk_di[i];\n";
    out << "#pragma unroll\n"
        << "            for (int gk_k = 0; gk_k < " << v << "; ++gk_k) {\n";
    write_position(out, "src", spec.source_index, spec.offsets);
    write_position(out, "dst", spec.dest_index, false);
    if (spec.source_ndim > 0) {
        // The element at C-order position gk_src of a strided source.
        out << "                long long gk_rest = gk_at_src, gk_offset = 0;\n"
            << "                for (int gk_d = " << spec.source_ndim - 1 << "; gk_d >= 0; --gk_d) {\n"
            << "                    const long long gk_c = gk_d == 0 ? gk_rest : gk_rest % gk_shape.e[gk_d];\n"
            << "                    if (gk_d > 0) gk_rest /= gk_shape.e[gk_d];\n"
            << "                    gk_offset += gk_c * gk_strides.e[gk_d];\n"
            << "                }\n"
            << "                const gk_element* gk_from = (const gk_element*)((const char*)gk_src.e[0] + "
               "gk_offset);\n";
    } else {
        out << "                const gk_element* gk_from = (const gk_element*)gk_src.e[gk_k] + gk_at_src;\n";
    }
    out << "                gk_value[gk_u][gk_k] = gk_src_ok ? *gk_from : gk_element{};\n"
        << "                gk_where[gk_u][gk_k] = gk_at_dst;\n"
        << "                gk_write[gk_u][gk_k] = gk_dst_ok;\n"
        << "            }\n"
        << "        }\n"
        << "#pragma unroll\n"
        << "        for (int gk_u = 0; gk_u < U; ++gk_u) {\n"
        << "            if (gk_base + (long long)gk_u * blockDim.x >= n) break;\n"
        << "#pragma unroll\n"
        << "            for (int gk_k = 0; gk_k < " << v << "; ++gk_k)\n"
        << "                if (gk_write[gk_u][gk_k])\n"
        << "                    ((gk_element*)gk_dst.e[gk_k])[gk_where[gk_u][gk_k]] = gk_value[gk_u][gk_k];\n"
        << "        }\n"
        << "    }\n"
        << "}\n";
    return out.str();
}

namespace {

// Each spec's kernel key, taken when the spec is first launched.
std::uint64_t key_of(const indexed_copy_spec& spec) {
    static std::mutex mutex;
    static std::map<std::tuple<int, int, int, int, int, bool, int>, std::uint64_t> keys;
    const auto index_code = [](const std::optional<dtype>& t) { return t ? static_cast<int>(*t) : -1; };
    const auto k = std::make_tuple(spec.word, spec.words, index_code(spec.source_index), index_code(spec.dest_index),
                                   spec.arrays, spec.offsets, spec.source_ndim);
    std::lock_guard lock(mutex);
    auto found = keys.find(k);
    if (found == keys.end())
        found = keys.emplace(k, detail::new_kernel_key()).first;
    return found->second;
}

// The widest word dividing the element size, every address and every used stride.
int word_for(std::int64_t element_size, std::span<const element_array> arrays, const gpukit::layout* strided) {
    for (int word : {16, 8, 4, 2}) {
        bool fits = element_size % word == 0;
        for (const element_array& a : arrays)
            fits = fits && a.data % static_cast<CUdeviceptr>(word) == 0;
        for (int k = 0; fits && strided && k < strided->ndim(); ++k)
            fits = strided->shape()[k] <= 1 || strided->strides()[k] % word == 0;
        if (fits)
            return word;
    }
    return 1;
}

void launch(const indexed_copy_spec& spec, std::span<const element_array> sources, std::span<const element_array> outs,
            const ndarray* source_indices, const ndarray* dest_indices, std::span<const std::int64_t> offsets,
            const gpukit::layout* strided_source, long long n, cuda::stream_view s) {
    const detail::cached_kernel k =
        detail::kernel(key_of(spec), "gk_indexed_copy", [&] { return indexed_copy_source(spec); });
    const auto count = static_cast<std::size_t>(spec.arrays);
    std::vector<std::int64_t> src(count), dst(count), src_n(count), dst_n(count), off(count);
    for (std::size_t j = 0; j < count; ++j) {
        src[j] = static_cast<std::int64_t>(sources[j].data);
        dst[j] = static_cast<std::int64_t>(outs[j].data);
        src_n[j] = sources[j].layout.size();
        dst_n[j] = outs[j].layout.size();
        off[j] = offsets.empty() ? 0 : offsets[j];
    }
    CUdeviceptr si = source_indices ? source_indices->data() : 0, di = dest_indices ? dest_indices->data() : 0;
    std::vector<std::int64_t> shape, strides;
    std::vector<void*> values{src.data(), dst.data(), src_n.data(), dst_n.data()};
    std::vector<std::size_t> sizes(4, count * sizeof(std::int64_t));
    if (spec.offsets) {
        values.push_back(off.data());
        sizes.push_back(count * sizeof(std::int64_t));
    }
    if (source_indices) {
        values.push_back(&si);
        sizes.push_back(sizeof si);
    }
    if (dest_indices) {
        values.push_back(&di);
        sizes.push_back(sizeof di);
    }
    if (strided_source) {
        shape = strided_source->shape();
        strides = strided_source->strides();
        values.push_back(shape.data());
        sizes.push_back(shape.size() * sizeof(std::int64_t));
        values.push_back(strides.data());
        sizes.push_back(strides.size() * sizeof(std::int64_t));
    }
    values.push_back(&n);
    sizes.push_back(sizeof n);
    const long long per_thread = spec.arrays == 1 ? positions_per_thread : 1;
    const auto config =
        cuda::launch_config().grid({detail::grid_for(k, n, per_thread)}).block({detail::block_size}).stream(s);
    cuda::launch_packed(*k.function, config, values.data(), sizes.data(), values.size());
}

void require_index(const ndarray& indices, const char* what) {
    if (!is_index_type(indices.type()))
        throw logic_error(std::string(what) + ": indices must be of an integer type or bool, got " +
                          std::string(name(indices.type())));
    if (!indices.layout().is_contiguous())
        throw logic_error(std::string(what) + ": the index array must be contiguous");
}

}  // namespace

void take(const element_array& source, const ndarray& indices, const element_array& out, cuda::stream_view s) {
    require_index(indices, "take");
    if (!indices.layout().is_c_contiguous() || !out.layout.is_c_contiguous() || out.layout.size() != indices.size())
        throw logic_error("take: the indices and the output must be C-contiguous, of one size");
    if (out.layout.itemsize() != source.layout.itemsize())
        throw logic_error("take: the output's elements differ in size from the source's");
    if (indices.size() == 0)
        return;
    const std::int64_t element = source.layout.itemsize();
    const bool flat = source.layout.is_c_contiguous();  // an empty source too: nothing is read
    const element_array arrays[] = {source, out};
    indexed_copy_spec spec;
    spec.word = word_for(element, arrays, flat ? nullptr : &source.layout);
    spec.words = static_cast<int>(element / spec.word);
    spec.source_index = indices.type();
    spec.source_ndim = flat ? 0 : source.layout.ndim();
    const element_array outs[] = {out};
    launch(spec, std::span(arrays, 1), outs, &indices, nullptr, {}, flat ? nullptr : &source.layout, indices.size(), s);
}

void indexed_copy(std::span<const element_array> sources, std::span<const element_array> outs,
                  const ndarray* source_indices, const ndarray* dest_indices, std::span<const std::int64_t> offsets,
                  cuda::stream_view s) {
    if (!source_indices && !dest_indices)
        throw logic_error("indexed copy: needs source or destination indices");
    if (sources.size() != outs.size() || sources.empty())
        throw logic_error("indexed copy: needs as many outputs as sources, at least one");
    if (!offsets.empty() && offsets.size() != sources.size())
        throw logic_error("indexed copy: needs one offset per source");
    const ndarray& any_index = source_indices ? *source_indices : *dest_indices;
    for (const ndarray* indices : {source_indices, dest_indices})
        if (indices) {
            require_index(*indices, "indexed copy");
            if (indices->size() != any_index.size())
                throw logic_error("indexed copy: the source and destination indices differ in size");
        }
    const long long n = any_index.size();
    const std::int64_t element = sources[0].layout.itemsize();
    for (std::size_t k = 0; k < sources.size(); ++k) {
        for (const element_array* a : {&sources[k], &outs[k]}) {
            if (a->layout.itemsize() != element)
                throw logic_error("indexed copy: every array must have elements of one size");
            if (!a->layout.is_contiguous())
                throw logic_error("indexed copy: every array must be contiguous, got " + a->layout.describe());
        }
        if ((!source_indices && sources[k].layout.size() < n) || (!dest_indices && outs[k].layout.size() < n))
            throw logic_error("indexed copy: an array read or written at every index position needs at least " +
                              std::to_string(n) + " elements");
    }
    if (n == 0)
        return;
    std::vector<element_array> all(sources.begin(), sources.end());
    all.insert(all.end(), outs.begin(), outs.end());
    indexed_copy_spec spec;
    spec.word = word_for(element, all, nullptr);
    spec.words = static_cast<int>(element / spec.word);
    spec.source_index = source_indices ? std::optional<dtype>(source_indices->type()) : std::nullopt;
    spec.dest_index = dest_indices ? std::optional<dtype>(dest_indices->type()) : std::nullopt;
    spec.offsets = !offsets.empty();
    for (std::size_t first = 0; first < sources.size(); first += max_indexed_arrays) {
        const std::size_t count = std::min<std::size_t>(max_indexed_arrays, sources.size() - first);
        spec.arrays = static_cast<int>(count);
        launch(spec, sources.subspan(first, count), outs.subspan(first, count), source_indices, dest_indices,
               offsets.empty() ? offsets : offsets.subspan(first, count), nullptr, n, s);
    }
}

}  // namespace gpukit::array
