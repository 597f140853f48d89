#include "gpukit/rtc/linker.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/from_name.hpp"
#include "gpukit/rtc/nvjitlink.hpp"
#include "gpukit/rtc/program.hpp"

#include <cstdlib>
#include <filesystem>
#include <utility>

namespace gpukit::rtc {
namespace {

nvJitLinkInputType to_nvjitlink(link_input kind) {
    switch (kind) {
    case link_input::cubin:
        return NVJITLINK_INPUT_CUBIN;
    case link_input::ptx:
        return NVJITLINK_INPUT_PTX;
    case link_input::ltoir:
        return NVJITLINK_INPUT_LTOIR;
    case link_input::fatbin:
        return NVJITLINK_INPUT_FATBIN;
    case link_input::object:
        return NVJITLINK_INPUT_OBJECT;
    case link_input::library:
        return NVJITLINK_INPUT_LIBRARY;
    }
    throw logic_error("unknown link input kind");
}

nvJitLinkHandle as_handle(void* handle) { return static_cast<nvJitLinkHandle>(handle); }

// A log through its size and text getters; empty when there is none.
template <class SizeFn, class TextFn>
std::string read_log(nvJitLinkHandle handle, SizeFn* nvjitlink_api::*size_fn, TextFn* nvjitlink_api::*text_fn) {
    std::size_t size = 0;
    if (nvjitlink_call(size_fn, handle, &size) != NVJITLINK_SUCCESS || size <= 1)
        return {};
    std::string log(size, '\0');
    if (nvjitlink_call(text_fn, handle, log.data()) != NVJITLINK_SUCCESS)
        return {};
    cut_at_nul(log);
    return log;
}

}  // namespace

link_input link_input_from_name(const std::string& name) {
    static constexpr std::pair<std::string_view, link_input> names[] = {{"cubin", link_input::cubin},
                                                                        {"ptx", link_input::ptx},
                                                                        {"ltoir", link_input::ltoir},
                                                                        {"fatbin", link_input::fatbin},
                                                                        {"object", link_input::object},
                                                                        {"library", link_input::library}};
    return from_name(name, names, "link input type");
}

linker::linker(const std::string& arch, const std::vector<std::string>& options) : arch_(arch) {
    if (is_virtual_arch(arch))
        throw logic_error("linker: link for a real architecture ('sm_XY'), got '" + arch + "'");
    std::vector<std::string> all = {"-arch=" + arch};
    all.insert(all.end(), options.begin(), options.end());
    for (const std::string& option : all)
        require_c_string(option, "link option");
    std::vector<const char*> argv;
    for (const auto& o : all) {
        argv.push_back(o.c_str());
        options_ += (options_.empty() ? "" : " ") + o;
    }
    nvJitLinkHandle handle = nullptr;
    const nvJitLinkResult r =
        nvjitlink_call(&nvjitlink_api::nvJitLinkCreate, &handle, static_cast<std::uint32_t>(argv.size()), argv.data());
    if (r != NVJITLINK_SUCCESS)
        throw compile_error("nvJitLinkCreate failed (nvJitLinkResult " + std::to_string(static_cast<int>(r)) +
                                "); check the link options",
                            {}, options_);
    handle_ = handle;
}

linker::linker(linker&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), arch_(std::move(other.arch_)),
      options_(std::move(other.options_)), info_log_(std::move(other.info_log_)), names_(std::move(other.names_)),
      inputs_(std::move(other.inputs_)) {}

linker& linker::operator=(linker&& other) noexcept {
    if (this != &other) {
        linker doomed(std::move(*this));
        handle_ = std::exchange(other.handle_, nullptr);
        arch_ = std::move(other.arch_);
        options_ = std::move(other.options_);
        info_log_ = std::move(other.info_log_);
        names_ = std::move(other.names_);
        inputs_ = std::move(other.inputs_);
    }
    return *this;
}

linker::~linker() {
    if (handle_) {
        nvJitLinkHandle handle = as_handle(handle_);
        nvjitlink_call(&nvjitlink_api::nvJitLinkDestroy, &handle);
    }
}

void linker::check(int result, const std::string& what) {
    if (result == NVJITLINK_SUCCESS)
        return;
    const std::string error_log =
        read_log(as_handle(handle_), &nvjitlink_api::nvJitLinkGetErrorLogSize, &nvjitlink_api::nvJitLinkGetErrorLog);
    info_log_ =
        read_log(as_handle(handle_), &nvjitlink_api::nvJitLinkGetInfoLogSize, &nvjitlink_api::nvJitLinkGetInfoLog);
    throw compile_error("nvJitLink failed to " + what + " (nvJitLinkResult " + std::to_string(result) + ")" +
                            (error_log.empty() ? "" : ":\n" + error_log),
                        error_log, options_);
}

void linker::add_data(const void* data, std::size_t size, link_input kind, const std::string& name) {
    if (!handle_)
        throw logic_error("linker: used after complete() or a move");
    require_c_string(name, "linker: the input's name");
    const std::string& kept_name = names_.emplace_back(name);
    const std::vector<char>& kept =
        inputs_.emplace_back(static_cast<const char*>(data), static_cast<const char*>(data) + size);
    check(nvjitlink_call(&nvjitlink_api::nvJitLinkAddData, as_handle(handle_), to_nvjitlink(kind), kept.data(),
                         kept.size(), kept_name.c_str()),
          "add " + name);
}

void linker::add_file(const std::string& path, link_input kind) {
    if (!handle_)
        throw logic_error("linker: used after complete() or a move");
    require_c_string(path, "linker: the file path");
    if (!std::filesystem::exists(path))
        throw runtime_error("linker: no file " + path, 0, "nvJitLinkAddFile");
    const std::string& kept_path = names_.emplace_back(path);
    check(nvjitlink_call(&nvjitlink_api::nvJitLinkAddFile, as_handle(handle_), to_nvjitlink(kind), kept_path.c_str()),
          "add " + path);
}

std::vector<char> linker::complete() {
    if (!handle_)
        throw logic_error("linker: used after complete() or a move");
    check(nvjitlink_call(&nvjitlink_api::nvJitLinkComplete, as_handle(handle_)), "link for " + arch_);
    info_log_ =
        read_log(as_handle(handle_), &nvjitlink_api::nvJitLinkGetInfoLogSize, &nvjitlink_api::nvJitLinkGetInfoLog);
    std::size_t size = 0;
    check(nvjitlink_call(&nvjitlink_api::nvJitLinkGetLinkedCubinSize, as_handle(handle_), &size),
          "size the linked cubin");
    std::vector<char> cubin(size);
    check(nvjitlink_call(&nvjitlink_api::nvJitLinkGetLinkedCubin, as_handle(handle_), cubin.data()),
          "copy the linked cubin");
    nvJitLinkHandle handle = as_handle(std::exchange(handle_, nullptr));
    nvjitlink_call(&nvjitlink_api::nvJitLinkDestroy, &handle);
    names_.clear();
    inputs_.clear();
    return cubin;
}

std::string find_device_library(const std::string& name, const std::string& libdir) {
    std::vector<std::string> dirs;
    if (!libdir.empty()) {
        dirs.push_back(libdir);
    } else {
        for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
            if (const char* home = std::getenv(variable); home && *home)
                dirs.push_back(std::string(home) + "/lib64");
        dirs.push_back("/usr/local/cuda/lib64");
    }
    std::string looked;
    for (const auto& dir : dirs) {
        const std::string path = dir + "/lib" + name + ".a";
        if (std::filesystem::exists(path))
            return path;
        looked += "\n  " + path;
    }
    throw runtime_error("device library '" + name +
                            "' not found; set CUDA_HOME or pass cuda_libdir. Looked for:" + looked,
                        0, "find_device_library");
}

}  // namespace gpukit::rtc
