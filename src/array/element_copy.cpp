#include "gpukit/array/element_copy.hpp"

#include "gpukit/array/expression.hpp"
#include "gpukit/array/pitched_copy.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace gpukit::array {

namespace {

dtype word_dtype(std::int64_t word) {
    switch (word) {
    case 1:
        return dtype::uint8;
    case 2:
        return dtype::uint16;
    case 4:
        return dtype::uint32;
    default:
        return dtype::uint64;
    }
}

// `a` as an ndarray of words of `word` bytes (borrowing its memory).
ndarray words_of(const element_array& a, std::int64_t word) {
    const gpukit::layout l =
        as_words(gpukit::layout(a.layout.shape(), a.layout.strides(), a.layout.itemsize(), 0), word);
    const auto [low, high] = l.byte_extent();
    return ndarray(borrow(a.data + static_cast<CUdeviceptr>(low), static_cast<std::size_t>(high - low)),
                   word_dtype(word), gpukit::layout(l.shape(), l.strides(), l.itemsize(), -low));
}

std::int64_t common_word(const element_array& a, const element_array& b) {
    return std::min(word_size(a.layout, a.data), word_size(b.layout, b.data));
}

}  // namespace

void copy_elements(const element_array& dst, const element_array& src, cuda::stream_view s) {
    if (dst.layout.shape() != src.layout.shape() || dst.layout.itemsize() != src.layout.itemsize())
        throw logic_error("copy_elements: the arrays differ (" + dst.layout.describe() + " and " +
                          src.layout.describe() + ")");
    if (src.layout.size() == 0)
        return;
    if (const auto plan = plan_pitched_copy(dst.layout, src.layout);
        plan && (plan->dimensions() == 1 || plan->width_in_bytes >= min_pitched_row_bytes)) {
        run_pitched_copy(*plan, {false, dst.data, nullptr}, {false, src.data, nullptr}, true, s);
        return;
    }
    const std::int64_t word = common_word(dst, src);
    const dtype t = word_dtype(word);
    const elementwise_spec& spec = expression_kernel(expression::unary(unary_op::cast, expression::array(0, t), t, t));
    const elementwise_arg args[] = {words_of(src, word), words_of(dst, word)};
    run(spec, args, s);
}

const elementwise_spec& fill_words_spec(dtype word, int words) {
    if (words < 1 || words > max_fill_words || kind(word) != dtype_kind::unsigned_int)
        throw logic_error("fill_words_spec: " + std::to_string(words) + " words of " + std::string(name(word)) +
                          "; expected 1 to " + std::to_string(max_fill_words) + " unsigned integer words");
    static std::mutex mutex;
    static std::map<std::pair<dtype, int>, std::unique_ptr<const elementwise_spec>> specs;
    std::lock_guard lock(mutex);
    auto& spec = specs[{word, words}];
    if (!spec) {
        std::vector<param> params;
        text_builder operation;  // z[i] = w0, or with an array of the words: z[i] = gk_w[i % words]
        if (words > 1)
            operation << "const " << c_type(word) << " gk_w[" << words << "] = {";
        for (int j = 0; j < words; ++j) {
            text_builder name;
            name << 'w' << j;
            params.push_back({name.str(), word, param_kind::scalar});
            if (words > 1)
                operation << (j ? ", " : "") << name.str();
        }
        params.push_back({"z", word, param_kind::output});
        if (words > 1)
            operation << "};\nz[i] = gk_w[i % " << words << "]";
        else
            operation << "z[i] = w0";
        spec = std::make_unique<const elementwise_spec>("gk_fill_words", std::move(params), operation.str());
    }
    return *spec;
}

void fill_elements(const element_array& dst, std::span<const std::byte> pattern, cuda::stream_view s) {
    const std::int64_t element = dst.layout.itemsize();
    if (static_cast<std::int64_t>(pattern.size()) != element)
        throw logic_error("fill_elements: a pattern of " + std::to_string(pattern.size()) + " bytes for " +
                          std::to_string(element) + "-byte elements");
    const std::int64_t word = word_size(dst.layout, dst.data);
    const auto words = static_cast<int>(element / word);
    if (words > max_fill_words)
        throw logic_error("fill_elements: elements of " + std::to_string(element) + " bytes need " +
                          std::to_string(words) + " words of " + std::to_string(word) + " bytes; at most " +
                          std::to_string(max_fill_words) + " are supported");
    if (dst.layout.size() == 0)
        return;
    const elementwise_spec& spec = fill_words_spec(word_dtype(word), words);
    std::vector<elementwise_arg> args;
    for (int j = 0; j < words; ++j) {
        scalar_value v;
        std::memcpy(v.bytes.data(), pattern.data() + j * word, static_cast<std::size_t>(word));
        v.size = static_cast<std::size_t>(word);
        args.emplace_back(v);
    }
    args.emplace_back(words_of(dst, word));
    run(spec, args, s);
}

const elementwise_spec& arange_spec(dtype t) {
    static std::mutex mutex;
    static std::array<std::unique_ptr<const elementwise_spec>, 13> specs;
    const std::lock_guard lock(mutex);
    auto& spec = specs[static_cast<std::size_t>(t)];
    if (!spec)
        spec = std::make_unique<const elementwise_spec>("gk_arange",
                                                        std::vector<param>{{"start", t, param_kind::scalar},
                                                                           {"step", t, param_kind::scalar},
                                                                           {"z", t, param_kind::output}},
                                                        "z[i] = start + (" + std::string(c_type(t)) + ")i * step");
    return *spec;
}

}  // namespace gpukit::array
