// Python objects as kernel arguments, converted as PyCUDA converts them.
//
// Unprepared calls (Function.__call__, graph kernel nodes) look at each object, in PyCUDA's
// order (driver.py's _build_arg_buf): numpy scalars, arrays and records go by value (their
// bytes, in C order; managed-memory arrays as pointers), DeviceAllocation and
// PooledDeviceAllocation (subclasses too) as int(arg), ArgumentHandler objects through
// get_device_alloc(), objects with __cuda_array_interface__ or gpudata as pointers. gpukit
// also takes Python numbers (sized by the kernel's parameters), texture and surface objects,
// get_pointer()/int()-convertible objects and buffers of raw bytes.
//
// Prepared calls convert each value by the format prepare() parsed (arg_format.hpp).
#pragma once

#include "common/bindings.hpp"

#include "gpukit/core/arg_format.hpp"
#include "gpukit/cuda/function.hpp"
#include "gpukit/cuda/kernel_args.hpp"
#include "gpukit/cuda/launch_staging.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace gpukit::python {

class held_buffer;

// The arguments of one unprepared call and what must happen around its launch: the device
// copies of exact In/Out/InOut arrays (staged through C++), and the other ArgumentHandler
// objects, whose pre_call and post_call PyCUDA's protocol runs.
class call_arguments {
public:
    enum class purpose { call, graph_node, inspection };

    // Fills `args`. `stream` receives the In/Out/InOut copies; `stream_object` is what
    // pre_call and post_call are given (None or the caller's stream). A graph node refuses
    // every ArgumentHandler (a node cannot copy host arrays around its launch); inspection
    // packs them without staging or calling anything but get_device_alloc().
    call_arguments(cuda::kernel_args& args, purpose use, cuda::stream_view stream, nb::handle stream_object);
    ~call_arguments();
    call_arguments(const call_arguments&) = delete;
    call_arguments& operator=(const call_arguments&) = delete;

    // Converts `values`, checking by-value numpy arrays against the kernel's parameter sizes
    // when `params` is known (the size check of every argument is the launch's).
    void pack(const nb::args& values, const std::optional<std::vector<cuda::param_info>>& params);

    // pre_call(stream) of every ArgumentHandler, in argument order.
    void before_launch();
    // After the launch: the In/Out/InOut copies back (waiting for the stream), then, when
    // some handler has post_call, PyCUDA's post_call(stream) of each, after synchronizing
    // the context when the call named no stream.
    void after_launch();

private:
    void push(nb::handle value, std::size_t index, std::optional<std::size_t> param_size);
    void push_handler(nb::handle handler, std::size_t index);

    cuda::kernel_args& args_;
    purpose use_;
    cuda::stream_view stream_;
    nb::handle stream_object_;
    std::vector<std::unique_ptr<held_buffer>> held_;  // host arrays of the staged copies
    std::vector<cuda::staging_buffer> staged_;
    std::vector<nb::object> handlers_;  // ArgumentHandler objects of PyCUDA's protocol
};

// The plan prepare() takes: a struct format string, or an iterable of format strings, numpy
// scalar types and dtypes (a record dtype is its bytes); anything else is a pointer, as in
// PyCUDA.
std::vector<arg_spec> parse_plan(nb::handle arg_types);

// Converts `values` by `plan` into `args`; TypeError naming the kernel when the counts differ.
void pack_prepared(cuda::kernel_args& args, const std::vector<arg_spec>& plan, const nb::args& values,
                   const std::string& kernel);

}  // namespace gpukit::python
