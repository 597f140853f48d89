#include "gpukit/cl/kernel.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/info.hpp"
#include "gpukit/cl/detail/parameter_types.hpp"
#include "gpukit/cl/detail/wait_list.hpp"
#include "gpukit/core/c_text.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>

namespace gpukit::cl {
namespace {

std::string sizes_text(std::span<const size_t> sizes) {
    std::string text = "(";
    for (size_t i = 0; i < sizes.size(); ++i)
        text += (i ? ", " : "") + std::to_string(sizes[i]);
    return text + ")";
}

// Device-side types that a by-value parameter may have but a program cannot pass.
constexpr std::array<std::string_view, 4> device_side_types = {"queue_t", "clk_event_t", "reserve_id_t", "event_t"};

parameter_kind classify(cl_kernel_arg_address_qualifier address, const std::string& type_name,
                        cl_kernel_arg_type_qualifier type_qualifier) {
    if (type_qualifier & CL_KERNEL_ARG_TYPE_PIPE)
        return parameter_kind::unsupported;
    const bool pointer = type_name.ends_with('*');
    switch (address) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:  // images are __global too, and no pointers
        if (pointer)
            return parameter_kind::global_pointer;
        return type_name.starts_with("image") ? parameter_kind::image : parameter_kind::unsupported;
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
        return pointer ? parameter_kind::constant_pointer : parameter_kind::unsupported;
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
        return parameter_kind::local_pointer;
    default:
        if (type_name == "sampler_t")
            return parameter_kind::sampler;
        if (std::find(device_side_types.begin(), device_side_types.end(), type_name) != device_side_types.end())
            return parameter_kind::unsupported;
        return parameter_kind::value;
    }
}

// The parameters of `handle` as clGetKernelArgInfo describes them; all unknown when it cannot
// (a program built without -cl-kernel-arg-info, or an implementation without the query).
std::vector<kernel_parameter> describe_parameters(cl_kernel handle, cl_uint count) {
    std::vector<kernel_parameter> parameters(count);
    const auto arg_info = api().clGetKernelArgInfo;
    if (!arg_info)
        return parameters;
    for (cl_uint i = 0; i < count; ++i) {
        cl_kernel_arg_address_qualifier address = 0;
        const cl_int status = arg_info(handle, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, nullptr);
        if (status == CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
            return std::vector<kernel_parameter>(count);
        if (status != CL_SUCCESS)
            throw_cl_error(status, "clGetKernelArgInfo", "describing argument " + std::to_string(i));
        auto query = [&](cl_kernel_arg_info param) {
            return [=](size_t size, void* value, size_t* size_ret) {
                return arg_info(handle, i, param, size, value, size_ret);
            };
        };
        kernel_parameter& p = parameters[i];
        p.name = detail::info_string(query(CL_KERNEL_ARG_NAME), "clGetKernelArgInfo");
        p.type_name = detail::info_string(query(CL_KERNEL_ARG_TYPE_NAME), "clGetKernelArgInfo");
        const auto type_qualifier =
            detail::info_value<cl_kernel_arg_type_qualifier>(query(CL_KERNEL_ARG_TYPE_QUALIFIER), "clGetKernelArgInfo");
        p.kind = classify(address, p.type_name, type_qualifier);
    }
    return parameters;
}

// clGetKernelInfo(handle, param), as detail::info_* call it.
auto kernel_info(cl_kernel handle, cl_kernel_info param) {
    return [=](size_t size, void* value, size_t* size_ret) {
        return api().clGetKernelInfo(handle, param, size, value, size_ret);
    };
}

cl_context context_of_buffer(cl_mem handle) {
    return detail::info_value<cl_context>(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetMemObjectInfo(handle, CL_MEM_CONTEXT, size, value, size_ret);
        },
        "clGetMemObjectInfo");
}

const char* value_type_name(value_type type) {
    switch (type) {
    case value_type::integer:
        return "an integer";
    case value_type::floating:
        return "a floating-point number";
    case value_type::other:
        return "a number of no OpenCL C scalar type";
    case value_type::bytes:
        break;
    }
    return "bytes";
}

bool takes_memory(parameter_kind kind) {
    return kind == parameter_kind::global_pointer || kind == parameter_kind::constant_pointer ||
           kind == parameter_kind::unknown;
}

}  // namespace

