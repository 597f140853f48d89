#include "gpukit/rtc/program.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/builtin_headers.hpp"
#include "gpukit/rtc/includes.hpp"
#include "gpukit/rtc/toolkit.hpp"

#include <cctype>
#include <optional>

namespace gpukit::rtc {
namespace {

// Destroys the NVRTC program on every path out of compile().
class program_handle {
public:
    explicit program_handle(nvrtcProgram p) noexcept : program_(p) {}
    ~program_handle() { nvrtc_call(&nvrtc_api::nvrtcDestroyProgram, &program_); }
    program_handle(const program_handle&) = delete;
    program_handle& operator=(const program_handle&) = delete;
    nvrtcProgram get() const noexcept { return program_; }

private:
    nvrtcProgram program_;
};

constexpr int fallback_arch = 90;

}  // namespace

bool is_virtual_arch(const std::string& arch) {
    const bool is_virtual = arch.rfind("compute_", 0) == 0;
    const bool is_real = arch.rfind("sm_", 0) == 0;
    const std::size_t digits = is_virtual ? 8 : 3;
    if ((!is_virtual && !is_real) || arch.size() <= digits || !std::isdigit(static_cast<unsigned char>(arch[digits])))
        throw logic_error(
            "compile: arch must be 'sm_XY' (a cubin for one GPU) or 'compute_XY' (PTX the driver "
            "compiles at load time), got '" +
            arch + "'");
    return is_virtual;
}

namespace {

std::string get_log(nvrtcProgram program) {
    std::size_t size = 0;
    if (nvrtc_call(&nvrtc_api::nvrtcGetProgramLogSize, program, &size) != NVRTC_SUCCESS || size <= 1)
        return {};
    std::string log(size, '\0');
    if (nvrtc_call(&nvrtc_api::nvrtcGetProgramLog, program, log.data()) != NVRTC_SUCCESS)
        return {};
    cut_at_nul(log);
    return log;
}

bool is_error_line(std::string_view line) {
    return line.find(": error") != std::string_view::npos || line.find("catastrophic error") != std::string_view::npos;
}

// The first few lines of the log that report errors, for the exception message; the full
// log travels in compile_error::log().
std::string first_errors(const std::string& log) {
    std::string picked;
    int count = 0;
    for (std::string_view line : split_lines(log)) {
        if (count == 5)
            break;
        if (line.find("error") == std::string::npos && line.find("fatal") == std::string::npos)
            continue;
        picked += "\n  ";
        picked += line;
        ++count;
    }
    return picked.empty() ? "\n  (NVRTC gave no error lines; see the log)" : picked;
}

// The header of NVRTC's "could not open source file \"X\"", or empty.
std::string missing_header(const std::string& log) {
    const std::string marker = "open source file \"";
    const std::size_t at = log.find(marker);
    if (at == std::string::npos)
        return {};
    const std::size_t start = at + marker.size();
    return log.substr(start, log.find('"', start) - start);
}

// Each option NVRTC rejects when it is the only one, tried on an empty program.
std::vector<std::string> rejected_alone(const std::vector<std::string>& options, const std::string& arch_option) {
    std::vector<std::string> rejected;
    for (const auto& option : options) {
        nvrtcProgram raw = nullptr;
        if (nvrtc_call(&nvrtc_api::nvrtcCreateProgram, &raw, "", "empty.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
            continue;
        program_handle program(raw);
        const char* argv[] = {arch_option.c_str(), option.c_str()};
        if (nvrtc_call(&nvrtc_api::nvrtcCompileProgram, program.get(), 2, argv) == NVRTC_ERROR_INVALID_OPTION)
            rejected.push_back(option);
    }
    return rejected;
}

// True when the log's errors include host code in a CUB or Thrust header: <cub/cub.cuh>
// brings in the device-wide algorithms, whose host code NVRTC cannot compile.
bool host_code_in_cccl(const std::string& log) {
    for (std::string_view line : split_lines(log))
        if (line.find("not allowed in JIT mode") != std::string_view::npos &&
            (line.find("/cub/") != std::string_view::npos || line.find("/thrust/") != std::string_view::npos))
            return true;
    return false;
}

void classify(nvrtc_failure& failure, const compile_options& options, const std::string& arch) {
    const std::string head = "NVRTC failed to compile " + options.name + " for " + arch + ": " +
                             nvrtc_call(&nvrtc_api::nvrtcGetErrorString, static_cast<nvrtcResult>(failure.result));
    if (failure.result == NVRTC_ERROR_INVALID_OPTION) {
        failure.rejected_options = rejected_alone(options.options, "--gpu-architecture=" + arch);
        std::string named;
        for (const auto& option : failure.rejected_options)
            named += (named.empty() ? "'" : ", '") + option + "'";
        const bool one = failure.rejected_options.size() == 1;
        failure.limitation =
            std::string("NVRTC rejects the option") + (one ? " " : "s ") + (named.empty() ? "(see the log)" : named);
        failure.message = head + ": " + failure.limitation +
                          ". gpukit translates nvcc's options for NVRTC (gpukit.compiler.translate_options); an "
                          "option neither knows needs nvcc (compiler='nvcc')" +
                          first_errors(failure.log);
        return;
    }
    bool only_default_device_errors = true;
    int errors = 0;
    for (std::string_view line : split_lines(failure.log)) {
        if (!is_error_line(line))
            continue;
        ++errors;
        if (line.find("not allowed in JIT mode") != std::string_view::npos)
            failure.host_code = true;
        if (line.find("Consider using -default-device") == std::string_view::npos)
            only_default_device_errors = false;
    }
    failure.fixed_by_default_device = errors > 0 && only_default_device_errors;
    failure.missing_header = missing_header(failure.log);
    failure.message = head + first_errors(failure.log);
    if (failure.host_code) {
        failure.limitation = "the source has host code, and NVRTC compiles device code only";
        failure.message +=
            "\n  NVRTC compiles device code only, and the source has host code (functions or "
            "variables without __device__ or __global__); it needs nvcc (compiler='nvcc').";
        if (host_code_in_cccl(failure.log))
            failure.message +=
                " <cub/cub.cuh> holds CUB's host-side algorithms: include the block- or warp-level "
                "headers device code uses instead (<cub/block/block_reduce.cuh>, ...).";
    }
    if (!failure.missing_header.empty()) {
        if (failure.limitation.empty())
            failure.limitation = "NVRTC has no header \"" + failure.missing_header + "\"";
        const cuda_toolkit toolkit = find_cuda_toolkit();
        failure.message += "\n  NVRTC found no header \"" + failure.missing_header + "\". ";
        if (toolkit.include_dirs.empty())
            failure.message += "gpukit gave NVRTC " + describe(toolkit) + ".";
        else
            failure.message +=
                "It is not a header NVRTC, gpukit or the CUDA toolkit provides (gpukit gave NVRTC "
                "the caller's include_dirs and " +
                describe(toolkit) + "); a header of the host's C or C++ library needs nvcc (compiler='nvcc').";
    }
}

// One of the program's outputs (CUBIN or PTX) into `out`: its size, then its bytes, each
// call's failure an error naming it.
template <class Bytes, class GetSize, class Get>
void read_output(nvrtcProgram program, Bytes& out, GetSize* nvrtc_api::*get_size, const char* size_routine,
                 Get* nvrtc_api::*get, const char* routine) {
    std::size_t size = 0;
    if (const nvrtcResult r = nvrtc_call(get_size, program, &size); r != NVRTC_SUCCESS)
        throw_nvrtc_error(r, size_routine);
    out.resize(size);
    if (const nvrtcResult r = nvrtc_call(get, program, out.data()); r != NVRTC_SUCCESS)
        throw_nvrtc_error(r, routine);
}

}  // namespace

std::vector<char> compiled_program::image() const {
    if (!cubin.empty())
        return cubin;
    if (!fatbin.empty())
        return fatbin;
    std::vector<char> text(ptx.begin(), ptx.end());
    text.push_back('\0');  // the driver reads PTX as a C string
    return text;
}

std::vector<std::filesystem::path> user_include_dirs(const compile_options& options) {
    std::vector<std::filesystem::path> dirs(options.include_dirs.begin(), options.include_dirs.end());
    for (std::size_t i = 0; i < options.options.size(); ++i) {
        const std::string& o = options.options[i];
        if (o == "-I" && i + 1 < options.options.size())
            dirs.emplace_back(options.options[++i]);
        else if (o.rfind("-I", 0) == 0 && o.size() > 2)
            dirs.emplace_back(o.substr(2));
        else if (o.rfind("--include-path=", 0) == 0)
            dirs.emplace_back(o.substr(15));
    }
    return dirs;
}

std::vector<int> supported_archs() {
    int count = 0;
    if (const nvrtcResult r = nvrtc_call(&nvrtc_api::nvrtcGetNumSupportedArchs, &count); r != NVRTC_SUCCESS)
        throw_nvrtc_error(r, "nvrtcGetNumSupportedArchs");
    std::vector<int> archs(static_cast<std::size_t>(count));
    if (const nvrtcResult r = nvrtc_call(&nvrtc_api::nvrtcGetSupportedArchs, archs.data()); r != NVRTC_SUCCESS)
        throw_nvrtc_error(r, "nvrtcGetSupportedArchs");
    return archs;
}

std::string device_arch() {
    std::optional<cuda::context> current;
    try {
        if (cuda::driver_available())
            current = cuda::context::current();
    } catch (const cuda_error&) {
        // A driver that fails to initialise has no current context: compile for the default.
    }
    if (!current)
        return "sm_" + std::to_string(fallback_arch);
    const auto [major, minor] = current->get_device().compute_capability();
    return "sm_" + std::to_string(major * 10 + minor);
}

std::string nvrtc_arch(const std::string& arch) {
    if (is_virtual_arch(arch))
        return arch;
    const int wanted = std::stoi(arch.substr(3));
    const std::vector<int> archs = supported_archs();
    if (!archs.empty() && wanted > archs.back())
        return "compute_" + std::to_string(archs.back());
    return arch;
}

std::string default_arch() { return nvrtc_arch(device_arch()); }

void require_c_strings(std::string_view source, const compile_options& options) {
    require_c_string(source, "the source");
    require_c_string(options.name, "the source's name");
    require_c_string(options.arch, "arch");
    for (const std::string& option : options.options)
        require_c_string(option, "compile option");
    for (const std::string& dir : options.include_dirs)
        require_c_string(dir, "include directory");
    for (const std::string& dir : options.system_include_dirs)
        require_c_string(dir, "include directory");
}

std::variant<compiled_program, nvrtc_failure> try_compile(std::string_view source, const compile_options& options) {
    require_c_strings(source, options);
    compiled_program result;
    result.arch = options.arch.empty() ? default_arch() : options.arch;
    const bool is_virtual = is_virtual_arch(result.arch);

    // The caller's directories first, then gpukit's and the toolkit's; the prelude first of all.
    result.options = {"--gpu-architecture=" + result.arch, "--pre-include=" + std::string(prelude_header_name)};
    for (const auto& dir : options.include_dirs)
        result.options.push_back("-I" + dir);
    result.options.insert(result.options.end(), options.options.begin(), options.options.end());
    for (const auto& dir : options.system_include_dirs)
        result.options.push_back("-I" + dir);
    for (const auto& dir : find_cuda_toolkit().include_dirs)
        result.options.push_back("-I" + dir);

    result.source =
        wrap_source(source, options.name, options.no_extern_c, wrapper_for::nvrtc, user_include_dirs(options));
    std::vector<const char*> header_names, header_texts;
    std::vector<std::string> header_storage;  // NUL-terminated copies of the built-in texts
    header_storage.reserve(builtin_headers().size() * 2);
    for (const builtin_header& header : builtin_headers()) {
        header_names.push_back(header_storage.emplace_back(header.name).c_str());
        header_texts.push_back(header_storage.emplace_back(header.text).c_str());
    }
    nvrtcProgram raw = nullptr;
    if (const nvrtcResult r =
            nvrtc_call(&nvrtc_api::nvrtcCreateProgram, &raw, result.source.c_str(), options.name.c_str(),
                       static_cast<int>(header_names.size()), header_texts.data(), header_names.data());
        r != NVRTC_SUCCESS)
        throw_nvrtc_error(r, "nvrtcCreateProgram");
    program_handle program(raw);

    std::vector<const char*> argv;
    for (const auto& o : result.options)
        argv.push_back(o.c_str());
    const nvrtcResult compiled =
        nvrtc_call(&nvrtc_api::nvrtcCompileProgram, program.get(), static_cast<int>(argv.size()), argv.data());
    result.log = get_log(program.get());
    if (compiled != NVRTC_SUCCESS) {
        nvrtc_failure failure;
        failure.result = compiled;
        failure.log = result.log;
        failure.options = result.options;
        classify(failure, options, result.arch);
        return failure;
    }

    if (!is_virtual)
        read_output(program.get(), result.cubin, &nvrtc_api::nvrtcGetCUBINSize, "nvrtcGetCUBINSize",
                    &nvrtc_api::nvrtcGetCUBIN, "nvrtcGetCUBIN");
    if (is_virtual || options.want_ptx) {
        read_output(program.get(), result.ptx, &nvrtc_api::nvrtcGetPTXSize, "nvrtcGetPTXSize", &nvrtc_api::nvrtcGetPTX,
                    "nvrtcGetPTX");
        if (!result.ptx.empty() && result.ptx.back() == '\0')
            result.ptx.pop_back();
    }
    return result;
}

compiled_program compile(std::string_view source, const compile_options& options) {
    auto outcome = try_compile(source, options);
    if (auto* failure = std::get_if<nvrtc_failure>(&outcome))
        throw compile_error(failure->message, failure->log, join_words(failure->options));
    return std::get<compiled_program>(std::move(outcome));
}

}  // namespace gpukit::rtc
