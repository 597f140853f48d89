// gpukit._gpukit._c_type_names: the C names of the array dtypes (gpukit/array/dtype.hpp), which
// the C type registry of gpukit.tools starts from.
// gpukit._gpukit._resolve_binary: the binary-operator type table (gpukit/array/promotion.hpp),
// for tests that compare it with numpy. Operands are described as tuples:
//   ("typed", dtype_name)   an array or numpy scalar (and a Python bool: ("typed", "bool"))
//   ("int", value)          a Python int of any size
//   ("float",)              a Python float
//   ("complex",)            a Python complex
#include "array/array_operators.hpp"
#include "common/bindings.hpp"
#include "common/stub_types.hpp"

#include "gpukit/array/promotion.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <optional>
#include <string>

namespace gpukit::python {

using namespace nb::literals;

namespace {

// An operand's description, as above.
using operand_description = named<nb::tuple, "tuple[str, str] | tuple[str, int] | tuple[str]">;

array::operand operand_of(const nb::tuple& description) {
    const std::string what = description.size() > 0 && nb::isinstance<nb::str>(description[0])
                                 ? nb::cast<std::string>(description[0])
                                 : std::string();
    if (what == "typed" && description.size() == 2)
        return {array::operand::kind::typed, array::dtype_from_name(nb::cast<std::string>(description[1])), {}};
    if (what == "int" && description.size() == 2 && PyLong_Check(description[1].ptr()))
        return {array::operand::kind::python_int, {}, python_int_of(description[1])};
    if (what == "float" && description.size() == 1)
        return {array::operand::kind::python_float, {}, {}};
    if (what == "complex" && description.size() == 1)
        return {array::operand::kind::python_complex, {}, {}};
    throw nb::value_error(("_resolve_binary: an operand is (\"typed\", dtype_name), (\"int\", value), (\"float\",) "
                           "or (\"complex\",), got " +
                           nb::cast<std::string>(nb::repr(description)))
                              .c_str());
}

}  // namespace

void bind_promotion(nb::module_& m) {
    m.def(
        "_c_type_names",
        [](bool opencl) -> nb::typed<nb::list, nb::typed<nb::tuple, nb::str, nb::typed<nb::list, nb::str>>> {
            nb::list table;
            for (int k = 0; k <= static_cast<int>(array::dtype::complex128); ++k) {
                const auto t = static_cast<array::dtype>(k);
                nb::list names;
                for (const std::string_view n : opencl ? array::opencl_c_type_names(t) : array::c_type_names(t))
                    names.append(nb::str(n.data(), n.size()));
                table.append(nb::make_tuple(nb::str(array::name(t).data(), array::name(t).size()), names));
            }
            return table;
        },
        "opencl"_a = false,
        "[(numpy dtype name, [C type names])] for every array dtype, the usual name first: the C type "
        "registry's built-in entries (gpukit/array/dtype.hpp), of CUDA C or of OpenCL C.");
    m.def(
        "_resolve_binary",
        [](const std::string& op_symbol, const operand_description& a,
           const operand_description& b) -> nb::typed<nb::tuple, std::string, std::string, std::optional<bool>, bool> {
            const std::optional<array::binary_op> op = array::binary_op_from_symbol(op_symbol);
            if (!op)
                throw nb::value_error(("_resolve_binary: unknown operator '" + op_symbol + "'").c_str());
            const array::binary_types types = array::resolve_binary(*op, operand_of(a), operand_of(b));
            const nb::object constant = types.constant ? nb::object(nb::bool_(*types.constant)) : nb::none();
            return nb::make_tuple(array::name(types.result), array::name(types.compute), constant,
                                  types.signed_with_uint64);
        },
        "op_symbol"_a, "a"_a, "b"_a,
        "(result dtype, compute dtype, constant answer or None, signed_with_uint64) of `a op_symbol b`, "
        "as gpukit's operators type it; a and b as ('typed', dtype_name), ('int', value), ('float',) or "
        "('complex',).");
}

}  // namespace gpukit::python
