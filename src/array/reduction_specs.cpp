// numpy's reductions (sum, min, max, dot, any, all and their subset forms) as reduction specs.
#include "gpukit/array/reduction.hpp"

#include "opencl_complex.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"

#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace gpukit::array {

namespace {

using role = reduction_param_kind;

enum class operation : std::uint32_t { sum, min, max, dot, any, all, subset_sum, subset_min, subset_max, subset_dot };

// Every spec made, by operation and dtypes: made on first use, kept for the life of the
// process (launches find their kernels by the spec's key).
const reduction_spec& memoized(operation op, std::initializer_list<dtype> types, kernel_language language,
                               const std::function<reduction_spec()>& make) {
    // Four bits per dtype (there are fewer than 16), at most four dtypes, then the operation,
    // then the language.
    std::uint32_t key = static_cast<std::uint32_t>(op) << 16 | static_cast<std::uint32_t>(language) << 24;
    int shift = 0;
    for (dtype t : types) {
        key |= static_cast<std::uint32_t>(t) << shift;
        shift += 4;
    }
    static std::mutex mutex;
    static std::unordered_map<std::uint32_t, std::unique_ptr<const reduction_spec>> specs;
    std::lock_guard lock(mutex);
    std::unique_ptr<const reduction_spec>& spec = specs[key];
    if (!spec)
        spec = std::make_unique<const reduction_spec>(make());
    return *spec;
}

// The name of `t` in `language`'s kernels.
std::string_view type_name_in(dtype t, kernel_language language) {
    return language == kernel_language::cuda ? c_type(t) : opencl_element_type(t);
}

// `expression` converted to `to`, C-style.
std::string converted(dtype to, const std::string& expression, kernel_language language) {
    text_builder s;
    s << "(" << type_name_in(to, language) << ")(" << expression << ")";
    return s.str();
}

// Sums and dot products accumulate in the widest type of their result's kind.
dtype sum_accumulator(dtype out) {
    switch (kind(out)) {
    case dtype_kind::floating:
        return dtype::float64;
    case dtype_kind::complex:
        return dtype::complex128;
    case dtype_kind::unsigned_int:
        return dtype::uint64;
    default:
        return dtype::int64;  // signed integers and bool (a sum of bools is true when any is)
    }
}

// The highest or lowest value of real type `t` in OpenCL C (whose 64-bit integer literals
// take L, and which has INFINITY).
std::string opencl_limit_literal(dtype t, bool highest) {
    switch (t) {
    case dtype::float32:
        return highest ? "INFINITY" : "(-INFINITY)";
    case dtype::float64:
        return highest ? "((double)INFINITY)" : "(-(double)INFINITY)";
    case dtype::int64:
        return highest ? "9223372036854775807L" : "(-9223372036854775807L - 1)";
    case dtype::uint64:
        return highest ? "18446744073709551615UL" : "0UL";
    default:
        return {};
    }
}

// The highest or lowest value of real type `t`: the neutral value of min or max.
std::string limit_literal(dtype t, bool highest, kernel_language language = kernel_language::cuda) {
    if (language == kernel_language::opencl)
        if (std::string literal = opencl_limit_literal(t, highest); !literal.empty())
            return literal;
    switch (t) {
    case dtype::float32:
        return highest ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
    case dtype::float64:
        return highest ? "__longlong_as_double(0x7ff0000000000000LL)" : "__longlong_as_double(0xfff0000000000000LL)";
    case dtype::bool_:
        return highest ? "true" : "false";
    case dtype::int8:
        return highest ? "127" : "(-128)";
    case dtype::int16:
        return highest ? "32767" : "(-32768)";
    case dtype::int32:
        return highest ? "2147483647" : "(-2147483647 - 1)";
    case dtype::int64:
        return highest ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)";
    case dtype::uint8:
        return highest ? "255u" : "0u";
    case dtype::uint16:
        return highest ? "65535u" : "0u";
    case dtype::uint32:
        return highest ? "4294967295u" : "0u";
    case dtype::uint64:
        return highest ? "18446744073709551615ULL" : "0ULL";
    case dtype::complex64:
        return "gk_complex<float>(" + limit_literal(dtype::float32, highest) + ", " +
               limit_literal(dtype::float32, highest) + ")";
    case dtype::complex128:
        return "gk_complex<double>(" + limit_literal(dtype::float64, highest) + ", " +
               limit_literal(dtype::float64, highest) + ")";
    }
    return {};
}

