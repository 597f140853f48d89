#include "gpukit/cl/program.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/info.hpp"
#include "gpukit/cl/detail/parameter_types.hpp"
#include "gpukit/core/c_text.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/rtc/includes.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

namespace gpukit::cl {

program program::create_with_source(const context& ctx, const std::string& source) {
    if (source.empty())
        throw logic_error("creating a program: the source is empty; expected OpenCL C code", CL_INVALID_VALUE,
                          "clCreateProgramWithSource");
    require_c_string(source, "Program: the source");  // OpenCL compilers stop reading there
    const char* text = source.c_str();
    const size_t length = source.size();
    detail::retained<cl_program> handle(GPUKIT_CL_CREATE(clCreateProgramWithSource, "", ctx.handle(), 1, &text,
                                                         &length),
                                        detail::adopt);
    return program(std::move(handle), ctx.devices());
}

program program::create_with_binary(const context& ctx, std::span<const device> devices,
                                    std::span<const std::vector<std::byte>> binaries) {
    const char* routine = "clCreateProgramWithBinary";
    if (devices.empty() || devices.size() != binaries.size())
        throw logic_error("creating a program from binaries: " + std::to_string(devices.size()) + " device(s) and " +
                              std::to_string(binaries.size()) +
                              " binaries; expected one binary per device, at "
                              "least one",
                          CL_INVALID_VALUE, routine);
    std::vector<cl_device_id> handles;
    std::vector<size_t> lengths;
    std::vector<const unsigned char*> pointers;
    for (size_t k = 0; k < devices.size(); ++k) {
        if (std::find(ctx.devices().begin(), ctx.devices().end(), devices[k]) == ctx.devices().end())
            throw logic_error("creating a program from binaries: device " + std::to_string(k) + " (" +
                                  devices[k].name() + ") is not a device of the context",
                              CL_INVALID_DEVICE, routine);
        if (binaries[k].empty())
            throw logic_error("creating a program from binaries: binary " + std::to_string(k) + " is empty",
                              CL_INVALID_VALUE, routine);
        handles.push_back(devices[k].handle());
        lengths.push_back(binaries[k].size());
        pointers.push_back(reinterpret_cast<const unsigned char*>(binaries[k].data()));
    }
    std::vector<cl_int> statuses(devices.size(), CL_SUCCESS);
    cl_int status = CL_SUCCESS;
    cl_program made =
        GPUKIT_CL_ENTRY(clCreateProgramWithBinary)(ctx.handle(), static_cast<cl_uint>(handles.size()), handles.data(),
                                                   lengths.data(), pointers.data(), statuses.data(), &status);
    detail::retained<cl_program> handle(made, detail::adopt);  // released on any throw below
    for (size_t k = 0; k < statuses.size(); ++k)
        if (statuses[k] != CL_SUCCESS)
            throw logic_error("creating a program from binaries: OpenCL refused binary " + std::to_string(k) +
                                  " for device " + devices[k].name() + " (" + error_name(statuses[k]) + ")",
                              statuses[k], routine);
    if (status != CL_SUCCESS)
        throw_cl_error(status, routine);
    return program(std::move(handle), std::vector<device>(devices.begin(), devices.end()));
}

namespace {

// What build() adds to the caller's options.
constexpr std::string_view arg_info_option = "-cl-kernel-arg-info";

// The -I directories of build options ("-I dir" or "-Idir").
std::vector<std::filesystem::path> include_dirs(const std::string& options) {
    std::vector<std::filesystem::path> dirs;
    const std::vector<std::string_view> words = split_words(options);
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] == "-I" && i + 1 < words.size())
            dirs.emplace_back(words[++i]);
        else if (words[i].starts_with("-I") && words[i].size() > 2)
            dirs.emplace_back(words[i].substr(2));
    }
    return dirs;
}

// Refuses, as CUDA compiles do (rtc/includes.hpp), a source whose #include lines would make
// the OpenCL compiler read a FIFO, socket or device: PoCL blocks for ever on a FIFO without a
// writer. Quoted names are looked up in the current directory, as OpenCL compilers do.
void check_includes(cl_program handle, const std::string& options) {
    const std::string source = detail::info_string(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetProgramInfo(handle, CL_PROGRAM_SOURCE, size, value, size_ret);
        },
        "clGetProgramInfo");
    std::error_code ignored;
    try {
        rtc::find_included_headers(source, std::filesystem::current_path(ignored), include_dirs(options));
    } catch (const compile_error& e) {
        throw build_error(std::string("building a program: ") + e.what(), CL_BUILD_PROGRAM_FAILURE, "clBuildProgram",
                          e.what());
    }
}

}  // namespace

