#include "gpukit/rtc/program.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/rtc/api.hpp"

#include <cctype>
#include <optional>

namespace gpukit::rtc {
namespace {

// Destroys the NVRTC program on every path out of compile().
class program_handle {
public:
    explicit program_handle(nvrtcProgram p) noexcept : program_(p) {}
    ~program_handle() { api().nvrtcDestroyProgram(&program_); }
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
        throw logic_error("compile: arch must be 'sm_XY' (a cubin for one GPU) or 'compute_XY' (PTX the driver "
                          "compiles at load time), got '" + arch + "'");
    return is_virtual;
}

namespace {

std::string get_log(nvrtcProgram program) {
    std::size_t size = 0;
    if (api().nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1)
        return {};
    std::string log(size, '\0');
    if (api().nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS)
        return {};
    log.resize(size - 1);  // drop the terminating NUL
    return log;
}

// The first few lines of the log that report errors, for the exception message; the full
// log travels in compile_error::log().
std::string first_errors(const std::string& log) {
    std::string picked;
    int count = 0;
    for (std::string_view line : split_lines(log)) {
        if (count == 5)
            break;
        if (line.find("error") == std::string::npos)
            continue;
        picked += "\n  ";
        picked += line;
        ++count;
    }
    return picked.empty() ? "\n  (NVRTC gave no error lines; see the log)" : picked;
}

std::string join(const std::vector<std::string>& words) {
    std::string joined;
    for (const auto& w : words)
        joined += (joined.empty() ? "" : " ") + w;
    return joined;
}

}  // namespace

std::vector<char> compiled_program::image() const {
    if (!cubin.empty())
        return cubin;
    std::vector<char> text(ptx.begin(), ptx.end());
    text.push_back('\0');  // the driver reads PTX as a C string
    return text;
}

std::vector<int> supported_archs() {
    int count = 0;
    if (const nvrtcResult r = api().nvrtcGetNumSupportedArchs(&count); r != NVRTC_SUCCESS)
        throw_nvrtc_error(r, "nvrtcGetNumSupportedArchs");
    std::vector<int> archs(static_cast<std::size_t>(count));
    if (const nvrtcResult r = api().nvrtcGetSupportedArchs(archs.data()); r != NVRTC_SUCCESS)
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

std::string wrapped_source(std::string_view source, const compile_options& options) {
    if (options.no_extern_c)
        return std::string(source);
    // #line keeps diagnostics on the caller's own line numbers despite the wrapper.
    std::string text = "extern \"C\" {\n#line 1 \"" + options.name + "\"\n";
    text += source;
    text += "\n}\n";
    return text;
}

compiled_program compile(std::string_view source, const compile_options& options) {
    const nvrtc_api& nvrtc = api();
    compiled_program result;
    result.arch = options.arch.empty() ? default_arch() : options.arch;
    const bool is_virtual = is_virtual_arch(result.arch);

    result.options.push_back("--gpu-architecture=" + result.arch);
    for (const auto& dir : options.include_dirs)
        result.options.push_back("-I" + dir);
    result.options.insert(result.options.end(), options.options.begin(), options.options.end());

    const std::string text = wrapped_source(source, options);
    nvrtcProgram raw = nullptr;
    if (const nvrtcResult r = nvrtc.nvrtcCreateProgram(&raw, text.c_str(), options.name.c_str(), 0, nullptr, nullptr);
        r != NVRTC_SUCCESS)
        throw_nvrtc_error(r, "nvrtcCreateProgram");
    program_handle program(raw);

    std::vector<const char*> argv;
    for (const auto& o : result.options)
        argv.push_back(o.c_str());
    const nvrtcResult compiled = nvrtc.nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
    result.log = get_log(program.get());
    if (compiled != NVRTC_SUCCESS) {
        const std::string why = compiled == NVRTC_ERROR_INVALID_OPTION
                                    ? " (NVRTC rejected an option; nvcc-only flags such as -Xptxas or --cubin are "
                                      "not accepted; compile with nvcc for those)"
                                    : "";
        throw compile_error("NVRTC failed to compile " + options.name + " for " + result.arch + ": " +
                                nvrtc.nvrtcGetErrorString(compiled) + why + first_errors(result.log),
                            result.log, join(result.options));
    }

    if (!is_virtual) {
        std::size_t size = 0;
        if (const nvrtcResult r = nvrtc.nvrtcGetCUBINSize(program.get(), &size); r != NVRTC_SUCCESS)
            throw_nvrtc_error(r, "nvrtcGetCUBINSize");
        result.cubin.resize(size);
        if (const nvrtcResult r = nvrtc.nvrtcGetCUBIN(program.get(), result.cubin.data()); r != NVRTC_SUCCESS)
            throw_nvrtc_error(r, "nvrtcGetCUBIN");
    }
    if (is_virtual || options.want_ptx) {
        std::size_t size = 0;
        if (const nvrtcResult r = nvrtc.nvrtcGetPTXSize(program.get(), &size); r != NVRTC_SUCCESS)
            throw_nvrtc_error(r, "nvrtcGetPTXSize");
        result.ptx.resize(size);
        if (const nvrtcResult r = nvrtc.nvrtcGetPTX(program.get(), result.ptx.data()); r != NVRTC_SUCCESS)
            throw_nvrtc_error(r, "nvrtcGetPTX");
        if (!result.ptx.empty() && result.ptx.back() == '\0')
            result.ptx.pop_back();
    }
    return result;
}

}  // namespace gpukit::rtc
