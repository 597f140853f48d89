// Python arguments of the layout code (bind_layout.cpp), shared with the array bindings:
// errors say which argument is wrong as numpy would (see bind_layout.cpp).
#pragma once

#include "common/bindings.hpp"
#include "common/int_args.hpp"

#include "gpukit/core/layout.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpukit::python {

// "C" or "F" (either case); ValueError otherwise.
order parse_order(const std::string& o);
// A shape: one integer or a sequence of them.
std::vector<std::int64_t> shape_of(const shape_arg& shape, const char* what);
// Byte strides: one integer or a sequence of them, each within 64 bits.
std::vector<std::int64_t> strides_of(const int_sequence_arg& strides, const char* what);
// Axis numbers of `l` (one or a sequence).
std::vector<int> axes_of(const shape_arg& axes, const layout& l, const char* what);
// A Python index (an int, slice, None, Ellipsis or a tuple of them) as layout index items.
std::vector<index_item> index_items(nb::handle key);

}  // namespace gpukit::python