const char* kind_name(parameter_kind kind) noexcept {
    switch (kind) {
    case parameter_kind::global_pointer:
        return "global";
    case parameter_kind::constant_pointer:
        return "constant";
    case parameter_kind::local_pointer:
        return "local";
    case parameter_kind::value:
        return "value";
    case parameter_kind::image:
        return "image";
    case parameter_kind::sampler:
        return "sampler";
    case parameter_kind::unsupported:
        return "unsupported";
    case parameter_kind::unknown:
        break;
    }
    return "unknown";
}

kernel kernel::create(const program& prog, const std::string& name) {
    require_c_string(name, "Kernel: the kernel name");
    if (!prog.built())
        throw logic_error("creating kernel '" + name + "': the program is not built; call build() first",
                          CL_INVALID_PROGRAM_EXECUTABLE, "clCreateKernel");
    const auto guard = prog.lock();  // no other thread builds the program meanwhile
    detail::retained<cl_kernel> created(GPUKIT_CL_CREATE(clCreateKernel,
                                                         "no kernel named '" + name + "' in the program", prog.handle(),
                                                         name.c_str()),
                                        detail::adopt);
    kernel result(std::move(created), name);
    result.describe();
    result.executable_devices_ = prog.unlocked_built_devices();
    result.declared_types_ = prog.build_->types;
    return result;
}

kernel kernel::wrap(cl_kernel handle, bool retain) {
    detail::retained<cl_kernel> owned = detail::reference_to(handle, retain, "a kernel");
    kernel result(std::move(owned),
                  detail::info_string(kernel_info(handle, CL_KERNEL_FUNCTION_NAME), "clGetKernelInfo"));
    result.describe();
    const program prog =
        program::wrap(detail::info_value<cl_program>(kernel_info(handle, CL_KERNEL_PROGRAM), "clGetKernelInfo"));
    result.executable_devices_ = prog.unlocked_built_devices();
    result.declared_types_ = prog.build_->types;
    return result;
}

void kernel::describe() {
    const auto num_args = detail::info_value<cl_uint>(kernel_info(handle(), CL_KERNEL_NUM_ARGS), "clGetKernelInfo");
    context_ = detail::info_value<cl_context>(kernel_info(handle(), CL_KERNEL_CONTEXT), "clGetKernelInfo");
    parameters_ = describe_parameters(handle(), num_args);
    arg_set_.assign(num_args, false);
    local_bytes_.assign(num_args, 0);
    arg_memory_.clear();
    arg_memory_.resize(num_args);
    arg_owners_.assign(num_args, nullptr);
}

void kernel::hold(cl_uint index, detail::retained<cl_mem> memory, std::shared_ptr<void> owner) {
    arg_memory_[index] = std::move(memory);
    arg_owners_[index] = std::move(owner);
}

std::string kernel::describe_arg(cl_uint index) const {
    std::string text = "argument " + std::to_string(index);
    if (index < parameters_.size() && parameters_[index].kind != parameter_kind::unknown) {
        const kernel_parameter& p = parameters_[index];
        const char* space = p.kind == parameter_kind::global_pointer     ? "__global "
                            : p.kind == parameter_kind::constant_pointer ? "__constant "
                            : p.kind == parameter_kind::local_pointer    ? "__local "
                                                                         : "";
        text += " ('" + p.name + "', " + space + p.type_name + ")";
    }
    return text + " of kernel '" + name_ + "'";
}

void kernel::check_index(cl_uint index, const char* routine) const {
    if (index >= num_args())
        throw logic_error("kernel '" + name_ + "' takes " + std::to_string(num_args()) + " argument(s); index " +
                              std::to_string(index) + " is out of range",
                          CL_INVALID_ARG_INDEX, routine);
}

void kernel::expect_kind(cl_uint index, bool accepted, const std::string& given) const {
    if (accepted)
        return;
    const kernel_parameter& p = parameters_[index];
    std::string why;
    switch (p.kind) {
    case parameter_kind::global_pointer:
        why = "is a __global pointer; expected a buffer or SVM";
        break;
    case parameter_kind::constant_pointer:
        why = "is a __constant pointer; expected a buffer or SVM";
        break;
    case parameter_kind::local_pointer:
        why = "is a __local pointer; expected local memory (LocalMemory(nbytes))";
        break;
    case parameter_kind::value:
        why = "is passed by value; expected a value of type " + p.type_name;
        break;
    case parameter_kind::image:
        why = "is an image; expected an image (Image)";
        break;
    case parameter_kind::sampler:
        why = "is a sampler_t; expected a sampler (Sampler)";
        break;
    default:
        why = "has a type gpukit cannot pass (pipes and device-side types are not supported)";
        break;
    }
    throw logic_error(describe_arg(index) + " " + why + ", got " + given, CL_INVALID_ARG_VALUE, "clSetKernelArg");
}

