#include "gpukit/cl/api.hpp"

#include "gpukit/core/fork.hpp"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace gpukit::cl {
namespace {

constexpr const char* library_name = "libOpenCL.so.1";

struct loaded_library {
    opencl_api table;
    std::string load_failure;  // why the library could not be loaded; empty when it was
};

loaded_library load_library() {
    loaded_library loaded;
    // The library stays loaded for the life of the process: destructors of OpenCL objects
    // may run at interpreter exit and must still find their release calls.
    void* library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char* why = dlerror();
        loaded.load_failure = std::string(library_name) + " could not be loaded (" + (why ? why : "unknown reason") +
                              "): install an OpenCL ICD loader and an implementation (for the CPU: "
                              "ocl-icd-libopencl1 and pocl-opencl-icd) to use gpukit.cl";
        return loaded;
    }
    // An entry the loader does not export stays null; the call that needs it reports that.
    auto resolve = [&](const char* symbol, auto*& slot) {
        slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(library, symbol));
    };
#define X(name) resolve(#name, loaded.table.name);
#include "gpukit/cl/cl_functions.inc"
#undef X
    return loaded;
}

loaded_library& instance() {
    // Leaked on purpose: never destroyed, so late destructors at exit can still use it.
    static loaded_library* loaded = new loaded_library(load_library());
    return *loaded;
}

}  // namespace

const opencl_api& api() { return mutable_api(); }

opencl_api& mutable_api() {
    loaded_library& loaded = instance();
    if (!loaded.load_failure.empty())
        throw runtime_error(loaded.load_failure, 0, "dlopen");
    // The process of the first call owns OpenCL: that call sets the implementation up (its
    // threads, its driver connections). Loading the ICD loader (available()) does not, so
    // a child forked after only that may still use OpenCL.
    static const std::uint64_t user_generation = fork_generation();
    if (user_generation != fork_generation())
        throw runtime_error(forked_child_message("OpenCL"), 0, "fork");
    return loaded.table;
}

bool available() noexcept {
    try {
        return instance().load_failure.empty();
    } catch (...) {
        return false;
    }
}

void throw_missing_entry(const char* routine) {
    throw logic_error(std::string(routine) + " is not exported by the installed " + library_name +
                          "; install an ICD loader for OpenCL 3.0",
                      CL_INVALID_OPERATION, routine);
}

}  // namespace gpukit::cl
