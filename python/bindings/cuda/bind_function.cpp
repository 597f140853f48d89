// gpukit.driver.Function.
//
// Two call paths (kernel_arguments.hpp converts the arguments of both): __call__ looks at
// each Python argument to decide how to pass it, and runs what its ArgumentHandler
// arguments need around the launch; prepared_* calls convert by the plan prepare() parsed,
// straight into an inline kernel_args buffer.
#include "common/bindings.hpp"
#include "cuda/bound_function.hpp"
#include "common/int_args.hpp"
#include "cuda/kernel_arguments.hpp"
#include "common/memory_args.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/event.hpp"
#include "gpukit/cuda/kernel_args.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/stream.hpp"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

void refuse_texrefs(nb::handle texrefs) {
    if (!texrefs.is_none() && nb::len(texrefs) != 0)
        throw logic_error(
            "texrefs: CUDA 12 removed texture references; pass a TextureObject as a kernel argument "
            "instead");
}

const std::vector<arg_spec>& plan_of(const bound_function& f) {
    if (!f.plan)
        throw logic_error("Function '" + f.fn.name() + "': call prepare(arg_types) before the prepared_* calls");
    return *f.plan;
}

void pack_prepared_call(cuda::kernel_args& args, const bound_function& f, const nb::args& values) {
    pack_prepared(args, plan_of(f), values, f.fn.name());
}

void launch(const bound_function& f, cuda::kernel_args& args, nb::handle grid, nb::handle block,
            cuda::stream_view stream, std::size_t shared) {
    const cuda::launch_config config = cuda::launch_config()
                                           .grid(to_dim3(grid, "grid"))
                                           .block(to_dim3(block, "block"))
                                           .shared_bytes(shared)
                                           .stream(stream);
    // The GIL stays held: a launch only enqueues work, and releasing it would cost more than the launch.
    cuda::launch_packed(f.fn, config, args.pointers(), args.sizes(), args.count());
}

// Seconds between two recorded events, waiting for the later one.
double seconds_between(const cuda::event& start, const cuda::event& stop) {
    {
        release_gil release;
        stop.synchronize();
    }
    return stop.time_since(start) / 1000.0;
}

nb::object call_function(const bound_function& f, const nb::args& values, nb::handle block, nb::handle grid,
                         nb::handle stream_object, int_arg<std::size_t> shared_arg, nb::handle texrefs,
                         bool time_kernel) {
    refuse_texrefs(texrefs);
    const std::size_t shared = shared_arg.get("Function(shared)");
    if (block.is_none())
        throw nb::type_error(("Function '" + f.fn.name() + "': block=(x, y, z) is required").c_str());
    const cuda::stream_view stream = stream_arg(stream_object);

    cuda::kernel_args args;
    call_arguments arguments(args, call_arguments::purpose::call, stream, stream_object);
    arguments.pack(values, f.fn.params());
    arguments.before_launch();

    std::optional<cuda::event> start, stop;
    if (time_kernel) {
        start.emplace(cuda::event::create());
        stop.emplace(cuda::event::create());
        start->record(stream);
    }
    launch(f, args, grid, block, stream, shared);
    if (time_kernel)
        stop->record(stream);
    arguments.after_launch();
    if (time_kernel)
        return nb::float_(seconds_between(*start, *stop));
    return nb::none();
}

}  // namespace

cuda::dim3 to_dim3(nb::handle value, const char* what) {
    auto refuse = [&] {
        throw nb::type_error((std::string(what) + " must be a tuple of 1 to 3 positive integers").c_str());
    };
    // Tuples, by far the usual case, are read in place; other sequences through a tuple copy.
    nb::object owned;
    PyObject* tuple = value.ptr();
    if (!PyTuple_Check(tuple)) {
        owned = nb::steal(PySequence_Tuple(tuple));
        if (!owned.is_valid()) {
            PyErr_Clear();
            refuse();
        }
        tuple = owned.ptr();
    }
    const Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    if (n < 1 || n > 3)
        refuse();
    cuda::dim3 d;
    unsigned int* slots[] = {&d.x, &d.y, &d.z};
    for (Py_ssize_t i = 0; i < n; ++i) {
        const long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            refuse();
        }
        if (v < 0 || v > 0xffffffffLL)
            throw logic_error(std::string(what) + " dimension " + std::to_string(i) + " is " + std::to_string(v) +
                              "; expected a value from 1 to the device's limit");
        *slots[i] = static_cast<unsigned int>(v);
    }
    return d;
}

void pack_node_arguments(cuda::kernel_args& args, const bound_function& f, const nb::args& values) {
    call_arguments(args, call_arguments::purpose::graph_node, {}, nb::none()).pack(values, f.fn.params());
}

