// The constant classes of the seed as Python enums (IntFlag for bit fields, IntEnum for
// the rest), built from the table generated from cuda.h.
#include "common/bindings.hpp"

#include "gpukit/cuda/constants.hpp"

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace gpukit::python {
namespace {

bool is_flag_group(const std::string& group) { return group.ends_with("_flags"); }

}  // namespace

// Looked up in the module, which owns the classes: a reference kept here would outlive the
// interpreter (exit_cleanup.hpp).
nb::object constant_class(const char* group) { return nb::module_::import_("gpukit._gpukit").attr(group); }

void bind_constants(nb::module_& m) {
    nb::module_ enum_module = nb::module_::import_("enum");
    std::map<std::string, nb::list> members;
    std::vector<std::string> order;
    for (const cuda::named_constant& c : cuda::all_constants()) {
        if (!members.count(c.group))
            order.push_back(c.group);
        members[c.group].append(nb::make_tuple(c.name, c.value));
    }
    for (const std::string& group : order) {
        const bool flags = is_flag_group(group);
        nb::object base = enum_module.attr(flags ? "IntFlag" : "IntEnum");
        nb::object cls = base(group.c_str(), members[group], nb::arg("module") = "gpukit.driver");
        // str() of a PyCUDA constant is its bare name (kernel_tuner keys device attributes by
        // str(attribute)); IntEnum's is the number.
        if (!flags)
            cls.attr("__str__") =
                nb::cpp_function([](nb::handle self) { return nb::str(self.attr("name")); }, nb::is_method());
        m.attr(group.c_str()) = cls;
    }
}

}  // namespace gpukit::python