program program::wrap(cl_program handle, bool retain) {
    detail::retained<cl_program> owned = detail::reference_to(handle, retain, "a program");
    program result(std::move(owned), devices_of(handle));
    const std::vector<size_t> built = reported_executables(handle, result.devices_);
    if (built.empty())
        return result;
    std::string options = detail::info_string(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetProgramBuildInfo(handle, result.devices_[built.front()].handle(),
                                               CL_PROGRAM_BUILD_OPTIONS, size, value, size_ret);
        },
        "clGetProgramBuildInfo");
    if (options.ends_with(arg_info_option)) {
        options.resize(options.size() - arg_info_option.size());
        while (!options.empty() && options.back() == ' ')
            options.pop_back();
    }
    result.build_->types = std::make_shared<detail::declared_types>(options);
    result.build_->options = std::move(options);
    result.build_->built_devices = built;
    result.build_->built = true;
    return result;
}

void program::compile(const std::string& options, std::span<const device> devices,
                      std::span<const std::pair<std::string, const program*>> headers) {
    require_c_string(options, "Program.compile: the options");
    std::vector<cl_program> header_programs;
    std::vector<const char*> header_names;
    for (const auto& [name, header] : headers) {
        require_c_string(name, "Program.compile: a header's name");
        if (header == nullptr || header == this)
            throw logic_error("Program.compile: header '" + name + "' must be another program", CL_INVALID_VALUE,
                              "clCompileProgram");
        header_programs.push_back(header->handle());
        header_names.push_back(name.c_str());
    }
    const std::vector<size_t> requested = device_indexes(devices);
    const auto guard = lock();
    check_includes(handle(), options);
    std::vector<cl_device_id> handles;
    for (const size_t i : requested)
        handles.push_back(devices_[i].handle());
    // As build(): kernels check their arguments against what this makes OpenCL describe.
    const std::string with_arg_info = options + (options.empty() ? "" : " ") + std::string(arg_info_option);
    const cl_int status =
        GPUKIT_CL_ENTRY(clCompileProgram)(handle(), static_cast<cl_uint>(handles.size()), handles.data(),
                                          with_arg_info.c_str(), static_cast<cl_uint>(header_programs.size()),
                                          header_programs.empty() ? nullptr : header_programs.data(),
                                          header_names.empty() ? nullptr : header_names.data(), nullptr, nullptr);
    if (status == CL_COMPILE_PROGRAM_FAILURE) {
        std::string log;
        for (const size_t i : requested)
            log += "--- compile log for '" + devices_[i].name() + "':\n" + unlocked_build_log(devices_[i]) + "\n";
        throw build_error("clCompileProgram failed: CL_COMPILE_PROGRAM_FAILURE (" + std::to_string(status) +
                              "): the OpenCL C source did not compile with options '" + options + "'\n" + log,
                          status, "clCompileProgram", log);
    }
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clCompileProgram", "options '" + options + "'");
}

program program::link(const context& ctx, std::span<const program* const> programs, const std::string& options,
                      std::span<const device> devices) {
    const char* routine = "clLinkProgram";
    require_c_string(options, "link_program: the options");
    if (programs.empty())
        throw logic_error("link_program: no programs; expected at least one compiled program", CL_INVALID_VALUE,
                          routine);
    std::vector<cl_program> inputs;
    for (const program* p : programs)
        inputs.push_back(p->handle());
    std::vector<cl_device_id> handles;
    for (const device& d : devices)
        handles.push_back(d.handle());
    cl_int status = CL_SUCCESS;
    detail::retained<cl_program> made(GPUKIT_CL_ENTRY(clLinkProgram)(ctx.handle(), static_cast<cl_uint>(handles.size()),
                                                                     handles.empty() ? nullptr : handles.data(),
                                                                     options.c_str(),
                                                                     static_cast<cl_uint>(inputs.size()), inputs.data(),
                                                                     nullptr, nullptr, &status),
                                      detail::adopt);
    if (status == CL_LINK_PROGRAM_FAILURE) {
        std::string log;
        if (made)
            for (const device& d : devices_of(made.get()))
                log += "--- link log for '" + d.name() + "':\n" +
                       detail::info_string(
                           [&](size_t size, void* value, size_t* size_ret) {
                               return api().clGetProgramBuildInfo(made.get(), d.handle(), CL_PROGRAM_BUILD_LOG, size,
                                                                  value, size_ret);
                           },
                           "clGetProgramBuildInfo") +
                       "\n";
        throw build_error("clLinkProgram failed: CL_LINK_PROGRAM_FAILURE (" + std::to_string(status) +
                              "): the programs did not link with options '" + options + "'\n" + log,
                          status, routine, log);
    }
    if (status != CL_SUCCESS)
        throw_cl_error(status, routine, "options '" + options + "'");
    return wrap(made.get());  // built for the devices OpenCL reports an executable for
}

