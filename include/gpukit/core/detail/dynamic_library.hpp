// Loading a library's function table at run time (ARCHITECTURE.md rule 1), for the libraries
// found among several candidate paths (NVRTC, nvJitLink).
#pragma once

#include <dlfcn.h>

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

}  // namespace gpukit::detail
