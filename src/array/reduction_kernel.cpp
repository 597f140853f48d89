#include "gpukit/array/reduction_kernel.hpp"

#include "kernel_cache.hpp"
#include "reduction_launch.hpp"

#include "gpukit/array/cuda_backend.hpp"
#include "gpukit/core/error.hpp"

#include <vector>

#include <utility>

namespace gpukit::array {

struct reduction_kernel::compiled {
    detail::kernel_source source;
};

reduction_kernel::reduction_kernel(reduction_spec spec, rtc::compile_request request,
                                   std::optional<std::filesystem::path> cache_dir)
    : spec_(std::move(spec)) {
    if (spec_.element_arrays() != 0)
        throw logic_error("ReductionKernel '" + spec_.name() +
                          "': its arrays are pointers (element arrays belong to gpukit's own specs)");
    // PyCUDA's kernels include its complex header; so do these, for pycuda::complex<T>.
    request.source = "#include <pycuda-complex.hpp>\n" + reduction_source(spec_, reduction_variant::contiguous);
    request.options.no_extern_c = true;  // the kernels declare themselves extern "C"
    request.options.name = spec_.name() + ".cu";
    std::string key = detail::request_key(request);
    compiled_ = std::make_shared<const compiled>(
        compiled{detail::kernel_source{std::move(key), std::move(request), std::move(cache_dir)}});
}

std::string reduction_kernel::source() const { return compiled_->source.request.source; }

void reduction_kernel::run(std::span<const std::span<const std::byte>> values, long long start, long long step,
                           long long count, CUdeviceptr out, cuda::device_pointer scratch, cuda::stream_view s) const {
    const std::string& name = spec_.name();
    if (values.size() != spec_.params().size())
        throw logic_error("ReductionKernel '" + name + "': expected " + std::to_string(spec_.params().size()) +
                          " arguments, got " + std::to_string(values.size()));
    std::vector<kernel_argument> params;
    params.reserve(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
        const reduction_param& p = spec_.params()[k];
        const std::size_t expected = p.kind == reduction_param_kind::scalar ? p.type.size : sizeof(CUdeviceptr);
        if (values[k].size() != expected)
            throw logic_error("ReductionKernel '" + name + "', argument " + p.name + ": expected " +
                              std::to_string(expected) + " bytes, got " + std::to_string(values[k].size()));
        params.push_back(kernel_argument::bytes(values[k].data(), values[k].size()));  // CUDA pointers as values
    }
    if (count < 0)
        throw logic_error("ReductionKernel '" + name + "': the count of indices must not be negative");
    if (count == 0 && spec_.empty() == empty_reduction::error)
        throw logic_error("zero-size array to reduction operation " + name + " which has no identity");
    const std::size_t capacity = detail::checked_scratch(spec_, scratch);
    cuda_backend b(s);
    const loaded_kernel stage1 = detail::as_loaded(detail::kernel(compiled_->source, spec_.stage1_name()));
    const loaded_kernel stage2 = detail::as_loaded(detail::kernel(compiled_->source, spec_.stage2_name()));
    const CUdeviceptr partial = scratch.address;
    detail::launch_reduction(spec_, b, stage1, stage2, params, {},
                             detail::indices_per_step(spec_, reduction_variant::contiguous, 1),
                             {start, step, count, kernel_argument::bytes(&out, sizeof out),
                              kernel_argument::bytes(&partial, sizeof partial), capacity});
}

}  // namespace gpukit::array
