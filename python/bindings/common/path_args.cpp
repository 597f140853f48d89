#include "common/path_args.hpp"
#include "common/object_text.hpp"

#include <nanobind/stl/string.h>

namespace gpukit::python {
namespace {

bool is_path(nb::handle object) {
    return PyUnicode_Check(object.ptr()) || PyBytes_Check(object.ptr()) || nb::hasattr(object, "__fspath__");
}

}  // namespace

std::string path_bytes(nb::handle object, const char* what) {
    if (!is_path(object))
        throw nb::type_error(
            (std::string(what) + ": expected a path (str, bytes or os.PathLike), got " + type_name_of(object)).c_str());
    // str or bytes, or what __fspath__ gives (its own TypeError when that is neither).
    const nb::object path = nb::steal(PyOS_FSPath(object.ptr()));
    if (!path.is_valid())
        throw nb::python_error();
    const nb::object bytes = PyBytes_Check(path.ptr()) ? path : nb::steal(PyUnicode_EncodeFSDefault(path.ptr()));
    if (!bytes.is_valid())
        throw nb::python_error();
    std::string result(PyBytes_AS_STRING(bytes.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes.ptr())));
    if (result.find('\0') != std::string::npos)
        throw nb::value_error((std::string(what) + ": the path " + nb::cast<std::string>(nb::repr(path)) +
                               " holds a NUL character, which no file name can")
                                  .c_str());
    return result;
}

std::optional<std::string> path_arg::get_optional(const char* what) const {
    if (object.is_none())
        return std::nullopt;
    return path_bytes(object, what);
}

std::vector<std::string> path_list_arg::get(const char* what) const {
    if (is_path(object) || !PySequence_Check(object.ptr()))
        throw nb::type_error((std::string(what) + ": expected a sequence of paths (str, bytes or os.PathLike), got " +
                              type_name_of(object) + (is_path(object) ? " (put one path in a list)" : ""))
                                 .c_str());
    std::vector<std::string> paths;
    const Py_ssize_t count = PySequence_Size(object.ptr());
    if (count < 0)
        throw nb::python_error();
    for (Py_ssize_t i = 0; i < count; ++i) {
        const nb::object item = nb::steal(PySequence_GetItem(object.ptr(), i));
        if (!item.is_valid())
            throw nb::python_error();
        paths.push_back(path_bytes(item, (std::string(what) + "[" + std::to_string(i) + "]").c_str()));
    }
    return paths;
}

nb::str path_text(std::string_view path) {
    PyObject* text = PyUnicode_DecodeFSDefaultAndSize(path.data(), static_cast<Py_ssize_t>(path.size()));
    if (!text)
        throw nb::python_error();
    return nb::steal<nb::str>(text);
}

nb::list path_texts(const std::vector<std::string>& paths) {
    nb::list list;
    for (const std::string& path : paths)
        list.append(path_text(path));
    return list;
}

nb::str message_text(std::string_view text) {
    PyObject* decoded = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
    if (!decoded)
        throw nb::python_error();
    return nb::steal<nb::str>(decoded);
}

}  // namespace gpukit::python
