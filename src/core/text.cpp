#include "gpukit/core/text.hpp"

#include <cctype>
#include <cstdio>
#include <memory>

namespace gpukit {

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        lines.push_back(line);
        if (end == std::string_view::npos)
            break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> pieces;
    for (;;) {
        const std::size_t end = text.find(separator);
        pieces.push_back(text.substr(0, end));
        if (end == std::string_view::npos)
            return pieces;
        text.remove_prefix(end + 1);
    }
}

std::vector<std::string_view> split_words(std::string_view text) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
        const std::size_t begin = i;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
        if (i > begin)
            words.push_back(text.substr(begin, i - begin));
    }
    return words;
}

namespace {
struct file_closer {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using file_handle = std::unique_ptr<std::FILE, file_closer>;
}  // namespace

std::optional<std::string> read_file(const std::string& path) {
    const file_handle file(std::fopen(path.c_str(), "rb"));
    if (!file)
        return std::nullopt;
    std::string content;
    char buffer[1 << 16];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0;)
        content.append(buffer, n);
    if (std::ferror(file.get()))
        return std::nullopt;
    return content;
}

bool write_file(const std::string& path, std::string_view content) {
    std::FILE* raw = std::fopen(path.c_str(), "wb");
    if (!raw)
        return false;
    const bool written = std::fwrite(content.data(), 1, content.size(), raw) == content.size();
    return std::fclose(raw) == 0 && written;
}

}  // namespace gpukit
