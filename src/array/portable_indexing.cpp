// indexed_copy on the backend seam (indexing.hpp): one kernel per element size and index
// types, in OpenCL C or CUDA C, copying each element as one word of its size.
#include "gpukit/array/indexing.hpp"

#include "kernel_cache.hpp"
#include "portable_kernel.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace gpukit::array {

namespace {

// A type of `size` bytes an element is copied as.
std::string word_type(std::size_t size) {
    switch (size) {
    case 1:
        return "uchar";
    case 2:
        return "unsigned short";
    case 4:
        return "unsigned int";
    case 8:
        return "ulong";
    case 16:
        return "gk_word16";
    }
    throw logic_error("indexed copy: elements of " + std::to_string(size) +
                      " bytes are not supported (1, 2, 4, 8 or 16)");
}

std::string index_type(dtype t, kernel_language language) {
    return std::string(language == kernel_language::cuda ? c_type(t) : opencl_element_type(t));
}

int index_code(const std::optional<dtype>& t) { return t ? static_cast<int>(*t) : -1; }

std::uint64_t key_of(std::size_t element_size, std::optional<dtype> source_index, std::optional<dtype> dest_index) {
    static std::mutex mutex;
    static std::map<std::tuple<std::size_t, int, int>, std::uint64_t> keys;
    const auto k = std::make_tuple(element_size, index_code(source_index), index_code(dest_index));
    std::lock_guard lock(mutex);
    auto found = keys.find(k);
    if (found == keys.end())
        found = keys.emplace(k, detail::new_kernel_key()).first;
    return found->second;
}

void require_integer_index(const ndarray& a, const char* what) {
    const dtype_kind k = kind(a.type());
    if (k != dtype_kind::signed_int && k != dtype_kind::unsigned_int && k != dtype_kind::boolean)
        throw logic_error(std::string("indexed copy: the ") + what + " must hold integers, got " +
                          std::string(name(a.type())));
}

}  // namespace

std::string portable_indexed_copy_source(std::size_t element_size, std::optional<dtype> source_index,
                                         std::optional<dtype> dest_index, kernel_language language) {
    const std::string word = word_type(element_size);
    text_builder out;
    out << detail::language_words(language) << "typedef struct { ulong a, b; } gk_word16;\n"
        << "GK_KERNEL void gk_gather_scatter(";
    detail::declare_memory(out, word, "gk_source", language);
    detail::declare_memory(out, word, "gk_out", language);
    if (source_index)
        detail::declare_memory(out, index_type(*source_index, language), "gk_source_index", language);
    if (dest_index)
        detail::declare_memory(out, index_type(*dest_index, language), "gk_dest_index", language);
    out << "long n, long source_size, long out_size, long offset) {\n";
    detail::bind_memory(out, word, "gk_source", language);
    detail::bind_memory(out, word, "gk_out", language);
    if (source_index)
        detail::bind_memory(out, index_type(*source_index, language), "gk_source_index", language);
    if (dest_index)
        detail::bind_memory(out, index_type(*dest_index, language), "gk_dest_index", language);
    out << "    for (long i = GK_GID; i < n; i += GK_GSIZE) {\n"
        << "        long s = " << (source_index ? "(long)gk_source_index[i]" : "i") << " + offset;\n"
        << "        long d = " << (dest_index ? "(long)gk_dest_index[i]" : "i") << ";\n"
        << "        if (s < 0) s += source_size;\n"
           "        if (d < 0) d += out_size;\n"
           "        if (d < 0 || d >= out_size) continue;\n"
        << "        " << word << " v;\n"
        << (element_size == 16 ? "        v.a = 0; v.b = 0;\n" : "        v = 0;\n")
        << "        if (s >= 0 && s < source_size) v = gk_source[s];\n"
           "        gk_out[d] = v;\n"
           "    }\n}\n";
    return out.str();
}

void indexed_copy(std::span<const ndarray> sources, std::span<const ndarray> outs, const ndarray* source_indices,
                  const ndarray* dest_indices, std::span<const std::int64_t> offsets, backend& b) {
    if (sources.size() != outs.size())
        throw logic_error("indexed copy: " + std::to_string(sources.size()) + " sources for " +
                          std::to_string(outs.size()) + " outputs");
    if (!offsets.empty() && offsets.size() != sources.size())
        throw logic_error("indexed copy: " + std::to_string(offsets.size()) + " offsets for " +
                          std::to_string(sources.size()) + " sources");
    if (sources.empty())
        return;
    const auto own = [&](const ndarray& a, const std::string& what) {
        if (a.buffer()->space != b.space())
            throw logic_error("indexed copy: the " + what + " is not memory of " + b.name());
        if (!a.layout().is_contiguous())
            throw logic_error("indexed copy: the " + what + " must be contiguous, got " + a.layout().describe());
    };
    std::int64_t n = -1;
    for (const ndarray* index : {source_indices, dest_indices}) {
        if (!index)
            continue;
        require_integer_index(*index, index == source_indices ? "source indices" : "destination indices");
        own(*index, index == source_indices ? "source index array" : "destination index array");
        if (n >= 0 && index->size() != n)
            throw logic_error("indexed copy: the source and destination index arrays differ in size");
        n = index->size();
    }
    const std::size_t element_size = size_of(sources.front().type());
    for (std::size_t k = 0; k < sources.size(); ++k) {
        own(sources[k], "source " + std::to_string(k));
        own(outs[k], "output " + std::to_string(k));
        if (size_of(sources[k].type()) != element_size || size_of(outs[k].type()) != element_size)
            throw logic_error("indexed copy: every source and output must have elements of one size");
    }
    const std::optional<dtype> source_type = source_indices ? std::optional(source_indices->type()) : std::nullopt;
    const std::optional<dtype> dest_type = dest_indices ? std::optional(dest_indices->type()) : std::nullopt;
    const loaded_kernel k = b.kernel(key_of(element_size, source_type, dest_type), "gk_gather_scatter", [&] {
        return portable_indexed_copy_source(element_size, source_type, dest_type, b.language());
    });
    const unsigned group = std::min(b.preferred_group_size(), k.max_group);
    for (std::size_t pair = 0; pair < sources.size(); ++pair) {
        const std::int64_t count = n >= 0 ? n : sources[pair].size();
        if (count == 0)
            continue;
        const std::int64_t source_size = sources[pair].size(), out_size = outs[pair].size();
        const std::int64_t offset = offsets.empty() ? 0 : offsets[pair];
        std::vector<kernel_argument> args{kernel_argument::memory(*sources[pair].buffer(),
                                                                  sources[pair].layout().offset()),
                                          kernel_argument::memory(*outs[pair].buffer(), outs[pair].layout().offset())};
        if (source_indices)
            args.push_back(kernel_argument::memory(*source_indices->buffer(), source_indices->layout().offset()));
        if (dest_indices)
            args.push_back(kernel_argument::memory(*dest_indices->buffer(), dest_indices->layout().offset()));
        for (const std::int64_t* v : {&count, &source_size, &out_size, &offset})
            args.push_back(kernel_argument::bytes(v, sizeof *v));
        const unsigned groups =
            static_cast<unsigned>(std::clamp<long long>((count + group - 1) / group, 1, looping_grid_limit(k)));
        b.launch(k, {groups, 1, group}, args);
    }
}

}  // namespace gpukit::array
