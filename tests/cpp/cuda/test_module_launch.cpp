// Modules, functions and launches on a real GPU (label gpu; skipped without one).
#include "gpu_test.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/kernel_args.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/rtc/program.hpp"

#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::cuda;

constexpr const char* kernels = R"(
__device__ float scale = 3.0f;

__global__ void doublify(float *a)
{
    int idx = threadIdx.x + threadIdx.y*4;
    a[idx] *= 2;
}

__global__ void axpb(float *y, const float *x, float a, int b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + b * scale;
}
)";

// Device memory for one test, freed by the destructor.
struct device_buffer {
    explicit device_buffer(std::size_t bytes) { GPUKIT_CU(cuMemAlloc, &ptr, bytes); }
    ~device_buffer() { api().cuMemFree(ptr); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    CUdeviceptr ptr = 0;
};

module load_kernels() { return module::from_image(rtc::compile(kernels).image()); }

std::vector<float> random_floats(std::size_t n) {
    std::mt19937 generator(42);
    std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
    std::vector<float> values(n);
    for (float& v : values)
        v = uniform(generator);
    return values;
}

using module_launch = gpukit::testing::gpu_test;

// Launches `doublify` on 16 random floats in the current context and checks each doubled.
void expect_doublified(const function& doublify) {
    const std::vector<float> host = random_floats(16);
    device_buffer a(host.size() * sizeof(float));
    GPUKIT_CU(cuMemcpyHtoD, a.ptr, host.data(), host.size() * sizeof(float));

    launch(doublify, launch_config().block({4, 4, 1}), a.ptr);

    std::vector<float> result(host.size());
    GPUKIT_CU(cuMemcpyDtoH, result.data(), a.ptr, result.size() * sizeof(float));
    for (std::size_t i = 0; i < host.size(); ++i)
        EXPECT_FLOAT_EQ(result[i], 2 * host[i]) << "element " << i;
}

TEST_F(module_launch, doublify_on_random_data) {
    const module m = load_kernels();
    expect_doublified(m.get_function("doublify"));
}

TEST_F(module_launch, scalars_globals_and_dynamic_args) {
    const module m = load_kernels();
    const function axpb = m.get_function("axpb");
    const auto [scale_address, scale_size] = m.get_global("scale");
    EXPECT_NE(scale_address, 0u);
    EXPECT_EQ(scale_size, sizeof(float));

    const int n = 1000;
    const std::vector<float> x = random_floats(n);
    device_buffer dx(n * sizeof(float)), dy(n * sizeof(float));
    GPUKIT_CU(cuMemcpyHtoD, dx.ptr, x.data(), n * sizeof(float));

    kernel_args args;
    args.push_value(dy.ptr);
    args.push_value(dx.ptr);
    args.push_value(2.0f);
    args.push_value(5);
    args.push_value(n);
    launch_packed(axpb, launch_config().grid({(n + 255) / 256}).block({256}), args.pointers(), args.sizes(),
                  args.count());

    std::vector<float> y(n);
    GPUKIT_CU(cuMemcpyDtoH, y.data(), dy.ptr, n * sizeof(float));
    for (int i = 0; i < n; ++i)
        EXPECT_FLOAT_EQ(y[i], 2.0f * x[i] + 15.0f) << "element " << i;
}

TEST_F(module_launch, param_info_describes_the_kernel) {
    const function axpb = load_kernels().get_function("axpb");
    if (!axpb.params())
        GTEST_SKIP() << "the driver has no cuFuncGetParamInfo (needs CUDA 12.4+)";
    const std::vector<param_info>& params = *axpb.params();
    ASSERT_EQ(params.size(), 5u);
    EXPECT_EQ(params[0].size, 8u);
    EXPECT_EQ(params[2].size, 4u);
    EXPECT_EQ(params[3].size, 4u);
}

TEST_F(module_launch, function_keeps_its_module_loaded) {
    function doublify = [] { return load_kernels().get_function("doublify"); }();
    device_buffer a(16 * sizeof(float));
    GPUKIT_CU(cuMemsetD8, a.ptr, 0, 16 * sizeof(float));
    launch(doublify, launch_config().block({4, 4, 1}), a.ptr);
    ctx->synchronize();
}

TEST_F(module_launch, unknown_kernel_name_is_named_in_the_error) {
    const module m = load_kernels();
    try {
        m.get_function("triplify");
        FAIL() << "expected logic_error";
    } catch (const logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("'triplify'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(m.get_global("no_such_global"), logic_error);
    // The driver reads names as C strings: "doublify\0x" would find doublify.
    using namespace std::string_literals;
    EXPECT_THROW(m.get_function("doublify\0x"s), std::invalid_argument);
    EXPECT_THROW(m.get_global("no_such_global\0x"s), std::invalid_argument);
}

TEST_F(module_launch, wrong_argument_count_or_size_is_refused) {
    const function axpb = load_kernels().get_function("axpb");
    if (!axpb.params())
        GTEST_SKIP() << "the driver has no cuFuncGetParamInfo (needs CUDA 12.4+)";
    const CUdeviceptr null_ptr = 0;
    try {
        launch(axpb, launch_config(), null_ptr, null_ptr);
        FAIL() << "expected logic_error";
    } catch (const logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("takes 5 parameter"), std::string::npos) << e.what();
    }
    try {
        launch(axpb, launch_config(), null_ptr, null_ptr, 2.0, 5, 0);  // a double where a float is expected
        FAIL() << "expected logic_error";
    } catch (const logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("argument 2 is 8 bytes"), std::string::npos) << e.what();
    }
}

TEST_F(module_launch, shapes_over_device_limits_are_refused_before_launch) {
    const function doublify = load_kernels().get_function("doublify");
    const CUdeviceptr null_ptr = 0;
    EXPECT_THROW(launch(doublify, launch_config().block({2048, 1, 1}), null_ptr), logic_error);
    EXPECT_THROW(launch(doublify, launch_config().block({32, 32, 2}), null_ptr), logic_error);
    EXPECT_THROW(launch(doublify, launch_config().grid({0, 1, 1}), null_ptr), logic_error);
    EXPECT_THROW(launch(doublify, launch_config().grid({1, 1u << 20, 1}), null_ptr), logic_error);
    EXPECT_THROW(launch(doublify, launch_config().shared_bytes(1u << 30), null_ptr), logic_error);
}

TEST_F(module_launch, attributes_and_configs) {
    const function doublify = load_kernels().get_function("doublify");
    EXPECT_GT(doublify.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 0);
    EXPECT_GT(doublify.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS), 0);
    doublify.set_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024);
    EXPECT_EQ(doublify.attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 64 * 1024);
    doublify.set_cache_config(CU_FUNC_CACHE_PREFER_SHARED);
    EXPECT_THROW(doublify.set_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, 3), logic_error);  // read-only
}

