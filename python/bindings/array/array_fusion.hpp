// When an operator's result may be left pending, to be fused into the next operator's
// kernel (see python/gpukit/_array/fusion.py for the rule and why it is safe).
//
// The decision depends only on the caller's code object and the offset of the operator's
// instruction, so it is made once per place in the program (by gpukit._array.fusion._analyse)
// and kept in a table here: an operator that does not fuse pays one hash lookup.
#pragma once

#include "common/bindings.hpp"

namespace gpukit::python {

// Whether the operator being run was called by a BINARY_OP of the innermost Python frame
// whose result only feeds the next BINARY_OP (plain loads in between), with no tracing,
// profiling or debugger hook that could run code in between. False when fusion is off.
bool result_feeds_next_operator();

// Fusion on or off for the process (gpukit.gpuarray.set_fusion; GPUKIT_FUSION=0 at import).
void set_fusion(bool on) noexcept;
bool fusion_enabled() noexcept;

// The number of places analysed so far (a test checks each is analysed once).
std::size_t fusion_sites_analysed() noexcept;

}  // namespace gpukit::python
