// OpenCL kernels: one function of a built program, its parameters and arguments, and running it.
#pragma once

#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/detail/retained.hpp"
#include "gpukit/cl/event.hpp"
#include "gpukit/cl/image.hpp"
#include "gpukit/cl/program.hpp"
#include "gpukit/cl/queue.hpp"
#include "gpukit/cl/svm.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace gpukit::cl {

// A __local argument: the kernel gets `bytes` of work-group local memory.
struct local_memory {
    size_t bytes = 0;  // the size of the local memory, in bytes
};

// What a kernel parameter takes.
enum class parameter_kind {
    global_pointer,    // __global T*: a buffer or SVM
    constant_pointer,  // __constant T*: a buffer or SVM
    local_pointer,     // __local T*: local_memory
    value,             // a scalar, vector or struct passed by value: its bytes
    image,             // an image1d_t ... image3d_t: an image
    sampler,           // a sampler_t: a sampler
    unsupported,       // a pipe or device-side type, which gpukit cannot pass
    unknown,           // the implementation describes no parameters: only sizes are checked
};

// "global", "constant", "local", "value", "image", "sampler", "unsupported", "unknown".
const char* kind_name(parameter_kind kind) noexcept;

// One parameter, as clGetKernelArgInfo describes it (program::build asks for the description).
struct kernel_parameter {
    std::string name;       // "out"; empty when unknown
    std::string type_name;  // "int*", "float4"; empty when unknown
    // What the parameter takes; unknown when OpenCL does not describe the parameter.
    parameter_kind kind = parameter_kind::unknown;
};

// What the bytes of a by-value argument hold, where the caller knows: checked against the
// parameter's type (an integer for an `int`, a floating-point number for a `float`, bytes of
// a struct or vector for an `int2`) so that a value of the right size but the wrong kind is
// refused instead of read as the parameter's type.
enum class value_type {
    bytes,     // only the size is checked: a struct, a vector, or bytes the caller composed
    integer,   // for char, uchar, ... ulong, size_t
    floating,  // for half, float, double
    other,     // a number of no OpenCL C scalar type (complex, bool)
};

// The value_type of a by-value argument of C++ type T: integer for integral types, floating for
// floating-point ones, other for bool, bytes for everything else (structs, arrays, vectors).
template <class T>
constexpr value_type value_type_of() noexcept {
    if constexpr (std::is_same_v<T, bool>)
        return value_type::other;
    else if constexpr (std::is_integral_v<T>)
        return value_type::integer;
    else if constexpr (std::is_floating_point_v<T>)
        return value_type::floating;
    else
        return value_type::bytes;
}

// The bytes of a by-value argument and what they hold.
struct value_arg {
    std::span<const std::byte> bytes;     // the value's bytes, which OpenCL copies when it is set
    value_type type = value_type::bytes;  // what they hold; bytes: only their size is checked
};

// One argument of a launch: a buffer, SVM, local memory, a value, an image, a sampler, or
// nullptr (a NULL pointer for a __global or __constant parameter).
using kernel_arg =
    std::variant<std::reference_wrapper<const buffer>, std::reference_wrapper<const svm_pointer>, local_memory,
                 value_arg, std::nullptr_t, std::reference_wrapper<const image>, std::reference_wrapper<const sampler>>;

struct nd_range_options;

