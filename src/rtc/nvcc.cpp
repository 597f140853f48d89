#include "gpukit/rtc/nvcc.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/fork.hpp"
#include "gpukit/core/from_name.hpp"
#include "gpukit/core/process.hpp"
#include "gpukit/rtc/includes.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>

namespace gpukit::rtc {
namespace {

// Removes the temporary directory on every path out, unless told to keep it.
class temp_dir {
public:
    explicit temp_dir(std::string path) : path_(std::move(path)) {}
    ~temp_dir() {
        if (!keep_) {
            std::error_code ignored;
            std::filesystem::remove_all(path_, ignored);
        }
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    const std::string& path() const noexcept { return path_; }
    void keep() noexcept { keep_ = true; }

private:
    std::string path_;
    bool keep_ = false;
};

// The working directory: settings.keep_dir when keeping into one (created if needed), else
// a fresh temporary directory.
std::string working_dir(const nvcc_settings& settings) {
    if (!settings.keep || settings.keep_dir.empty())
        return make_temp_dir("gpukit-nvcc-");
    std::error_code failed;
    std::filesystem::create_directories(settings.keep_dir, failed);
    if (failed)
        throw runtime_error("cannot create the keep directory " + settings.keep_dir + ": " + failed.message(), 0,
                            "create_directories");
    return settings.keep_dir;
}

void write_source(const std::string& path, std::string_view text) {
    if (!write_file(path, text))
        throw runtime_error("could not write " + path, 0, "write");
}

std::vector<char> read_output(const std::string& path) {
    const std::optional<std::string> content = read_file(path);
    if (!content)
        throw runtime_error("nvcc reported success but wrote no " + path, 0, "nvcc");
    return {content->begin(), content->end()};
}

std::string nvcc_source(std::string_view source, const compile_options& options) {
    return wrap_source(source, options.name, options.no_extern_c, wrapper_for::nvcc, user_include_dirs(options));
}

// nvcc's arguments shared by compiling and by listing dependencies.
std::vector<std::string> common_arguments(const std::string& nvcc, const std::string& arch,
                                          const compile_options& options) {
    std::vector<std::string> argv = {nvcc, "-arch", arch};
    for (const auto& dir : options.include_dirs)
        argv.push_back("-I" + dir);
    argv.insert(argv.end(), options.options.begin(), options.options.end());
    for (const auto& dir : options.system_include_dirs)
        argv.push_back("-I" + dir);
    return argv;
}

// Whether a failed run's error output reads as running out of memory (cc1plus: "out of
// memory allocating ...", C++ programs: std::bad_alloc, the shell: "Cannot allocate memory").
bool mentions_memory(std::string_view text) {
    for (std::string_view marker : {"out of memory", "bad_alloc", "Cannot allocate memory", "memory exhausted"})
        if (text.find(marker) != std::string_view::npos)
            return true;
    return false;
}

// A run within `limits` that failed to do `what` ("compile kernel.cu for sm_90"): a
// compile_error with the first lines of nvcc's stderr, saying which bound it reached.
[[noreturn]] void throw_nvcc_failure(const std::string& what, const process_result& run,
                                     const std::vector<std::string>& argv, const process_limits& limits) {
    std::string message =
        run.timed_out ? "nvcc did not " + what + " within " + std::to_string(limits.seconds) +
                            " s, so it was stopped with the programs it ran (GPUKIT_NVCC_TIMEOUT sets the limit in "
                            "seconds, 0: none)"
                      : "nvcc failed to " + what + " (exit status " + std::to_string(run.exit_code) + ")";
    if (!run.timed_out && limits.memory_bytes != 0 && mentions_memory(run.stderr_text))
        message += "; it ran out of the " + std::to_string(limits.memory_bytes >> 20) +
                   " MiB of address space each of its programs may use (GPUKIT_NVCC_MEMORY_LIMIT sets the "
                   "limit in MiB, 0: none)";
    // The first lines of stderr carry the error; the rest travels in the log.
    int shown = 0;
    for (std::string_view line : split_lines(run.stderr_text)) {
        if (line.find_first_not_of(" \t") == std::string_view::npos)
            continue;
        if (++shown > 5)
            break;
        message += "\n  ";
        message += line;
    }
    throw compile_error(message, run.stderr_text, command_line(argv), run.stdout_text);
}

// The whole number in the environment variable `name`, else `fallback` when it is unset or empty.
std::uint64_t getenv_number(const char* name, std::uint64_t fallback, const char* unit) {
    const char* value = std::getenv(name);
    if (!value || !*value)
        return fallback;
    const std::string_view text(value);
    std::uint64_t number = 0;
    const auto [end, failure] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (failure != std::errc() || end != text.data() + text.size())
        throw runtime_error(std::string(name) + " must be a whole number of " + unit + " (0: no limit), got '" +
                                std::string(text) + "'",
                            0, "getenv");
    return number;
}

}  // namespace

process_limits nvcc_limits() {
    const std::uint64_t physical =
        static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
    const std::uint64_t default_mib = std::min<std::uint64_t>(physical / 2, std::uint64_t(32) << 30) >> 20;
    process_limits limits;
    const std::uint64_t seconds = getenv_number("GPUKIT_NVCC_TIMEOUT", 600, "seconds");
    limits.seconds = static_cast<unsigned>(std::min<std::uint64_t>(seconds, std::numeric_limits<unsigned>::max()));
    const std::uint64_t mib = getenv_number("GPUKIT_NVCC_MEMORY_LIMIT", default_mib, "MiB");
    limits.memory_bytes = mib > (std::numeric_limits<std::uint64_t>::max() >> 20) ? 0 : mib << 20;
    return limits;
}

output_kind output_kind_from_name(const std::string& name) {
    static constexpr std::pair<std::string_view, output_kind> names[] = {{"cubin", output_kind::cubin},
                                                                         {"ptx", output_kind::ptx},
                                                                         {"fatbin", output_kind::fatbin}};
    return from_name(name, names, "target");
}

compiled_program compile_with_nvcc(std::string_view source, const compile_options& options, output_kind output,
                                   const nvcc_settings& settings, std::string* kept_dir) {
    compiled_program result;
    result.arch = options.arch.empty() ? default_arch() : options.arch;
    const bool is_virtual = is_virtual_arch(result.arch);
    const char* kind = output == output_kind::fatbin                ? "fatbin"
                       : (is_virtual || output == output_kind::ptx) ? "ptx"
                                                                    : "cubin";

    temp_dir dir(working_dir(settings));
    const std::string source_path = dir.path() + "/" + options.name;
    result.source = nvcc_source(source, options);
    write_source(source_path, result.source);
    const std::string output_path = dir.path() + "/kernel." + kind;

    std::vector<std::string> argv = common_arguments(settings.nvcc, result.arch, options);
    argv.insert(argv.begin() + 1, std::string("--") + kind);
    if (settings.keep)
        argv.push_back("--keep");
    argv.insert(argv.end(), {"-o", output_path, source_path});
    result.options.assign(argv.begin() + 1, argv.end());

    if (settings.keep) {
        dir.keep();
        if (kept_dir)
            *kept_dir = dir.path();
    }
    const process_result run = run_process(argv, dir.path(), settings.limits);
    if (run.exit_code != 0)
        throw_nvcc_failure("compile " + options.name + " for " + result.arch, run, argv, settings.limits);
    result.log = run.stderr_text + run.stdout_text;
    std::vector<char> image = read_output(output_path);
    if (output == output_kind::fatbin)
        result.fatbin = std::move(image);
    else if (std::string_view(kind) == "ptx")
        result.ptx.assign(image.begin(), image.end());
    else
        result.cubin = std::move(image);
    return result;
}

std::string nvcc_version(const std::string& nvcc) {
    // nvcc takes tens of milliseconds to start; the version cannot change under a running
    // process unless the file is replaced, which a cache key cannot detect anyway. The lock
    // is held for the lookups only, each a fork_hold scope, so that a child made by fork()
    // meanwhile does not inherit it held (two threads may both ask nvcc once).
    static std::mutex mutex;
    static std::map<std::string, std::string> versions;
    {
        const fork_hold hold;
        const std::lock_guard lock(mutex);
        if (auto found = versions.find(nvcc); found != versions.end())
            return found->second;
    }
    temp_dir dir(make_temp_dir("gpukit-nvcc-"));
    const process_result run = run_process({nvcc, "--version"}, dir.path(), nvcc_limits());
    if (run.exit_code != 0)
        throw runtime_error("'" + nvcc + " --version' failed: " + run.stderr_text, 0, "nvcc");
    std::string version = run.stdout_text;
    for (std::string_view line : split_lines(run.stdout_text))
        if (line.find("release") != std::string_view::npos)
            version = std::string(line);
    const fork_hold hold;
    const std::lock_guard lock(mutex);
    return versions.emplace(nvcc, std::move(version)).first->second;
}

std::vector<std::string> nvcc_dependencies(std::string_view source, const compile_options& options,
                                           const std::string& nvcc) {
    const std::string arch = options.arch.empty() ? default_arch() : options.arch;
    temp_dir dir(make_temp_dir("gpukit-nvcc-"));
    const std::string source_path = dir.path() + "/" + options.name;
    write_source(source_path, nvcc_source(source, options));
    std::vector<std::string> argv = common_arguments(nvcc, arch, options);
    argv.insert(argv.end(), {"-M", source_path});
    const process_limits limits = nvcc_limits();
    const process_result run = run_process(argv, dir.path(), limits);
    if (run.exit_code != 0)
        throw_nvcc_failure("list the headers of " + options.name, run, argv, limits);
    // A make rule: "target : dep dep \<newline> dep ...". Paths with spaces are escaped
    // with a backslash; headers in such paths are rare enough to be split here (their
    // pieces then fail to open and are hashed as missing, so the key stays stable).
    std::vector<std::string> files;
    const std::size_t colon = run.stdout_text.find(": ");
    const std::string rule = run.stdout_text.substr(colon == std::string::npos ? 0 : colon + 2);
    for (std::string_view word : split_words(rule))
        if (word != "\\" && word != source_path)
            files.emplace_back(word);
    return files;
}

std::string find_nvcc(const std::string& name) {
    if (name.find('/') != std::string::npos)
        return is_executable(name) ? name : std::string();
    const char* path = std::getenv("PATH");
    if (std::string found = find_on_path(name, path ? path : ""); !found.empty())
        return found;
    if (name != "nvcc")
        return {};
    for (const char* variable : {"CUDA_PATH", "CUDA_HOME"})
        if (const char* home = std::getenv(variable); home && *home && is_executable(std::string(home) + "/bin/nvcc"))
            return std::string(home) + "/bin/nvcc";
    return is_executable("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : std::string();
}

}  // namespace gpukit::rtc
