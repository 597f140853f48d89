#include "gpukit/cl/api.hpp"

#include "gpukit/core/detail/dynamic_library.hpp"
#include "gpukit/core/fork.hpp"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace gpukit::cl {
namespace {

constexpr const char* library_name = "libOpenCL.so.1";

struct opencl_library {
    using loaded_type = gpukit::detail::loaded_library<opencl_api>;
    static loaded_type load();
    // The process of the first use of the table owns OpenCL: that use sets the implementation
    // up (its threads, its driver connections). Loading the ICD loader (available()) does
    // not, so a child forked after only that may still use OpenCL.
    static void check_usable(const loaded_type&) {
        static const std::uint64_t user_generation = fork_generation();
        refuse_in_forked_child<runtime_error>(user_generation, "OpenCL");
    }
};

using opencl = gpukit::detail::run_time_library<opencl_library>;

opencl_library::loaded_type opencl_library::load() {
    loaded_type loaded;
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

}  // namespace

const opencl_api& api() { return opencl::api(); }

opencl_api& mutable_api() { return opencl::mutable_api(); }

bool available() noexcept { return opencl::available(); }

void throw_missing_entry(const char* routine) {
    throw logic_error(std::string(routine) + " is not exported by the installed " + library_name +
                          "; install an ICD loader for OpenCL 3.0",
                      CL_INVALID_OPERATION, routine);
}

}  // namespace gpukit::cl
