#include "gpukit/cuda/launch.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <cstdint>
#include <cstdio>

namespace gpukit::cuda {
namespace {

std::string context_text(CUcontext c) {
    if (!c)
        return "none";
    char text[32];
    std::snprintf(text, sizeof text, "%p", static_cast<void*>(c));
    return text;
}

// Why a launch failed, when the reason is a context: the kernel's module or the stream belongs
// to another context than the current one (CUDA launches in the current context, as PyCUDA
// does, and its "invalid resource handle" names neither). Empty when the contexts agree or
// cannot be asked. Only failed launches pay for it.
std::string context_mismatch(const function& f, const launch_config& c) {
    const driver_api& driver = api();
    CUcontext current = nullptr;
    if (driver.cuCtxGetCurrent(&current) != CUDA_SUCCESS)
        return {};
    std::string why;
    const CUcontext module_context = f.owner()->handle;
    if (module_context != current)
        why += "; the kernel's module was loaded in context " + context_text(module_context) +
               ", but the current context is " + context_text(current) +
               ": push the module's context (Context.push()) before launching";
    CUcontext stream_context = nullptr;
    const CUstream stream = c.stream().handle();
    const bool default_stream = reinterpret_cast<std::uintptr_t>(stream) <= 2;  // legacy and per-thread: any context
    if (!default_stream && driver.cuStreamGetCtx(stream, &stream_context) == CUDA_SUCCESS && stream_context != current)
        why += "; the stream belongs to context " + context_text(stream_context) + ", not to the current context " +
               context_text(current) + ": use a stream made while the module's context was current";
    return why;
}

std::string describe(const function& f, const launch_config& c) {
    const dim3 g = c.grid(), b = c.block();
    return "kernel '" + f.name() + "', grid (" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " +
           std::to_string(g.z) + "), block (" + std::to_string(b.x) + ", " + std::to_string(b.y) + ", " +
           std::to_string(b.z) + "), " + std::to_string(c.shared_bytes()) + " bytes of dynamic shared memory";
}

// Clusters and cooperative launches need the extended launch call and its attributes.
CUresult launch_extended(const function& f, const launch_config& c, void** args) {
    const auto launch_ex = GPUKIT_CU_ENTRY(cuLaunchKernelEx);
    CUlaunchAttribute attributes[2]{};
    unsigned int count = 0;
    if (c.has_cluster()) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attributes[count].value.clusterDim.x = c.cluster().x;
        attributes[count].value.clusterDim.y = c.cluster().y;
        attributes[count].value.clusterDim.z = c.cluster().z;
        ++count;
    }
    if (c.cooperative()) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attributes[count].value.cooperative = 1;
        ++count;
    }
    CUlaunchConfig config{};
    detail::set_launch_shape(config, c);
    config.hStream = c.stream().handle();
    config.attrs = attributes;
    config.numAttrs = count;
    return launch_ex(&config, f.handle(), args, nullptr);
}

}  // namespace

void launch_packed(const function& f, const launch_config& config, void** args, const std::size_t* sizes,
                   std::size_t count) {
    f.check_launch(config);
    f.check_arguments(sizes, count);
    const CUresult result =
        config.has_cluster() || config.cooperative()
            ? launch_extended(f, config, args)
            : api().cuLaunchKernel(f.handle(), config.grid().x, config.grid().y, config.grid().z, config.block().x,
                                   config.block().y, config.block().z, static_cast<unsigned int>(config.shared_bytes()),
                                   config.stream().handle(), args, nullptr);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, config.has_cluster() || config.cooperative() ? "cuLaunchKernelEx" : "cuLaunchKernel",
                         describe(f, config) + context_mismatch(f, config));
}

}  // namespace gpukit::cuda
