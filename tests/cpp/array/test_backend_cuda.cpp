// The CUDA side of the array engine's backend seam: what it refuses before any CUDA call, so
// these run without a GPU (its copies and launches run in test_array_gpu).
#include "gpukit/array/cuda_backend.hpp"
#include "gpukit/array/elementwise.hpp"

#include "expect_error.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace gpukit;
using array::dtype;
using array::param_kind;

// A device_buffer marked as OpenCL memory; nothing may touch its made-up handle.
std::shared_ptr<const array::device_buffer> opencl_memory() {
    array::device_buffer b;
    b.address = 0x1000;
    b.size = 64;
    b.space = array::memory_space::opencl;
    return std::make_shared<const array::device_buffer>(b);
}

TEST(CudaBackend, OpenclMemoryIsRefusedBeforeAnyCudaCall) {
    array::cuda_backend b;
    const array::ndarray x(opencl_memory(), dtype::int32, layout::contiguous({16}, 4));
    const array::elementwise_spec spec("fill", {{"z", dtype::int32, param_kind::output}}, "z[i] = 1");
    const std::vector<array::elementwise_arg> args{x};
    gpukit::test::expect_error<logic_error>([&] { array::run(spec, args, b); }, "argument z", "not CUDA memory");
    gpukit::test::expect_error<logic_error>([&] { (void)x.data(); }, "no CUDA address");
    std::vector<std::byte> bytes(4);
    gpukit::test::expect_error<logic_error>([&] { b.write(*x.buffer(), 0, bytes); }, "not CUDA memory");
    gpukit::test::expect_error<logic_error>([&] { b.read(*x.buffer(), 0, bytes); }, "not CUDA memory");
}

TEST(CudaBackend, CopiesOutsideTheBufferAreRefusedBeforeAnyCudaCall) {
    array::cuda_backend b;
    const auto memory = array::borrow(CUdeviceptr{0x1000}, 16);
    std::vector<std::byte> bytes(8);
    gpukit::test::expect_error<logic_error>([&] { b.write(*memory, 12, bytes); }, "bytes [12, 12 + 8)",
                                            "outside a buffer of 16");
    gpukit::test::expect_error<logic_error>([&] { b.read(*memory, 17, std::span(bytes).first(0)); },
                                            "outside a buffer of 16");
}

TEST(CudaBackend, AKernelOfAnotherLanguageIsRefused) {
    array::cuda_backend b;
    array::loaded_kernel k;
    k.language = kernel_language::opencl;
    gpukit::test::expect_error<logic_error>([&] { b.launch(k, {}, {}); }, "loaded by an OpenCL backend");
}

}  // namespace