// numpy's order of complex values (by real part, then imaginary part), where NaN in either
// part wins, as NaN does for real values.
const char* const complex_order_preamble = R"(
template <class T> __device__ __forceinline__ bool gk_is_nan(gk_complex<T> z) { return z.re != z.re || z.im != z.im; }
template <class T> __device__ __forceinline__ bool gk_less(gk_complex<T> x, gk_complex<T> y) {
    return x.re < y.re || (x.re == y.re && x.im < y.im);
}
)";

// An index of a subset, wrapped into [0, size) as Python's modulo does: -1 is the last element,
// and no index reads outside the array.
const char* const wrap_preamble = R"(
__device__ __forceinline__ long long gk_wrap(long long j, long long size) {
    return j >= 0 && j < size ? j : (j % size + size) % size;
}
)";
const char* const opencl_wrap_preamble = R"(
long gk_wrap(long j, long size) { return j >= 0 && j < size ? j : (j % size + size) % size; }
)";

const char* wrap_preamble_in(kernel_language language) {
    return language == kernel_language::cuda ? wrap_preamble : opencl_wrap_preamble;
}

// The reduce expression and preamble of min (is_min) or max over accumulators of type t: the
// smaller (larger) value wins, and NaN wins over anything.
std::pair<std::string, std::string> extremum(dtype t, bool is_min) {
    if (kind(t) == dtype_kind::complex)
        return {std::string("(gk_is_nan(a) || (!gk_is_nan(b) && gk_less(") + (is_min ? "a, b" : "b, a") + "))) ? a : b",
                complex_order_preamble};
    // a != a is true only for NaN.
    return {std::string("(a != a || a ") + (is_min ? "<" : ">") + " b) ? a : b", {}};
}

// The spec `name` of min (is_min) or max over the values of type t that `map` reads from
// `params` (`preamble` defines what `map` uses). An empty min or max is an error, as in numpy.
reduction_spec extremum_spec(const char* name, std::vector<reduction_param> params, dtype t, bool is_min,
                             std::string map, kernel_language language, const std::string& preamble = {}) {
    auto [reduce, compare_preamble] = extremum(t, is_min);
    return reduction_spec(name, std::move(params), t, t, limit_literal(t, is_min, language), std::move(map),
                          std::move(reduce), preamble + compare_preamble, empty_reduction::error);
}

void require_index_type(dtype index) {
    if (kind(index) != dtype_kind::signed_int && kind(index) != dtype_kind::unsigned_int)
        throw logic_error("subset reductions: the subset must hold integers, got " + std::string(name(index)));
}

// The subset's parameters: the index array, the gathered arrays, their size.
std::vector<reduction_param> subset_params(dtype index, std::initializer_list<std::pair<const char*, dtype>> gathered) {
    std::vector<reduction_param> params{{"subset", index, role::element}};
    for (const auto& [gathered_name, t] : gathered)
        params.push_back({gathered_name, t, role::pointer});
    params.push_back({"size", dtype::int64, role::scalar});
    return params;
}

// name[j] of a gathered array at the subset's index i.
std::string gathered(const char* array, kernel_language language) {
    return std::string(array) + "[gk_wrap((" + std::string(type_name_in(dtype::int64, language)) + ")subset[i], size)]";
}

// OpenCL C has no complex operators: where a complex type takes part, a sum or dot product is
// written with opencl_complex.hpp's helpers, whose library makes the preamble.
bool any_complex(std::initializer_list<dtype> types) {
    return std::any_of(types.begin(), types.end(), [](dtype t) { return kind(t) == dtype_kind::complex; });
}

