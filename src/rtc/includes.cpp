#include "gpukit/rtc/includes.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/rtc/builtin_headers.hpp"
#include "gpukit/rtc/class_attributes.hpp"

#include <set>

namespace gpukit::rtc {
namespace {

namespace fs = std::filesystem;

void skip_blanks(std::string_view& line) {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
        line.remove_prefix(1);
}

void scan(std::string_view text, const fs::path& including_dir, const std::vector<fs::path>& dirs,
          std::set<fs::path>& seen, std::vector<fs::path>& headers) {
    for (const include_directive& include : find_includes(text)) {
        const fs::path found = find_user_header(include, including_dir, dirs);
        if (found.empty())
            continue;
        std::error_code ignored;
        const fs::path path = fs::absolute(found, ignored).lexically_normal();
        if (!seen.insert(path).second)
            continue;
        headers.push_back(path);
        if (const auto content = read_file(path.string()))
            scan(*content, path.parent_path(), dirs, seen, headers);
    }
}

std::string line_directive(std::size_t line, const std::string& name) {
    return "#line " + std::to_string(line) + " \"" + name + "\"\n";
}

}  // namespace

std::vector<include_directive> find_includes(std::string_view text) {
    std::vector<include_directive> found;
    const std::vector<std::string_view> lines = split_lines(text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::string_view line = lines[i];
        skip_blanks(line);
        if (line.empty() || line.front() != '#')
            continue;
        line.remove_prefix(1);
        skip_blanks(line);
        if (!line.starts_with("include"))
            continue;
        line.remove_prefix(7);
        skip_blanks(line);
        if (line.empty() || (line.front() != '"' && line.front() != '<'))
            continue;  // #include MACRO, or #include_next
        const char close = line.front() == '"' ? '"' : '>';
        const std::size_t stop = line.find(close, 1);
        if (stop == std::string_view::npos)
            continue;
        found.push_back({std::string(line.substr(1, stop - 1)), close == '"', i + 1});
    }
    return found;
}

namespace {

// Whether `path` is a regular file. A FIFO, socket or device there is refused: the compiler
// would open it in its search and block (a FIFO without a writer) or read without end.
bool is_header_file(const fs::path& path, const include_directive& include) {
    std::error_code ignored;
    const fs::file_type type = fs::status(path, ignored).type();
    if (type == fs::file_type::fifo || type == fs::file_type::socket || type == fs::file_type::block ||
        type == fs::file_type::character)
        throw compile_error("#include " + std::string(include.quoted ? "\"" : "<") + include.name +
                                (include.quoted ? "\"" : ">") + " (line " + std::to_string(include.line) +
                                ") would read '" + path.string() +
                                "', which is not a regular file (a FIFO, socket "
                                "or device); expected a header file",
                            {}, {});
    return type == fs::file_type::regular;
}

}  // namespace

fs::path find_user_header(const include_directive& include, const fs::path& including_dir,
                          const std::vector<fs::path>& dirs) {
    if (is_builtin_header(include.name))
        return {};
    // An absolute name is that one file, whatever the directories searched.
    if (const fs::path named(include.name); named.is_absolute())
        return is_header_file(named, include) ? named : fs::path();
    if (include.quoted && is_header_file(including_dir / include.name, include))
        return including_dir / include.name;
    for (const auto& dir : dirs)
        if (is_header_file(dir / include.name, include))
            return dir / include.name;
    return {};
}

std::vector<fs::path> find_included_headers(std::string_view source, const fs::path& source_dir,
                                            const std::vector<fs::path>& dirs) {
    std::set<fs::path> seen;
    std::vector<fs::path> headers;
    scan(source, source_dir, dirs, seen, headers);
    return headers;
}

std::string wrap_source(std::string_view original, const std::string& name, bool no_extern_c, wrapper_for compiler,
                        const std::vector<fs::path>& user_dirs) {
    const bool for_nvrtc = compiler == wrapper_for::nvrtc;
    // For NVRTC, nvcc's (GCC's) layout of classes with attributes after the closing brace.
    const std::string placed = for_nvrtc ? place_class_attributes(original) : std::string();
    const std::string_view source = for_nvrtc ? std::string_view(placed) : original;
    std::error_code ignored;
    const fs::path source_dir = fs::current_path(ignored);  // NVRTC's base for the source's "..." includes
    // Every compilation passes here before a compiler runs: refuse a FIFO or device that the
    // source, or a header of the user's it includes, would make the compiler read.
    find_included_headers(source, source_dir, user_dirs);
    std::vector<std::size_t> system_lines;  // lines including a header that is not the user's
    for (const include_directive& include : find_includes(source))
        if (find_user_header(include, source_dir, user_dirs).empty())
            system_lines.push_back(include.line);
    if (system_lines.empty() || (no_extern_c && !for_nvrtc)) {
        if (no_extern_c)
            return std::string(source);
        // #line keeps diagnostics on the caller's own line numbers despite the wrapper.
        return "extern \"C\" {\n" + line_directive(1, name) + std::string(source) + "\n}\n";
    }

    std::string text = no_extern_c ? "" : "extern \"C\" {\n" + line_directive(1, name);
    const std::vector<std::string_view> lines = split_lines(source);
    std::size_t next = 0;  // index into system_lines
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::size_t number = i + 1;
        if (next == system_lines.size() || system_lines[next] != number) {
            text.append(lines[i]);
            text += '\n';
            continue;
        }
        ++next;
        if (!no_extern_c)
            text += "extern \"C++\" {\n";
        if (for_nvrtc)
            text += "#pragma nv_diagnostic push\n#pragma nv_diag_suppress 47\n";
        text += line_directive(number, name);
        text.append(lines[i]);
        text += '\n';
        if (for_nvrtc)
            text += "#pragma nv_diagnostic pop\n";
        if (!no_extern_c)
            text += "}\n";
        text += line_directive(number + 1, name);
    }
    if (!no_extern_c)
        text += "\n}\n";
    return text;
}

}  // namespace gpukit::rtc