void kernel::set_arg_raw(cl_uint index, size_t size, const void* value, const std::string& what) {
    const cl_int status = api().clSetKernelArg(handle(), index, size, value);
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clSetKernelArg",
                       describe_arg(index) + " given " + what +
                           (status == CL_INVALID_ARG_SIZE ? "; the size must match the parameter's type exactly" : ""));
    arg_set_[index] = true;
}

void kernel::set_arg(cl_uint index, const buffer& b) {
    check_index(index, "clSetKernelArg");
    if (!b.handle())
        throw logic_error(describe_arg(index) +
                              ": the buffer was released (a pool's block after release()); "
                              "expected a live buffer",
                          CL_INVALID_MEM_OBJECT, "clSetKernelArg");
    expect_kind(index, takes_memory(parameters_[index].kind), "a buffer");
    if (context_of_buffer(b.handle()) != context_)
        throw logic_error(describe_arg(index) +
                              ": the buffer belongs to another context; expected a buffer of the "
                              "kernel's context",
                          CL_INVALID_CONTEXT, "clSetKernelArg");
    const cl_mem handle = b.handle();
    detail::retained<cl_mem> memory(handle);
    set_arg_raw(index, sizeof handle, &handle, "a buffer of " + std::to_string(b.size()) + " bytes");
    local_bytes_[index] = 0;
    hold(index, std::move(memory));
}

void kernel::set_arg(cl_uint index, const svm_pointer& p, std::shared_ptr<void> owner) {
    check_index(index, "clSetKernelArgSVMPointer");
    check_svm_usable(p, context_, describe_arg(index));
    expect_kind(index, takes_memory(parameters_[index].kind), "SVM");
    if (p.pointer() == nullptr) {
        // An SVM allocation of 0 bytes: NVIDIA's OpenCL accepts a null SVM pointer here but
        // then refuses the launch (CL_INVALID_KERNEL_ARGS); a null buffer means the same.
        set_arg(index, nullptr);
        return;
    }
    GPUKIT_CL(clSetKernelArgSVMPointer, handle(), index, p.pointer());
    arg_set_[index] = true;
    local_bytes_[index] = 0;
    hold(index, {}, std::move(owner));
}

void kernel::set_arg(cl_uint index, std::nullptr_t) {
    check_index(index, "clSetKernelArg");
    expect_kind(index, takes_memory(parameters_[index].kind), "a null pointer");
    const cl_mem null_memory = nullptr;
    set_arg_raw(index, sizeof null_memory, &null_memory, "a null pointer");
    local_bytes_[index] = 0;
    hold(index);
}

void kernel::set_arg(cl_uint index, const image& img) {
    check_index(index, "clSetKernelArg");
    if (!img.handle())
        throw logic_error(describe_arg(index) + ": the image was released; expected a live image",
                          CL_INVALID_MEM_OBJECT, "clSetKernelArg");
    const parameter_kind kind = parameters_[index].kind;
    expect_kind(index, kind == parameter_kind::image || kind == parameter_kind::unknown, "an image");
    if (context_of_buffer(img.handle()) != context_)
        throw logic_error(describe_arg(index) +
                              ": the image belongs to another context; expected an image of the "
                              "kernel's context",
                          CL_INVALID_CONTEXT, "clSetKernelArg");
    const cl_mem handle = img.handle();
    detail::retained<cl_mem> memory(handle);
    set_arg_raw(index, sizeof handle, &handle, "an image");
    local_bytes_[index] = 0;
    hold(index, std::move(memory));
}

void kernel::set_arg(cl_uint index, const sampler& s) {
    check_index(index, "clSetKernelArg");
    const parameter_kind kind = parameters_[index].kind;
    expect_kind(index, kind == parameter_kind::sampler || kind == parameter_kind::unknown, "a sampler");
    const auto sampler_context = detail::info_value<cl_context>(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetSamplerInfo(s.handle(), CL_SAMPLER_CONTEXT, size, value, size_ret);
        },
        "clGetSamplerInfo");
    if (sampler_context != context_)
        throw logic_error(describe_arg(index) +
                              ": the sampler belongs to another context; expected a sampler of "
                              "the kernel's context",
                          CL_INVALID_CONTEXT, "clSetKernelArg");
    const cl_sampler handle = s.handle();
    auto kept = std::make_shared<detail::retained<cl_sampler>>(handle);
    set_arg_raw(index, sizeof handle, &handle, "a sampler");
    local_bytes_[index] = 0;
    hold(index, {}, std::move(kept));
}

