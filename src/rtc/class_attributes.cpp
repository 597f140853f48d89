#include "gpukit/rtc/class_attributes.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace gpukit::rtc {
namespace {

// C and C++ tokens, as much of them as placing attributes needs: comments and whitespace
// skipped, literals kept whole (so no brace inside one counts), each preprocessor directive
// one token.
struct token {
    enum kind_t { identifier, punctuator, literal, directive } kind;
    std::string_view text;
    std::size_t offset;  // into the source
};

// ASCII classes, never the locale's (text.hpp says why).
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_identifier_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; }
bool is_identifier_char(char c) { return is_identifier_start(c) || is_digit(c); }

class lexer {
public:
    explicit lexer(std::string_view text) : text_(text) {}

    std::vector<token> tokens() {
        std::vector<token> out;
        out.reserve(text_.size() / 4);
        while (skip_blanks(), pos_ < text_.size())
            out.push_back(next());
        return out;
    }

private:
    char at(std::size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

    // Past whitespace and comments; notes whether the next token starts its line.
    void skip_blanks() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '\n') {
                line_start_ = true;
                ++pos_;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++pos_;
            } else if (c == '\\' && (at(pos_ + 1) == '\n' || (at(pos_ + 1) == '\r' && at(pos_ + 2) == '\n'))) {
                pos_ += at(pos_ + 1) == '\n' ? 2 : 3;  // a line continuation
            } else if (c == '/' && at(pos_ + 1) == '/') {
                skip_line_comment();
            } else if (c == '/' && at(pos_ + 1) == '*') {
                skip_block_comment();
            } else {
                return;
            }
        }
    }

    void skip_line_comment() {
        while (pos_ < text_.size() && text_[pos_] != '\n')
            pos_ += text_[pos_] == '\\' && at(pos_ + 1) == '\n' ? 2 : 1;
    }

    void skip_block_comment() {
        const std::size_t end = text_.find("*/", pos_ + 2);
        pos_ = end == std::string_view::npos ? text_.size() : end + 2;
    }

    token make(token::kind_t kind, std::size_t start) { return {kind, text_.substr(start, pos_ - start), start}; }

    token next() {
        const std::size_t start = pos_;
        const bool first_on_line = line_start_;
        line_start_ = false;
        const char c = text_[pos_];
        if (c == '#' && first_on_line) {
            skip_directive();
            return make(token::directive, start);
        }
        if (const std::size_t prefix = string_prefix_length(); prefix != std::string_view::npos) {
            const bool raw = prefix > 0 && text_[pos_ + prefix - 1] == 'R';
            pos_ += prefix;
            skip_quoted(raw);
            return make(token::literal, start);
        }
        if (is_identifier_start(c)) {
            while (pos_ < text_.size() && is_identifier_char(text_[pos_]))
                ++pos_;
            return make(token::identifier, start);
        }
        if (is_digit(c) || (c == '.' && is_digit(at(pos_ + 1)))) {
            skip_number();
            return make(token::literal, start);
        }
        pos_ += c == ':' && at(pos_ + 1) == ':' ? 2 : 1;  // "::" is one token; other punctuators one character each
        return make(token::punctuator, start);
    }

    // How many characters precede the quote of a string or character literal starting here
    // (its encoding prefix and R), or npos when no literal starts here.
    std::size_t string_prefix_length() const {
        std::size_t i = pos_;
        if (text_.substr(i, 2) == "u8")
            i += 2;
        else if (at(i) == 'u' || at(i) == 'U' || at(i) == 'L')
            ++i;
        if (at(i) == 'R' && at(i + 1) == '"')
            ++i;
        return at(i) == '"' || at(i) == '\'' ? i - pos_ : std::string_view::npos;
    }

    // Past the literal whose quote is at pos_ (a raw string when `raw`).
    void skip_quoted(bool raw) {
        const char quote = text_[pos_++];
        if (raw) {
            const std::size_t paren = text_.find('(', pos_);
            if (paren == std::string_view::npos) {
                pos_ = text_.size();
                return;
            }
            std::string close(1, ')');  // )delimiter"
            close.append(text_.substr(pos_, paren - pos_)).push_back('"');
            const std::size_t end = text_.find(close, paren);
            pos_ = end == std::string_view::npos ? text_.size() : end + close.size();
            return;
        }
        while (pos_ < text_.size() && text_[pos_] != quote && text_[pos_] != '\n')
            pos_ += text_[pos_] == '\\' ? 2 : 1;
        if (pos_ < text_.size() && text_[pos_] == quote)
            ++pos_;  // an unterminated one ends with its line, which it leaves to the next token
    }

    // A preprocessing number: digits, letters, '.', digit separators and exponent signs.
    void skip_number() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if ((c == '+' || c == '-') && std::string_view("eEpP").find(text_[pos_ - 1]) != std::string_view::npos)
                ++pos_;
            else if (is_identifier_char(c) || c == '.' || (c == '\'' && is_identifier_char(at(pos_ + 1))))
                ++pos_;
            else
                return;
        }
    }

    // To the end of the directive's logical line (continuations, comments and literals inside).
    void skip_directive() {
        while (pos_ < text_.size() && text_[pos_] != '\n') {
            const char c = text_[pos_];
            if (c == '\\' && (at(pos_ + 1) == '\n' || (at(pos_ + 1) == '\r' && at(pos_ + 2) == '\n')))
                pos_ += at(pos_ + 1) == '\n' ? 2 : 3;
            else if (c == '/' && at(pos_ + 1) == '*')
                skip_block_comment();
            else if (c == '/' && at(pos_ + 1) == '/')
                skip_line_comment();
            else if (c == '"' || c == '\'')
                skip_quoted(false);
            else
                ++pos_;
        }
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    bool line_start_ = true;
};

