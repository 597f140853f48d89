// Compiling CUDA C with nvcc, for what NVRTC cannot do (host code, nvcc-only options,
// headers of the host's C++ library, fatbins) and for machines with nvcc but no NVRTC.
//
// nvcc runs as a child process in a fresh temporary directory, which is removed afterwards
// unless `keep` is set, within a time and a memory bound (nvcc_limits()): a source gpukit's
// checks cannot see through (#include MACRO) might still make it read a device or a FIFO.
#pragma once

#include "gpukit/core/process.hpp"
#include "gpukit/rtc/program.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace gpukit::rtc {

// What to produce (PyCUDA's compile(target=...)): a cubin (PTX for a compute_XY arch), PTX,
// or a fatbin (nvcc only).
enum class output_kind { cubin, ptx, fatbin };

// "cubin", "ptx", "fatbin"; logic_error for other names.
output_kind output_kind_from_name(const std::string& name);

// The bounds every nvcc run gets: GPUKIT_NVCC_TIMEOUT seconds (default 600) and
// GPUKIT_NVCC_MEMORY_LIMIT MiB of address space for each process (default: half the physical
// memory, at most 32 GiB); 0 turns either off. runtime_error for a value that is not a whole
// number. A run that reaches a bound fails with a compile_error that names the variable.
process_limits nvcc_limits();

// How compile_with_nvcc() runs nvcc: which one, whether it keeps its files, and its bounds.
struct nvcc_settings {
    // The nvcc to run: a path, or a name searched on PATH.
    std::string nvcc = "nvcc";
    // Keep the working directory (nvcc also runs with --keep, so its intermediate files stay
    // there too); its path is returned in kept_dir.
    bool keep = false;
    // With keep: the directory to work in (created when missing); empty: a fresh temporary one.
    std::string keep_dir;
    // The bounds on nvcc and the programs it runs.
    process_limits limits = nvcc_limits();
};

// Runs `nvcc --cubin -arch sm_XY` (--ptx for a compute_XY arch or output ptx, --fatbin for
// output fatbin) on the source in its extern "C" wrapper (includes.hpp), with "-I<dir>" per
// include dir and options.options as given. Throws compile_error (nvcc's stderr as the log,
// its stdout, the full command line) when nvcc fails or passes settings.limits, runtime_error
// when it cannot be started. `kept_dir`, when given, receives the directory kept by settings.keep.
compiled_program compile_with_nvcc(std::string_view source, const compile_options& options,
                                   output_kind output = output_kind::cubin, const nvcc_settings& settings = {},
                                   std::string* kept_dir = nullptr);

// The first line of `nvcc --version` that names the release, else its whole output
// (computed once per nvcc path); runtime_error when nvcc cannot be run. Runs within nvcc_limits().
std::string nvcc_version(const std::string& nvcc);

// The files the compilation reads besides the source itself, from `nvcc -M` (every header,
// the toolkit's included), within nvcc_limits(). Throws like compile_with_nvcc.
std::vector<std::string> nvcc_dependencies(std::string_view source, const compile_options& options,
                                           const std::string& nvcc);

// The first executable `name` in the ':'-separated directories of `path` (process.hpp).
using gpukit::find_on_path;

// The nvcc to run for `name`: `name` itself when it holds a '/', else the first on $PATH,
// else, for the default name "nvcc", $CUDA_PATH/bin, $CUDA_HOME/bin or /usr/local/cuda/bin.
// Empty when there is none.
std::string find_nvcc(const std::string& name = "nvcc");

}  // namespace gpukit::rtc
