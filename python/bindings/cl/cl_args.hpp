// Argument conversions of the gpukit.cl bindings: int_args.hpp's conversions, raising
// cl.LogicError for values out of range. Parameters declared as nb::handle reach these with
// whatever the caller passed, so a bad value gets a message naming the argument and saying
// why, where nanobind would only say "incompatible function arguments":
//
//     .def("__init__", [](cl::local_memory* self, nb::handle size) {
//         new (self) cl::local_memory{cl_unsigned(size, "LocalMemory(size)")};
//     }, "size"_a.none())
//
// (`.none()` lets None reach the conversion too.)
#pragma once

#include "common/bindings.hpp"

#include <CL/cl.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace gpukit::python {

// An integer from 0 to `limit`: a Python int or anything with __index__ (numpy integers), not
// a bool. TypeError for other types and cl.LogicError for values out of range, naming `what`.
std::uint64_t cl_unsigned(nb::handle value, const char* what,
                          std::uint64_t limit = std::numeric_limits<std::uint64_t>::max());

// An integer from `min` to `max`, as cl_unsigned.
std::int64_t cl_signed(nb::handle value, const char* what, std::int64_t min, std::int64_t max);

// True or False (or a numpy.bool_); TypeError naming `what` for anything else.
bool cl_bool(nb::handle value, const char* what);

// The handles of `wait_for`, a sequence of gpukit.cl.Event or None (no events); TypeError for
// anything else. The events must outlive the returned handles' use.
std::vector<cl_event> wait_list(nb::handle wait_for);

}  // namespace gpukit::python
