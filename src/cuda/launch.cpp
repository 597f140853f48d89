#include "gpukit/cuda/launch.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

namespace gpukit::cuda {
namespace {

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
                                   config.block().y, config.block().z,
                                   static_cast<unsigned int>(config.shared_bytes()), config.stream().handle(), args,
                                   nullptr);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, config.has_cluster() || config.cooperative() ? "cuLaunchKernelEx" : "cuLaunchKernel",
                         describe(f, config));
}

}  // namespace gpukit::cuda
