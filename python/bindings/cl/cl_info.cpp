#include "cl/cl_info.hpp"

#include "cl/cl_args.hpp"

#include "gpukit/cl/context.hpp"
#include "gpukit/cl/program.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

// The C type of an answer, and what Python gets for it.
enum class info_type {
    size,       // size_t: int
    ulong,      // cl_ulong: int
    uint,       // cl_uint: int
    boolean,    // cl_bool: bool
    address,    // a pointer: int
    mem_flags,  // cl_mem_flags: mem_flags
    text,       // a string: str
    sizes,      // size_t[]: a list of int
    context,    // cl_context: a new Context object of it
    program,    // cl_program: a new Program object of it
    devices,    // cl_device_id[]: a list of Device
    bytes,      // raw bytes: bytes
    binaries,   // CL_PROGRAM_BINARIES: a list of bytes, one per device (program::binaries)
};

struct info_param {
    const char* name;  // PyOpenCL's member name
    cl_uint param;
    info_type type;
};

// Buffer.get_info. ASSOCIATED_MEMOBJECT and PROPERTIES are not among them (gpukit makes no
// sub-buffers, and properties are a list of pairs).
constexpr info_param mem_info_params[] = {
    {"TYPE", CL_MEM_TYPE, info_type::uint},
    {"FLAGS", CL_MEM_FLAGS, info_type::mem_flags},
    {"SIZE", CL_MEM_SIZE, info_type::size},
    {"HOST_PTR", CL_MEM_HOST_PTR, info_type::address},
    {"MAP_COUNT", CL_MEM_MAP_COUNT, info_type::uint},
    {"REFERENCE_COUNT", CL_MEM_REFERENCE_COUNT, info_type::uint},
    {"CONTEXT", CL_MEM_CONTEXT, info_type::context},
    {"OFFSET", CL_MEM_OFFSET, info_type::size},
    {"USES_SVM_POINTER", CL_MEM_USES_SVM_POINTER, info_type::boolean},
};

// Kernel.get_info: all of PyOpenCL's kernel_info.
constexpr info_param kernel_info_params[] = {
    {"FUNCTION_NAME", CL_KERNEL_FUNCTION_NAME, info_type::text},
    {"NUM_ARGS", CL_KERNEL_NUM_ARGS, info_type::uint},
    {"REFERENCE_COUNT", CL_KERNEL_REFERENCE_COUNT, info_type::uint},
    {"CONTEXT", CL_KERNEL_CONTEXT, info_type::context},
    {"PROGRAM", CL_KERNEL_PROGRAM, info_type::program},
    {"ATTRIBUTES", CL_KERNEL_ATTRIBUTES, info_type::text},
};

// Program.get_info: all of PyOpenCL's program_info (KERNEL_NAMES as OpenCL gives it, the names
// joined by ';').
constexpr info_param program_info_params[] = {
    {"REFERENCE_COUNT", CL_PROGRAM_REFERENCE_COUNT, info_type::uint},
    {"CONTEXT", CL_PROGRAM_CONTEXT, info_type::context},
    {"NUM_DEVICES", CL_PROGRAM_NUM_DEVICES, info_type::uint},
    {"DEVICES", CL_PROGRAM_DEVICES, info_type::devices},
    {"SOURCE", CL_PROGRAM_SOURCE, info_type::text},
    {"BINARY_SIZES", CL_PROGRAM_BINARY_SIZES, info_type::sizes},
    {"BINARIES", CL_PROGRAM_BINARIES, info_type::binaries},
    {"NUM_KERNELS", CL_PROGRAM_NUM_KERNELS, info_type::size},
    {"KERNEL_NAMES", CL_PROGRAM_KERNEL_NAMES, info_type::text},
    {"IL", CL_PROGRAM_IL, info_type::bytes},
    {"SCOPE_GLOBAL_CTORS_PRESENT", CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, info_type::boolean},
    {"SCOPE_GLOBAL_DTORS_PRESENT", CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT, info_type::boolean},
};

// Kernel.get_work_group_info (COMPILE_WORK_GROUP_SIZE: three size_t, a list).
constexpr info_param work_group_info_params[] = {
    {"WORK_GROUP_SIZE", CL_KERNEL_WORK_GROUP_SIZE, info_type::size},
    {"COMPILE_WORK_GROUP_SIZE", CL_KERNEL_COMPILE_WORK_GROUP_SIZE, info_type::sizes},
    {"LOCAL_MEM_SIZE", CL_KERNEL_LOCAL_MEM_SIZE, info_type::ulong},
    {"PREFERRED_WORK_GROUP_SIZE_MULTIPLE", CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, info_type::size},
    {"PRIVATE_MEM_SIZE", CL_KERNEL_PRIVATE_MEM_SIZE, info_type::ulong},
};