TEST_F(module_launch, ptx_is_jit_compiled_with_logs) {
    const auto [major, minor] = ctx->get_device().compute_capability();
    rtc::compile_options options;
    options.arch = "compute_" + std::to_string(std::min(major * 10 + minor, 90));
    jit_log log;
    const module m = module::from_image(rtc::compile(kernels, options).image(), {{CU_JIT_OPTIMIZATION_LEVEL, 3}}, &log);
    EXPECT_TRUE(log.error.empty()) << log.error;
    EXPECT_NO_THROW(m.get_function("doublify"));
}

TEST_F(module_launch, from_file_loads_and_missing_files_are_named) {
    const std::vector<char> cubin = rtc::compile(kernels).image();
    const std::string path = ::testing::TempDir() + "gpukit_test_kernels.cubin";
    std::ofstream(path, std::ios::binary).write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
    EXPECT_NO_THROW(module::from_file(path).get_function("doublify"));
    std::remove(path.c_str());
    try {
        module::from_file("/nonexistent/kernels.cubin");
        FAIL() << "expected runtime_error";
    } catch (const runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/kernels.cubin"), std::string::npos);
    }
    EXPECT_THROW(module::from_image(std::vector<char>{'x', 'y', 0}), logic_error);  // neither cubin nor PTX
}

// Libraries that hold several contexts of their own (grunnur) look kernels up while another
// of them is current, and make each kernel's context current to launch it.
TEST_F(module_launch, a_kernel_looked_up_under_another_context_launches_in_its_own) {
    const module m = load_kernels();  // in ctx
    context other = device::get(0).make_context();
    const function doublify = m.get_function("doublify");  // while `other` is current
    context::pop();
    other.detach();
    expect_doublified(doublify);
}

std::string launch_failure(const function& f, const launch_config& config, CUdeviceptr argument) {
    try {
        launch(f, config, argument);
    } catch (const gpukit::error& e) {
        return e.what();
    }
    return "the launch did not fail";
}

// CUDA launches in the current context (so does PyCUDA): a kernel of another context's module
// fails, and the error says which contexts are involved instead of only "invalid handle".
TEST_F(module_launch, a_launch_with_another_context_current_names_the_contexts) {
    const function doublify = load_kernels().get_function("doublify");
    context other = device::get(0).make_context();
    {
        device_buffer memory(16 * sizeof(float));  // the other context's, should the launch run there
        const std::string what = launch_failure(doublify, launch_config().block({4, 4, 1}), memory.ptr);
        EXPECT_NE(what.find("the kernel's module was loaded in context"), std::string::npos) << what;
    }
    context::pop();
    other.detach();
}

TEST_F(module_launch, a_stream_of_another_context_is_named) {
    const function doublify = load_kernels().get_function("doublify");
    device_buffer memory(16 * sizeof(float));
    context other = device::get(0).make_context();
    const stream foreign = stream::create();
    context::pop();
    other.detach();  // the stream keeps it alive
    const std::string what = launch_failure(doublify, launch_config().block({4, 4, 1}).stream(foreign), memory.ptr);
    EXPECT_NE(what.find("the stream belongs to context"), std::string::npos) << what;
    EXPECT_EQ(what.find("the kernel's module was loaded"), std::string::npos) << what;
}

}  // namespace
