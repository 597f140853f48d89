#include "gpukit/core/c_text.hpp"

#include "gpukit/core/text.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpukit {

namespace {

// Texts up to this long are quoted whole in a message; longer ones (sources) are not.
constexpr std::size_t quoted_length = 120;

std::string quoted(std::string_view text) {
    std::string out = "'";
    for (const char c : text)
        out += c == '\0' ? std::string_view("\\0") : std::string_view(&c, 1);
    return out + "'";
}

// Keywords of C up to C23 (OpenCL C is C99 with more of its own).
constexpr std::string_view c_keywords[] =
    {"auto",       "break",    "case",         "char",      "const",          "continue",      "default",
     "do",         "double",   "else",         "enum",      "extern",         "float",         "for",
     "goto",       "if",       "inline",       "int",       "long",           "register",      "restrict",
     "return",     "short",    "signed",       "sizeof",    "static",         "struct",        "switch",
     "typedef",    "union",    "unsigned",     "void",      "volatile",       "while",         "_Alignas",
     "_Alignof",   "_Atomic",  "_BitInt",      "_Bool",     "_Complex",       "_Decimal128",   "_Decimal32",
     "_Decimal64", "_Generic", "_Imaginary",   "_Noreturn", "_Static_assert", "_Thread_local", "alignas",
     "alignof",    "bool",     "constexpr",    "false",     "nullptr",        "static_assert", "thread_local",
     "true",       "typeof",   "typeof_unqual"};

// C++20's keywords and alternative operator spellings that C lacks.
constexpr std::string_view cpp_keywords[] =
    {"and",      "and_eq",           "asm",       "bitand",      "bitor",     "catch",    "char8_t",
     "char16_t", "char32_t",         "class",     "co_await",    "co_return", "co_yield", "compl",
     "concept",  "const_cast",       "consteval", "constinit",   "decltype",  "delete",   "dynamic_cast",
     "explicit", "export",           "friend",    "mutable",     "namespace", "new",      "noexcept",
     "not",      "not_eq",           "operator",  "or",          "or_eq",     "private",  "protected",
     "public",   "reinterpret_cast", "requires",  "static_cast", "template",  "this",     "throw",
     "try",      "typeid",           "typename",  "using",       "virtual",   "wchar_t",  "xor",
     "xor_eq"};

constexpr std::string_view cuda_qualifiers[] = {"__global__",   "__device__",        "__host__",
                                                "__shared__",   "__constant__",      "__managed__",
                                                "__restrict__", "__noinline__",      "__forceinline__",
                                                "__inline__",   "__launch_bounds__", "__grid_constant__",
                                                "__align__"};

// Defined in every CUDA kernel; gpukit's generated kernels use the first four themselves.
constexpr std::string_view cuda_variables[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};

// OpenCL C's qualifiers and other reserved words.
constexpr std::string_view opencl_keywords[] = {"__global",     "global",     "__local",      "local",
                                                "__constant",   "constant",   "__private",    "private",
                                                "__generic",    "generic",    "__kernel",     "kernel",
                                                "__read_only",  "read_only",  "__write_only", "write_only",
                                                "__read_write", "read_write", "uniform",      "pipe"};

// OpenCL C's type names that are not C keywords (the vector types are these scalars with 2,
// 3, 4, 8 or 16 appended; bool, quad, complex and imaginary vectors are reserved too).
constexpr std::string_view opencl_scalar_types[] = {"char",  "uchar", "short",  "ushort", "int",  "uint", "long",
                                                    "ulong", "float", "double", "half",   "bool", "quad"};
constexpr std::string_view opencl_other_types[] = {"uchar",
                                                   "ushort",
                                                   "uint",
                                                   "ulong",
                                                   "half",
                                                   "quad",
                                                   "complex",
                                                   "imaginary",
                                                   "size_t",
                                                   "ptrdiff_t",
                                                   "intptr_t",
                                                   "uintptr_t",
                                                   "image1d_t",
                                                   "image1d_array_t",
                                                   "image1d_buffer_t",
                                                   "image2d_t",
                                                   "image2d_array_t",
                                                   "image2d_depth_t",
                                                   "image2d_array_depth_t",
                                                   "image3d_t",
                                                   "sampler_t",
                                                   "event_t",
                                                   "queue_t",
                                                   "ndrange_t",
                                                   "clk_event_t",
                                                   "reserve_id_t",
                                                   "cl_mem_fence_flags"};

template <std::size_t N>
bool listed(std::string_view name, const std::string_view (&words)[N]) {
    return std::find(std::begin(words), std::end(words), name) != std::end(words);
}

bool is_opencl_vector_type(std::string_view name) {
    for (const std::string_view scalar : opencl_scalar_types) {
        if (!name.starts_with(scalar))
            continue;
        const std::string_view width = name.substr(scalar.size());
        if (width == "2" || width == "3" || width == "4" || width == "8" || width == "16")
            return true;
    }
    return false;
}

}  // namespace

void cut_at_nul(std::string& text) {
    if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
        text.resize(nul);
}

bool is_c_identifier(std::string_view name) noexcept {
    const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    return !name.empty() && letter(name[0]) &&
           std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || digit(c); });
}

void require_c_string(std::string_view text, std::string_view what) {
    const std::size_t nul = text.find('\0');
    if (nul == std::string_view::npos)
        return;
    const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n') + 1;
    text_builder message;
    message << what;
    if (text.size() <= quoted_length)
        message << " " << quoted(text);
    message << ": a NUL character at offset " << nul << " (line " << line
            << ") would end it where it crosses into C, dropping the rest without a word; remove it";
    throw std::invalid_argument(message.str());
}

std::string kernel_name_problem(std::string_view name, kernel_language language) {
    const std::string shown = quoted(name);
    if (!is_c_identifier(name))
        return shown + " is not a C identifier (a letter or _, then letters, digits and _)";
    if (listed(name, c_keywords))
        return shown + " is a keyword of C";
    if (language == kernel_language::cuda) {
        if (listed(name, cpp_keywords))
            return shown + " is a keyword of C++ (CUDA kernels are C++)";
        if (listed(name, cuda_qualifiers))
            return shown + " is a CUDA C++ qualifier";
        if (listed(name, cuda_variables))
            return shown + " is a variable CUDA defines in every kernel";
        return {};
    }
    if (listed(name, opencl_keywords))
        return shown + " is a keyword of OpenCL C";
    if (listed(name, opencl_other_types) || is_opencl_vector_type(name))
        return shown + " is a type name of OpenCL C";
    return {};
}

}  // namespace gpukit
