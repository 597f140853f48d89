// Text building, splitting and whole-file I/O without C++ streams or std::regex.
//
// Streams and regexes consult the process-wide C++ locale. Inside a Python process that has
// loaded other native libraries, that locale has been seen crashing every formatting call
// (first std::regex, then std::ostringstream, both deep in locale code), so gpukit's own
// code builds and parses text with these plain helpers instead: std::to_chars for numbers,
// C stdio for files.
#pragma once

#include <charconv>
#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit {

// A string built by appending pieces with `<<`, as an std::ostringstream but without its
// locale: `text_builder() << "size " << n`. Integers are written in decimal.
class text_builder {
public:
    // Appends `text`; returns `*this`, so appends chain.
    text_builder& operator<<(std::string_view text) {
        text_ += text;
        return *this;
    }
    // Appends the NUL-terminated string `text` (which must not be null); returns `*this`.
    text_builder& operator<<(const char* text) { return *this << std::string_view(text); }
    // Appends `text`; returns `*this`.
    text_builder& operator<<(const std::string& text) { return *this << std::string_view(text); }
    // Appends the character `c` (a char, not a number); returns `*this`.
    text_builder& operator<<(char c) {
        text_ += c;
        return *this;
    }
    // Appends an integer (not a char or bool) in decimal, with a '-' when negative; returns `*this`.
    template <std::integral T>
    requires(!std::same_as<T, char> && !std::same_as<T, bool>) text_builder& operator<<(T value) {
        char digits[24];
        const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
        text_.append(digits, static_cast<std::size_t>(end - digits));
        return *this;
    }
    // The text appended so far.
    const std::string& str() const noexcept { return text_; }

private:
    std::string text_;
};

// The lines of `text`, without their line ends (a last line without one is kept).
std::vector<std::string_view> split_lines(std::string_view text);
// The pieces between `separator`s (empty pieces kept).
std::vector<std::string_view> split(std::string_view text, char separator);
// The whitespace-separated words of `text`.
std::vector<std::string_view> split_words(std::string_view text);
// `words` separated by single spaces.
std::string join_words(const std::vector<std::string>& words);

// The whole content of `path` when it is a regular file (symbolic links followed) of at
// most `max_bytes`, else nullopt: missing, unreadable, larger, or not a regular file. It
// never blocks on a FIFO (no writer: open() would wait forever) and never reads a device
// (/dev/zero has no end). The bound is for files anyone may have put in place (cache entries).
std::optional<std::string> read_regular_file(const std::string& path, std::size_t max_bytes);
// read_regular_file without a bound: for files the user names (headers, module images).
std::optional<std::string> read_file(const std::string& path);
// Writes `content` to `path` (created or truncated); false when that fails.
bool write_file(const std::string& path, std::string_view content);

}  // namespace gpukit
