// gpukit._gpukit: the compiled half of the Python package. Only translation lives here;
// the logic is in the C++ library.
#include "common/argument_errors.hpp"
#include "common/bindings.hpp"
#include "common/exit_cleanup.hpp"

#include <cstdlib>
#include <string_view>

NB_MODULE(_gpukit, m) {
    using namespace gpukit::python;
    // nanobind's leak report lists at exit the gpukit objects, types and functions still
    // alive once the interpreter is gone: a reference leak in the bindings, or a cache they do
    // not drop (exit_cleanup.hpp does). It is for developers: the test suite turns it on
    // (GPUKIT_LEAK_WARNINGS=1, tests/python/conftest.py; test_leaks.py checks child processes
    // for it). Users' programs do not see it, since objects that daemon threads, or globals
    // finalized after gpukit, still hold at exit are reported without anything being lost.
    register_exit_cleanup();
    const char* leak_warnings = std::getenv("GPUKIT_LEAK_WARNINGS");
    nb::set_leak_warnings(leak_warnings && std::string_view(leak_warnings) == "1");
    m.def("_set_leak_warnings", &nb::set_leak_warnings, nb::arg("enabled"),
          "Turns nanobind's report of objects leaked at interpreter exit on or off (GPUKIT_LEAK_WARNINGS=1: on).");
    // Daemon threads may still be inside gpukit's blocking calls when the program ends.
    guard_process_exit();
    bind_errors(m);
    bind_warnings(m);
    bind_constants(m);
    bind_device(m);
    bind_context(m);
    bind_stream(m);
    bind_graph(m);
    bind_layout(m);
    bind_array_kernels(m);
    bind_promotion(m);
    bind_gpuarray(m);
    bind_array_reductions(m);
    bind_array_functions(m);
    bind_cumath(m);
    bind_scan(m);
    bind_reduction_kernel(m);
    bind_dlpack(m);
    bind_occupancy(m);
    bind_pool(m);
    bind_rtc(m);
    bind_link(m);
    bind_function(m);
    bind_kernel_arguments(m);
    bind_module(m);
    bind_memory(m);
    bind_copy(m);
    bind_host_holds(m);
    bind_host_memory(m);
    bind_cuda_array(m);
    bind_structured_copy(m);
    bind_texture(m);
    bind_graphics(m);
    bind_random(m);
    bind_cl(m);
    bind_cl_tools(m);
    bind_nccl(m);
    // Last: it reaches every function bound above.
    explain_argument_errors(m);
}
