// The compiling half of gpukit.compiler: NVRTC or nvcc through the compilation cache
// (compiler.py wraps these).
#include "bindings.hpp"
#include "compile_request.hpp"

#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/cache.hpp"
#include "gpukit/rtc/compiler.hpp"
#include "gpukit/rtc/program.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <optional>

namespace gpukit::python {

using namespace nb::literals;

void bind_rtc(nb::module_& m) {
    m.def("nvrtc_available", &rtc::nvrtc_available, "True when libnvrtc can be loaded.");
    m.def("nvrtc_version", &rtc::version, "NVRTC's (major, minor) version.");
    m.def("nvrtc_default_arch", &rtc::default_arch,
          "The architecture compiled for when none is given: the current device's, else sm_90.");
    m.def("_default_cache_dir", [] {
        const auto dir = rtc::default_cache_dir();
        return dir ? std::optional<std::string>(dir->string()) : std::nullopt;
    }, "GPUKIT_CACHE_DIR, $XDG_CACHE_HOME/gpukit or ~/.cache/gpukit; None when GPUKIT_DISABLE_CACHE is set.");
    m.def("_cache_disabled_by_environment", &rtc::cache_disabled_by_environment);
    m.def("_cache_key", [](std::string source, std::vector<std::string> options, std::string arch,
                           std::vector<std::string> include_dirs, bool no_extern_c, const std::string& compiler,
                           std::string nvcc) {
        const rtc::compile_request r = make_compile_request(std::move(source), std::move(options), std::move(arch),
                                                    std::move(include_dirs), no_extern_c, compiler, std::move(nvcc),
                                                    false);
        return rtc::cache_key(r);
    }, "source"_a, "options"_a, "arch"_a, "include_dirs"_a, "no_extern_c"_a, "compiler"_a, "nvcc"_a,
       "The compilation cache key (64 hex digits) of this request.");
    m.def("_compile", [](std::string source, std::vector<std::string> options, std::string arch,
                         std::vector<std::string> include_dirs, bool no_extern_c, const std::string& compiler,
                         std::string nvcc, bool keep, std::optional<std::string> cache_dir) {
        const rtc::compile_request r = make_compile_request(std::move(source), std::move(options), std::move(arch),
                                                    std::move(include_dirs), no_extern_c, compiler, std::move(nvcc),
                                                    keep);
        std::optional<std::filesystem::path> dir;
        if (cache_dir)
            dir = *cache_dir;
        rtc::compile_outcome outcome;
        {
            nb::gil_scoped_release release;
            outcome = rtc::compile_cached(r, dir);
        }
        return nb::make_tuple(nb::bytes(outcome.image.data(), outcome.image.size()), outcome.arch, outcome.ptx,
                              outcome.log, outcome.key, outcome.from_cache, outcome.kept_dir);
    }, "source"_a, "options"_a, "arch"_a, "include_dirs"_a, "no_extern_c"_a, "compiler"_a, "nvcc"_a, "keep"_a,
       "cache_dir"_a.none(),
       "Compile through the cache at cache_dir (None: no cache): "
       "(image, arch, ptx, log, key, from_cache, kept_dir).");
}

}  // namespace gpukit::python
