#include "gpukit/random/curand_library.hpp"

#include "gpukit/core/detail/dynamic_library.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/core/detail/nvidia_packages.hpp"

#include <string>
#include <vector>

namespace gpukit::random {

namespace {

// The few entry points used, declared here from cuRAND's documented ABI (curandStatus_t and
// curandDirectionVectorSet_t are C enums, passed as int), so that building gpukit needs no
// cuRAND headers.
struct curand_api {
    int (*curandGetVersion)(int* version) = nullptr;
    int (*curandGetDirectionVectors32)(unsigned int (**vectors)[32], int set) = nullptr;
    int (*curandGetDirectionVectors64)(unsigned long long (**vectors)[64], int set) = nullptr;
    int (*curandGetScrambleConstants32)(unsigned int** constants) = nullptr;
    int (*curandGetScrambleConstants64)(unsigned long long** constants) = nullptr;
};

struct curand_library {
    using loaded_type = gpukit::detail::loaded_library<curand_api>;
    static loaded_type load();
};

curand_library::loaded_type curand_library::load() {
    return gpukit::detail::load_from_candidates<curand_api>(
        gpukit::detail::library_candidates(gpukit::detail::toolkit_library_dirs(
                                               gpukit::detail::nvidia_package_library_dirs({"curand", "cu13"})),
                                           {"libcurand.so.10", "libcurand.so"}),
        [](void* library, curand_api& table, std::string& missing) {
            using gpukit::detail::resolve_symbol;
            resolve_symbol(library, "curandGetVersion", table.curandGetVersion, missing);
            resolve_symbol(library, "curandGetDirectionVectors32", table.curandGetDirectionVectors32, missing);
            resolve_symbol(library, "curandGetDirectionVectors64", table.curandGetDirectionVectors64, missing);
            resolve_symbol(library, "curandGetScrambleConstants32", table.curandGetScrambleConstants32, missing);
            resolve_symbol(library, "curandGetScrambleConstants64", table.curandGetScrambleConstants64, missing);
        },
        "cuRAND's host library (libcurand.so.10), which holds the Sobol direction vectors and scramble constants, "
        "could not be loaded; install the CUDA toolkit's cuRAND or the pip package nvidia-curand, or set "
        "CUDA_HOME.");
}

using library = gpukit::detail::run_time_library<curand_library>;

const curand_api& curand_table() { return library::api(); }

// Calls cuRAND's `entry` with `args`, fork() held off meanwhile (core/fork.hpp).
template <class Fn, class... Args>
int curand_call(Fn* curand_api::*entry, Args... args) {
    return gpukit::detail::held_call(&curand_table, entry, args...);
}

void check(int status, const char* routine) {
    if (status != 0)
        throw runtime_error(std::string(routine) + " failed: curandStatus_t " + std::to_string(status), status,
                            routine);
}

void check_count(std::size_t count, const char* what) {
    if (count > sobol_dimensions)
        throw logic_error(std::string(what) + ": cuRAND's tables have " + std::to_string(sobol_dimensions) +
                          " dimensions, asked for " + std::to_string(count));
}

void check_width(direction_vector_set set, bool wide) {
    const int value = static_cast<int>(set);
    if (value < 101 || value > 104)
        throw logic_error("direction vector set " + std::to_string(value) + " is not one of cuRAND's (101 to 104)");
    if (is_64_bit(set) != wide)
        throw logic_error("direction vector set " + std::to_string(value) + " has " + (wide ? "32" : "64") +
                          "-bit vectors, not " + (wide ? "64" : "32") + "-bit ones");
}

}  // namespace

std::vector<std::uint32_t> direction_vectors32(direction_vector_set set, std::size_t count) {
    check_width(set, false);
    check_count(count, "direction vectors");
    unsigned int(*vectors)[32] = nullptr;
    check(curand_call(&curand_api::curandGetDirectionVectors32, &vectors, static_cast<int>(set)),
          "curandGetDirectionVectors32");
    return std::vector<std::uint32_t>(vectors[0], vectors[0] + count * 32);
}

std::vector<std::uint64_t> direction_vectors64(direction_vector_set set, std::size_t count) {
    check_width(set, true);
    check_count(count, "direction vectors");
    unsigned long long(*vectors)[64] = nullptr;
    check(curand_call(&curand_api::curandGetDirectionVectors64, &vectors, static_cast<int>(set)),
          "curandGetDirectionVectors64");
    return std::vector<std::uint64_t>(vectors[0], vectors[0] + count * 64);
}

std::vector<std::uint32_t> scramble_constants32(std::size_t count) {
    check_count(count, "scramble constants");
    unsigned int* constants = nullptr;
    check(curand_call(&curand_api::curandGetScrambleConstants32, &constants), "curandGetScrambleConstants32");
    return std::vector<std::uint32_t>(constants, constants + count);
}

std::vector<std::uint64_t> scramble_constants64(std::size_t count) {
    check_count(count, "scramble constants");
    unsigned long long* constants = nullptr;
    check(curand_call(&curand_api::curandGetScrambleConstants64, &constants), "curandGetScrambleConstants64");
    return std::vector<std::uint64_t>(constants, constants + count);
}

std::array<int, 3> curand_library_version() {
    int version = 0;
    check(curand_call(&curand_api::curandGetVersion, &version), "curandGetVersion");
    // CURAND_VERSION is major * 1000 + minor * 100 + patch.
    return {version / 1000, version % 1000 / 100, version % 100};
}

std::string curand_library_file() {
    return gpukit::detail::library_file(reinterpret_cast<const void*>(curand_table().curandGetVersion));
}

bool curand_library_available() noexcept { return library::available(); }

}  // namespace gpukit::random
