// Loading a library's function table at run time (ARCHITECTURE.md rule 1), for the libraries
// found among several candidate paths (NVRTC, nvJitLink), and naming the file a loaded
// library came from.
#pragma once

#include <dlfcn.h>

#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

namespace gpukit::detail {

// Points `slot` at `symbol` in `library`, or adds the symbol to `missing`.
template <class Fn>
void resolve_symbol(void* library, const char* symbol, Fn*& slot, std::string& missing) {
    slot = reinterpret_cast<Fn*>(dlsym(library, symbol));
    if (!slot)
        missing += std::string(missing.empty() ? "" : ", ") + symbol;
}

// dlopens each candidate in turn until one offers every symbol `fill(library, table,
// missing)` asks for. On success the library stays loaded for the life of the process
// (destructors at exit may still call into it), `path` names it and true is returned; on
// failure `table` is empty and `tried` says what each candidate lacked.
template <class Table, class Fill>
bool load_first_library(const std::vector<std::string>& candidates, Table& table, std::string& path,
                        std::string& tried, Fill fill) {
    for (const std::string& candidate : candidates) {
        void* library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            tried += "\n  " + candidate + ": not found";
            continue;
        }
        std::string missing;
        fill(library, table, missing);
        if (missing.empty()) {
            path = candidate;
            return true;
        }
        tried += "\n  " + candidate + ": lacks " + missing;
        table = {};
        dlclose(library);
    }
    return false;
}

// The file of the loaded shared library that holds `symbol`, its links resolved (so
// libnvrtc.so.13 shows as the versioned file it points to); empty when the dynamic linker
// cannot tell. A library found by the linker's own search has no path of ours to show,
// but dladdr knows the one it loaded.
inline std::string library_file(const void* symbol) {
    Dl_info info{};
    if (!symbol || dladdr(symbol, &info) == 0 || !info.dli_fname || !*info.dli_fname)
        return {};
    std::error_code failed;
    const std::filesystem::path resolved = std::filesystem::canonical(info.dli_fname, failed);
    return failed ? std::string(info.dli_fname) : resolved.string();
}

}  // namespace gpukit::detail
