// Paths as the operating system has them: bytes, whatever their encoding.
//
// nanobind's std::string caster takes a str only, encoding it as UTF-8, and makes a str of a
// std::string by decoding UTF-8. So a path that is no UTF-8 (a directory b'/tmp/x\xff', or
// the str with surrogate escapes that os.fsdecode and os.environ make of it) failed both ways:
// every compile with the default cache raised UnicodeDecodeError when HOME was such a path,
// and cache_dir=b'...' got nanobind's "incompatible function arguments". Here a parameter
// declared path_arg or path_list_arg takes str, bytes or os.PathLike and converts it as
// os.fsencode does, its errors naming the argument:
//
//     m.def("module_from_file", [](path_arg path) { load(path.get("module_from_file(path)")); },
//           "path"_a.none());
//
// A path returned to Python goes through path_text(), os.fsdecode's str; a message that may
// quote one (an exception's, a warning's) through message_text().
#pragma once

#include "common/int_args.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit::python {

// The bytes of the path `object` (str, bytes or os.PathLike): TypeError naming `what` for
// anything else, ValueError for a NUL character, which no file name holds.
std::string path_bytes(nb::handle object, const char* what);

struct path_arg {
    nb::handle object;
    std::string get(const char* what) const { return path_bytes(object, what); }
    // nullopt for None (with "name"_a.none(): a parameter whose None means "none").
    std::optional<std::string> get_optional(const char* what) const;
    static constexpr auto python_type = nb::detail::const_name("str | bytes | os.PathLike[str] | os.PathLike[bytes]");
};

// A sequence of paths (include directories). A single path is a TypeError: iterated, a str
// would be one directory per character.
struct path_list_arg {
    nb::handle object;
    std::vector<std::string> get(const char* what) const;
    static constexpr auto python_type =
        nb::detail::const_name("collections.abc.Sequence[str | bytes | os.PathLike[str] | os.PathLike[bytes]]");
};

// `path` as os.fsdecode makes it: a str, bytes that are no UTF-8 as surrogate escapes (which
// os.fsencode, open() and every os function turn back into the same bytes).
nb::str path_text(std::string_view path);
nb::list path_texts(const std::vector<std::string>& paths);

// `text` (a message, which may quote a path) as a str that can always be printed: bytes that
// are no UTF-8 shown as \xNN.
nb::str message_text(std::string_view text);

}  // namespace gpukit::python
