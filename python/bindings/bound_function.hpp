// The object behind gpukit.driver.Function: a kernel plus what prepare() decided, so that
// prepared calls convert arguments by a plan made once.
#pragma once

#include "gpukit/core/arg_format.hpp"
#include "gpukit/cuda/function.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace gpukit::python {

struct bound_function {
    explicit bound_function(cuda::function f) : fn(std::move(f)) {}

    cuda::function fn;
    std::optional<std::vector<arg_spec>> plan;  // set by prepare()
};

}  // namespace gpukit::python