// What the source's #define lines make of each macro name: whether it expands to GNU
// attributes only, and whether it takes arguments.
struct macro_kinds {
    struct kind {
        bool attributes = false;  // some definition is nothing but attributes
        bool other = false;       // some definition is something else (or they differ in form)
        bool function_like = false;
    };
    std::map<std::string, kind, std::less<>> names;

    // The attribute macro `name`, or nullptr.
    const kind* attribute_macro(std::string_view name) const {
        const auto found = names.find(name);
        return found != names.end() && found->second.attributes && !found->second.other ? &found->second : nullptr;
    }
};

// The index after the balanced group opened by tokens[i] ('(' or '['), or npos if unbalanced.
std::size_t after_group(const std::vector<token>& tokens, std::size_t i) {
    int depth = 0;
    for (; i < tokens.size(); ++i) {
        if (tokens[i].kind == token::directive)
            return std::string_view::npos;
        const std::string_view t = tokens[i].text;
        if (tokens[i].kind != token::punctuator)
            continue;
        if (t == "(" || t == "[")
            ++depth;
        else if ((t == ")" || t == "]") && --depth == 0)
            return i + 1;
    }
    return std::string_view::npos;
}

bool is_punctuator(const std::vector<token>& tokens, std::size_t i, std::string_view text) {
    return i < tokens.size() && tokens[i].kind == token::punctuator && tokens[i].text == text;
}

// The index after the GNU attribute starting at tokens[i] (`__attribute__((...))`,
// `__align__(...)`, an attribute macro with its arguments), or i when none starts there.
std::size_t after_attribute(const std::vector<token>& tokens, std::size_t i, const macro_kinds& macros) {
    if (i >= tokens.size() || tokens[i].kind != token::identifier)
        return i;
    const std::string_view name = tokens[i].text;
    if (name != "__attribute__" && name != "__attribute" && name != "__align__") {
        const macro_kinds::kind* macro = macros.attribute_macro(name);
        if (macro == nullptr)
            return i;
        if (!macro->function_like)
            return i + 1;
    }
    if (!is_punctuator(tokens, i + 1, "("))
        return i;
    const std::size_t end = after_group(tokens, i + 1);
    return end == std::string_view::npos ? i : end;
}