// Owns one reference to a cl_kernel; move-only. The kernel keeps its program alive.
//
// Every argument is checked against its parameter before OpenCL sees it: a buffer or SVM only
// for a __global or __constant pointer, local memory only for a __local one, a value only for a
// by-value parameter, of its size and kind (value_type); a released buffer or SVM, or one of
// another context, is refused. The size of a by-value parameter's type is OpenCL C's for
// scalars and vectors, and the compiler's for the types the program declares (structs,
// unions, typedefs: detail/parameter_types.hpp, asked once per program, at the first such
// argument). Mistakes throw cl::logic_error naming the argument ("argument 0
// ('out', __global int*) of kernel 'k'"). Where the implementation describes no parameters, or
// a type's size cannot be known (a program made from binaries), sizes are left to the
// implementation's clSetKernelArg.
//
// Not safe to share between threads: OpenCL forbids setting one kernel's arguments from two
// threads at once, and setting then running is two steps. Use one kernel per thread (the
// Python binding sets and runs a kernel in one call under the GIL, so there it may be shared).
class kernel {
public:
    // The kernel `name` of `prog`, which must be built; std::invalid_argument for a name
    // holding a NUL character (OpenCL would look up the part before it).
    static kernel create(const program& prog, const std::string& name);
    // Another owner of the existing kernel `handle`, as context::wrap. Arguments set before
    // are not known here: set every argument before running it.
    static kernel wrap(cl_kernel handle, bool retain = true);

    // Takes over the other kernel's reference and arguments; the other's handle becomes null.
    kernel(kernel&&) noexcept = default;
    // Drops this kernel's reference and what its arguments keep, and takes over the other's.
    kernel& operator=(kernel&&) noexcept = default;

    // The cl_kernel handle (not a new reference); null once moved from.
    cl_kernel handle() const noexcept { return handle_.get(); }
    // The kernel function's name in the program's source.
    const std::string& name() const noexcept { return name_; }
    // The number of parameters the kernel function takes.
    cl_uint num_args() const noexcept { return static_cast<cl_uint>(parameters_.size()); }
    // Each parameter as OpenCL describes it, in order; all of kind unknown where it does not.
    const std::vector<kernel_parameter>& parameters() const noexcept { return parameters_; }
    // "argument 0 ('out', __global int*) of kernel 'k'", or "argument 0 of kernel 'k'" when the
    // parameter is not described (or `index` is out of range): how errors name an argument.
    std::string describe_arg(cl_uint index) const;

    // What an argument keeps. A buffer argument holds a reference of its own to the cl_mem
    // until the argument is set again or the kernel goes, so the buffer object may go first.
    // SVM is not reference counted: give set_arg the `owner` of the memory (what keeps it
    // allocated), which the kernel keeps as long, and each launch until it completes
    // (event::keep_until_complete, whose rules for the owner apply).

    // Argument `index` is a __global or __constant pointer to `b`.
    void set_arg(cl_uint index, const buffer& b);
    // Argument `index` is a __global or __constant pointer to the start of SVM `p`.
    void set_arg(cl_uint index, const svm_pointer& p, std::shared_ptr<void> owner = {});
    // Argument `index` is a NULL __global or __constant pointer (OpenCL passes a NULL cl_mem
    // as such), which a kernel may take when it touches no memory there.
    void set_arg(cl_uint index, std::nullptr_t);
    // Argument `index` is a __local pointer to `local.bytes` of local memory.
    void set_arg(cl_uint index, local_memory local);
    // Argument `index` is an image (image2d_t, ...): `img`, which must be of the kernel's
    // context, held as a buffer is.
    void set_arg(cl_uint index, const image& img);
    // Argument `index` is a sampler_t: `s`, which must be of the kernel's context. The kernel
    // holds a reference to it until the argument is set again or the kernel goes.
    void set_arg(cl_uint index, const sampler& s);
    // Argument `index` is a scalar, vector or struct passed by value: `size` bytes at `value`,
    // which must be exactly the size of the kernel's parameter type, holding a `type`.
    void set_arg_bytes(cl_uint index, const void* value, size_t size, value_type type = value_type::bytes);
    // Argument `index` is `value` passed by value: its bytes, checked as set_arg_bytes does with
    // `value_type_of<T>()` (std::int32_t for an int parameter, float for a float).
    template <class T>
    requires std::is_trivially_copyable_v<T>
    void set_arg_value(cl_uint index, const T& value) {
        set_arg_bytes(index, &value, sizeof value, value_type_of<T>());
    }
    // Any of the above; `owner` is kept for SVM.
    void set_arg(cl_uint index, const kernel_arg& arg, std::shared_ptr<void> owner = {});