std::string complex_preamble(std::initializer_list<dtype> types) {
    return any_complex(types) ? detail::opencl_complex_library() : std::string();
}

// `expression` (of type `from`) converted to `to`: C-style, or in OpenCL C through the
// complex helpers where a complex type takes part.
std::string converted_from(dtype to, dtype from, const std::string& expression, kernel_language language) {
    if (language == kernel_language::opencl && any_complex({to, from}))
        return detail::opencl_convert(to, from, expression);
    return converted(to, expression, language);
}

}  // namespace

const reduction_spec& sum_spec(dtype t, kernel_language language) { return sum_spec(t, sum_type(t), language); }

const reduction_spec& sum_spec(dtype t, dtype out, kernel_language language) {
    return memoized(operation::sum, {t, out}, language, [&] {
        const dtype acc = sum_accumulator(out);
        if (language == kernel_language::opencl && kind(acc) == dtype_kind::complex)
            return reduction_spec("sum", {{"a", t, role::element}}, acc, out,
                                  detail::opencl_complex_function(acc, "new") + "(0, 0)",
                                  converted_from(acc, t, "a[i]", language),
                                  detail::opencl_complex_function(acc, "add") + "(a, b)",
                                  complex_preamble({t, out, acc}));
        return reduction_spec("sum", {{"a", t, role::element}}, acc, out, "0", converted(acc, "a[i]", language),
                              "a + b");
    });
}

// min and max of complex numbers in OpenCL C are not written yet.
void require_real_extremum(dtype t, kernel_language language, const char* what) {
    if (language == kernel_language::opencl && kind(t) == dtype_kind::complex)
        throw logic_error(std::string(what) + " of " + std::string(name(t)) +
                          " arrays on OpenCL is not supported yet (numpy orders complex numbers by real part, "
                          "then imaginary part: reduce those apart)");
}

const reduction_spec& min_spec(dtype t, kernel_language language) {
    require_real_extremum(t, language, "min");
    return memoized(operation::min, {t}, language, [&] {
        return extremum_spec("min", {{"a", t, role::element}}, t, true, "a[i]", language);
    });
}

const reduction_spec& max_spec(dtype t, kernel_language language) {
    require_real_extremum(t, language, "max");
    return memoized(operation::max, {t}, language, [&] {
        return extremum_spec("max", {{"a", t, role::element}}, t, false, "a[i]", language);
    });
}

const reduction_spec& dot_spec(dtype a, dtype b, kernel_language language) {
    return dot_spec(a, b, promote(a, b), language);
}

const reduction_spec& dot_spec(dtype a, dtype b, dtype out, kernel_language language) {
    return memoized(operation::dot, {a, b, out}, language, [&] {
        const dtype acc = sum_accumulator(out);
        if (language == kernel_language::opencl && kind(acc) == dtype_kind::complex)
            return reduction_spec("dot", {{"a", a, role::element}, {"b", b, role::element}}, acc, out,
                                  detail::opencl_complex_function(acc, "new") + "(0, 0)",
                                  detail::opencl_complex_function(acc, "mul") + "(" +
                                      converted_from(acc, a, "a[i]", language) + ", " +
                                      converted_from(acc, b, "b[i]", language) + ")",
                                  detail::opencl_complex_function(acc, "add") + "(a, b)",
                                  complex_preamble({a, b, out, acc}));
        return reduction_spec("dot", {{"a", a, role::element}, {"b", b, role::element}}, acc, out, "0",
                              converted(acc, "a[i]", language) + " * " + converted(acc, "b[i]", language), "a + b");
    });
}

const reduction_spec& any_spec(dtype t, kernel_language language) {
    return memoized(operation::any, {t}, language, [&] {
        return reduction_spec("any", {{"a", t, role::element}}, dtype::bool_, dtype::bool_, "false", "(bool)(a[i])",
                              "a || b");
    });
}