void bind_function(nb::module_& m) {
    // Open to attributes and weak references, as PyCUDA's Function is: libraries keep their
    // own data on kernels, and may give one a Python subclass (obj.__class__ = Sub).
    nb::class_<bound_function> cls(m, "Function", "A kernel in a Module; get one with Module.get_function(name).",
                                   nb::dynamic_attr(), nb::is_weak_referenceable());
    // The nb::sig below: nanobind's own signatures, with the type of *args, which it does not
    // render, and what the call returns.
    cls.def("__call__", &call_function, "args"_a, "block"_a = nb::none(), "grid"_a = nb::make_tuple(1, 1),
            "stream"_a = nb::none(), "shared"_a.none() = 0, "texrefs"_a = nb::list(), "time_kernel"_a = false,
            nb::sig("def __call__(self, *args: object, block: object | None = None, grid: object = (1, 1), "
                    "stream: object | None = None, shared: typing.SupportsIndex | None = 0, texrefs: object = [], "
                    "time_kernel: bool = False) -> float | None"),
            "Launch with a thread block of shape `block` on `grid`; returns the kernel's seconds when time_kernel.")
        .def(
            "prepare",
            [](nb::handle self, nb::handle arg_types, nb::handle shared, nb::handle texrefs) {
                refuse_texrefs(texrefs);
                if (!shared.is_none())
                    throw logic_error(
                        "prepare(shared=...) is no longer supported; pass shared_size= to the prepared_* "
                        "calls instead");
                nb::cast<bound_function&>(self).plan = parse_plan(arg_types);
                return self;
            },
            "arg_types"_a, "shared"_a = nb::none(), "texrefs"_a = nb::list(),
            "Fix the argument types (struct letters such as \"iPf\", numpy dtypes, 'F'/'D' complex). Returns self.")
        .def(
            "prepared_call",
            [](const bound_function& f, nb::handle grid, nb::handle block, nb::args values,
               int_arg<std::size_t> shared_size) {
                cuda::kernel_args args;
                pack_prepared_call(args, f, values);
                launch(f, args, grid, block, {}, shared_size.get("prepared_call(shared_size)"));
            },
            "grid"_a, "block"_a, "args"_a, "shared_size"_a.none() = 0,
            nb::sig("def prepared_call(self, grid: object, block: object, *args: object, "
                    "shared_size: typing.SupportsIndex | None = 0) -> None"))
        .def(
            "prepared_async_call",
            [](const bound_function& f, nb::handle grid, nb::handle block, nb::handle stream, nb::args values,
               int_arg<std::size_t> shared_size) {
                cuda::kernel_args args;
                pack_prepared_call(args, f, values);
                launch(f, args, grid, block, stream_arg(stream), shared_size.get("prepared_async_call(shared_size)"));
            },
            "grid"_a, "block"_a, "stream"_a.none(), "args"_a, "shared_size"_a.none() = 0,
            nb::sig("def prepared_async_call(self, grid: object, block: object, stream: object | None, *args: object, "
                    "shared_size: typing.SupportsIndex | None = 0) -> None"))
        .def(
            "prepared_timed_call",
            [](const bound_function& f, nb::handle grid, nb::handle block, nb::args values,
               int_arg<std::size_t> shared_arg) {
                const std::size_t shared_size = shared_arg.get("prepared_timed_call(shared_size)");
                cuda::kernel_args args;
                pack_prepared_call(args, f, values);
                auto events =
                    std::make_shared<std::pair<cuda::event, cuda::event>>(cuda::event::create(), cuda::event::create());
                events->first.record();
                launch(f, args, grid, block, {}, shared_size);
                events->second.record();
                return nb::cpp_function([events] { return seconds_between(events->first, events->second); });
            },
            "grid"_a, "block"_a, "args"_a, "shared_size"_a.none() = 0,
            nb::sig("def prepared_timed_call(self, grid: object, block: object, *args: object, "
                    "shared_size: typing.SupportsIndex | None = 0) -> collections.abc.Callable[[], float]"),
            "Launch, and return a callable that waits for the kernel and gives its run time in seconds.")
        .def(
            "get_attribute",
            [](const bound_function& f, int_arg<int> attr) {
                return f.fn.attribute(static_cast<CUfunction_attribute>(attr.get("Function.get_attribute(attr)")));
            },
            "attr"_a.none())
        .def(
            "set_attribute",
            [](const bound_function& f, int_arg<int> attr, int_arg<int> value) {
                f.fn.set_attribute(static_cast<CUfunction_attribute>(attr.get("Function.set_attribute(attr)")),
                                   value.get("Function.set_attribute(value)"));
            },
            "attr"_a.none(), "value"_a.none())
        .def(
            "set_cache_config",
            [](const bound_function& f, int_arg<int> fc) {
                f.fn.set_cache_config(static_cast<CUfunc_cache>(fc.get("Function.set_cache_config(fc)")));
            },
            "fc"_a.none())
        .def(
            "set_shared_config",
            [](const bound_function& f, int_arg<int> sc) {
                f.fn.set_shared_config(static_cast<CUsharedconfig>(sc.get("Function.set_shared_config(sc)")));
            },
            "sc"_a.none())
        .def_prop_rw(
            "name",
            [](const bound_function& f) -> nb::object {
                return f.assigned_name.is_valid() ? f.assigned_name : nb::str(f.fn.name().c_str());
            },
            [](bound_function& f, nb::object name) { f.assigned_name = std::move(name); },
            nb::for_setter(nb::arg("name").none()),
            "The kernel's name in its module, unless the program assigned another value (PyCUDA's Function "
            "keeps any attribute a program sets).")
        .def_prop_ro("handle", [](const bound_function& f) { return reinterpret_cast<std::uintptr_t>(f.fn.handle()); })
        .def_prop_ro(
            "param_sizes",
            [](const bound_function& f) -> nb::object {
                if (!f.fn.params())
                    return nb::none();
                nb::list sizes;
                for (const cuda::param_info& p : *f.fn.params())
                    sizes.append(p.size);
                return sizes;
            },
            "Each parameter's size in bytes, or None when the driver cannot say (before CUDA 12.4).");

    // Every function_attribute is also a read-only property: f.num_regs, f.max_threads_per_block, ...
    for (nb::handle member : m.attr("function_attribute")) {  // constant_class, while the module is made
        const std::string name = nb::cast<std::string>(member.attr("name"));
        if (name == "MAX")
            continue;
        const int value = nb::cast<int>(nb::int_(member));
        std::string lower;
        for (char c : name)
            lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        cls.def_prop_ro(lower.c_str(), [value](const bound_function& f) {
            return f.fn.attribute(static_cast<CUfunction_attribute>(value));
        });
    }
}

}  // namespace gpukit::python
