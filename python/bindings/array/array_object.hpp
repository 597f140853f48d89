// gpukit._gpukit._Array: the C++ object behind every GPUArray (and gpukit.cuda's
// DeviceNDArray, which derive from it in Python).
//
// It is the array model: the layout, the element type and the device address, with the
// Python objects PyCUDA's API shows (gpudata, base, allocator, stream) kept alive beside
// them. Operators, views, copies and reductions are C++ methods of it, so one Python
// operator is one crossing into C++ (array_operators.cpp).
//
// An array may be *pending*: the result of an operator whose kernel has not run because
// the next operator in the caller's bytecode fuses it (array_fusion.hpp). A pending array
// knows its shape and dtype but has no memory; settled() computes it, and every accessor
// that needs the memory calls it.
#pragma once

#include "common/bindings.hpp"

#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/expression.hpp"
#include "gpukit/array/fusion.hpp"
#include "gpukit/array/views.hpp"
#include "gpukit/core/layout.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cuda.h>

#include <memory>
#include <optional>
#include <vector>

namespace gpukit::python {

// An operand of an elementwise expression (an _Array object or a scalar's bytes), and the
// computation a pending array stands for: the engine's fusion types (gpukit/array/fusion.hpp)
// over Python objects, identified by their addresses.
using expression_operand = array::fused_operand<nb::object>;
using pending_result = array::fused_expression<nb::object>;

struct array_object {
    gpukit::layout layout;
    nb::object dtype;                             // the numpy dtype
    std::optional<array::dtype> type;             // the same, when gpukit has kernels for it
    CUdeviceptr address = 0;                      // int(gpudata); element 0 is at address + layout.offset()
    nb::object gpudata, base, allocator, stream;  // None when absent
    std::unique_ptr<pending_result> pending;      // set while the array is pending
    // Values assigned to the attributes PyCUDA keeps as plain numbers and gpukit computes from
    // the layout (nbytes, size, mem_size, itemsize), by name: read back as assigned, as
    // PyCUDA's are; kernels and copies keep using the layout. Null until one is assigned.
    nb::object assigned;

    CUdeviceptr data() const noexcept { return address + static_cast<CUdeviceptr>(layout.offset()); }
};

// The _Array class object and the class results of operators get (GPUArray, set from Python).
nb::handle array_class();
nb::handle result_class();

// Whether gpukit makes the results and views of arrays of `cls` itself: _Array, GPUArray and
// the subclasses gpukit registers (numba's DeviceNDArray). Other subclasses get PyCUDA's
// behaviour: results from their _new_like_me, views as plain GPUArrays.
bool makes_own_results(nb::handle cls);
void register_own_class(nb::handle cls);

// A new array for the result of `shape` and `type` of an operation on `like_object`: for a
// class gpukit makes results of, a contiguous array (order `o`) with like's allocator and
// stream; for other subclasses, what like_object._new_like_me(dtype) returns (with
// order=... when `pass_order`, as PyCUDA calls it for real, imag and conj), checked to have
// that shape and dtype.
nb::object new_result(nb::handle like_object, const std::vector<std::int64_t>& shape, array::dtype type,
                      order o = order::c, bool pass_order = false);

// Whether `h` is an _Array (a GPUArray, or an instance of a subclass).
inline bool is_array(nb::handle h) { return nb::isinstance<array_object>(h); }

// The array object of `h`, which must be an _Array instance (nb::isinstance). One made by
// __new__ whose __init__ never ran holds nothing: a cast error (std::bad_cast), which the
// call's trampoline words as such (argument_errors.hpp).
array_object& array_of(nb::handle h);

// The array object of `h` (as array_of), computed first if pending.
array_object& settled(nb::handle h);

// The numpy dtype object of a kernel dtype, and the kernel dtype of a numpy dtype (nullopt
// for types without kernels: records, float16, byte-swapped, vector types). Every device
// array's dtype passes kernel_type, which refuses (TypeError) dtypes holding Python objects:
// no device array holds them, so no copy moves object references to or from the host.
nb::handle numpy_dtype(array::dtype t);
std::optional<array::dtype> kernel_type(nb::handle numpy_dtype);
// `dtype` as a numpy dtype object (np.dtype(dtype) unless it is one).
nb::object as_numpy_dtype(nb::handle dtype);

// A view of `a` (the object `self`) with another layout (and dtype; None keeps a's), of class
// `cls` (None: self's when gpukit makes its views, else GPUArray, as PyCUDA's views of a
// subclass are). The view's base is the array that owns the memory.
nb::object view_of(nb::handle self, const array_object& a, gpukit::layout l, nb::handle dtype, nb::handle cls);

// A new instance of `cls` holding `a` (no Python __init__ runs).
nb::object wrap_array(nb::handle cls, array_object&& a);

// A new array of layout `l` (whose memory it fills from its lowest byte) and numpy dtype
// `dtype`, its memory from `allocator` (None: the current context's default pool), working
// on `stream`.
nb::object new_array(const gpukit::layout& l, nb::handle dtype, nb::handle allocator, nb::handle stream);
// A new contiguous array of `shape` and `type` in order `o`, with the allocator and stream
// of `like`.
nb::object new_array(const std::vector<std::int64_t>& shape, array::dtype type, const array_object& like,
                     order o = order::c);

// Memory for a.layout from a.allocator (None: the default pool); sets a.gpudata and a.address.
void allocate(array_object& a);
// The same, `bytes` of it.
void allocate(array_object& a, std::size_t bytes);

// `a` seen by the C++ array code: an ndarray over its memory (borrowed; `a` keeps it alive),
// optionally broadcast to `shape`. ValueError when its elements are not aligned (require_aligned).
array::ndarray as_ndarray(const array_object& a);
array::ndarray as_ndarray(const array_object& a, const std::vector<std::int64_t>& shape);

// ValueError unless every element of `a` lies at a multiple of the size of `type` (the
// alignment of every kernel type, complex ones included), which the GPU's loads require;
// views made with view(dtype) or strides= may not.
void require_aligned(const array_object& a, array::dtype type);

// `a`'s elements, of whatever type.
array::element_array as_elements(const array_object& a);

// A shape as numpy's messages write it: "(2,3)", "(4,)".
std::string shape_text(const std::vector<std::int64_t>& shape);

// The stream `a` works on.
cuda::stream_view stream_of(const array_object& a);

// TypeError naming `what` when `a` has no kernels; the kernel type otherwise.
array::dtype require_kernel_type(const array_object& a, const char* what);

}  // namespace gpukit::python
