// The object behind gpukit.driver.Function: a kernel plus what prepare() decided, so that
// prepared calls convert arguments by a plan made once.
#pragma once

#include "common/bindings.hpp"

#include "gpukit/core/arg_format.hpp"
#include "gpukit/cuda/function.hpp"
#include "gpukit/cuda/kernel_args.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace gpukit::python {

struct bound_function {
    explicit bound_function(cuda::function f) : fn(std::move(f)) {}

    cuda::function fn;
    std::optional<std::vector<arg_spec>> plan;  // set by prepare()
    nb::object assigned_name;  // what a program assigned to `name` (neon names its kernels); null until then
};

// A grid or block shape: a tuple of 1 to 3 positive integers (`what` names it in errors).
cuda::dim3 to_dim3(nb::handle value, const char* what);

// The arguments of a call of `f`, converted as an unprepared call converts them, for a graph
// node (which copies them). In/Out/InOut are refused: a node cannot copy host arrays around
// its launch.
void pack_node_arguments(cuda::kernel_args& args, const bound_function& f, const nb::args& values);

}  // namespace gpukit::python
