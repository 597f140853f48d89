// Where the CUDA toolkit's headers are (cuda_fp16.h, curand_kernel.h, cooperative_groups.h,
// cub, ...), found the way CuPy and cuda.core (cuda-pathfinder) find them.
//
// NVRTC knows no include directory of its own, so gpukit passes the toolkit's to every NVRTC
// compilation, after the caller's. The first of these that holds cuda_runtime.h is the toolkit:
//   1. $CUDA_PATH/include
//   2. $CUDA_HOME/include
//   3. <dir of the nvcc found on PATH>/../include
//   4. NVIDIA's pip packages, in the `nvidia` namespace package's directories (the Python
//      side supplies them, see core/detail/nvidia_packages.hpp): CUDA 13 wheels put every header
//      in nvidia/cu13/include; CUDA 12 wheels use one nvidia/<component>/include per
//      component (cuda_runtime, curand, cuda_cccl, ...), all of which are taken;
//   5. /usr/local/cuda/include.
// Each include directory is followed by its cccl/ subdirectory when there is one (CUDA 13
// moved libcu++, CUB and Thrust there).
#pragma once

#include <string>
#include <vector>

namespace gpukit::rtc {

// The CUDA toolkit's headers as find_cuda_toolkit() found them, and where it looked.
struct cuda_toolkit {
    std::vector<std::string> include_dirs;  // empty when no toolkit was found
    std::string found_via;                  // "CUDA_PATH", "CUDA_HOME", "nvcc on PATH", "pip packages" or the
                                            // system root ("/usr/local/cuda")
    std::vector<std::string> looked_in;     // each place tried and what was there, for messages
};

// What the search reads, so that tests can give fake places.
struct toolkit_search {
    std::string cuda_path;                         // $CUDA_PATH
    std::string cuda_home;                         // $CUDA_HOME
    std::string path;                              // $PATH
    std::vector<std::string> nvidia_package_dirs;  // the `nvidia` namespace package's directories
    // The last place tried, the system's toolkit root (its include/ is searched).
    std::string system_root = "/usr/local/cuda";
};

// The search inputs of this process: the environment now and the package directories set.
toolkit_search toolkit_search_from_environment();

// The toolkit `search` leads to, trying the places in the order the header comment gives;
// include_dirs is empty when none holds cuda_runtime.h. Never throws for a missing toolkit.
cuda_toolkit find_cuda_toolkit(const toolkit_search& search);

// find_cuda_toolkit(toolkit_search_from_environment()): a few stat calls, so it follows
// environment changes without a cache.
cuda_toolkit find_cuda_toolkit();

// What identifies the toolkit's headers for the compilation cache key without reading them:
// for each include directory, its path and modification time (an installer adds, removes or
// replaces files there) and the size and modification time of the version headers in it
// (cuda_runtime_api.h, cuda.h, cuda/std/__cccl/version.h).
std::string toolkit_identity(const cuda_toolkit& toolkit);

// "the CUDA toolkit headers in <dirs> (found via X)" or "no CUDA toolkit headers: looked in ...",
// for error messages.
std::string describe(const cuda_toolkit& toolkit);

}  // namespace gpukit::rtc
