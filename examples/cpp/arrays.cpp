// gpukit's arrays from C++: what the Python tutorial does with gpuarray, in a few lines.
// Build it against an installed gpukit (examples/cpp/CMakeLists.txt) and run it on a machine
// with an NVIDIA GPU: it prints each step's result and exits 1 if one differs from the host's.
#include "gpukit/gpukit.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace gpukit;

int main() try {
    cuda::context context = cuda::device::get(0).make_context();
    bool ok = true;
    {
        // Upload, arithmetic with numpy's types (float32 stays float32), download.
        std::vector<float> host(1000);
        for (std::size_t i = 0; i < host.size(); ++i)
            host[i] = 0.001f * static_cast<float>(i);
        const array::device_array a = array::device_array::from_host(host);
        const array::device_array doubled = 2 * a;
        const std::vector<float> back = doubled.to_host<float>();
        ok = ok && back[999] == 2 * host[999];
        std::printf("2 * a: %s, a[999] * 2 = %g\n", std::string(array::name(doubled.type())).c_str(), back[999]);

        // A sum (numpy's sum of float32 is float32, accumulated in double here).
        const double total = array::sum(a).item<double>();
        ok = ok && std::abs(total - 499.5) < 1e-3;
        std::printf("sum(a) = %.4f\n", total);

        // An elementwise kernel of one's own: z[i] = a * x[i]^2, compiled on first use.
        const array::elementwise_spec square{"scaled_square",
                                             {{"x", array::dtype::float32, array::param_kind::input},
                                              {"k", array::dtype::float32, array::param_kind::scalar},
                                              {"z", array::dtype::float32, array::param_kind::output}},
                                             "z[i] = k * x[i] * x[i]"};
        const array::device_array z = array::device_array::empty(a.shape(), array::dtype::float32);
        const array::elementwise_arg args[] = {a.view(), array::scalar_value::of(3.0f), z.view()};
        array::run(square, args);
        const float z10 = z[{std::int64_t{10}}].item<float>();
        ok = ok && std::abs(z10 - 3 * host[10] * host[10]) < 1e-7f;
        std::printf("3 * a[10]^2 = %g\n", z10);

        // A scan: running sums of 1, 2, ..., 100 (int32 accumulates as int64, as numpy's cumsum).
        std::vector<int> counts(100);
        for (int i = 0; i < 100; ++i)
            counts[i] = i + 1;
        const std::vector<long long> running =
            array::inclusive_scan(array::device_array::from_host(counts)).to_host<long long>();
        ok = ok && running[99] == 5050;
        std::printf("cumsum(1..100)[-1] = %lld\n", running[99]);

        // Random numbers in [0, 1), one sequence per seed.
        const array::device_array noise = array::rand({1 << 20}, array::dtype::float64, 42);
        const double mean = array::sum(noise).item<double>() / static_cast<double>(noise.size());
        ok = ok && std::abs(mean - 0.5) < 0.01;
        std::printf("mean of 2^20 uniform numbers = %.4f\n", mean);
    }  // the arrays go back to the context's pool before the context goes
    context.detach();
    std::puts(ok ? "all results match the host" : "A RESULT DIFFERS FROM THE HOST");
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "arrays: %s\n", e.what());
    return 1;
}
