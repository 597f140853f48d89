// The compiling half of gpukit.compiler: NVRTC or nvcc through the compilation cache, the
// translation of nvcc's options and the CUDA toolkit search (compiler.py wraps these).
#include "common/bindings.hpp"
#include "cuda/compile_request.hpp"
#include "common/path_args.hpp"

#include "gpukit/core/detail/nvidia_packages.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/cache.hpp"
#include "gpukit/rtc/compiler.hpp"
#include "gpukit/rtc/nvcc_options.hpp"
#include "gpukit/rtc/program.hpp"
#include "gpukit/rtc/toolkit.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <optional>

namespace gpukit::python {

using namespace nb::literals;

namespace {

nb::list notes_list(const std::vector<rtc::option_note>& notes) {
    nb::list list;
    for (const auto& note : notes)
        list.append(nb::make_tuple(note.option, note.note));
    return list;
}

}  // namespace

void bind_rtc(nb::module_& m) {
    m.def("nvrtc_available", &rtc::nvrtc_available, "True when libnvrtc can be loaded.");
    m.def("nvrtc_version", &rtc::version, "NVRTC's (major, minor) version.");
    m.def(
        "_nvrtc_library_path", [] { return path_text(rtc::nvrtc_library_path()); },
        "The file of the NVRTC library in use, links resolved; RuntimeError when none can be loaded.");
    m.def("nvrtc_default_arch", &rtc::default_arch,
          "The architecture compiled for when none is given: the current device's, else sm_90.");
    m.def(
        "_default_cache_dir",
        []() -> std::optional<nb::str> {
            const auto dir = rtc::default_cache_dir();
            return dir ? std::optional(path_text(dir->native())) : std::nullopt;
        },
        "GPUKIT_CACHE_DIR, $XDG_CACHE_HOME/gpukit or ~/.cache/gpukit; None when GPUKIT_DISABLE_CACHE is set.");
    m.def("_cache_disabled_by_environment", &rtc::cache_disabled_by_environment);
    m.def(
        "_cache_usage",
        [](path_arg directory) -> nb::typed<nb::tuple, int, int> {
            const rtc::compile_cache::usage_info usage =
                rtc::compile_cache(directory.get("_cache_usage(directory)")).usage();
            return nb::make_tuple(usage.entries, usage.bytes);
        },
        "directory"_a.none(), "(entries, bytes): the compilation cache entries in directory and their total size.");
    m.def(
        "_cache_entries",
        [](path_arg directory) -> nb::typed<nb::list, nb::typed<nb::tuple, nb::str, int, int>> {
            nb::list listed;
            for (const rtc::compile_cache::entry_info& e :
                 rtc::compile_cache(directory.get("_cache_entries(directory)")).entries())
                listed.append(nb::make_tuple(e.key, e.bytes, e.last_used_ns));
            return listed;
        },
        "directory"_a.none(), "[(key, bytes, last_used_ns)]: the entries in directory, least recently used first.");
    m.def(
        "_cache_prune",
        [](path_arg directory, std::uintmax_t max_bytes) -> nb::typed<nb::tuple, int, int> {
            const rtc::compile_cache::usage_info removed =
                rtc::compile_cache(directory.get("_cache_prune(directory)")).prune(max_bytes);
            return nb::make_tuple(removed.entries, removed.bytes);
        },
        "directory"_a.none(), "max_bytes"_a,
        "Removes the least recently used entries of directory until the rest take at most max_bytes; "
        "(entries, bytes) removed.");
    m.def(
        "_cache_distrust",
        [](path_arg directory) { return rtc::compile_cache(directory.get("_cache_distrust(directory)")).distrust(); },
        "directory"_a.none(), "Why the cache in directory is not used ('' when it is).");
    m.def(
        "_cache_size_limit",
        [] {
            try {
                return rtc::cache_size_limit();
            } catch (const logic_error& e) {  // a malformed GPUKIT_CACHE_SIZE
                throw nb::value_error(e.what());
            }
        },
        "The most bytes the compile cache may hold (0: no limit): the set limit, else GPUKIT_CACHE_SIZE, else 1 GiB; "
        "ValueError when GPUKIT_CACHE_SIZE is malformed.");
    m.def("_set_cache_size_limit", &rtc::set_cache_size_limit, "bytes"_a.none(),
          "Sets the compile cache's size limit for this process (None: GPUKIT_CACHE_SIZE's, or the default).");
    m.def(
        "_parse_cache_size",
        [](std::string_view text, std::string_view what) {
            try {
                return rtc::parse_cache_size(text, what);
            } catch (const logic_error& e) {
                throw nb::value_error(e.what());
            }
        },
        "text"_a, "what"_a,
        "The bytes a GPUKIT_CACHE_SIZE-style size means (4096, 512M, 2G; 0: no limit); ValueError naming `what` "
        "when it is malformed.");
    m.def(
        "_find_nvcc", [](path_arg name) { return path_text(rtc::find_nvcc(name.get("_find_nvcc(name)"))); },
        "name"_a.none(),
        "The path of the nvcc to run for `name` (a path, or searched on PATH, CUDA_PATH/bin, CUDA_HOME/bin, "
        "/usr/local/cuda/bin); '' when none is found.");
    m.def(
        "_set_nvidia_package_dirs",
        [](path_list_arg dirs) { gpukit::detail::set_nvidia_package_dirs(dirs.get("_set_nvidia_package_dirs(dirs)")); },
        "dirs"_a.none(), "The `nvidia` namespace package's directories, searched for the CUDA toolkit's pip packages.");
    m.def(
        "_find_cuda_toolkit",
        []() -> nb::typed<nb::tuple, nb::typed<nb::list, nb::str>, nb::str, nb::typed<nb::list, nb::str>> {
            const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit();
            return nb::make_tuple(path_texts(toolkit.include_dirs), toolkit.found_via, path_texts(toolkit.looked_in));
        },
        "(include_dirs, found_via, looked_in): the CUDA toolkit headers given to NVRTC.");
    m.def(
        "_translate_options",
        // Values of several types, one per key (lists of str, str, bool, lists of pairs): typing.Any.
        [](const std::vector<std::string>& options) -> nb::typed<nb::dict, nb::str, nb::any> {
            const rtc::translated_options t = rtc::translate_nvcc_options(options);
            nb::dict result;
            result["nvrtc"] = t.nvrtc;
            result["nvrtc_notes"] = notes_list(t.nvrtc_notes);
            result["nvcc"] = t.nvcc;
            result["nvcc_notes"] = notes_list(t.nvcc_notes);
            result["target"] = rtc::target_of(t);
            result["keep"] = t.keep;
            result["keep_dir"] = t.keep_dir;
            result["warnings_are_errors"] = t.warnings_are_errors;
            result["include_dirs"] = t.include_dirs;
            return result;
        },
        "options"_a, "nvcc's options translated for NVRTC (nvcc_options.hpp), as a dict.");

    nb::class_<rtc::compile_outcome>(m, "CompileOutcome", "What a compilation produced, and how.")
        .def_prop_ro(
            "image", [](const rtc::compile_outcome& o) { return nb::bytes(o.image.data(), o.image.size()); },
            "The cubin, fatbin or NUL-terminated PTX to load.")
        .def_ro("arch", &rtc::compile_outcome::arch)
        .def_ro("key", &rtc::compile_outcome::key, "The cache key; '' when the cache was not used.")
        .def_ro("from_cache", &rtc::compile_outcome::from_cache)
        // The log and notes may quote paths that are no UTF-8: shown as \xNN. The PTX keeps its
        // bytes, as surrogate escapes (.encode("utf-8", "surrogateescape") gives them back).
        .def_prop_ro(
            "log", [](const rtc::compile_outcome& o) { return message_text(o.log); },
            "The compiler's warnings ('' on a cache hit).")
        .def_prop_ro("ptx", [](const rtc::compile_outcome& o) { return path_text(o.ptx); })
        .def_prop_ro(
            "kept_dir", [](const rtc::compile_outcome& o) { return path_text(o.kept_dir); },
            "With keep: the directory holding the kept files; '' otherwise.")
        .def_ro("compiled_by", &rtc::compile_outcome::compiled_by, "'nvrtc' or 'nvcc'; '' on a cache hit.")
        .def_prop_ro(
            "notes",
            [](const rtc::compile_outcome& o) {
                std::vector<nb::str> notes;
                for (const std::string& note : o.notes)
                    notes.push_back(message_text(note));
                return notes;
            },
            "What gpukit did with the options and compilers, and why ([] on a cache hit).");

    nb::class_<rtc::prepared_compile>(m, "_PreparedCompile",
                                      "A compile request made ready once (options translated, arch settled): "
                                      "its cache key and its compilation without preparing twice.")
        .def_prop_ro("keeps_files", &rtc::prepared_compile::keeps_files,
                     "Whether the compiler's files are kept (keep, or --keep in the options).")
        .def_prop_ro(
            "key",
            [](const rtc::prepared_compile& p) {
                release_gil release;
                return p.key();
            },
            "The compilation cache key (64 hex digits), worked out once.")
        .def(
            "compile",
            [](const rtc::prepared_compile& p, path_arg cache_dir) {
                const std::optional<std::filesystem::path> dir = cache_dir_path(cache_dir, "compile");
                release_gil release;
                return p.compile_cached(dir);
            },
            "cache_dir"_a.none(), "Compile through the cache at cache_dir (None: no cache); a CompileOutcome.");
    m.def(
        "_prepare_compile",
        [](std::string source, std::vector<std::string> options, std::string arch, path_list_arg include_dirs,
           path_list_arg system_include_dirs, bool no_extern_c, const std::string& compiler, path_arg nvcc,
           const std::string& output, bool keep) {
            rtc::compile_request r = make_compile_request(std::move(source), std::move(options), std::move(arch),
                                                          include_dirs.get("compile(include_dirs)"),
                                                          system_include_dirs.get("system_include_dirs"), no_extern_c,
                                                          compiler, nvcc.get("compile(nvcc)"), output, keep);
            release_gil release;  // settling the arch may ask the driver for the current device
            return rtc::prepared_compile(std::move(r));
        },
        "source"_a, "options"_a, "arch"_a, "include_dirs"_a.none(), "system_include_dirs"_a.none(), "no_extern_c"_a,
        "compiler"_a, "nvcc"_a.none(), "output"_a, "keep"_a,
        "The request checked, its options translated and its architecture settled: a _PreparedCompile.");
}

}  // namespace gpukit::python
