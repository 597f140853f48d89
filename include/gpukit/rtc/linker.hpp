// Linking relocatable device code into one cubin with nvJitLink, for separate compilation
// and dynamic parallelism (a kernel that launches kernels needs the device runtime,
// libcudadevrt.a, linked in).
//
// linker is move-only and single-use: add inputs, then complete() once.
#pragma once

#include <list>
#include <string>
#include <vector>

namespace gpukit::rtc {

// The kind of an input to the linker (nvJitLinkInputType): a cubin, PTX, LTO-IR, a fatbin, a
// host object holding device code, or a static library (.a) such as libcudadevrt.a.
enum class link_input { cubin, ptx, ltoir, fatbin, object, library };

// "cubin", "ptx", "ltoir", "fatbin", "object", "library"; logic_error for other names.
link_input link_input_from_name(const std::string& name);

// One nvJitLink link: add the inputs with add_data and add_file, then complete() returns the
// cubin. Move-only and single-use: add_data, add_file and complete() after complete() or a
// move are a logic_error.
class linker {
public:
    // `arch` is the real architecture to link for ("sm_90"); `options` are passed to
    // nvJitLink as given ("-O3", "-lineinfo", ...). Throws runtime_error when nvJitLink
    // cannot be loaded, logic_error for a virtual arch. Names, paths and options holding a NUL
    // character are std::invalid_argument here and in add_data and add_file (core/c_text.hpp).
    explicit linker(const std::string& arch, const std::vector<std::string>& options = {});
    // Takes over other's link, with the inputs added so far; other can no longer be used.
    linker(linker&& other) noexcept;
    // Destroys this link, then takes over other's; other can no longer be used.
    linker& operator=(linker&& other) noexcept;
    linker(const linker&) = delete;
    linker& operator=(const linker&) = delete;
    // Destroys the nvJitLink handle, if complete() has not.
    ~linker();

    // `name` appears in the linker's messages. compile_error with the error log on failure.
    void add_data(const void* data, std::size_t size, link_input kind, const std::string& name);
    // Adds the file at `path` (nvJitLink reads it); runtime_error when there is no such file,
    // compile_error with the error log when nvJitLink refuses it.
    void add_file(const std::string& path, link_input kind);

    // Links and returns the cubin; compile_error carrying the error log when linking fails.
    std::vector<char> complete();

    // The architecture linked for, as given to the constructor.
    const std::string& arch() const noexcept { return arch_; }
    // The linker's informational messages (filled by complete(), and on failures).
    const std::string& info_log() const noexcept { return info_log_; }

private:
    void check(int result, const std::string& what);

    void* handle_ = nullptr;  // nvJitLinkHandle, kept opaque so users need not have nvJitLink.h
    std::string arch_;
    std::string options_;  // for error messages
    std::string info_log_;
    // nvJitLink keeps the name pointers until complete() (its messages quote them), and
    // does not promise to copy the data, so both live here rather than with the caller.
    std::list<std::string> names_;
    std::list<std::vector<char>> inputs_;
};

// The path of the static device library `name` ("cudadevrt" -> libcudadevrt.a) in
// `libdir`, or, when libdir is empty, in $CUDA_HOME/lib64, $CUDA_PATH/lib64 or
// /usr/local/cuda/lib64; runtime_error listing the places looked in when it is absent.
std::string find_device_library(const std::string& name, const std::string& libdir = {});

}  // namespace gpukit::rtc