const reduction_spec& all_spec(dtype t, kernel_language language) {
    return memoized(operation::all, {t}, language, [&] {
        return reduction_spec("all", {{"a", t, role::element}}, dtype::bool_, dtype::bool_, "true", "(bool)(a[i])",
                              "a && b");
    });
}

const reduction_spec& subset_sum_spec(dtype index, dtype t, dtype out, kernel_language language) {
    require_index_type(index);
    return memoized(operation::subset_sum, {index, t, out}, language, [&] {
        const dtype acc = sum_accumulator(out);
        return reduction_spec("subset_sum", subset_params(index, {{"a", t}}), acc, out, "0",
                              converted(acc, gathered("a", language), language), "a + b", wrap_preamble_in(language));
    });
}

const reduction_spec& subset_min_spec(dtype index, dtype t, kernel_language language) {
    require_index_type(index);
    return memoized(operation::subset_min, {index, t}, language, [&] {
        return extremum_spec("subset_min", subset_params(index, {{"a", t}}), t, true, gathered("a", language), language,
                             wrap_preamble_in(language));
    });
}

const reduction_spec& subset_max_spec(dtype index, dtype t, kernel_language language) {
    require_index_type(index);
    return memoized(operation::subset_max, {index, t}, language, [&] {
        return extremum_spec("subset_max", subset_params(index, {{"a", t}}), t, false, gathered("a", language),
                             language, wrap_preamble_in(language));
    });
}

const reduction_spec& subset_dot_spec(dtype index, dtype a, dtype b, dtype out, kernel_language language) {
    require_index_type(index);
    return memoized(operation::subset_dot, {index, a, b, out}, language, [&] {
        const dtype acc = sum_accumulator(out);
        return reduction_spec("subset_dot", subset_params(index, {{"a", a}, {"b", b}}), acc, out, "0",
                              converted(acc, gathered("a", language), language) + " * " +
                                  converted(acc, gathered("b", language), language),
                              "a + b", wrap_preamble_in(language));
    });
}

reduction_op reduction_op_from_name(std::string_view name) {
    static constexpr std::pair<std::string_view, reduction_op> names[] = {{"sum", reduction_op::sum},
                                                                          {"min", reduction_op::min},
                                                                          {"max", reduction_op::max},
                                                                          {"dot", reduction_op::dot},
                                                                          {"any", reduction_op::any},
                                                                          {"all", reduction_op::all}};
    for (const auto& [n, op] : names)
        if (n == name)
            return op;
    throw std::invalid_argument("reduction must be sum, min, max, dot, any or all, got " + std::string(name));
}

const reduction_spec& reduction_spec_for(reduction_op op, std::string_view what, dtype a, std::optional<dtype> b,
                                         std::optional<dtype> index, std::optional<dtype> out,
                                         kernel_language language) {
    const std::string name(what);
    if ((op == reduction_op::dot) != b.has_value())
        throw logic_error(name + (op == reduction_op::dot ? " needs two arrays" : " takes one array"));
    if (out && op != reduction_op::sum && op != reduction_op::dot)
        throw logic_error(name + " has no dtype= (its result has the input's dtype)");
    switch (op) {
    case reduction_op::sum: {
        const dtype result = out ? *out : sum_type(a);
        return index ? subset_sum_spec(*index, a, result, language) : sum_spec(a, result, language);
    }
    case reduction_op::dot: {
        const dtype result = out ? *out : promote(a, *b);
        return index ? subset_dot_spec(*index, a, *b, result, language) : dot_spec(a, *b, result, language);
    }
    case reduction_op::min:
        return index ? subset_min_spec(*index, a, language) : min_spec(a, language);
    case reduction_op::max:
        return index ? subset_max_spec(*index, a, language) : max_spec(a, language);
    case reduction_op::any:
    case reduction_op::all:
        if (index)
            throw logic_error(name + " has no subset form");
        return op == reduction_op::any ? any_spec(a, language) : all_spec(a, language);
    }
    throw logic_error("unknown reduction " + name);
}

}  // namespace gpukit::array
