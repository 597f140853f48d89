// NCCL, NVIDIA's collective communication library, loaded at run time (ARCHITECTURE.md
// rule 1).
//
// The first call of api() opens libnccl.so.2 (then libnccl.so) with dlopen, trying in order:
//   1. the NCCL this process has already loaded (PyTorch and CuPy load theirs), so that one
//      process never holds two copies;
//   2. each directory of LD_LIBRARY_PATH;
//   3. $CUDA_HOME and $CUDA_PATH, lib64/ and lib/;
//   4. /usr/local/cuda/lib64/ and /usr/local/cuda/lib/;
//   5. NVIDIA's pip packages (nvidia-nccl-cu13, nvidia-nccl-cu12): nccl/lib/ and cu13/lib/
//      under the `nvidia` namespace package's directories, which the Python layer passes
//      with detail::set_nvidia_package_dirs() when it is imported;
//   6. the dynamic linker's own search (ld.so.cache, system directories).
// Nothing links against NCCL, and gpukit does not include nccl.h: the few types its C API
// uses are declared below from NCCL's documented ABI (C enums passed as int, the 128-byte
// unique id, an opaque communicator pointer), as cuRAND's are in random/curand_library.cpp.
// So gpukit builds on machines without NCCL's headers (the GPU machines' CUDA toolkits
// often lack them; pip's nvidia-nccl packages ship the library without them), and a test
// checks these declarations against nccl.h wherever the header exists.
// Without NCCL everything else works; the first NCCL call raises runtime_error naming the
// files tried. NCCL 2.18 or newer is needed (ncclCommSplit is the newest entry point used).
#pragma once

#include "gpukit/core/detail/dynamic_library.hpp"

#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gpukit::nccl {

// ncclResult_t: NCCL's values, in order from 0.
enum class result : int {
    success,
    unhandled_cuda_error,
    system_error,
    internal_error,
    invalid_argument,
    invalid_usage,
    remote_error,
    in_progress
};

// ncclUniqueId: NCCL_UNIQUE_ID_BYTES opaque bytes, passed by value.
inline constexpr std::size_t unique_id_bytes = 128;
// ncclUniqueId's layout, for passing an id to NCCL (unique_id is the type to use elsewhere).
struct raw_unique_id {
    char internal[unique_id_bytes];  // the id's bytes, as NCCL made them
};

// NCCL's communicator, which only NCCL defines (gpukit handles it by pointer).
struct opaque_comm;
// ncclComm_t: a pointer to NCCL's opaque communicator.
using comm_t = opaque_comm*;

// NCCL_SPLIT_NOCOLOR: the color of a rank that joins no communicator in a split.
inline constexpr int split_no_color = -1;

// The NCCL entry points gpukit calls (nccl_functions.inc), one function pointer each,
// resolved with dlsym when the library loads.
struct nccl_api {
#define X(type, name, params) type(*name) params = nullptr;
#include "gpukit/nccl/nccl_functions.inc"
#undef X
};

// The loaded table; throws runtime_error naming the libraries tried when none loads or when
// one lacks an entry point.
const nccl_api& api();

// True when libnccl can be loaded (loading it on first use); never throws.
bool nccl_available() noexcept;

// NCCL's version as ncclGetVersion reports it: major * 10000 + minor * 100 + patch.
int version();

// The file of the NCCL library in use, links resolved; throws like api() when none loads.
std::string nccl_library_path();

namespace detail {

using loaded_nccl = gpukit::detail::loaded_library<nccl_api>;

// Tries each candidate (a file name or a path) in order and returns the first library that
// offers every entry point. Exposed so tests can check the failure message.
loaded_nccl load(const std::vector<std::string>& candidates);

// The candidates api() uses, in the order the header comment gives.
std::vector<std::string> default_candidates();

}  // namespace detail

}  // namespace gpukit::nccl
