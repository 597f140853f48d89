// A kernel in a loaded module.
//
// `function` is a cheap, copyable view: it shares the module's state, so the module stays
// loaded (and its context alive) while any function taken from it exists. What launches
// need to check arguments and launch shapes (parameter layout, device limits) is read once
// by module::get_function and shared by the copies.
#pragma once

#include "gpukit/cuda/context.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpukit::cuda {

class launch_config;

namespace detail {

// A loaded CUmodule; unloads it (in its context) when the last owner goes. Shared, not
// moved, so it holds the handle itself and releases it through context_bound::release.
struct module_state {
    module_state(CUmodule handle, context_state_ptr context) noexcept : handle(handle), context(std::move(context)) {}
    ~module_state();
    module_state(const module_state&) = delete;
    module_state& operator=(const module_state&) = delete;

    const CUmodule handle;
    const context_state_ptr context;
};

}  // namespace detail

// One kernel parameter as the driver describes it.
struct param_info {
    std::size_t offset;  // bytes from the start of the parameter buffer
    std::size_t size;    // bytes the parameter takes
};

// A launch shape: how many blocks (a grid) or threads (a block) along x, y and z. Every
// extent is 1 unless given: {256} is 256 along x.
struct dim3 {
    // \var x
    // The extent along x (1 unless given).
    // \var y
    // The extent along y (1 unless given).
    // \var z
    // The extent along z (1 unless given).
    unsigned int x = 1, y = 1, z = 1;
};

// "argument <index> is <given> bytes, but parameter <index> of the kernel is <expected>
// bytes": the one wording of a size mismatch, used by function::check_arguments and by
// callers that add a hint of their own.
std::string argument_size_mismatch(std::size_t index, std::size_t given, std::size_t expected);

// A kernel of a loaded module, to launch (launch.hpp) or to query. Copies are cheap: they
// share the module, which stays loaded (and its context alive) while any of them exists.
class function {
public:
    // Made by module::get_function.
    function(CUfunction handle, std::shared_ptr<const detail::module_state> module, std::string name);

    // The CUfunction, for calling the driver directly.
    CUfunction handle() const noexcept { return data_->handle; }
    // The name it was looked up by.
    const std::string& name() const noexcept { return data_->name; }
    // The context of the kernel's module, where it launches.
    const context_state_ptr& owner() const noexcept { return data_->module->context; }

    // The value of `which` (CU_FUNC_ATTRIBUTE_*: registers per thread, the most threads per
    // block, static shared memory bytes, ...).
    int attribute(CUfunction_attribute which) const;
    // Sets a settable attribute (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, the
    // preferred shared memory carveout, ...); the driver's error, naming the kernel, otherwise.
    void set_attribute(CUfunction_attribute which, int value) const;
    // The kernel's preferred split of on-chip memory between L1 cache and shared memory
    // (CU_FUNC_CACHE_PREFER_*), over its context's; a hint the device may ignore.
    void set_cache_config(CUfunc_cache config) const;
    // The kernel's shared-memory bank size (CU_SHARED_MEM_CONFIG_*); deprecated in CUDA 12,
    // and ignored by devices with a fixed bank size.
    void set_shared_config(CUsharedconfig config) const;

    // The parameter layout, or nullopt when the driver does not offer cuFuncGetParamInfo
    // (drivers before CUDA 12.4); then argument sizes cannot be checked.
    const std::optional<std::vector<param_info>>& params() const noexcept { return data_->params; }

    // logic_error when `config` cannot launch this kernel on its device: a zero or too large
    // block or grid dimension, too many threads per block, too much dynamic shared memory,
    // or a cooperative launch on a device without support.
    void check_launch(const launch_config& config) const;
    // logic_error naming the parameter when the count or a size differs from params().
    void check_arguments(const std::size_t* sizes, std::size_t count) const;

private:
    struct limits {
        dim3 max_block, max_grid;
        int max_threads_per_block = 0;
        int max_dynamic_shared = 0;
        bool cooperative = false;
    };
    struct data {
        CUfunction handle;
        std::shared_ptr<const detail::module_state> module;
        std::string name;
        std::optional<std::vector<param_info>> params;
        limits limit;
    };
    std::shared_ptr<const data> data_;
};

}  // namespace gpukit::cuda
