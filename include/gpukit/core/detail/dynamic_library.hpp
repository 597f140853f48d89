// Finding a library gpukit loads at run time among candidate paths, opening it and filling
// its function table, and naming the file it came from. run_time_library.hpp keeps the
// process's one load and hands out its table.
#pragma once

#include "gpukit/core/detail/run_time_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

namespace gpukit::detail {

// dir + name for every directory, then every name, in the order given ("" is the dynamic
// linker's own search).
inline std::vector<std::string> library_candidates(const std::vector<std::string>& dirs,
                                                   std::initializer_list<const char*> names) {
    std::vector<std::string> candidates;
    for (const auto& dir : dirs)
        for (const char* name : names)
            candidates.push_back(dir + name);
    return candidates;
}

// The directories of LD_LIBRARY_PATH, each ending in '/', in order (empty entries left out):
// loaders that must know the file a load would use (not only the dynamic linker) name them.
inline std::vector<std::string> ld_library_path_dirs() {
    std::vector<std::string> dirs;
    const char* path = std::getenv("LD_LIBRARY_PATH");
    for (const char* rest = path ? path : ""; *rest;) {
        const char* colon = rest;
        while (*colon && *colon != ':')
            ++colon;
        if (colon != rest)
            dirs.push_back(std::string(rest, colon) + "/");
        rest = *colon ? colon + 1 : colon;
    }
    return dirs;
}

// Where the CUDA toolkit's libraries are looked for: the dynamic linker's own search,
// $CUDA_HOME/lib64 and $CUDA_PATH/lib64, then `more` (pip packages' directories), then
// /usr/local/cuda/lib64.
inline std::vector<std::string> toolkit_library_dirs(const std::vector<std::string>& more = {}) {
    std::vector<std::string> dirs = {""};
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* home = std::getenv(variable); home && *home)
            dirs.push_back(std::string(home) + "/lib64/");
    dirs.insert(dirs.end(), more.begin(), more.end());
    dirs.push_back("/usr/local/cuda/lib64/");
    return dirs;
}

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
bool load_first_library(const std::vector<std::string>& candidates, Table& table, std::string& path, std::string& tried,
                        Fill fill) {
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

// The library from the first of `candidates` that offers every symbol `fill` asks for; else
// its load_failure is `why_needed` followed by what each candidate lacked.
template <class Table, class Fill>
loaded_library<Table> load_from_candidates(const std::vector<std::string>& candidates, Fill fill,
                                           const std::string& why_needed) {
    loaded_library<Table> loaded;
    std::string tried;
    if (!load_first_library(candidates, loaded.table, loaded.path, tried, fill))
        loaded.load_failure = why_needed + " Tried:" + tried;
    return loaded;
}

// The Library of a run_time_library that is loaded by `Load(Candidates())`: for a library
// whose loader tests also call with candidates of their own (NVRTC's, NCCL's).
template <auto Load, auto Candidates>
struct candidates_loader {
    using loaded_type = decltype(Load(Candidates()));
    static loaded_type load() { return Load(Candidates()); }
};

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