// The entry of `params` for the parameter `arg` names; cl.LogicError listing the members of
// `enum_name` otherwise. `call` names the method, `routine` the OpenCL call.
const info_param& find_param(std::span<const info_param> params, nb::handle arg, const std::string& call,
                             const char* enum_name, const char* routine) {
    const auto param = static_cast<cl_uint>(
        cl_unsigned(arg, (call + "(param)").c_str(), std::numeric_limits<cl_uint>::max()));
    for (const info_param& p : params)
        if (p.param == param)
            return p;
    std::string names;
    for (const info_param& p : params)
        names += (names.empty() ? "" : ", ") + std::string(enum_name) + "." + p.name;
    throw cl::logic_error(call + ": parameter " + std::to_string(param) + " is not supported; expected " + names,
                          CL_INVALID_VALUE, routine);
}

template <class T>
T info_as(const std::vector<std::byte>& bytes) {
    T value{};
    std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof value));
    return value;
}

nb::object decode(const std::vector<std::byte>& bytes, info_type type) {
    switch (type) {
    case info_type::size:
        return nb::int_(info_as<size_t>(bytes));
    case info_type::ulong:
        return nb::int_(info_as<cl_ulong>(bytes));
    case info_type::uint:
        return nb::int_(info_as<cl_uint>(bytes));
    case info_type::boolean:
        return nb::bool_(info_as<::cl_bool>(bytes) != CL_FALSE);
    case info_type::address:
        return nb::int_(reinterpret_cast<std::uintptr_t>(info_as<void*>(bytes)));
    case info_type::mem_flags:
        return as_flags("mem_flags", info_as<cl_mem_flags>(bytes));
    case info_type::text: {
        std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        while (!text.empty() && text.back() == '\0')  // OpenCL strings come with their NUL
            text.pop_back();
        return nb::str(text.c_str(), text.size());
    }
    case info_type::sizes: {
        std::vector<size_t> sizes(bytes.size() / sizeof(size_t));
        std::memcpy(sizes.data(), bytes.data(), sizes.size() * sizeof(size_t));
        return nb::cast(sizes);
    }
    case info_type::context:
        return nb::cast(cl::context::wrap(info_as<cl_context>(bytes)));
    case info_type::program:
        return nb::cast(cl::program::wrap(info_as<cl_program>(bytes)));
    case info_type::devices: {
        nb::list devices;
        for (size_t k = 0; k + sizeof(cl_device_id) <= bytes.size(); k += sizeof(cl_device_id)) {
            cl_device_id handle = nullptr;
            std::memcpy(&handle, bytes.data() + k, sizeof handle);
            devices.append(nb::cast(cl::device(handle)));
        }
        return devices;
    }
    case info_type::bytes:
        return nb::bytes(bytes.data(), bytes.size());
    case info_type::binaries:
        break;  // asked of the program itself (program_info)
    }
    return nb::none();
}

void bind_enum(nb::module_& m, const char* name, std::span<const info_param> params) {
    nb::list items;
    for (const info_param& p : params)
        items.append(nb::make_tuple(p.name, p.param));
    m.attr(name) = nb::module_::import_("enum").attr("IntEnum")(name, items, "module"_a = "gpukit.cl");
}

}  // namespace

// The flag class is looked up in the module, which owns it (as constant_class does).
nb::object as_flags(const char* name, cl_bitfield value) {
    return nb::module_::import_("gpukit._gpukit.cl").attr(name)(value);
}

void bind_info_enums(nb::module_& m) {
    bind_enum(m, "mem_info", mem_info_params);
    bind_enum(m, "kernel_info", kernel_info_params);
    bind_enum(m, "program_info", program_info_params);
    bind_enum(m, "kernel_work_group_info", work_group_info_params);
}

nb::object buffer_info(const cl::buffer& b, nb::handle param) {
    const info_param& p = find_param(mem_info_params, param, "Buffer.get_info", "mem_info", "clGetMemObjectInfo");
    return decode(b.info_bytes(p.param), p.type);
}

nb::object program_info(const cl::program& p, nb::handle param) {
    const info_param& found =
        find_param(program_info_params, param, "Program.get_info", "program_info", "clGetProgramInfo");
    if (found.type == info_type::binaries) {
        nb::list binaries;
        for (const std::vector<std::byte>& binary : p.binaries())
            binaries.append(nb::bytes(binary.data(), binary.size()));
        return binaries;
    }
    return decode(p.info_bytes(found.param), found.type);
}

nb::object program_info_attribute(const cl::program& p, const std::string& name) {
    for (const info_param& candidate : program_info_params) {
        std::string lower = candidate.name;
        for (char& c : lower)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower == name)
            return program_info(p, nb::int_(candidate.param));
    }
    return nb::object();
}

nb::object kernel_info(const cl::kernel& k, nb::handle param) {
    const info_param& p = find_param(kernel_info_params, param, "Kernel.get_info", "kernel_info", "clGetKernelInfo");
    return decode(k.info_bytes(p.param), p.type);
}

nb::object kernel_work_group_info(const cl::kernel& k, nb::handle param, const cl::device& dev) {
    const info_param& p = find_param(work_group_info_params, param, "Kernel.get_work_group_info",
                                     "kernel_work_group_info", "clGetKernelWorkGroupInfo");
    return decode(k.work_group_info_bytes(p.param, dev), p.type);
}

}  // namespace gpukit::python
