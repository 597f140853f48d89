#include "gpukit/rtc/compiler.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/from_name.hpp"
#include "gpukit/core/process.hpp"
#include "gpukit/core/sha256.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/builtin_headers.hpp"
#include "gpukit/rtc/cache.hpp"
#include "gpukit/rtc/includes.hpp"
#include "gpukit/rtc/toolkit.hpp"

#include <algorithm>
#include <cstdint>
#include <variant>

namespace gpukit::rtc {

namespace detail {

// A request with its options translated and its architecture settled, shared by the cache
// key and the compilation so that both see the same thing.
struct prepared_request {
    compile_request request;
    // The compiler to run: the request's, except that the automatic choice is nvcc when
    // NVRTC is not installed.
    compiler_kind compiler;
    translated_options translated;
    // The fields below have initializers: prepare() names the first three only (clang's
    // -Wmissing-field-initializers asks for them).
    std::string arch{};             // the target; the device's when nothing names one
    bool arch_from_device = false;  // then NVRTC's newest architecture caps it when compiling
    bool keep = false;
    std::string keep_dir{};
};

}  // namespace detail

namespace {

using detail::prepared_request;

namespace fs = std::filesystem;

prepared_request prepare(compile_request given_request) {
    require_c_strings(given_request);
    const bool without_nvrtc = given_request.compiler == compiler_kind::automatic && !nvrtc_available();
    prepared_request p{std::move(given_request), compiler_kind::automatic, {}, {}, false, false, {}};
    const compile_request& request = p.request;
    p.compiler = without_nvrtc ? compiler_kind::nvcc : request.compiler;
    p.translated = translate_nvcc_options(request.options.options);
    const std::string& given = request.options.arch;
    const std::string& in_options = target_of(p.translated);
    if (!given.empty() && !in_options.empty() && given != in_options)
        throw logic_error("the target is given twice: arch/code '" + given + "' and '" + in_options +
                          "' in the options; gpukit builds one image for one architecture");
    p.arch = !given.empty() ? given : in_options;
    if (p.arch.empty()) {
        p.arch = device_arch();
        p.arch_from_device = true;
    }
    is_virtual_arch(p.arch);  // logic_error for a malformed name, before any compiler runs
    p.keep = request.keep || p.translated.keep;
    p.keep_dir = !request.keep_dir.empty() ? request.keep_dir : p.translated.keep_dir;
    return p;
}

// The caller's include directories: those given, then the -I of the options.
std::vector<fs::path> caller_dirs(const prepared_request& p) {
    std::vector<fs::path> dirs(p.request.options.include_dirs.begin(), p.request.options.include_dirs.end());
    dirs.insert(dirs.end(), p.translated.include_dirs.begin(), p.translated.include_dirs.end());
    return dirs;
}

// The request's options for NVRTC, its target adjusted to the output wanted.
compile_options nvrtc_options(const prepared_request& p) {
    compile_options options = p.request.options;
    options.options = p.translated.nvrtc;
    options.arch = p.arch_from_device ? nvrtc_arch(p.arch) : p.arch;
    if (p.request.output == output_kind::ptx && !is_virtual_arch(options.arch))
        options.arch = "compute_" + options.arch.substr(3);  // PTX of the same architecture
    options.want_ptx = options.want_ptx || p.keep;
    return options;
}

compile_options nvcc_options(const prepared_request& p) {
    compile_options options = p.request.options;
    options.options = p.translated.nvcc;
    options.arch = p.arch;
    return options;
}

// Feeds "label NUL length value" so that no two different field lists hash alike.
void add_field(sha256& hash, std::string_view label, std::string_view value) {
    hash.update(label);
    hash.update("\0", 1);
    std::uint8_t length[8];
    for (int i = 0; i < 8; ++i)
        length[i] = static_cast<std::uint8_t>(std::uint64_t(value.size()) >> (8 * i));
    hash.update(length, sizeof(length));
    hash.update(value);
}

std::string_view compiler_name(compiler_kind kind) {
    switch (kind) {
    case compiler_kind::automatic:
        return "auto";
    case compiler_kind::nvrtc:
        return "nvrtc";
    case compiler_kind::nvcc:
        return "nvcc";
    }
    return {};
}

// The nvcc to run, or runtime_error naming where it was looked for.
std::string required_nvcc(const std::string& name) {
    std::string found = find_nvcc(name);
    if (found.empty())
        throw runtime_error("nvcc ('" + name + "') was not found" +
                                (name.find('/') != std::string::npos
                                     ? std::string(" (not an executable file)")
                                     : std::string(" on PATH, in CUDA_PATH/bin, CUDA_HOME/bin or /usr/local/cuda/bin")),
                            0, "find_nvcc");
    return found;
}

std::string key_of(const prepared_request& p, const std::string& nvrtc_identity) {
    const compile_request& request = p.request;
    sha256 hash;
    add_field(hash, "format", "gpukit-compile-cache-2");
    add_field(hash, "compiler", compiler_name(p.compiler));
    std::vector<fs::path> headers;
    if (p.compiler == compiler_kind::nvcc) {
        const std::string nvcc = required_nvcc(request.nvcc);
        add_field(hash, "nvcc", nvcc);
        add_field(hash, "nvcc-version", nvcc_version(nvcc));
        const compile_options options = nvcc_options(p);
        add_field(hash, "source",
                  wrap_source(request.source, options.name, options.no_extern_c, wrapper_for::nvcc, caller_dirs(p)));
        for (const auto& file : nvcc_dependencies(request.source, options, nvcc))
            headers.emplace_back(file);
    } else {
        add_field(hash, "nvrtc-identity", nvrtc_identity);
        if (p.compiler == compiler_kind::automatic)
            add_field(hash, "fallback-nvcc", detail::file_identity(find_nvcc(request.nvcc)));
        add_field(hash, "toolkit", toolkit_identity(find_cuda_toolkit()));
        add_field(hash, "builtin-headers", builtin_headers_digest());
        const std::vector<fs::path> user_dirs = caller_dirs(p);
        add_field(hash, "source",
                  wrap_source(request.source, request.options.name, request.options.no_extern_c, wrapper_for::nvrtc,
                              user_dirs));
        std::vector<fs::path> dirs = user_dirs;
        dirs.insert(dirs.end(), request.options.system_include_dirs.begin(), request.options.system_include_dirs.end());
        std::error_code ignored;
        headers = find_included_headers(request.source, fs::current_path(ignored), dirs);
    }
    // The device's architecture when none is given: with the compiler's identity it fixes
    // what nvrtc_arch() makes of it, without loading NVRTC to ask.
    add_field(hash, "arch", p.arch);
    add_field(hash, "output", std::to_string(static_cast<int>(request.output)));
    add_field(hash, "name", request.options.name);
    for (const auto& dir : request.options.include_dirs)
        add_field(hash, "include-dir", dir);
    for (const auto& dir : request.options.system_include_dirs)
        add_field(hash, "system-include-dir", dir);
    for (const auto& option : request.options.options)
        add_field(hash, "option", option);
    for (const auto& header : headers) {
        add_field(hash, "header-path", header.string());
        const auto content = read_file(header.string());
        add_field(hash, content ? "header" : "header-missing", content ? *content : std::string());
    }
    return hash.hex_digest();
}

void add_notes(compile_outcome& outcome, const std::vector<option_note>& notes) {
    for (const auto& note : notes)
        outcome.notes.push_back(note.option + ": " + note.note);
}

// Writes what NVRTC compiled and produced into the keep directory, as nvcc's --keep would.
std::string keep_files(const prepared_request& p, const compiled_program& program) {
    std::string dir = p.keep_dir;
    if (dir.empty()) {
        dir = make_temp_dir("gpukit-compile-");
    } else {
        std::error_code failed;
        fs::create_directories(dir, failed);
        if (failed)
            throw runtime_error("cannot create the keep directory " + dir + ": " + failed.message(), 0,
                                "create_directories");
    }
    const std::string stem = dir + "/" + fs::path(p.request.options.name).stem().string();
    bool written = write_file(dir + "/" + p.request.options.name, program.source) &&
                   write_file(stem + ".log", program.log) && write_file(stem + ".ptx", program.ptx);
    if (!program.cubin.empty())
        written = written && write_file(stem + ".cubin", std::string_view(program.cubin.data(), program.cubin.size()));
    if (!written)
        throw runtime_error("cannot write the kept files into " + dir, 0, "write");
    return dir;
}

// The outcome of a compilation that produced `program`, with the notes of its translation.
compile_outcome outcome_of(compiled_program program, const char* compiled_by, const std::vector<option_note>& notes,
                           std::string kept_dir) {
    compile_outcome outcome;
    outcome.image = program.image();
    outcome.arch = program.arch;
    outcome.log = std::move(program.log);
    outcome.ptx = std::move(program.ptx);
    outcome.kept_dir = std::move(kept_dir);
    outcome.compiled_by = compiled_by;
    add_notes(outcome, notes);
    return outcome;
}

compile_outcome with_nvcc(const prepared_request& p, const std::string& nvcc) {
    nvcc_settings settings{nvcc, p.keep, p.keep_dir, nvcc_limits()};
    std::string kept_dir;
    compiled_program program =
        compile_with_nvcc(p.request.source, nvcc_options(p), p.request.output, settings, &kept_dir);
    return outcome_of(std::move(program), "nvcc", p.translated.nvcc_notes, std::move(kept_dir));
}

// NVRTC, again with -default-device when that is all its complaint needs: the program, or
// the first attempt's failure.
std::variant<compiled_program, nvrtc_failure> nvrtc_attempt(const prepared_request& p, bool& default_device) {
    compile_options options = nvrtc_options(p);
    auto first = try_compile(p.request.source, options);
    const auto* failure = std::get_if<nvrtc_failure>(&first);
    const bool has_it =
        std::find(options.options.begin(), options.options.end(), "-default-device") != options.options.end();
    if (!failure || !failure->fixed_by_default_device || has_it)
        return first;
    options.options.push_back("-default-device");
    auto second = try_compile(p.request.source, options);
    if (std::holds_alternative<nvrtc_failure>(second))
        return first;
    default_device = true;
    return second;
}

compile_outcome with_nvrtc(const prepared_request& p, compiled_program program, bool default_device) {
    if (p.translated.warnings_are_errors && program.log.find("warning") != std::string::npos)
        throw compile_error("NVRTC warned while compiling " + p.request.options.name +
                                ", and -Werror=all-warnings makes warnings errors:\n" + program.log,
                            program.log, join_words(program.options));
    std::string kept_dir = p.keep ? keep_files(p, program) : std::string();
    compile_outcome outcome = outcome_of(std::move(program), "nvrtc", p.translated.nvrtc_notes, std::move(kept_dir));
    if (default_device)
        outcome.notes.push_back(
            "NVRTC compiled with -default-device: the source has functions or variables "
            "without __device__, which NVRTC would take for host code and reject");
    return outcome;
}

compile_outcome compile_prepared(const prepared_request& p) {
    const compile_request& request = p.request;
    if (p.compiler == compiler_kind::nvcc)
        return with_nvcc(p, required_nvcc(request.nvcc));
    if (request.output == output_kind::fatbin) {
        if (p.compiler == compiler_kind::nvrtc)
            throw logic_error(
                "target='fatbin' needs nvcc: NVRTC produces a cubin or PTX (use compiler='nvcc' or "
                "the automatic choice, or target='cubin')");
        compile_outcome outcome = with_nvcc(p, required_nvcc(request.nvcc));
        outcome.notes.push_back("target fatbin: compiled with nvcc, since NVRTC produces no fatbins");
        return outcome;
    }
    bool default_device = false;
    auto attempt = nvrtc_attempt(p, default_device);
    if (auto* program = std::get_if<compiled_program>(&attempt))
        return with_nvrtc(p, std::move(*program), default_device);
    nvrtc_failure& failure = std::get<nvrtc_failure>(attempt);
    if (p.compiler == compiler_kind::automatic && failure.needs_nvcc()) {
        const std::string nvcc = find_nvcc(request.nvcc);
        if (nvcc.empty()) {
            failure.message +=
                "\n  nvcc, which could compile it, was not found (PATH, CUDA_PATH/bin, "
                "CUDA_HOME/bin, /usr/local/cuda/bin).";
        } else {
            try {
                compile_outcome outcome = with_nvcc(p, nvcc);
                outcome.notes.push_back("compiled with nvcc (" + nvcc + "): " + failure.limitation);
                return outcome;
            } catch (const compile_error& e) {
                throw compile_error(failure.message + "\nnvcc (" + nvcc + "), tried next, failed too:\n" + e.what(),
                                    "NVRTC:\n" + failure.log + "\nnvcc:\n" + e.log(),
                                    join_words(failure.options) + "\n" + e.command_line(), e.stdout_text());
            }
        }
    }
    throw compile_error(failure.message, failure.log, join_words(failure.options));
}

}  // namespace

void require_c_strings(const compile_request& request) {
    require_c_strings(request.source, request.options);
    require_c_string(request.nvcc, "nvcc");
    require_c_string(request.keep_dir, "keep_dir");
}

compiler_kind compiler_kind_from_name(const std::string& name) {
    static constexpr std::pair<std::string_view, compiler_kind> names[] = {{"auto", compiler_kind::automatic},
                                                                           {"nvrtc", compiler_kind::nvrtc},
                                                                           {"nvcc", compiler_kind::nvcc}};
    return from_name(name, names, "compiler");
}

std::string cache_key(const compile_request& request) { return prepared_compile(request).key(); }

namespace detail {

std::string cache_key(const compile_request& request, const std::string& nvrtc_identity) {
    return key_of(prepare(request), nvrtc_identity);
}

}  // namespace detail

compile_outcome compile(const compile_request& request) { return compile_prepared(prepare(request)); }

compile_outcome compile_cached(const compile_request& request, const std::optional<fs::path>& cache_dir) {
    return prepared_compile(request).compile_cached(cache_dir);
}

// The arch is settled when the request is prepared, so the key and the compilation agree even
// if the current context changes in between; NVRTC's limit is applied only when compiling, so
// a cache hit never loads NVRTC.
prepared_compile::prepared_compile(compile_request request)
    : prepared_(std::make_unique<detail::prepared_request>(prepare(std::move(request)))) {}
prepared_compile::prepared_compile(prepared_compile&&) noexcept = default;
prepared_compile& prepared_compile::operator=(prepared_compile&&) noexcept = default;
prepared_compile::~prepared_compile() = default;

const compile_request& prepared_compile::request() const noexcept { return prepared_->request; }
const std::string& prepared_compile::arch() const noexcept { return prepared_->arch; }
bool prepared_compile::keeps_files() const noexcept { return prepared_->keep; }

const std::string& prepared_compile::key() const {
    const std::string identity = prepared_->compiler == compiler_kind::nvcc ? std::string() : nvrtc_identity();
    if (key_.empty() || identity != key_identity_) {
        key_ = key_of(*prepared_, identity);
        key_identity_ = identity;
    }
    return key_;
}

compile_outcome prepared_compile::compile() const { return compile_prepared(*prepared_); }

compile_outcome prepared_compile::compile_cached(const std::optional<fs::path>& cache_dir) const {
    const prepared_request& p = *prepared_;
    const bool use_cache = cache_dir && !p.keep && !p.request.options.want_ptx;
    if (!use_cache)
        return compile_prepared(p);
    const compile_cache cache(*cache_dir);
    if (auto image = cache.load(key())) {
        compile_outcome hit;
        hit.image = std::move(*image);
        hit.arch = p.arch;
        hit.key = key_;
        hit.from_cache = true;
        return hit;
    }
    compile_outcome outcome = compile_prepared(p);
    // Stored under the identity of the NVRTC that compiled, now loaded: key() works the key
    // out again only when that differs from the one looked up (the first library found
    // lacked entry points and a later one was loaded instead); lookups then miss rather
    // than find this image.
    outcome.key = key();
    // A cache that cannot be written (read-only home, full disk) must not fail the
    // compilation that already succeeded; say so once per failure instead.
    try {
        cache.store(outcome.key, outcome.image);
    } catch (const error& e) {
        cleanup_warning(std::string("compiled, but not cached: ") + e.what());
    }
    return outcome;
}

}  // namespace gpukit::rtc
