// Bitonic sorting along an axis (sort.hpp), one kernel in OpenCL C or CUDA C per key type and
// value size, launched once per compare-and-exchange pass.
//
// With p = the smallest power of two >= n, the passes are, for k = 2, 4, ..., p: a "mirror"
// pass comparing i with i ^ (k - 1) inside each block of k (which merges two sorted halves
// into a bitonic sequence sorted in place by the next passes), then for j = k/4, ..., 1 a pass
// comparing i with i ^ j. Every pass puts the smaller key first, and a pair whose second
// index is n or beyond is left alone: those elements behave as keys larger than all, so
// lengths that are not powers of two sort without padding.
#include "gpukit/array/sort.hpp"

#include "kernel_cache.hpp"
#include "portable_kernel.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace gpukit::array {

namespace {

// The most axes a sorted array may have: the other axes' extents and strides come by value.
constexpr int max_axes = 8;

struct other_axes {
    std::int64_t extent[max_axes - 1];
    std::int64_t key_stride[max_axes - 1];
    std::int64_t value_stride[max_axes - 1];
};

// A type of `size` bytes to move a value with ("" for no values).
std::string value_word(std::size_t size) {
    switch (size) {
    case 0:
        return "";
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
    return {};
}

}  // namespace

std::string sort_source(dtype key, std::size_t value_size, kernel_language language) {
    text_builder out;
    const bool cuda = language == kernel_language::cuda;
    if (!cuda && key == dtype::float64)
        out << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    out << detail::language_words(language) << "typedef " << (cuda ? c_type(key) : opencl_element_type(key))
        << " gk_key_t;\n"
        << "typedef struct { ulong a, b; } gk_word16;\n"
        << "typedef struct { long extent[" << max_axes - 1 << "], key_stride[" << max_axes - 1 << "], value_stride["
        << max_axes - 1 << "]; } gk_other_axes;\n";
    if (kind(key) == dtype_kind::floating)
        out << "#define GK_GREATER(a, b) ((a) > (b) || (isnan(a) && !isnan(b)))\n";
    else
        out << "#define GK_GREATER(a, b) ((a) > (b))\n";
    const std::string word = value_word(value_size);
    out << "GK_KERNEL void gk_sort_pass(";
    detail::declare_memory(out, "char", "gk_keys", language);
    if (!word.empty())
        detail::declare_memory(out, "char", "gk_values", language);
    out << "long n, long lines, int others, gk_other_axes gk_axes, long key_step, long value_step, long k, int mirror) "
           "{\n";
    detail::bind_memory(out, "char", "gk_keys", language);
    if (!word.empty())
        detail::bind_memory(out, "char", "gk_values", language);
    out << "    for (long t = GK_GID; t < lines * n; t += GK_GSIZE) {\n"
           "        const long i = t % n;\n"
           "        const long l = mirror ? (i ^ (k - 1)) : (i ^ k);\n"
           "        if (l <= i || l >= n) continue;\n"
           "        long line = t / n, key_at = 0, value_at = 0;\n"
           "        for (int d = others - 1; d >= 0; --d) {\n"
           "            const long c = line % gk_axes.extent[d];\n"
           "            line /= gk_axes.extent[d];\n"
           "            key_at += c * gk_axes.key_stride[d];\n"
           "            value_at += c * gk_axes.value_stride[d];\n"
           "        }\n"
           "        GK_GLOBAL gk_key_t* a = (GK_GLOBAL gk_key_t*)(gk_keys + key_at + i * key_step);\n"
           "        GK_GLOBAL gk_key_t* b = (GK_GLOBAL gk_key_t*)(gk_keys + key_at + l * key_step);\n"
           "        const gk_key_t ka = *a, kb = *b;\n"
           "        if (!GK_GREATER(ka, kb)) continue;\n"
           "        *a = kb; *b = ka;\n";
    if (!word.empty())
        out << "        GK_GLOBAL " << word << "* va = (GK_GLOBAL " << word
            << "*)(gk_values + value_at + i * value_step);\n"
            << "        GK_GLOBAL " << word << "* vb = (GK_GLOBAL " << word
            << "*)(gk_values + value_at + l * value_step);\n"
            << "        const " << word << " v = *va; *va = *vb; *vb = v;\n";
    out << "    }\n}\n";
    return out.str();
}

namespace {

std::uint64_t key_of(dtype key, std::size_t value_size) {
    static std::mutex mutex;
    static std::map<std::tuple<dtype, std::size_t>, std::uint64_t> keys;
    std::lock_guard lock(mutex);
    auto found = keys.find({key, value_size});
    if (found == keys.end())
        found = keys.emplace(std::tuple{key, value_size}, detail::new_kernel_key()).first;
    return found->second;
}

}  // namespace

void sort(const ndarray& keys, const ndarray* values, int axis, backend& b) {
    const int ndim = keys.ndim();
    if (axis < -ndim || axis >= std::max(ndim, 1) || ndim == 0)
        throw logic_error("sort: axis " + std::to_string(axis) + " is out of range for an array of " +
                          std::to_string(ndim) + " axes");
    if (axis < 0)
        axis += ndim;
    if (ndim > max_axes)
        throw logic_error("sort: arrays of at most " + std::to_string(max_axes) + " axes, got " + std::to_string(ndim));
    const dtype_kind key_kind = kind(keys.type());
    if (key_kind == dtype_kind::complex || key_kind == dtype_kind::boolean)
        throw logic_error("sort: keys of " + std::string(name(keys.type())) +
                          " are not supported (integer and floating-point keys are)");
    if (std::string problem = b.type_problem(keys.type()); !problem.empty())
        throw logic_error("sort: " + problem);
    const auto own = [&](const ndarray& a, const char* what) {
        if (a.buffer()->space != b.space())
            throw logic_error(std::string("sort: the ") + what + " are not memory of " + b.name());
    };
    own(keys, "keys");
    std::size_t value_size = 0;
    if (values) {
        own(*values, "values");
        if (values->shape() != keys.shape())
            throw logic_error("sort: the values' shape differs from the keys'");
        value_size = size_of(values->type());
    }
    const std::int64_t n = keys.shape()[axis];
    if (n < 2 || keys.size() == 0)
        return;

    other_axes axes{};
    int others = 0;
    for (int d = 0; d < ndim; ++d) {
        if (d == axis)
            continue;
        axes.extent[others] = keys.shape()[d];
        axes.key_stride[others] = keys.layout().strides()[d];
        axes.value_stride[others] = values ? values->layout().strides()[d] : 0;
        ++others;
    }
    const std::int64_t lines = keys.size() / n;
    const std::int64_t key_step = keys.layout().strides()[axis];
    const std::int64_t value_step = values ? values->layout().strides()[axis] : 0;

    const loaded_kernel k = b.kernel(key_of(keys.type(), value_size), "gk_sort_pass",
                                     [&] { return sort_source(keys.type(), value_size, b.language()); });
    const unsigned group = std::min(b.preferred_group_size(), k.max_group);
    const long long work = lines * n;
    const unsigned groups =
        static_cast<unsigned>(std::clamp<long long>((work + group - 1) / group, 1, looping_grid_limit(k)));
    const auto pass = [&](std::int64_t step, int mirror) {
        std::vector<kernel_argument> args{kernel_argument::memory(*keys.buffer(), keys.layout().offset())};
        if (values)
            args.push_back(kernel_argument::memory(*values->buffer(), values->layout().offset()));
        for (const kernel_argument& a :
             {kernel_argument::bytes(&n, sizeof n), kernel_argument::bytes(&lines, sizeof lines),
              kernel_argument::bytes(&others, sizeof others), kernel_argument::bytes(&axes, sizeof axes),
              kernel_argument::bytes(&key_step, sizeof key_step),
              kernel_argument::bytes(&value_step, sizeof value_step), kernel_argument::bytes(&step, sizeof step),
              kernel_argument::bytes(&mirror, sizeof mirror)})
            args.push_back(a);
        b.launch(k, {groups, 1, group}, args);
    };
    for (std::int64_t block = 2; block / 2 < n; block *= 2) {
        pass(block, 1);
        for (std::int64_t j = block / 4; j >= 1; j /= 2)
            pass(j, 0);
    }
}

}  // namespace gpukit::array
