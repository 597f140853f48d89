// gpukit._bench_baselines: the C++ baselines of `python -m gpukit bench` (raw driver calls
// and gpukit's C++ calls, timed in C++), a module of their own so that the extension users
// install does not carry them; the harness loads it when it is there.
#include "copy_baselines.hpp"
#include "device_array_bench.hpp"
#include "pool_bench.hpp"
#include "raw_launch.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using release_gil = nb::gil_scoped_release;

}  // namespace

// gpukit errors thrown here (a count that is not positive) become gpukit.driver's classes
// through the extension's exception translator, which nanobind shares between modules.
NB_MODULE(_bench_baselines, bench) {
    bench.def("raw_launch_seconds", &gpukit::bench::raw_launch_seconds, "launches"_a, "repeats"_a,
              nb::call_guard<release_gil>(),
              "Host seconds per raw cuLaunchKernel of an empty kernel, one value per repeat.");
    bench.def("gpukit_launch_seconds", &gpukit::bench::gpukit_launch_seconds, "launches"_a, "repeats"_a,
              nb::call_guard<release_gil>(),
              "Host seconds per gpukit::cuda::launch of an empty kernel, one value per repeat.");
    bench.def("device_array_operations", &gpukit::bench::device_array_operations,
              "The operations device_array_seconds times (gpukit.bench.small's names).");
    bench.def("device_array_seconds", &gpukit::bench::device_array_seconds, "operation"_a, "elements"_a, "launches"_a,
              "batches"_a, "repeats"_a, nb::call_guard<release_gil>(),
              "Seconds per gpukit::array::device_array operation on two float32 arrays, one value per repeat.");
    bench.def("raw_add_launch_seconds", &gpukit::bench::raw_add_launch_seconds, "elements"_a, "launches"_a, "batches"_a,
              "repeats"_a, nb::call_guard<release_gil>(),
              "Seconds per raw cuLaunchKernel of a float32 add on `elements` values, batches of `launches` "
              "each ended by a synchronization, one value per repeat.");
    bench.def("device_pool_pair_seconds", &gpukit::bench::device_pool_pair_seconds, "bytes"_a, "pairs"_a, "repeats"_a,
              "threads"_a, nb::call_guard<release_gil>(),
              "Seconds per allocate+free pair (a bin hit) of gpukit's C++ pool over device memory.");
    bench.def("raw_alloc_pair_seconds", &gpukit::bench::raw_alloc_pair_seconds, "bytes"_a, "pairs"_a, "repeats"_a,
              nb::call_guard<release_gil>(), "Seconds per raw cuMemAlloc + cuMemFree pair.");
    bench.def("raw_async_alloc_pair_seconds", &gpukit::bench::raw_async_alloc_pair_seconds, "bytes"_a, "pairs"_a,
              "repeats"_a, nb::call_guard<release_gil>(),
              "Seconds per raw cuMemAllocAsync + cuMemFreeAsync pair on one stream.");
    bench.def("raw_htod_rate", &gpukit::bench::raw_htod_rate, "device"_a, "host"_a, "bytes"_a, "repeats"_a,
              nb::call_guard<release_gil>(), "Bytes per second of raw cuMemcpyHtoD, one value per repeat.");
    bench.def("raw_dtoh_rate", &gpukit::bench::raw_dtoh_rate, "host"_a, "device"_a, "bytes"_a, "repeats"_a,
              nb::call_guard<release_gil>(), "Bytes per second of raw cuMemcpyDtoH, one value per repeat.");
    bench.def("raw_dtod_rate", &gpukit::bench::raw_dtod_rate, "dst"_a, "src"_a, "bytes"_a, "repeats"_a,
              nb::call_guard<release_gil>(), "Bytes per second of raw cuMemcpyDtoD, one value per repeat.");
    bench.def("raw_peer_rate", &gpukit::bench::raw_peer_rate, "dst"_a, "dst_context"_a, "src"_a, "src_context"_a,
              "bytes"_a, "repeats"_a, nb::call_guard<release_gil>(),
              "Bytes per second of raw cuMemcpyPeer between two contexts, waiting for both, one value per repeat.");
}