// The index after the run of GNU attributes starting at tokens[i] (i when none).
std::size_t after_attributes(const std::vector<token>& tokens, std::size_t i, const macro_kinds& macros) {
    for (std::size_t end = after_attribute(tokens, i, macros); end != i; end = after_attribute(tokens, i, macros))
        i = end;
    return i;
}

// Records what the #define directive `text` makes of its macro.
void note_definition(std::string_view text, macro_kinds& macros) {
    std::vector<token> tokens = lexer(text.substr(1)).tokens();  // without the '#'
    if (tokens.size() < 2 || tokens[0].text != "define" || tokens[1].kind != token::identifier)
        return;
    const token& name = tokens[1];
    // Function-like when '(' follows the name without a space.
    const bool function_like = is_punctuator(tokens, 2, "(") && tokens[2].offset == name.offset + name.text.size();
    std::size_t body = 2;
    if (function_like) {
        body = after_group(tokens, 2);
        if (body == std::string_view::npos)
            return;
    }
    if (body == tokens.size())
        return;  // empty: harmless wherever it is, so it decides nothing
    macro_kinds::kind& kind = macros.names[std::string(name.text)];
    if (after_attributes(tokens, body, macros) != tokens.size()) {
        kind.other = true;
        return;
    }
    if (kind.attributes && kind.function_like != function_like)
        kind.other = true;  // defined both with and without arguments: not one kind of invocation
    kind.attributes = true;
    kind.function_like = function_like;
}

bool is_class_key(const std::vector<token>& tokens, std::size_t i) {
    const token& t = tokens[i];
    if (t.kind != token::identifier || (t.text != "struct" && t.text != "class" && t.text != "union"))
        return false;
    return i == 0 || tokens[i - 1].text != "enum";  // enum class E { ... } is no class
}

// The index after the '>' closing the template argument list opened at tokens[i], or npos.
std::size_t after_template_arguments(const std::vector<token>& tokens, std::size_t i) {
    int angles = 0;
    while (i < tokens.size()) {
        const token& t = tokens[i];
        if (t.kind == token::directive || t.text == ";" || t.text == "{" || t.text == "}")
            return std::string_view::npos;
        if (t.text == "(" || t.text == "[") {  // a '>' inside is an operator
            i = after_group(tokens, i);
            if (i == std::string_view::npos)
                return i;
            continue;
        }
        if (t.text == "<")
            ++angles;
        else if (t.text == ">" && --angles == 0)
            return i + 1;
        ++i;
    }
    return std::string_view::npos;
}

// The index of the '{' ending the base clause that starts at tokens[i], or npos.
std::size_t after_base_clause(const std::vector<token>& tokens, std::size_t i) {
    while (i < tokens.size()) {
        const token& t = tokens[i];
        if (t.kind == token::directive || t.text == ";" || t.text == "}")
            return std::string_view::npos;
        if (t.text == "{")
            return i;
        i = t.text == "(" || t.text == "[" ? after_group(tokens, i) : i + 1;
    }
    return std::string_view::npos;
}

// When the class key at tokens[key] starts a class definition, the index of its '{'; else
// npos (an elaborated type such as `struct S *p`, a function returning one, anything unclear).
std::size_t class_body(const std::vector<token>& tokens, std::size_t key, const macro_kinds& macros) {
    std::size_t i = key + 1;
    while (i < tokens.size()) {
        const token& t = tokens[i];
        if (t.kind == token::directive || t.kind == token::literal)
            return std::string_view::npos;
        if (t.kind == token::identifier) {
            if (const std::size_t end = after_attribute(tokens, i, macros); end != i)
                i = end;
            else if (t.text == "alignas" || t.text == "__declspec")
                i = is_punctuator(tokens, i + 1, "(") ? after_group(tokens, i + 1) : std::string_view::npos;
            else if (is_punctuator(tokens, i + 1, "("))
                return std::string_view::npos;  // a function's declarator, or a macro not known to be attributes
            else
                ++i;  // the class name, part of a qualified one, final, or a macro such as __device_builtin__
        } else if (t.text == "[" && is_punctuator(tokens, i + 1, "[")) {
            i = after_group(tokens, i);  // [[attributes]]
        } else if (t.text == "::") {
            ++i;
        } else if (t.text == "<") {
            i = after_template_arguments(tokens, i);
        } else if (t.text == "{") {
            return i;
        } else if (t.text == ":") {
            return after_base_clause(tokens, i + 1);
        } else {
            return std::string_view::npos;
        }
        if (i == std::string_view::npos)
            return i;
    }
    return std::string_view::npos;
}