std::vector<device> program::devices_of(cl_program handle) {
    const std::vector<cl_device_id> ids = detail::info_array<cl_device_id>(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetProgramInfo(handle, CL_PROGRAM_DEVICES, size, value, size_ret);
        },
        "clGetProgramInfo");
    return {ids.begin(), ids.end()};
}

std::vector<size_t> program::reported_executables(cl_program handle, const std::vector<device>& devices) {
    std::vector<size_t> built;
    for (size_t i = 0; i < devices.size(); ++i) {
        auto query = [&](cl_program_build_info param) {
            return [&, param](size_t size, void* value, size_t* size_ret) {
                return api().clGetProgramBuildInfo(handle, devices[i].handle(), param, size, value, size_ret);
            };
        };
        const auto status =
            detail::info_value<cl_build_status>(query(CL_PROGRAM_BUILD_STATUS), "clGetProgramBuildInfo");
        const auto type =
            detail::info_value<cl_program_binary_type>(query(CL_PROGRAM_BINARY_TYPE), "clGetProgramBuildInfo");
        if (status == CL_BUILD_SUCCESS && type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
            built.push_back(i);
    }
    return built;
}

std::vector<size_t> program::device_indexes(std::span<const device> requested) const {
    std::vector<size_t> indexes;
    if (requested.empty()) {
        for (size_t i = 0; i < devices_.size(); ++i)
            indexes.push_back(i);
        return indexes;
    }
    for (const device& dev : requested) {
        const auto found = std::find(devices_.begin(), devices_.end(), dev);
        if (found == devices_.end())
            throw logic_error("building a program: device '" + dev.name() +
                                  "' is not one of the devices of the program's context",
                              CL_INVALID_DEVICE, "clBuildProgram");
        const auto index = static_cast<size_t>(found - devices_.begin());
        if (std::find(indexes.begin(), indexes.end(), index) == indexes.end())
            indexes.push_back(index);
    }
    return indexes;
}

bool program::built_for(const device& dev) const {
    const auto guard = lock();
    const std::vector<device> built = unlocked_built_devices();
    return std::find(built.begin(), built.end(), dev) != built.end();
}

std::vector<device> program::unlocked_built_devices() const {
    std::vector<device> built;
    for (const size_t i : build_->built_devices)
        built.push_back(devices_[i]);
    return built;
}

std::string program::device_names(const std::vector<size_t>& indexes) const {
    std::string names;
    for (const size_t i : indexes)
        names += (names.empty() ? "'" : ", '") + devices_[i].name() + "'";
    return names;
}

void program::build(const std::string& options, std::span<const device> devices) {
    require_c_string(options, "Program.build: the build options");
    const std::vector<size_t> requested = device_indexes(devices);
    const auto guard = lock();
    const std::vector<size_t>& built = build_->built_devices;
    const bool done = build_->built && options == build_->options &&
                      std::all_of(requested.begin(), requested.end(),
                                  [&](size_t i) { return std::find(built.begin(), built.end(), i) != built.end(); });
    if (done)
        return;
    check_includes(handle(), options);
    std::vector<cl_device_id> handles;
    for (const size_t i : requested)
        handles.push_back(devices_[i].handle());
    auto build_with = [&](const std::string& text) {
        return api().clBuildProgram(handle(), static_cast<cl_uint>(handles.size()), handles.data(), text.c_str(),
                                    nullptr, nullptr);
    };
    // Kernels check their arguments against the parameters this makes OpenCL describe.
    cl_int status = build_with(options + (options.empty() ? "" : " ") + std::string(arg_info_option));
    if (status == CL_BUILD_PROGRAM_FAILURE)
        // Some compilers fail on sources they build without it (NVIDIA's, on a kernel without
        // parameters: "ptxas ... syntax error"): then the kernels check argument sizes only.
        status = build_with(options);
    if (status == CL_BUILD_PROGRAM_FAILURE) {
        build_->built = false;
        build_->built_devices.clear();
        std::string log;
        for (const size_t i : requested)
            log += "--- build log for '" + devices_[i].name() + "':\n" + unlocked_build_log(devices_[i]) + "\n";
        throw build_error("clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (" + std::to_string(status) +
                              "): the OpenCL C source did not compile with options '" + options + "'\n" + log,
                          status, "clBuildProgram", log);
    }
    if (status == CL_INVALID_OPERATION && build_->built)
        throw logic_error("clBuildProgram failed: CL_INVALID_OPERATION (" + std::to_string(status) +
                              "): kernels of the program exist, so it cannot be built again with options '" + options +
                              "' for " + device_names(requested) + " (it is built with options '" + build_->options +
                              "' for " + device_names(built) + "); make a new Program for other options or devices",
                          status, "clBuildProgram");
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clBuildProgram", "options '" + options + "'");
    build_->types = std::make_shared<detail::declared_types>(options);
    build_->options = options;
    build_->built_devices = requested;
    build_->built = true;
}

std::string program::build_log(const device& dev) const {
    const auto guard = lock();
    return unlocked_build_log(dev);
}

std::string program::unlocked_build_log(const device& dev) const {
    return detail::info_string(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetProgramBuildInfo(handle(), dev.handle(), CL_PROGRAM_BUILD_LOG, size, value, size_ret);
        },
        "clGetProgramBuildInfo");
}