void kernel::set_arg(cl_uint index, local_memory local) {
    check_index(index, "clSetKernelArg");
    const std::string given = "local memory of " + std::to_string(local.bytes) + " bytes";
    const parameter_kind kind = parameters_[index].kind;
    expect_kind(index, kind == parameter_kind::local_pointer || kind == parameter_kind::unknown, given);
    if (local.bytes == 0)
        throw logic_error(describe_arg(index) + ": local memory of 0 bytes; expected at least 1", CL_INVALID_ARG_SIZE,
                          "clSetKernelArg");
    set_arg_raw(index, local.bytes, nullptr, given);
    local_bytes_[index] = local.bytes;
    hold(index);
}

void kernel::check_value(cl_uint index, size_t size, value_type type) const {
    const kernel_parameter& p = parameters_[index];
    std::optional<detail::parameter_type> expected = detail::builtin_type(p.type_name);
    if (!expected && declared_types_ && !executable_devices_.empty()) {
        std::vector<std::string> declared;  // the kernel's by-value types OpenCL C does not fix, asked for at once
        for (const kernel_parameter& other : parameters_)
            if (other.kind == parameter_kind::value && !detail::builtin_type(other.type_name))
                declared.push_back(other.type_name);
        const auto prog = detail::info_value<cl_program>(kernel_info(handle(), CL_KERNEL_PROGRAM), "clGetKernelInfo");
        expected = declared_types_->find(p.type_name, declared, prog, executable_devices_.front());
    }
    if (!expected)
        return;
    // A number of the right size but the wrong kind would be read as the parameter's type.
    const char* takes = nullptr;
    switch (expected->kind) {
    case detail::type_class::integer:
    case detail::type_class::floating: {
        const value_type number =
            expected->kind == detail::type_class::integer ? value_type::integer : value_type::floating;
        if (type != value_type::bytes && type != number)
            takes = value_type_name(number);
        break;
    }
    case detail::type_class::vector:
        if (type != value_type::bytes)
            takes = "a vector (the bytes of a numpy structured scalar)";
        break;
    case detail::type_class::aggregate:  // a complex number may be a union's value (PyOpenCL's cfloat_t)
        if (type == value_type::integer || type == value_type::floating)
            takes = "a struct or union (the bytes of a numpy record or numpy.void)";
        break;
    case detail::type_class::unknown:
        break;
    }
    if (takes)
        throw logic_error(describe_arg(index) + " takes " + takes + ", got " + value_type_name(type) + " of " +
                              std::to_string(size) + " bytes",
                          CL_INVALID_ARG_VALUE, "clSetKernelArg");
    // A value of another size leaves bytes unset, or is read past its end (PoCL checks no struct).
    if (size != expected->size)
        throw logic_error(describe_arg(index) + " given a by-value argument of " + std::to_string(size) +
                              " bytes, but its type " + p.type_name + " has " + std::to_string(expected->size) +
                              " bytes" +
                              (expected->kind == detail::type_class::vector && p.type_name.ends_with('3')
                                   ? " (a 3-component vector is laid out as a 4-component one)"
                                   : ""),
                          CL_INVALID_ARG_SIZE, "clSetKernelArg");
}

void kernel::set_arg_bytes(cl_uint index, const void* value, size_t size, value_type type) {
    check_index(index, "clSetKernelArg");
    const std::string given = "a by-value argument of " + std::to_string(size) + " bytes";
    const kernel_parameter& p = parameters_[index];
    expect_kind(index, p.kind == parameter_kind::value || p.kind == parameter_kind::unknown, given);
    if (!value || size == 0)
        throw logic_error(describe_arg(index) + ": a by-value argument needs a value of at least 1 byte",
                          CL_INVALID_ARG_VALUE, "clSetKernelArg");
    if (p.kind == parameter_kind::value)
        check_value(index, size, type);
    set_arg_raw(index, size, value, given);
    local_bytes_[index] = 0;
    hold(index);
}

