// One entry point for compiling CUDA C the way PyCUDA programs expect: nvcc's options,
// NVRTC by default, nvcc when NVRTC cannot, through the compilation cache.
//
// A request carries nvcc's options (compile_options::options), translated for NVRTC by
// nvcc_options.hpp. Which compiler runs:
//   - compiler_kind::nvcc: nvcc.
//   - compiler_kind::nvrtc: NVRTC. When its only complaint is host functions or variables
//     (unannotated, so host code to NVRTC), it compiles again with -default-device, which
//     makes them __device__: a source whose device code never used them means the same, and
//     constexpr helpers become callable as nvcc's --expt-relaxed-constexpr allows.
//   - compiler_kind::automatic: as nvrtc, and when NVRTC still cannot compile the source for
//     a reason only nvcc overcomes (host code, an option NVRTC rejects, a header NVRTC cannot
//     find, target fatbin) and nvcc is found, nvcc compiles it; if nvcc fails too, the
//     compile_error shows both compilers' errors. Without NVRTC installed, nvcc.
// compile_outcome::compiled_by and ::notes say which compiler produced the image and why.
//
// The cache key is the SHA-256 over labelled fields: the compiler choice and the identity of
// each compiler it may run (NVRTC: nvrtc_identity(), the library file's path, size and
// mtime, so a hit needs no NVRTC loaded; nvcc: its version, or for the automatic choice the
// path, size and mtime of the nvcc it would fall back to), for NVRTC the toolkit headers'
// identity (toolkit_identity()) and gpukit's built-in headers, the architecture (the
// device's when none is given), the output kind, the source as compiled (in its extern "C"
// wrapper; for NVRTC with its class attributes placed, class_attributes.hpp), every option
// and include directory, and the path and content of every header of the caller's and
// gpukit's the compilation reads:
//   - nvcc: the files `nvcc -M` lists (toolkit headers included);
//   - NVRTC: NVRTC does not report what it included, so find_included_headers() scans the
//     source for #include lines and follows those found in the caller's include directories
//     and gpukit's (includes.hpp). Toolkit headers are covered by the toolkit's identity
//     instead, and headers nvcc reads from the host's C++ library in the automatic fallback
//     by nvcc's identity.
#pragma once

#include "gpukit/rtc/nvcc.hpp"
#include "gpukit/rtc/nvcc_options.hpp"
#include "gpukit/rtc/program.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpukit::rtc {

// Which compiler a compile_request runs (see above): automatic, nvrtc or nvcc.
enum class compiler_kind { automatic, nvrtc, nvcc };

// "auto", "nvrtc", "nvcc"; logic_error for other names.
compiler_kind compiler_kind_from_name(const std::string& name);

// Everything one compilation needs: the source, its options, the compiler choice and what
// to produce, for compile(), compile_cached() and prepared_compile.
struct compile_request {
    // The CUDA C to compile, before gpukit's extern "C" wrapper.
    std::string source;
    compile_options options;  // options.options are nvcc's options
    // Which compiler runs; automatic (NVRTC, falling back to nvcc) by default.
    compiler_kind compiler = compiler_kind::automatic;
    // What to produce: a cubin (PTX for a compute_XY arch), PTX or a fatbin (nvcc only).
    output_kind output = output_kind::cubin;
    // The nvcc to run when nvcc compiles, or may in the automatic fallback: a path, or a name
    // (see find_nvcc).
    std::string nvcc = "nvcc";  // the nvcc to run: a path, or a name (see find_nvcc)
    bool keep = false;          // keep the source, PTX, image and log (so does --keep in the options)
    std::string keep_dir;       // where to keep them (or --keep-dir); empty: a fresh temporary directory
};

// What a compilation gives back: the image to load, and how it was made.
struct compile_outcome {
    std::vector<char> image;         // what to load: a cubin, a fatbin, or NUL-terminated PTX
    std::string arch;                // the architecture used (on a cache hit: the one asked for or the device's)
    std::string key;                 // the cache key; empty when the cache was not used
    bool from_cache = false;         // true when the image came from the disk cache
    std::string log;                 // the compiler's warnings (empty on a cache hit)
    std::string ptx;                 // the PTX, when it was asked for (want_ptx, keep) or is the image
    std::string kept_dir;            // with keep: the directory holding the kept files
    std::string compiled_by;         // "nvrtc" or "nvcc"; empty on a cache hit
    std::vector<std::string> notes;  // what gpukit did with the options and compilers, and why (empty on a hit)
};

// require_c_strings (program.hpp) for the request's source and options, and for its nvcc and
// keep_dir. compile(), compile_cached() and cache_key() check this first.
void require_c_strings(const compile_request& request);

// The request's cache key (64 hex digits). An empty arch stands for the one the options
// name, else device_arch().
std::string cache_key(const compile_request& request);

namespace detail {
// cache_key() with the NVRTC identity given, so tests can change it.
std::string cache_key(const compile_request& request, const std::string& nvrtc_identity);
}  // namespace detail

// Compiles without the cache, choosing the compiler as described above.
compile_outcome compile(const compile_request& request);

// Looks the request up in the cache at `cache_dir` and compiles (and stores) on a miss or a
// bad entry. The cache is bypassed when cache_dir is nullopt, when keeping files (the point
// is to see the compiler's files) and when options.want_ptx is set (only images are stored).
compile_outcome compile_cached(const compile_request& request, const std::optional<std::filesystem::path>& cache_dir);

namespace detail {
struct prepared_request;
}  // namespace detail

// A request made ready once: checked (require_c_strings), its options translated and its
// architecture settled (the current device's when none is named). For a caller that asks
// for the cache key and then compiles, as SourceModule does to reuse a module already
// loaded: neither the translation nor the key (which reads every header the source
// includes) is worked out twice. One thread at a time.
class prepared_compile {
public:
    // Prepares `request`: std::invalid_argument as require_c_strings(); logic_error for options
    // translate_nvcc_options() refuses, a target given both in options.arch and in the options,
    // or a malformed architecture.
    explicit prepared_compile(compile_request request);
    // Takes over a prepared request; the one moved from may only be destroyed or assigned to.
    prepared_compile(prepared_compile&&) noexcept;
    // Takes over a prepared request, dropping this one's.
    prepared_compile& operator=(prepared_compile&&) noexcept;
    // Drops the prepared request.
    ~prepared_compile();

    // The request as given to the constructor.
    const compile_request& request() const noexcept;
    // The architecture compiled for.
    const std::string& arch() const noexcept;
    // Whether the compiler's files are kept (keep, or --keep in the options): the cache is
    // bypassed then.
    bool keeps_files() const noexcept;
    // cache_key(request()), worked out on the first call and kept.
    const std::string& key() const;
    // compile(request()) and compile_cached(request(), cache_dir), without preparing again.
    compile_outcome compile() const;
    // compile_cached(request(), cache_dir), without preparing again: looks key() up in the cache
    // at `cache_dir`, and compiles and stores on a miss; bypasses the cache as compile_cached does.
    compile_outcome compile_cached(const std::optional<std::filesystem::path>& cache_dir) const;

private:
    std::unique_ptr<detail::prepared_request> prepared_;
    mutable std::string key_;           // empty until key() is first asked for
    mutable std::string key_identity_;  // the NVRTC identity key_ was made with
};

}  // namespace gpukit::rtc
