// gpukit's arrays on OpenCL from C++: the same engine as on CUDA, its kernels generated as
// OpenCL C, on any OpenCL device (a CPU through PoCL, an NVIDIA GPU through NVIDIA's OpenCL).
// It prints each step's result and exits 1 if one differs from the host's; without an OpenCL
// device it says so and exits 0.
#include "gpukit/gpukit.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

using namespace gpukit;

int main() try {
    if (!cl::available() || cl::select_devices("").empty()) {
        std::puts("no OpenCL device here: nothing to run");
        return 0;
    }
    const cl::context context = cl::create_some_context();  // GPUKIT_CL_CTX chooses, as PyOpenCL's PYOPENCL_CTX
    const cl::queue queue = cl::queue::create(context, context.devices().front());
    const auto device = std::make_shared<array::opencl_backend>(queue);
    std::printf("device: %s\n", device->name().c_str());
    bool ok = true;

    // Upload, arithmetic with numpy's types (float32 stays float32), download.
    std::vector<float> host(1000);
    for (std::size_t i = 0; i < host.size(); ++i)
        host[i] = 0.001f * static_cast<float>(i);
    const array::device_array a = array::device_array::from_host(device, host);
    const array::device_array doubled = 2 * a + 1;
    const std::vector<float> back = doubled.to_host<float>();
    ok = ok && back[999] == 2 * host[999] + 1;
    std::printf("2 * a + 1: %s, [999] = %g\n", std::string(array::name(doubled.type())).c_str(), back[999]);

    // Reductions: numpy's sum of float32 is float32 (accumulated in double where the device
    // has it), min and max.
    const double total = array::sum(a).item<double>();
    ok = ok && std::abs(total - 499.5) < 1e-3;
    std::printf("sum(a) = %.4f, max(a) = %g\n", total, array::max(a).item<double>());

    // An elementwise kernel of one's own, in OpenCL C: z[i] = k * x[i]^2 over a reversed view.
    const array::elementwise_spec square{"scaled_square",
                                         {{"x", array::dtype::float32, array::param_kind::input},
                                          {"k", array::dtype::float32, array::param_kind::scalar},
                                          {"z", array::dtype::float32, array::param_kind::output}},
                                         "z[i] = k * x[i] * x[i]"};
    const array::device_array reversed = a[{slice{{}, {}, -1}}];
    const array::device_array z = array::device_array::empty(device, a.shape(), array::dtype::float32);
    const array::elementwise_arg args[] = {reversed.view(), array::scalar_value::of(3.0f), z.view()};
    array::run(square, args, *device);
    const float z10 = z[{std::int64_t{10}}].item<float>();
    ok = ok && std::abs(z10 - 3 * host[989] * host[989]) < 1e-5f;
    std::printf("3 * a[989]^2 = %g\n", z10);

    // Random numbers in [0, 1): the same Philox numbers CUDA gives for the seed.
    const array::device_array noise = array::rand(device, {1 << 20}, array::dtype::float32, 42);
    const double mean = array::sum(noise).item<double>() / static_cast<double>(noise.size());
    ok = ok && std::abs(mean - 0.5) < 0.01;
    std::printf("mean of 2^20 uniform numbers = %.4f\n", mean);

    std::puts(ok ? "all results match the host" : "A RESULT DIFFERS FROM THE HOST");
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
}