std::vector<std::string> program::kernel_names() const {
    if (!built())
        throw logic_error("the program's kernel names are known only after build(); call build() first",
                          CL_INVALID_PROGRAM_EXECUTABLE, "clGetProgramInfo");
    const auto guard = lock();
    const std::string joined = detail::info_string(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetProgramInfo(handle(), CL_PROGRAM_KERNEL_NAMES, size, value, size_ret);
        },
        "clGetProgramInfo");
    // The names come separated by semicolons.
    std::vector<std::string> names;
    size_t start = 0;
    while (start < joined.size()) {
        const size_t end = std::min(joined.find(';', start), joined.size());
        if (end > start)
            names.push_back(joined.substr(start, end - start));
        start = end + 1;
    }
    return names;
}

std::vector<std::byte> program::build_info_bytes(const device& dev, cl_program_build_info param) const {
    const auto guard = lock();
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetProgramBuildInfo(handle(), dev.handle(), param, size, value, size_ret);
        },
        "clGetProgramBuildInfo");
}

std::vector<std::byte> program::info_bytes(cl_program_info param) const {
    const auto guard = lock();  // PoCL's program info is not safe against a build on another thread
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetProgramInfo(handle(), param, size, value, size_ret);
        },
        "clGetProgramInfo");
}

std::vector<std::vector<std::byte>> program::binaries() const {
    const auto guard = lock();
    const std::vector<std::byte> size_bytes = detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetProgramInfo(handle(), CL_PROGRAM_BINARY_SIZES, size, value, size_ret);
        },
        "clGetProgramInfo");
    std::vector<size_t> sizes(size_bytes.size() / sizeof(size_t));
    std::memcpy(sizes.data(), size_bytes.data(), sizes.size() * sizeof(size_t));
    // OpenCL writes each binary into memory the caller gives, one pointer per device.
    std::vector<std::vector<std::byte>> result(sizes.size());
    std::vector<unsigned char*> pointers(sizes.size());
    for (size_t k = 0; k < sizes.size(); ++k) {
        result[k].resize(sizes[k]);
        pointers[k] = sizes[k] ? reinterpret_cast<unsigned char*>(result[k].data()) : nullptr;
    }
    GPUKIT_CL(clGetProgramInfo, handle(), CL_PROGRAM_BINARIES, pointers.size() * sizeof(unsigned char*),
              pointers.data(), nullptr);
    return result;
}

}  // namespace gpukit::cl
