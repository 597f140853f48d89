#include "gpukit/cuda/api.hpp"

#include "gpukit/core/detail/dynamic_library.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/fork.hpp"

#include <cudaProfilerTypedefs.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
// cudaGLTypedefs.h includes OpenGL's <GL/gl.h>; where that is missing, the OpenGL entries are
// checked against cudaGLTypedefs.h's typedefs as written here, GLuint and GLenum spelled out.
#if __has_include(<GL/gl.h>)
#include <cudaGLTypedefs.h>
#else
using PFN_cuGraphicsGLRegisterBuffer_v3000 = CUresult(CUDAAPI*)(CUgraphicsResource*, unsigned int, unsigned int);
using PFN_cuGraphicsGLRegisterImage_v3000 = CUresult(CUDAAPI*)(CUgraphicsResource*, unsigned int, unsigned int,
                                                               unsigned int);
#endif

#include <mutex>
#include <string>
#include <type_traits>

namespace gpukit::cuda {

namespace {

using get_proc_address_fn = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

struct loaded_driver : gpukit::detail::loaded_library<driver_api> {
    CUresult init_result = CUDA_SUCCESS;
    std::uint64_t fork_generation = gpukit::fork_generation();  // of the process that loaded it
};

// Each entry is looked up by the name code calls it by, at the version whose ABI matches
// the prototype its pointer type comes from (driver_functions.inc); the compiler checks
// that pairing against cudaTypedefs.h. (The shared_config entries are deprecated but offered.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define X(name, version)                                                      \
    static_assert(std::is_same_v<decltype(&::name), PFN_##name##_v##version>, \
                  #name ": the version in driver_functions.inc does not match cuda.h's prototype");
#include "gpukit/cuda/driver_functions.inc"
#undef X
#pragma GCC diagnostic pop

// Resolves every entry of the table. An entry the driver does not offer stays null and
// the call that needs it reports that (an older driver than our headers).
void resolve_all(driver_api& table, get_proc_address_fn get_proc) {
    auto resolve = [&](const char* name, int version, auto*& slot) {
        void* fn = nullptr;
        CUdriverProcAddressQueryResult status{};
        if (get_proc(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS &&
            status == CU_GET_PROC_ADDRESS_SUCCESS)
            slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(fn);
    };
#define X(name, version) resolve(#name, version, table.name);
#include "gpukit/cuda/driver_functions.inc"
#undef X
}

struct driver_library {
    using loaded_type = loaded_driver;
    static loaded_driver load();
    // The table is the loading process's, and usable once cuInit succeeded or found no
    // device (device counting must work on a machine without a GPU).
    static void check_usable(const loaded_driver& loaded) {
        refuse_in_forked_child<runtime_error>(loaded.fork_generation, "CUDA");
        if (loaded.init_result != CUDA_SUCCESS && loaded.init_result != CUDA_ERROR_NO_DEVICE)
            throw_cuda_error(loaded.init_result, "cuInit");
    }
};

using driver = gpukit::detail::run_time_library<driver_library>;

loaded_driver driver_library::load() {
    loaded_driver driver;
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char* why = dlerror();
        driver.load_failure = std::string("libcuda.so.1 could not be loaded (") + (why ? why : "unknown reason") +
                              "): no NVIDIA driver is installed on this machine, so CUDA is unavailable";
        return driver;
    }
    auto get_proc = reinterpret_cast<get_proc_address_fn>(dlsym(library, "cuGetProcAddress_v2"));
    if (!get_proc) {
        driver.load_failure =
            "libcuda.so.1 has no cuGetProcAddress_v2: the NVIDIA driver is older than CUDA 12; "
            "gpukit needs a driver for CUDA 12 or newer";
        return driver;
    }
    driver.path = gpukit::detail::library_file(reinterpret_cast<const void*>(get_proc));
    resolve_all(driver.table, get_proc);
    // The library stays loaded for the life of the process: destructors of CUDA objects
    // may run at interpreter exit and must still find the driver.
    driver.init_result = driver.table.cuInit ? driver.table.cuInit(0) : CUDA_ERROR_NOT_INITIALIZED;
    return driver;
}

}  // namespace

const driver_api& api() { return driver::api(); }

driver_api& mutable_api() { return driver::mutable_api(); }

bool driver_available() noexcept { return driver::available(); }

std::string driver_library_path() { return driver::loaded().path; }

bool is_ready(CUresult result, const char* routine) {
    if (result == CUDA_ERROR_NOT_READY)
        return false;
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, routine);
    return true;
}

void throw_missing_entry(const char* routine) {
    throw logic_error(std::string(routine) + " is not provided by the installed NVIDIA driver; update the driver", 0,
                      routine);
}

std::string error_name(CUresult result) {
    const char* name = nullptr;
    if (driver_available() && driver::instance().table.cuGetErrorName &&
        driver::instance().table.cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
        return name;
    return "CUresult " + std::to_string(static_cast<int>(result));
}

void throw_cuda_error(CUresult result, const char* routine, const std::string& detail) {
    std::string description;
    const char* text = nullptr;
    if (driver_available() && driver::instance().table.cuGetErrorString &&
        driver::instance().table.cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
        description = text;
    else
        description = "unknown error";
    std::string message = std::string(routine) + " failed: " + error_name(result) + ": " + description;
    if (!detail.empty())
        message += " (" + detail + ")";

    switch (result) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        throw memory_error(message, result, routine);
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
        throw launch_error(message, result, routine);
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_INVALID_CONTEXT:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_NOT_FOUND:
    case CUDA_ERROR_NOT_READY:
    case CUDA_ERROR_CONTEXT_ALREADY_CURRENT:
    case CUDA_ERROR_CONTEXT_ALREADY_IN_USE:
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED:
    case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED:
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED:
    case CUDA_ERROR_NOT_SUPPORTED:
    case CUDA_ERROR_NOT_PERMITTED:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_NOT_MAPPED:
    case CUDA_ERROR_ALREADY_MAPPED:
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED:
        throw logic_error(message, result, routine);
    default:
        throw runtime_error(message, result, routine);
    }
}

}  // namespace gpukit::cuda
