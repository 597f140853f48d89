// gpukit._gpukit: the compiled half of the Python package. Only translation lives here;
// the logic is in the C++ library.
#include "bindings.hpp"
#include "exit_cleanup.hpp"

NB_MODULE(_gpukit, m) {
    using namespace gpukit::python;
    // nanobind's leak report stays on (its default): at exit it lists the gpukit objects,
    // types and functions still alive once the interpreter is gone, which only a reference
    // leak keeps (the bindings drop what they cache at exit: exit_cleanup.hpp), so the tests
    // see one as lines "nanobind: leaked ..." on stderr (test_leaks.py, test_exit.py). Objects
    // that daemon threads still hold when the program ends are leaked for real, by design:
    // a program that leaves such threads may turn the report off with _set_leak_warnings.
    register_exit_cleanup();
    m.def("_set_leak_warnings", &nb::set_leak_warnings, nb::arg("enabled"),
          "Turns nanobind's report of objects leaked at interpreter exit on or off (on by default).");
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
    bind_module(m);
    bind_memory(m);
    bind_copy(m);
    bind_host_holds(m);
    bind_host_memory(m);
    bind_cuda_array(m);
    bind_structured_copy(m);
    bind_texture(m);
    bind_random(m);
    bind_cl(m);
    bind_cl_tools(m);
    bind_nccl(m);
}
