#include "gpukit/core/text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <limits>

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

std::string join_words(const std::vector<std::string>& words) {
    std::string joined;
    for (const auto& w : words)
        joined += (joined.empty() ? "" : " ") + w;
    return joined;
}

namespace {
struct descriptor {
    int fd;
    ~descriptor() {
        if (fd >= 0)
            ::close(fd);
    }
};
}  // namespace

std::optional<std::string> read_regular_file(const std::string& path, std::size_t max_bytes) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. The type is
    // checked on the opened descriptor, so the file cannot be swapped after the check.
    const descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (file.fd < 0)
        return std::nullopt;
    struct stat info {};
    if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode) || static_cast<std::uint64_t>(info.st_size) > max_bytes)
        return std::nullopt;
    // The file may still grow while it is read: the bound holds for what is read, too.
    std::string content;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
        if (n == 0)
            return content;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || content.size() + static_cast<std::size_t>(n) > max_bytes)
            return std::nullopt;
        content.append(buffer, static_cast<std::size_t>(n));
    }
}

std::optional<std::string> read_file(const std::string& path) {
    return read_regular_file(path, std::numeric_limits<std::size_t>::max());
}

bool write_file(const std::string& path, std::string_view content) {
    std::FILE* raw = std::fopen(path.c_str(), "wb");
    if (!raw)
        return false;
    const bool written = std::fwrite(content.data(), 1, content.size(), raw) == content.size();
    return std::fclose(raw) == 0 && written;
}

}  // namespace gpukit
