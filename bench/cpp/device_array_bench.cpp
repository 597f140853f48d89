#include "device_array_bench.hpp"

#include "batch_timing.hpp"

#include "gpukit/array/array.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/context.hpp"

#include <functional>
#include <map>

namespace gpukit::bench {

namespace {

using array::device_array;
using operation = std::function<device_array(const device_array&, const device_array&)>;

const std::map<std::string, operation>& operations() {
    static const std::map<std::string, operation> table{
        {"add", [](const device_array& x, const device_array& y) { return x + y; }},
        {"axpy", [](const device_array& x, const device_array& y) { return 2 * x + y; }},
        {"scale", [](const device_array& x, const device_array&) { return x * 3; }},
        {"neg", [](const device_array& x, const device_array&) { return -x; }},
        {"less", [](const device_array& x, const device_array& y) { return apply(array::binary_op::less, x, y); }},
        {"astype", [](const device_array& x, const device_array&) { return x.astype(array::dtype::float64); }},
        {"sum", [](const device_array& x, const device_array&) { return array::sum(x); }},
        {"dot", [](const device_array& x, const device_array& y) { return array::dot(x, y); }},
        {"copy", [](const device_array& x, const device_array&) { return x.copy(); }},
    };
    return table;
}

}  // namespace

std::vector<std::string> device_array_operations() {
    std::vector<std::string> names;
    for (const auto& [name, _] : operations())
        names.push_back(name);
    return names;
}

std::vector<double> device_array_seconds(const std::string& name, int elements, int launches, int batches,
                                         int repeats) {
    const auto found = operations().find(name);
    if (found == operations().end())
        throw logic_error("device_array_seconds: no operation '" + name + "'");
    if (elements <= 0 || launches <= 0 || batches <= 0 || repeats <= 0)
        throw logic_error("device_array_seconds: elements, launches, batches and repeats must be positive");
    const operation& op = found->second;
    std::vector<float> values(static_cast<std::size_t>(elements));
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = 0.5f + 0.001f * static_cast<float>(i % 1000);
    const device_array x = device_array::from_host(values);
    const device_array y = device_array::from_host(values);
    const cuda::context context = cuda::context::current_or_throw("device_array_seconds");
    const auto batch = [&] {
        for (int i = 0; i < launches; ++i)
            (void)op(x, y);
        context.synchronize();
    };
    batch();  // warm-up: compiles and caches the kernels, fills the pool
    return seconds_per_operation(batch, launches, batches, repeats);
}

}  // namespace gpukit::bench