// The source text of tokens[first, last), each gap (whitespace, comments, line ends) one space.
std::string tokens_text(const std::vector<token>& tokens, std::size_t first, std::size_t last) {
    std::string text(tokens[first].text);
    for (std::size_t i = first + 1; i < last; ++i) {
        if (tokens[i].offset != tokens[i - 1].offset + tokens[i - 1].text.size())
            text += ' ';
        text += tokens[i].text;
    }
    return text;
}

struct edit {
    std::size_t offset;
    std::size_t length;  // of the text replaced
    std::string text;
};

// The edits that move the attributes tokens[first, last), after a class's closing brace, to
// `key_end`, just after its class key. What is left behind becomes blanks, its line ends kept.
void move_attributes(std::string_view source, const std::vector<token>& tokens, std::size_t first, std::size_t last,
                     std::size_t key_end, std::vector<edit>& edits) {
    std::string moved(1, ' ');
    moved += tokens_text(tokens, first, last);
    edits.push_back({key_end, 0, std::move(moved)});
    const std::size_t begin = tokens[first].offset;
    const std::size_t end = tokens[last - 1].offset + tokens[last - 1].text.size();
    std::string blanks(source.substr(begin, end - begin));
    std::replace_if(
        blanks.begin(), blanks.end(), [](char c) { return c != '\n'; }, ' ');
    edits.push_back({begin, end - begin, std::move(blanks)});
}

}  // namespace

std::string place_class_attributes(std::string_view source) {
    // Every attribute that could move, macros included, is spelled with one of these; most
    // sources have neither, and their cache keys are computed on every SourceModule.
    if (source.find("__attribute") == std::string_view::npos && source.find("__align__") == std::string_view::npos)
        return std::string(source);
    const std::vector<token> tokens = lexer(source).tokens();
    macro_kinds macros;
    std::map<std::size_t, std::size_t> bodies;  // a class's '{' (token index) -> the end of its class key
    std::vector<std::size_t> open;              // per open brace: the end of its class key, or npos
    std::vector<edit> edits;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const token& t = tokens[i];
        if (t.kind == token::directive) {
            note_definition(t.text, macros);
        } else if (is_class_key(tokens, i)) {
            if (const std::size_t body = class_body(tokens, i, macros); body != std::string_view::npos)
                bodies[body] = t.offset + t.text.size();
        } else if (is_punctuator(tokens, i, "{")) {
            const auto found = bodies.find(i);
            open.push_back(found != bodies.end() ? found->second : std::string_view::npos);
        } else if (is_punctuator(tokens, i, "}") && !open.empty()) {
            const std::size_t key_end = open.back();
            open.pop_back();
            if (key_end == std::string_view::npos)
                continue;
            if (const std::size_t end = after_attributes(tokens, i + 1, macros); end != i + 1)
                move_attributes(source, tokens, i + 1, end, key_end, edits);
        }
    }
    if (edits.empty())
        return std::string(source);
    std::sort(edits.begin(), edits.end(), [](const edit& a, const edit& b) { return a.offset < b.offset; });
    std::string out;
    out.reserve(source.size() + 64 * edits.size());
    std::size_t copied = 0;
    for (const edit& e : edits) {
        out.append(source.substr(copied, e.offset - copied));
        out += e.text;
        copied = e.offset + e.length;
    }
    out.append(source.substr(copied));
    return out;
}

}  // namespace gpukit::rtc
