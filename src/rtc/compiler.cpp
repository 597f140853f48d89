#include "gpukit/rtc/compiler.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/sha256.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/cache.hpp"

#include <cstdint>
#include <iterator>
#include <set>

namespace gpukit::rtc {
namespace {

namespace fs = std::filesystem;

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

std::optional<std::string> read_text(const fs::path& path) { return read_file(path.string()); }

// The include directories NVRTC searches: options.include_dirs, then -I options.
std::vector<fs::path> search_dirs(const compile_options& options) {
    std::vector<fs::path> dirs(options.include_dirs.begin(), options.include_dirs.end());
    for (std::size_t i = 0; i < options.options.size(); ++i) {
        const std::string& o = options.options[i];
        if (o == "-I" && i + 1 < options.options.size())
            dirs.emplace_back(options.options[++i]);
        else if (o.rfind("-I", 0) == 0 && o.size() > 2)
            dirs.emplace_back(o.substr(2));
        else if (o.rfind("--include-path=", 0) == 0)
            dirs.emplace_back(o.substr(15));
    }
    return dirs;
}

struct include_directive {
    std::string name;
    bool quoted;
};

// Every "#include <name>" / "#include \"name\"" line of `text`.
std::vector<include_directive> find_includes(std::string_view text) {
    std::vector<include_directive> found;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        auto skip_blanks = [&line] {
            while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
                line.remove_prefix(1);
        };
        skip_blanks();
        if (line.empty() || line.front() != '#')
            continue;
        line.remove_prefix(1);
        skip_blanks();
        if (line.substr(0, 7) != "include")
            continue;
        line.remove_prefix(7);
        skip_blanks();
        if (line.empty() || (line.front() != '"' && line.front() != '<'))
            continue;  // e.g. #include MACRO: not followed (see compiler.hpp)
        const char close = line.front() == '"' ? '"' : '>';
        const std::size_t stop = line.find(close, 1);
        if (stop == std::string_view::npos)
            continue;
        found.push_back({std::string(line.substr(1, stop - 1)), close == '"'});
    }
    return found;
}

void scan(std::string_view text, const fs::path& including_dir, const std::vector<fs::path>& dirs,
          std::set<fs::path>& seen, std::vector<fs::path>& headers) {
    for (const include_directive& include : find_includes(text)) {
        std::vector<fs::path> candidates;
        if (include.quoted)
            candidates.push_back(including_dir / include.name);
        for (const auto& dir : dirs)
            candidates.push_back(dir / include.name);
        for (const auto& candidate : candidates) {
            std::error_code ignored;
            if (!fs::is_regular_file(candidate, ignored))
                continue;
            const fs::path path = fs::absolute(candidate, ignored).lexically_normal();
            if (seen.insert(path).second) {
                headers.push_back(path);
                if (const auto content = read_text(path))
                    scan(*content, path.parent_path(), dirs, seen, headers);
            }
            break;  // the first match is the one the compiler uses
        }
    }
}

}  // namespace

std::vector<fs::path> included_headers(std::string_view source, const compile_options& options) {
    std::set<fs::path> seen;
    std::vector<fs::path> headers;
    std::error_code ignored;
    // NVRTC resolves the main source's quoted includes from the working directory.
    scan(source, fs::current_path(ignored), search_dirs(options), seen, headers);
    return headers;
}

std::string cache_key(const compile_request& request) {
    return detail::cache_key(request, request.compiler == compiler_kind::nvrtc ? nvrtc_identity() : std::string());
}

namespace detail {

std::string cache_key(const compile_request& request, const std::string& nvrtc_identity) {
    const compile_options& options = request.options;
    sha256 hash;
    add_field(hash, "format", "gpukit-compile-cache-1");
    std::vector<fs::path> headers;
    if (request.compiler == compiler_kind::nvrtc) {
        add_field(hash, "compiler", "nvrtc");
        add_field(hash, "compiler-identity", nvrtc_identity);
        headers = included_headers(request.source, options);
    } else {
        add_field(hash, "compiler", "nvcc:" + request.nvcc.nvcc);
        add_field(hash, "compiler-version", nvcc_version(request.nvcc.nvcc));
        const std::vector<std::string> files = nvcc_dependencies(request.source, options, request.nvcc.nvcc);
        headers.assign(files.begin(), files.end());
    }
    // The device's architecture when none is given: with the compiler's identity it fixes
    // what nvrtc_arch() makes of it, without loading NVRTC to ask.
    add_field(hash, "arch", options.arch.empty() ? device_arch() : options.arch);
    add_field(hash, "name", options.name);
    add_field(hash, "source", wrapped_source(request.source, options));
    for (const auto& dir : options.include_dirs)
        add_field(hash, "include-dir", dir);
    for (const auto& option : options.options)
        add_field(hash, "option", option);
    for (const auto& header : headers) {
        add_field(hash, "header-path", header.string());
        const auto content = read_text(header);
        add_field(hash, content ? "header" : "header-missing", content ? *content : std::string());
    }
    return hash.hex_digest();
}

}  // namespace detail

compiled_program compile(const compile_request& request, std::string* kept_dir) {
    if (request.compiler == compiler_kind::nvcc)
        return compile_with_nvcc(request.source, request.options, request.nvcc, kept_dir);
    return compile(request.source, request.options);
}

compile_outcome compile_cached(const compile_request& request, const std::optional<fs::path>& cache_dir) {
    compile_outcome outcome;
    const bool use_cache = cache_dir && !request.nvcc.keep && !request.options.want_ptx;
    std::optional<compile_cache> cache;
    // The device's arch is fixed first so the key and the compilation agree even if the
    // current context changes in between; NVRTC's limit is applied only when compiling, so
    // a cache hit never loads NVRTC.
    compile_request resolved = request;
    if (resolved.options.arch.empty())
        resolved.options.arch = device_arch();
    outcome.arch = resolved.options.arch;
    if (use_cache) {
        cache.emplace(*cache_dir);
        outcome.key = cache_key(resolved);
        if (auto image = cache->load(outcome.key)) {
            outcome.image = std::move(*image);
            outcome.from_cache = true;
            return outcome;
        }
    }
    compile_request to_compile = resolved;
    if (request.options.arch.empty())
        to_compile.options.arch = outcome.arch = nvrtc_arch(resolved.options.arch);
    compiled_program program = compile(to_compile, &outcome.kept_dir);
    outcome.image = program.image();
    outcome.log = std::move(program.log);
    outcome.ptx = std::move(program.ptx);
    if (cache) {
        // Stored under the identity of the NVRTC that compiled, now loaded. It differs from
        // the one looked up only when the first library found lacked entry points and a
        // later one was loaded instead; lookups then miss rather than find this image.
        if (request.compiler == compiler_kind::nvrtc)
            outcome.key = cache_key(resolved);
        // A cache that cannot be written (read-only home, full disk) must not fail the
        // compilation that already succeeded; say so once per failure instead.
        try {
            cache->store(outcome.key, outcome.image);
        } catch (const error& e) {
            cleanup_warning(std::string("gpukit: compiled, but not cached: ") + e.what());
        }
    }
    return outcome;
}

}  // namespace gpukit::rtc
