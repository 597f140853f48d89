#include "gpukit/cl/detail/parameter_types.hpp"

#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/context.hpp"
#include "gpukit/cl/detail/info.hpp"
#include "gpukit/cl/kernel.hpp"
#include "gpukit/cl/program.hpp"
#include "gpukit/cl/queue.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gpukit::cl::detail {
namespace {

struct scalar {
    std::string_view name;
    parameter_type type;
};

// The kernel parameter types of OpenCL C's scalars (bool, size_t and the pointer-sized integers
// are no kernel parameters), with the unsigned spellings clGetKernelArgInfo may give.
constexpr std::array<scalar, 15> scalars = {{
    {"char", {1, type_class::integer}},
    {"uchar", {1, type_class::integer}},
    {"unsigned char", {1, type_class::integer}},
    {"short", {2, type_class::integer}},
    {"ushort", {2, type_class::integer}},
    {"unsigned short", {2, type_class::integer}},
    {"int", {4, type_class::integer}},
    {"uint", {4, type_class::integer}},
    {"unsigned int", {4, type_class::integer}},
    {"long", {8, type_class::integer}},
    {"ulong", {8, type_class::integer}},
    {"unsigned long", {8, type_class::integer}},
    {"half", {2, type_class::floating}},
    {"float", {4, type_class::floating}},
    {"double", {8, type_class::floating}},
}};

std::optional<parameter_type> scalar_named(std::string_view name) {
    const auto found = std::find_if(scalars.begin(), scalars.end(), [&](const scalar& s) { return s.name == name; });
    return found == scalars.end() ? std::nullopt : std::optional(found->type);
}

// __builtin_classify_type's answers (GCC's type classes, which clang keeps).
type_class class_of(cl_long answer) {
    switch (answer) {
    case 1:  // integer
    case 2:  // char
    case 3:  // enum
        return type_class::integer;
    case 8:  // real
        return type_class::floating;
    case 12:  // record
    case 13:  // union
        return type_class::aggregate;
    case 19:  // vector (newer clang; older ones answer -1)
        return type_class::vector;
    default:
        return type_class::unknown;
    }
}

constexpr const char* probe_kernel = "gpukit_parameter_type_probe_";

// What the program's source is followed by: a kernel writing, for each type T of `names`,
// sizeof(T) and its class (-1 where the compiler has no __builtin_classify_type). T is named
// through a pointer cast, which neither evaluates anything nor needs T to be initialised.
std::string probe_source(const std::vector<std::string>& names) {
    std::string text =
        "\n#if defined(__has_builtin)\n#if __has_builtin(__builtin_classify_type)\n"
        "#define GPUKIT_TYPE_CLASS_(v) __builtin_classify_type(v)\n#endif\n#endif\n"
        "#ifndef GPUKIT_TYPE_CLASS_\n#define GPUKIT_TYPE_CLASS_(v) (-1)\n#endif\n"
        "__kernel void " +
        std::string(probe_kernel) + "(__global long *gpukit_out_) {\n";
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string value = "(*(__global " + names[i] + " *)gpukit_out_)";
        text += "    gpukit_out_[" + std::to_string(2 * i) + "] = (long)sizeof" + value + ";\n";
        text += "    gpukit_out_[" + std::to_string(2 * i + 1) + "] = GPUKIT_TYPE_CLASS_" + value + ";\n";
    }
    return text + "}\n";
}

}  // namespace

std::optional<parameter_type> builtin_type(std::string_view type_name) {
    if (auto found = scalar_named(type_name))
        return found;
    const size_t digits = type_name.find_first_of("0123456789");
    if (digits == std::string_view::npos || digits == 0)
        return std::nullopt;
    const std::optional<parameter_type> element = scalar_named(type_name.substr(0, digits));
    constexpr std::array<std::pair<std::string_view, size_t>, 5> widths = {
        {{"2", 2}, {"3", 4}, {"4", 4}, {"8", 8}, {"16", 16}}};  // a 3-vector is laid out as a 4-vector
    const auto width =
        std::find_if(widths.begin(), widths.end(), [&](const auto& w) { return w.first == type_name.substr(digits); });
    if (!element || width == widths.end())
        return std::nullopt;
    return parameter_type{element->size * width->second, type_class::vector};
}

std::optional<parameter_type> declared_types::find(const std::string& type_name, std::span<const std::string> batch,
                                                   cl_program handle, const device& dev) {
    const std::lock_guard guard(mutex_);
    if (const auto known = known_.find(type_name); known != known_.end())
        return known->second;
    std::vector<std::string> names{type_name};
    for (const std::string& name : batch)
        if (!known_.contains(name) && std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    bool build_failed = false;
    if (const auto types = probe(names, handle, dev, build_failed)) {
        for (size_t i = 0; i < names.size(); ++i)
            known_[names[i]] = (*types)[i];
    } else if (build_failed && names.size() > 1) {
        // One name the probe cannot compile spoils the batch: ask for this one alone.
        const auto alone = probe({type_name}, handle, dev, build_failed);
        known_[type_name] = alone ? std::optional((*alone)[0]) : std::nullopt;
    } else {
        known_[type_name] = std::nullopt;
    }
    return known_[type_name];
}

std::optional<std::vector<parameter_type>> declared_types::probe(const std::vector<std::string>& names,
                                                                 cl_program handle, const device& dev,
                                                                 bool& build_failed) const {
    auto program_info = [&](cl_program_info param) {
        return [&, param](size_t size, void* value, size_t* size_ret) {
            return api().clGetProgramInfo(handle, param, size, value, size_ret);
        };
    };
    try {
        const std::string source = info_string(program_info(CL_PROGRAM_SOURCE), "clGetProgramInfo");
        if (source.empty())  // made from binaries or IL
            return std::nullopt;
        const context ctx = context::wrap(info_value<cl_context>(program_info(CL_PROGRAM_CONTEXT), "clGetProgramInfo"));
        program prog = program::create_with_source(ctx, source + probe_source(names));
        try {
            prog.build(options_, std::span(&dev, 1));
        } catch (const build_error&) {
            build_failed = true;
            return std::nullopt;
        }
        kernel k = kernel::create(prog, probe_kernel);
        const buffer out = buffer::create(ctx, CL_MEM_WRITE_ONLY, 2 * names.size() * sizeof(cl_long));
        k.set_arg(0, out);
        const queue q = queue::create(ctx, dev);
        const size_t one = 1;
        enqueue_nd_range(q, k, std::span(&one, 1));
        std::vector<cl_long> answers(2 * names.size());
        enqueue_read(q, out, 0, answers.data(), answers.size() * sizeof(cl_long), true);
        std::vector<parameter_type> types;
        for (size_t i = 0; i < names.size(); ++i)
            types.push_back({static_cast<size_t>(answers[2 * i]), class_of(answers[2 * i + 1])});
        return types;
    } catch (const gpukit::error&) {  // no answer: the implementation's own check is all there is
        return std::nullopt;
    }
}

}  // namespace gpukit::cl::detail
