// PyCUDA's ElementwiseKernel: the caller declares the kernel's parameters in C and writes
// the operation on element `i`; gpukit wraps it in a kernel that runs it for every `i`.
//
// The generated kernel is PyCUDA's, so code written for PyCUDA means the same here:
//
//   #include <pycuda-complex.hpp>
//   <preamble>
//   extern "C" __global__ void <name>(<the declared parameters>, unsigned long n)
//   {
//       size_t tid, total_threads, cta_start;  // this thread, all threads, this block's first
//       size_t i;
//       <loop_prep>;
//       for (i = cta_start + tid; i < n; i += total_threads) { <operation>; }
//       <after_loop>;
//   }
//
// Array parameters are plain pointers to contiguous memory: `x[j]` is element j of x, for
// any j. The range form replaces `n` by `long start, long stop, long step` and runs `i`
// (a long) over start, start + step, ... up to stop (excluded), like Python's range.
//
// A parameter the caller declares as `n` (an integer scalar) is used as the loop bound
// itself instead of gpukit's (PyCUDA would declare `n` twice and fail to compile).
#pragma once

#include "gpukit/cuda/stream.hpp"
#include "gpukit/rtc/compiler.hpp"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpukit::array {

// One parameter of an elementwise_kernel, as the caller declared it in C.
struct kernel_parameter {
    std::string declarator;  // as the kernel declares it: "const float *x"
    std::string name;        // "x"
    bool is_array;           // a pointer, passed as a device address
};

// What an elementwise_kernel generates (see the top of this file): the kernel's name and
// parameters, and the code of its loop body and around the loop.
struct elementwise_kernel_spec {
    std::string name;  // the kernel's name: a C identifier

    // The parameters, in the order the kernel declares them and run() takes their values.
    std::vector<kernel_parameter> params;
    // The loop body, run for each `i` (PyCUDA's operation): "z[i] = a * x[i] + y[i]".
    std::string operation;
    std::string preamble;    // before the kernel (helper functions, #includes)
    std::string loop_prep;   // in the kernel, before the loop
    std::string after_loop;  // in the kernel, after the loop
};

// The kernel's CUDA C source. logic_error for a name or parameter name that is not a C
// identifier or is a keyword of CUDA C++ (core/c_text.hpp), a parameter name used twice or
// one the generated code uses itself (i, tid, total_threads, cta_start; start, stop and step
// in the range form), a declared `n` that is an array, or no array parameter at all.
std::string elementwise_kernel_source(const elementwise_kernel_spec& spec, bool use_range);

// A spec with its compile requests (one for the plain loop, one for the range form), each
// compiled on first use and loaded once per context (array/kernel_cache).
class elementwise_kernel {
public:
    // `request` gives everything but the source: options, include directories (they must
    // lead to pycuda-complex.hpp), compiler, architecture. The source is compiled without
    // an extern "C" wrapper: the kernel declares itself extern "C". std::invalid_argument for
    // a spec or request holding a NUL character (checked now, not at the first launch).
    elementwise_kernel(elementwise_kernel_spec spec, rtc::compile_request request,
                       std::optional<std::filesystem::path> cache_dir);

    // The kernel's description, as given.
    const elementwise_kernel_spec& spec() const noexcept { return spec_; }
    // The CUDA C compiled for run() (`use_range` false) or run_range() (true), as
    // elementwise_kernel_source() makes it (and throws).
    std::string source(bool use_range) const { return elementwise_kernel_source(spec_, use_range); }

    // The operation for every i in [0, n) on `s`. `values[k]` holds parameter k's bytes: the
    // device address of an array, the value of a scalar in its C type. With a declared `n`,
    // `n` is its value (it only sizes the grid).
    void run(std::span<const std::span<const std::byte>> values, unsigned long long n, cuda::stream_view s) const;

    // The operation for i = start, start + step, ... while i < stop (step > 0) or i > stop
    // (step < 0). logic_error for step 0.
    void run_range(std::span<const std::span<const std::byte>> values, long long start, long long stop, long long step,
                   cuda::stream_view s) const;

private:
    struct variants;  // the two kernels' compile requests and cache keys (elementwise_kernel.cpp)

    void launch(bool use_range, std::span<const std::span<const std::byte>> values,
                std::span<const std::span<const std::byte>> loop_values, unsigned long long work_items,
                cuda::stream_view s) const;

    elementwise_kernel_spec spec_;
    std::shared_ptr<const variants> variants_;
};

}  // namespace gpukit::array