void kernel::set_arg(cl_uint index, const kernel_arg& arg, std::shared_ptr<void> owner) {
    std::visit(
        [&](const auto& value) {
            using T = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<T, value_arg>)
                set_arg_bytes(index, value.bytes.data(), value.bytes.size(), value.type);
            else if constexpr (std::is_same_v<T, std::reference_wrapper<const svm_pointer>>)
                set_arg(index, value.get(), std::move(owner));
            else if constexpr (std::is_same_v<T, local_memory> || std::is_same_v<T, std::nullptr_t>)
                set_arg(index, value);
            else
                set_arg(index, value.get());
        },
        arg);
}

std::vector<std::byte> kernel::info_bytes(cl_kernel_info param) const {
    return detail::info_bytes(kernel_info(handle(), param), "clGetKernelInfo");
}

std::vector<std::byte> kernel::work_group_info_bytes(cl_kernel_work_group_info param, const device& dev) const {
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetKernelWorkGroupInfo(handle(), dev.handle(), param, size, value, size_ret);
        },
        "clGetKernelWorkGroupInfo");
}

void kernel::check_all_args_set() const {
    for (size_t i = 0; i < arg_set_.size(); ++i)
        if (!arg_set_[i])
            throw logic_error(describe_arg(static_cast<cl_uint>(i)) + " was never set (the kernel takes " +
                                  std::to_string(arg_set_.size()) + "); set every argument before running",
                              CL_INVALID_KERNEL_ARGS, "clEnqueueNDRangeKernel");
}

void kernel::check_local_memory(const device& dev) const {
    size_t requested = 0;
    for (const size_t bytes : local_bytes_)
        requested = bytes > std::numeric_limits<size_t>::max() - requested ? std::numeric_limits<size_t>::max()
                                                                           : requested + bytes;
    if (requested == 0)
        return;
    // What the kernel reports includes its own __local variables besides the arguments.
    cl_ulong reported = 0;
    if (api().clGetKernelWorkGroupInfo(handle(), dev.handle(), CL_KERNEL_LOCAL_MEM_SIZE, sizeof reported, &reported,
                                       nullptr) != CL_SUCCESS)
        reported = 0;
    const cl_ulong needed = std::max<cl_ulong>(reported, requested);
    const cl_ulong available = dev.local_mem_size();
    if (needed > available)
        throw logic_error("running kernel '" + name_ + "': it needs " + std::to_string(needed) +
                              " bytes of local memory (its LocalMemory arguments ask for " + std::to_string(requested) +
                              "), but device '" + dev.name() + "' has " + std::to_string(available) + " bytes",
                          CL_INVALID_ARG_SIZE, "clEnqueueNDRangeKernel");
}

