// The types of by-value kernel parameters, which OpenCL names (clGetKernelArgInfo) but does not
// size, so that a kernel can check each by-value argument's size before OpenCL reads it:
// OpenCL C's scalar and vector types by the language's fixed sizes, the types a program
// declares (structs, unions, enums, typedefs) by asking its compiler. Implementations check
// the size themselves only sometimes (PoCL never for a struct: it read past a short value).
#pragma once

#include "gpukit/cl/device.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpukit::cl::detail {

// What values a parameter type holds, which decides the numbers it takes.
enum class type_class {
    integer,    // char ... ulong, enums
    floating,   // half, float, double
    vector,     // float4, uchar16, ...
    aggregate,  // a struct or union
    unknown,    // the compiler would not say: only the size is checked
};

struct parameter_type {
    size_t size = 0;
    type_class kind = type_class::unknown;
};

// An OpenCL C scalar or vector type by name ("int", "uchar16"; "float3" has the size of a
// float4); nullopt for any other name.
std::optional<parameter_type> builtin_type(std::string_view type_name);

// The types one build of a program declares, as its compiler lays them out. Each type is asked
// for once: the program's source, with a probe kernel appended that writes sizeof and
// __builtin_classify_type of each type, is built with the program's options and run on one
// work item. OpenCL C fixes the size and alignment of every type a kernel parameter may hold
// (no pointers, no size_t), so one device's answer holds on all. Unknown (nullopt), and left
// to the implementation's own check, where the probe cannot answer: a program made from
// binaries or IL, a type name the probe does not compile. Safe to share between threads.
class declared_types {
public:
    // For a build with `options`. No reference to the program is kept: whoever asks (a kernel
    // of it) keeps it alive.
    explicit declared_types(std::string options) : options_(std::move(options)) {}

    // The type `type_name` of the program `handle`, asked for on `dev` together with those of `batch` (the
    // kernel's other by-value types) not known yet.
    std::optional<parameter_type> find(const std::string& type_name, std::span<const std::string> batch,
                                       cl_program handle, const device& dev);

private:
    // The types of `names`, in order, or nullopt when the probe failed; `build_failed` tells
    // whether it failed to compile (one bad name spoils the batch).
    std::optional<std::vector<parameter_type>> probe(const std::vector<std::string>& names, cl_program handle,
                                                     const device& dev, bool& build_failed) const;

    std::mutex mutex_;
    std::string options_;
    std::map<std::string, std::optional<parameter_type>> known_;
};

}  // namespace gpukit::cl::detail
