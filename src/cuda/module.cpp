#include "gpukit/cuda/module.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/detail/context_bound.hpp"

#include <iterator>

namespace gpukit::cuda {

detail::module_state::~module_state() { detail::context_bound<detail::module_traits>::release(*context, handle); }

namespace {

// Big enough for the JIT's messages about a large PTX module.
constexpr std::size_t jit_log_capacity = 64 * 1024;

std::string until_nul(const std::vector<char>& buffer) {
    return std::string(buffer.data());  // the driver NUL-terminates within the capacity
}

// Loads an image into the current context.
CUmodule load(const void* image, std::size_t size, const std::vector<jit_option_value>& options, jit_log* log) {
    if (!image || size == 0)
        throw logic_error("module_from_buffer: the image is empty; expected a cubin, fatbin or PTX text");

    std::vector<char> info(jit_log_capacity, '\0'), errors(jit_log_capacity, '\0');
    std::vector<CUjit_option> keys;
    std::vector<void*> values;
    for (const auto& [key, value] : options) {
        if (key == CU_JIT_INFO_LOG_BUFFER || key == CU_JIT_ERROR_LOG_BUFFER ||
            key == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES || key == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            throw logic_error(
                "module_from_buffer: the JIT log buffers are managed by gpukit; read the logs through "
                "message_handler instead of passing log-buffer options");
        keys.push_back(key);
        values.push_back(reinterpret_cast<void*>(value));
    }
    keys.insert(keys.end(), {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES});
    values.insert(values.end(), {info.data(), reinterpret_cast<void*>(jit_log_capacity), errors.data(),
                                 reinterpret_cast<void*>(jit_log_capacity)});

    CUmodule handle = nullptr;
    const CUresult result =
        api().cuModuleLoadDataEx(&handle, image, static_cast<unsigned int>(keys.size()), keys.data(), values.data());
    if (log) {
        log->info = until_nul(info);
        log->error = until_nul(errors);
    }
    if (result != CUDA_SUCCESS) {
        const std::string jit_errors = until_nul(errors);
        throw_cuda_error(result, "cuModuleLoadDataEx",
                         jit_errors.empty() ? "the image must be a cubin or fatbin for this device, or PTX text"
                                            : "JIT errors: " + jit_errors);
    }
    return handle;
}

}  // namespace

module module::from_image(const void* image, std::size_t size, const std::vector<jit_option_value>& options,
                          jit_log* log) {
    context ctx = context::current_or_throw("loading a Module");
    const CUmodule handle = load(image, size, options, log);
    return module(std::make_shared<detail::module_state>(handle, ctx.state()));
}

module module::from_image(const std::vector<char>& image, context_state_ptr owner) {
    scoped_context in(*owner);
    const CUmodule handle = load(image.data(), image.size(), {}, nullptr);
    return module(std::make_shared<detail::module_state>(handle, std::move(owner)));
}

module module::from_file(const std::string& path, const std::vector<jit_option_value>& options, jit_log* log) {
    const std::optional<std::string> content = read_file(path);
    if (!content)
        throw runtime_error("module_from_file: cannot open '" + path +
                            "'; expected a readable cubin, fatbin or PTX "
                            "file");
    std::vector<char> image(content->begin(), content->end());
    image.push_back('\0');  // PTX is read as a C string; binary images ignore the extra byte
    return from_image(image, options, log);
}

const detail::module_state& module::state() const {
    if (!state_)
        throw logic_error("this Module was moved from and no longer holds a loaded module");
    return *state_;
}

CUmodule module::handle() const { return state().handle; }

const context_state_ptr& module::owner() const { return state().context; }

function module::get_function(const std::string& name) const {
    // In the module's context, whichever is current: the lookup and the attribute queries of
    // the new function (which lazy loading may turn into loading the kernel) concern that
    // context, as the launch later does. Libraries that hold several contexts ask for kernels
    // while another one is current (grunnur's programs do).
    require_c_string(name, "Module.get_function: the kernel name");
    scoped_context in(*state().context);
    CUfunction handle = nullptr;
    const CUresult result = api().cuModuleGetFunction(&handle, state().handle, name.c_str());
    if (result == CUDA_ERROR_NOT_FOUND)
        throw logic_error("Module.get_function: the module has no kernel named '" + name +
                              "'; check the spelling, and that the kernel is extern \"C\" (or pass its mangled "
                              "C++ name)",
                          result, "cuModuleGetFunction");
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuModuleGetFunction", "kernel '" + name + "'");
    return function(handle, state_, name);
}

std::pair<CUdeviceptr, std::size_t> module::get_global(const std::string& name) const {
    require_c_string(name, "Module.get_global: the variable name");
    CUdeviceptr address = 0;
    std::size_t size = 0;
    const CUresult result = api().cuModuleGetGlobal(&address, &size, state().handle, name.c_str());
    if (result == CUDA_ERROR_NOT_FOUND)
        throw logic_error("Module.get_global: the module has no __device__ or __constant__ variable named '" + name +
                              "'; check the spelling, and that it is declared extern \"C\" or at namespace scope",
                          result, "cuModuleGetGlobal");
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuModuleGetGlobal", "variable '" + name + "'");
    return {address, size};
}

}  // namespace gpukit::cuda
