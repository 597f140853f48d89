// Loaded code: a module (cubin, fatbin or PTX image) in one context.
//
// `module` owns the CUmodule and is move-only. The handle lives in a shared module_state
// so that every `function` taken from the module keeps it loaded, and the state holds the
// context, so the context outlives both.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/function.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpukit::cuda {

// One JIT option for loading PTX: (CU_JIT_*, value). Numeric values only; the log buffers
// are managed by gpukit and returned through jit_log.
using jit_option_value = std::pair<CUjit_option, std::uintptr_t>;

// The JIT compiler's messages from a load (empty for cubins, which need no JIT).
struct jit_log {
    std::string info;   // the information log (with CU_JIT_LOG_VERBOSE: registers and memory used)
    std::string error;  // the error log: why the load failed
};

// A module loaded into one context, to take kernels and globals from. Move-only; the module
// is unloaded once it and every function taken from it are gone. Use of a moved-from module
// throws logic_error.
class module {
public:
    // Loads an image (cubin, fatbin, or NUL-terminated PTX text) into the current context.
    // On failure the error message includes the JIT error log.
    static module from_image(const void* image, std::size_t size, const std::vector<jit_option_value>& options = {},
                             jit_log* log = nullptr);
    // As the form above, for an image of `image.size()` bytes held in a vector (PTX text
    // NUL-terminated within it).
    static module from_image(const std::vector<char>& image, const std::vector<jit_option_value>& options = {},
                             jit_log* log = nullptr) {
        return from_image(image.data(), image.size(), options, log);
    }
    // Loads `image` into the context of `owner`, which the module then holds. A context
    // cache passes borrowed(state) (context_cache.hpp), so that its modules do not keep
    // the context alive.
    static module from_image(const std::vector<char>& image, context_state_ptr owner);
    // Reads `path` (cubin, fatbin or .ptx) and loads it; runtime_error naming the path when
    // it cannot be read.
    static module from_file(const std::string& path, const std::vector<jit_option_value>& options = {},
                            jit_log* log = nullptr);

    // Takes over the other module, which can no longer be used.
    module(module&&) noexcept = default;
    // Lets go of this module (unloaded once no function of it is left), then takes over the
    // other one.
    module& operator=(module&&) noexcept = default;
    module(const module&) = delete;
    module& operator=(const module&) = delete;

    // The CUmodule, for calling the driver directly.
    CUmodule handle() const;
    // The context the module is loaded in.
    const context_state_ptr& owner() const;

    // The kernel `name`, looked up (and its attributes read) with the module's context
    // current, whichever context is current at the call; logic_error naming it (and the
    // extern "C" hint) when absent. Both lookups refuse a name holding a NUL character
    // (std::invalid_argument): the driver would look up the part before it.
    function get_function(const std::string& name) const;
    // (address, size in bytes) of the `__device__` or `__constant__` variable `name`.
    std::pair<CUdeviceptr, std::size_t> get_global(const std::string& name) const;

private:
    explicit module(std::shared_ptr<detail::module_state> state) noexcept : state_(std::move(state)) {}
    const detail::module_state& state() const;

    std::shared_ptr<detail::module_state> state_;
};

}  // namespace gpukit::cuda
