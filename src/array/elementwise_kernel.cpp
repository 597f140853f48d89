#include "gpukit/array/elementwise_kernel.hpp"

#include "kernel_cache.hpp"
#include "kernel_text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/cuda/launch.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <set>

namespace gpukit::array {

namespace {

// Names the generated kernel declares itself, besides the loop bound.
constexpr std::array<const char*, 4> body_names = {"i", "tid", "total_threads", "cta_start"};
constexpr std::array<const char*, 3> range_names = {"start", "stop", "step"};

const kernel_parameter* find_parameter(const elementwise_kernel_spec& spec, const std::string& name) {
    for (const kernel_parameter& p : spec.params)
        if (p.name == name)
            return &p;
    return nullptr;
}

// Whether the caller declared `n` (an integer scalar) to bound the plain loop.
bool declares_n(const elementwise_kernel_spec& spec) { return find_parameter(spec, "n") != nullptr; }

void check(const elementwise_kernel_spec& spec, bool use_range) {
    const std::string where = "ElementwiseKernel '" + spec.name + "': ";
    detail::require_kernel_name(spec.name, where + "the name ");
    std::set<std::string> seen;
    bool any_array = false;
    for (const kernel_parameter& p : spec.params) {
        detail::require_kernel_name(p.name, where + "parameter name ");
        if (!seen.insert(p.name).second)
            throw logic_error(where + "parameter '" + p.name + "' is declared twice");
        for (const char* reserved : body_names)
            if (p.name == reserved)
                throw logic_error(where + "parameter '" + p.name +
                                  "' clashes with the kernel's own variable of "
                                  "that name (i, tid, total_threads and cta_start are taken)");
        if (use_range)
            for (const char* reserved : range_names)
                if (p.name == reserved)
                    throw logic_error(where + "parameter '" + p.name +
                                      "' clashes with the range arguments start, "
                                      "stop and step that range= and slice= add");
        any_array = any_array || p.is_array;
    }
    if (!any_array)
        throw logic_error(where + "needs at least one array (pointer) parameter");
    if (const kernel_parameter* n = find_parameter(spec, "n"); n && n->is_array)
        throw logic_error(where + "a parameter named n must be an integer scalar (the element count), not an array");
}

}  // namespace

std::string elementwise_kernel_source(const elementwise_kernel_spec& spec, bool use_range) {
    check(spec, use_range);
    text_builder out;
    out << "#include <pycuda-complex.hpp>\n\n"
        << spec.preamble << "\n\n"
        << "extern \"C\" __global__ void " << spec.name << "(";
    const char* separator = "";
    for (const kernel_parameter& p : spec.params) {
        out << separator << p.declarator;
        separator = ", ";
    }
    if (use_range)
        out << separator << "long start, long stop, long step";
    else if (!declares_n(spec))
        out << separator << "unsigned long n";
    out << ")\n{\n"
           "    size_t tid = threadIdx.x;\n"
           "    size_t total_threads = (size_t)gridDim.x * blockDim.x;\n"
           "    size_t cta_start = (size_t)blockDim.x * blockIdx.x;\n";
    out << (use_range ? "    long i;\n" : "    size_t i;\n");
    out << "    " << spec.loop_prep << "\n    ;\n";
    if (use_range) {
        // Thread t starts at start + t * step and strides by total_threads * step.
        out << "    for (i = start + (long)(cta_start + tid) * step; step > 0 ? i < stop : i > stop;\n"
               "         i += (long)total_threads * step)\n";
    } else {
        out << "    for (i = cta_start + tid; i < n; i += total_threads)\n";
    }
    out << "    {\n"
        << spec.operation << "\n    ;}\n"
        << "    " << spec.after_loop << "\n    ;\n}\n";
    return out.str();
}

struct elementwise_kernel::variants {
    detail::kernel_source plain;
    std::optional<detail::kernel_source> range;  // absent when the spec cannot have one
    std::string range_error;                     // then: why
};

namespace {

detail::kernel_source variant(const elementwise_kernel_spec& spec, rtc::compile_request request, bool use_range,
                              const std::optional<std::filesystem::path>& cache_dir) {
    request.source = elementwise_kernel_source(spec, use_range);
    request.options.no_extern_c = true;  // the kernel declares itself extern "C"
    request.options.name = spec.name + ".cu";
    std::string key = detail::request_key(request);
    return detail::kernel_source{std::move(key), std::move(request), cache_dir};
}

}  // namespace

elementwise_kernel::elementwise_kernel(elementwise_kernel_spec spec, rtc::compile_request request,
                                       std::optional<std::filesystem::path> cache_dir)
    : spec_(std::move(spec)) {
    auto made = std::make_shared<variants>(variants{variant(spec_, request, false, cache_dir), std::nullopt, {}});
    try {
        made->range = variant(spec_, std::move(request), true, cache_dir);
    } catch (const logic_error& e) {
        made->range_error = e.what();  // reported if range= or slice= is ever used
    }
    variants_ = std::move(made);
}

void elementwise_kernel::run(std::span<const std::span<const std::byte>> values, unsigned long long n,
                             cuda::stream_view s) const {
    if (declares_n(spec_)) {
        launch(false, values, {}, n, s);
        return;
    }
    const unsigned long n_value = n;  // the kernel's `unsigned long n`
    const std::span<const std::byte> loop_value(reinterpret_cast<const std::byte*>(&n_value), sizeof n_value);
    launch(false, values, {&loop_value, 1}, n, s);
}

void elementwise_kernel::run_range(std::span<const std::span<const std::byte>> values, long long start, long long stop,
                                   long long step, cuda::stream_view s) const {
    if (step == 0)
        throw logic_error("ElementwiseKernel '" + spec_.name + "': the range step must not be zero");
    if (!variants_->range)
        throw logic_error(variants_->range_error);
    // How many i the range holds, as Python's len(range(start, stop, step)).
    const long long span = step > 0 ? stop - start : start - stop;
    const long long stride = step > 0 ? step : -step;
    const unsigned long long count = span > 0 ? static_cast<unsigned long long>((span + stride - 1) / stride) : 0;
    const long bounds[] = {static_cast<long>(start), static_cast<long>(stop), static_cast<long>(step)};
    const std::span<const std::byte> loop_values[] = {
        {reinterpret_cast<const std::byte*>(&bounds[0]), sizeof(long)},
        {reinterpret_cast<const std::byte*>(&bounds[1]), sizeof(long)},
        {reinterpret_cast<const std::byte*>(&bounds[2]), sizeof(long)},
    };
    launch(true, values, loop_values, count, s);
}

void elementwise_kernel::launch(bool use_range, std::span<const std::span<const std::byte>> values,
                                std::span<const std::span<const std::byte>> loop_values, unsigned long long work_items,
                                cuda::stream_view s) const {
    if (values.size() != spec_.params.size())
        throw logic_error("ElementwiseKernel '" + spec_.name + "': expected " + std::to_string(spec_.params.size()) +
                          " arguments, got " + std::to_string(values.size()));
    const detail::cached_kernel k = detail::kernel(use_range ? *variants_->range : variants_->plain, spec_.name);
    std::vector<void*> pointers;
    std::vector<std::size_t> sizes;
    for (const auto group : {values, loop_values})
        for (const std::span<const std::byte> v : group) {
            pointers.push_back(const_cast<std::byte*>(v.data()));
            sizes.push_back(v.size());
        }
    // One block at least, even with nothing to do: loop_prep and after_loop still run, as
    // in PyCUDA. The loop strides over whatever the grid does not cover.
    const unsigned block = std::min(detail::block_size, k.max_block);
    const auto config = cuda::launch_config()
                            .grid({std::max(1u, detail::grid_for(k, static_cast<long long>(work_items), 1))})
                            .block({block})
                            .stream(s);
    cuda::launch_packed(*k.function, config, pointers.data(), sizes.data(), pointers.size());
}

}  // namespace gpukit::array
