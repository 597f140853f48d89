#include "gpukit/cuda/function.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/device.hpp"
#include "gpukit/cuda/launch.hpp"

namespace gpukit::cuda {
namespace {

std::string to_string(dim3 d) {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "(" + std::to_string(...).
    std::string text = "(";
    text += std::to_string(d.x);
    text += ", ";
    text += std::to_string(d.y);
    text += ", ";
    text += std::to_string(d.z);
    text += ")";
    return text;
}

int function_attribute(CUfunction f, CUfunction_attribute which) {
    int value = 0;
    GPUKIT_CU(cuFuncGetAttribute, &value, which, f);
    return value;
}

// Parameter layout from the driver; nullopt when it cannot say (older drivers).
std::optional<std::vector<param_info>> read_params(CUfunction f) {
    const auto get_info = api().cuFuncGetParamInfo;
    if (!get_info)
        return std::nullopt;
    std::vector<param_info> params;
    for (std::size_t index = 0;; ++index) {
        param_info p{};
        const CUresult result = get_info(f, index, &p.offset, &p.size);
        if (result == CUDA_ERROR_INVALID_VALUE)  // past the last parameter
            return params;
        if (result != CUDA_SUCCESS)
            return std::nullopt;
        params.push_back(p);
    }
}

void check_dims(const char* what, dim3 given, dim3 max, const std::string& kernel) {
    if (given.x == 0 || given.y == 0 || given.z == 0)
        throw logic_error("launching '" + kernel + "': " + what + " " + to_string(given) +
                          " has a zero dimension; every dimension must be at least 1");
    if (given.x > max.x || given.y > max.y || given.z > max.z)
        throw logic_error("launching '" + kernel + "': " + what + " " + to_string(given) +
                          " exceeds the device's maximum " + what + " dimensions " + to_string(max));
}

}  // namespace

std::string argument_size_mismatch(std::size_t index, std::size_t given, std::size_t expected) {
    return "argument " + std::to_string(index) + " is " + std::to_string(given) + " bytes, but parameter " +
           std::to_string(index) + " of the kernel is " + std::to_string(expected) + " bytes";
}

function::function(CUfunction handle, std::shared_ptr<const detail::module_state> module, std::string name) {
    const device dev = device::get(module->context->device_ordinal);
    auto attr = [&](CUdevice_attribute a) { return static_cast<unsigned int>(dev.attribute(a)); };
    limits limit;
    limit.max_block = {attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X), attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                       attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
    limit.max_grid = {attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                      attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
    limit.cooperative = attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) != 0;
    // Per kernel: its register use can lower the thread limit below the device's.
    limit.max_threads_per_block = function_attribute(handle, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    limit.max_dynamic_shared = function_attribute(handle, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    data_ = std::make_shared<const data>(data{handle, std::move(module), std::move(name), read_params(handle), limit});
}

int function::attribute(CUfunction_attribute which) const { return function_attribute(handle(), which); }

void function::set_attribute(CUfunction_attribute which, int value) const {
    const CUresult result = api().cuFuncSetAttribute(handle(), which, value);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuFuncSetAttribute",
                         "kernel '" + name() + "', attribute " + std::to_string(static_cast<int>(which)) + ", value " +
                             std::to_string(value) + "; only the settable attributes may be set");
}

void function::set_cache_config(CUfunc_cache config) const { GPUKIT_CU(cuFuncSetCacheConfig, handle(), config); }

void function::set_shared_config(CUsharedconfig config) const {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    GPUKIT_CU(cuFuncSetSharedMemConfig, handle(), config);
#pragma GCC diagnostic pop
}

void function::check_launch(const launch_config& config) const {
    const limits& limit = data_->limit;
    check_dims("block", config.block(), limit.max_block, name());
    check_dims("grid", config.grid(), limit.max_grid, name());
    const dim3 b = config.block();
    const unsigned long long threads = 1ull * b.x * b.y * b.z;
    if (threads > static_cast<unsigned long long>(limit.max_threads_per_block))
        throw logic_error("launching '" + name() + "': block " + to_string(b) + " has " + std::to_string(threads) +
                          " threads, but this kernel allows at most " + std::to_string(limit.max_threads_per_block) +
                          " per block on this device (the limit depends on its register use)");
    if (config.shared_bytes() > static_cast<std::size_t>(limit.max_dynamic_shared)) {
        // The limit is raised by set_attribute(MAX_DYNAMIC_SHARED_SIZE_BYTES), possibly through
        // another handle of the same kernel, so ask the driver before refusing.
        const int current = attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
        if (config.shared_bytes() > static_cast<std::size_t>(current))
            throw logic_error("launching '" + name() + "': " + std::to_string(config.shared_bytes()) +
                              " bytes of dynamic shared memory requested, but the kernel allows at most " +
                              std::to_string(current) +
                              "; raise it with set_attribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes) first");
    }
    if (config.cooperative() && !limit.cooperative)
        throw logic_error("launching '" + name() +
                          "': a cooperative launch was requested, but this device does "
                          "not support cooperative launches");
}

void function::check_arguments(const std::size_t* sizes, std::size_t count) const {
    if (!data_->params)
        return;
    const std::vector<param_info>& params = *data_->params;
    if (count != params.size())
        throw logic_error("launching '" + name() + "': the kernel takes " + std::to_string(params.size()) +
                          " parameter(s), but " + std::to_string(count) + " argument(s) were given");
    for (std::size_t i = 0; i < count; ++i)
        if (sizes[i] != params[i].size)
            throw logic_error("launching '" + name() + "': " + argument_size_mismatch(i, sizes[i], params[i].size));
}

}  // namespace gpukit::cuda