    // clGetKernelInfo: the raw bytes of `param` (CL_KERNEL_ATTRIBUTES, ...).
    std::vector<std::byte> info_bytes(cl_kernel_info param) const;
    // The context of the kernel's program; borrowed (the kernel keeps it alive).
    cl_context context_handle() const noexcept { return context_; }
    // clGetKernelWorkGroupInfo for `dev`: the raw bytes of `param`
    // (CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, ...).
    std::vector<std::byte> work_group_info_bytes(cl_kernel_work_group_info param, const device& dev) const;

    // Throws cl::logic_error naming the first argument that was never set.
    void check_all_args_set() const;

private:
    friend event enqueue_nd_range(const queue&, const kernel&, std::span<const size_t>, std::span<const size_t>,
                                  std::span<const cl_event>, const nd_range_options&);

    kernel(detail::retained<cl_kernel> handle, std::string name) noexcept
        : handle_(std::move(handle)), name_(std::move(name)) {}
    // Reads the context and the parameters, and marks every argument unset.
    void describe();
    void check_index(cl_uint index, const char* routine) const;
    // Throws unless `size` bytes holding `type` suit by-value parameter `index`'s type.
    void check_value(cl_uint index, size_t size, value_type type) const;
    // Throws, naming the argument and what its parameter takes, unless `accepted`.
    void expect_kind(cl_uint index, bool accepted, const std::string& given) const;
    void set_arg_raw(cl_uint index, size_t size, const void* value, const std::string& what);
    // What argument `index` keeps from now on (see set_arg).
    void hold(cl_uint index, detail::retained<cl_mem> memory = {}, std::shared_ptr<void> owner = {});
    // The local memory the kernel needs on `dev`, throwing when the device has less.
    void check_local_memory(const device& dev) const;

    detail::retained<cl_kernel> handle_;
    cl_context context_ = nullptr;  // the program's, which this kernel keeps alive
    // The devices the program had an executable for when the kernel was made, which it keeps:
    // OpenCL refuses to build a program again while kernels of it exist.
    std::vector<device> executable_devices_;
    std::string name_;
    std::vector<kernel_parameter> parameters_;
    std::vector<bool> arg_set_;
    std::vector<size_t> local_bytes_;                         // per argument: the local memory it asks for, else 0
    std::vector<detail::retained<cl_mem>> arg_memory_;        // per argument: the buffer it points to
    std::vector<std::shared_ptr<void>> arg_owners_;           // per argument: the owner of its SVM
    std::shared_ptr<detail::declared_types> declared_types_;  // of the program's build, when known
};

// How enqueue_nd_range runs a kernel, beyond its sizes (PyOpenCL's keywords).
struct nd_range_options {
    // Added to the global id of every work item; empty, or one per dimension.
    std::span<const size_t> global_offset;
    // The global size and offset count work groups: they are multiplied by the local size,
    // which must be given (PyOpenCL's g_times_l).
    bool global_times_local = false;
    // A global size of 0 runs nothing: a marker waiting for `wait_for` is enqueued instead, and
    // its event returned. Without this, such a size is refused.
    bool allow_empty = false;
};

// Runs `k` over `global_size` work items (1 to 3 dimensions) in work groups of `local_size`
// (same dimensions, or empty to let the implementation choose). Every argument must be set, and
// the kernel's program must be built for the queue's device. The launch keeps the owners of the
// kernel's SVM arguments until it completes.
// Refuses, before OpenCL sees them, sizes whose product the device's size_t cannot hold and
// local memory beyond the device's.
event enqueue_nd_range(const queue& q, const kernel& k, std::span<const size_t> global_size,
                       std::span<const size_t> local_size = {}, std::span<const cl_event> wait_for = {},
                       const nd_range_options& options = {});

}  // namespace gpukit::cl