event enqueue_nd_range(const queue& q, const kernel& k, std::span<const size_t> global_size,
                       std::span<const size_t> local_size, std::span<const cl_event> wait_for,
                       const nd_range_options& options) {
    const char* routine = "clEnqueueNDRangeKernel";
    const std::string running = "running kernel '" + k.name() + "': ";
    if (global_size.empty() || global_size.size() > 3)
        throw logic_error(running + "global size " + sizes_text(global_size) + " has " +
                              std::to_string(global_size.size()) + " dimensions; expected 1 to 3",
                          CL_INVALID_WORK_DIMENSION, routine);
    if (!local_size.empty() && local_size.size() != global_size.size())
        throw logic_error(running + "local size " + sizes_text(local_size) +
                              " must have as many dimensions as global size " + sizes_text(global_size),
                          CL_INVALID_WORK_DIMENSION, routine);
    if (!options.global_offset.empty() && options.global_offset.size() != global_size.size())
        throw logic_error(running + "global offset " + sizes_text(options.global_offset) +
                              " must have as many dimensions as global size " + sizes_text(global_size),
                          CL_INVALID_WORK_DIMENSION, routine);
    if (k.context_ != q.context_handle())
        throw logic_error(running +
                              "the queue belongs to another context than the kernel's program; expected a "
                              "queue of the program's context",
                          CL_INVALID_CONTEXT, routine);
    std::vector<size_t> global(global_size.begin(), global_size.end());
    std::vector<size_t> offset(options.global_offset.begin(), options.global_offset.end());
    if (options.global_times_local) {
        if (local_size.empty())
            throw logic_error(running + "the global size counts work groups (g_times_l), so a local size is needed",
                              CL_INVALID_WORK_GROUP_SIZE, routine);
        auto times_local = [&](std::vector<size_t>& sizes, const char* what) {
            const std::string given = sizes_text(sizes);
            for (size_t i = 0; i < sizes.size(); ++i)
                if (__builtin_mul_overflow(sizes[i], local_size[i], &sizes[i]))
                    throw logic_error(running + what + " " + given + " times local size " + sizes_text(local_size) +
                                          " is more than a 64-bit size_t holds",
                                      CL_INVALID_GLOBAL_WORK_SIZE, routine);
        };
        times_local(global, "global size");
        times_local(offset, "global offset");
    }
    if (options.allow_empty && std::find(global.begin(), global.end(), size_t{0}) != global.end())
        return enqueue_marker(q, wait_for);
    size_t work_items = 1;
    bool overflow = false;
    for (size_t i = 0; i < global.size(); ++i) {
        if (global[i] == 0 || (!local_size.empty() && local_size[i] == 0))
            throw logic_error(running + "sizes must be positive, got global " + sizes_text(global) + " and local " +
                                  sizes_text(local_size),
                              CL_INVALID_GLOBAL_WORK_SIZE, routine);
        if (!local_size.empty() && global[i] % local_size[i] != 0)
            throw logic_error(running + "global size " + sizes_text(global) + " must be a multiple of local size " +
                                  sizes_text(local_size) + " in every dimension",
                              CL_INVALID_WORK_GROUP_SIZE, routine);
        if (!offset.empty() && global[i] > std::numeric_limits<size_t>::max() - offset[i])
            throw logic_error(running + "global offset " + sizes_text(offset) + " plus global size " +
                                  sizes_text(global) + " is more than a 64-bit size_t holds",
                              CL_INVALID_GLOBAL_OFFSET, routine);
        overflow = overflow || __builtin_mul_overflow(work_items, global[i], &work_items);
    }
    if (overflow)
        throw logic_error(running + "global size " + sizes_text(global) +
                              " has more work items in all than a 64-bit size_t can count",
                          CL_INVALID_GLOBAL_WORK_SIZE, routine);
    // Implementations count work groups in 32 bits (PoCL fails an assertion beyond), so a launch
    // of 2**32 groups or more is refused; without a local size, the fewest groups the
    // implementation could choose are counted.
    size_t group_items = std::max<size_t>(q.get_device().max_work_group_size(), 1);
    if (!local_size.empty())  // divides work_items, so the product cannot overflow
        group_items = std::accumulate(local_size.begin(), local_size.end(), size_t{1}, std::multiplies<>());
    const size_t groups = work_items / group_items + (work_items % group_items != 0);
    if (groups > 0xffffffffu)
        throw logic_error(running + "global size " + sizes_text(global) + " makes " + std::to_string(groups) +
                              " work groups" + (local_size.empty() ? " or more" : "") + "; expected fewer than 2**32",
                          CL_INVALID_GLOBAL_WORK_SIZE, routine);
    if (std::find(k.executable_devices_.begin(), k.executable_devices_.end(), q.get_device()) ==
        k.executable_devices_.end())
        // Implementations crash on such a launch (PoCL fails an assertion).
        throw logic_error(running + "its program was not built for the queue's device '" + q.get_device().name() +
                              "'; build the program for that device too (Program.build(devices=...)) before making "
                              "its kernels",
                          CL_INVALID_PROGRAM_EXECUTABLE, routine);
    k.check_all_args_set();
    k.check_local_memory(q.get_device());
    cl_event done_handle = nullptr;
    const cl_int status =
        api().clEnqueueNDRangeKernel(q.handle(), k.handle(), static_cast<cl_uint>(global.size()),
                                     offset.empty() ? nullptr : offset.data(), global.data(),
                                     local_size.empty() ? nullptr : local_size.data(), detail::wait_count(wait_for),
                                     detail::wait_list(wait_for), &done_handle);
    if (status != CL_SUCCESS)
        throw_cl_error(status, routine,
                       "kernel '" + k.name() + "' with global size " + sizes_text(global) + " and local size " +
                           (local_size.empty() ? std::string("chosen by the implementation") : sizes_text(local_size)));
    event done(done_handle);
    // The SVM of the arguments stays allocated until the command is over, whatever the caller drops.
    std::vector<std::shared_ptr<void>> owners;
    for (const std::shared_ptr<void>& owner : k.arg_owners_)
        if (owner)
            owners.push_back(owner);
    if (!owners.empty())
        done.keep_until_complete(std::make_shared<std::vector<std::shared_ptr<void>>>(std::move(owners)));
    return done;
}

}  // namespace gpukit::cl
