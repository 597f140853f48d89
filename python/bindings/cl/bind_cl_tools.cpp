// gpukit._gpukit.cl.tools: the OpenCL allocators and gpukit's memory pool over them
// (re-exported by gpukit.cl.tools). Translation only: the pools are the C++ memory_pool.
#include "common/bindings.hpp"
#include "cl/cl_args.hpp"

#include "gpukit/cl/allocators.hpp"
#include "gpukit/cl/pooled.hpp"
#include "gpukit/cl/svm.hpp"
#include "gpukit/memory/pool.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/optional.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace gpukit::python {

using namespace nb::literals;

namespace {

// DeferredAllocator and ImmediateAllocator are both AllocatorBase in Python, so each is the
// run-time-chosen buffer_allocator under a type of its own.
struct deferred_binding : cl::buffer_allocator {
    using buffer_allocator::buffer_allocator;
};
struct immediate_binding : cl::buffer_allocator {
    using buffer_allocator::buffer_allocator;
};

using buffer_pool = memory::memory_pool<cl::buffer_allocator>;
using pooled_buffer = cl::pooled_buffer<cl::buffer_allocator>;
using svm_pool = memory::memory_pool<cl::svm_allocator>;

// A pool with the flags its buffers are created with, which PooledBuffer.flags reports.
struct buffer_pool_binding {
    buffer_pool pool;
    cl_mem_flags flags;
};

// A pool's leading_bits_in_bin_id: an unsigned int (the pool says which of those it takes).
unsigned leading_bits_arg(nb::handle bits, const char* what) {
    return static_cast<unsigned>(cl_unsigned(bits, what, std::numeric_limits<unsigned>::max()));
}

// The pool and the allocators report a shortage as gpukit::memory_error (what the pool's retry
// needs) and a bad bin as gpukit::logic_error; Python users of gpukit.cl expect cl.MemoryError
// and cl.LogicError.
template <class Call>
auto as_cl_errors(Call call, const char* routine) {
    try {
        return call();
    } catch (const gpukit::memory_error& e) {
        throw cl::memory_error(e.what(), e.code() ? e.code() : CL_MEM_OBJECT_ALLOCATION_FAILURE,
                               e.routine().empty() ? routine : e.routine());
    } catch (const gpukit::logic_error& e) {
        throw cl::logic_error(e.what(), CL_INVALID_VALUE, routine);
    }
}

nb::object allocate_buffer(cl::buffer_allocator& allocator, nb::handle size) {
    const std::size_t bytes = cl_unsigned(size, "AllocatorBase.__call__(size)");
    if (bytes == 0)
        return nb::none();
    const cl_mem handle = as_cl_errors([&] { return allocator.allocate(bytes); }, "AllocatorBase.__call__");
    return nb::cast(cl::buffer::adopt(handle, bytes, allocator.flags()));
}

// Zero bytes gets a PooledBuffer too (bin 0's one-byte block), as PyOpenCL's MemoryPool gives.
pooled_buffer allocate_pooled_buffer(buffer_pool_binding& self, nb::handle size) {
    const std::size_t bytes = cl_unsigned(size, "MemoryPool.allocate(size)");
    auto block = as_cl_errors([&] { return self.pool.allocate_block(bytes); }, "MemoryPool.allocate");
    return pooled_buffer(std::move(block), self.flags);
}

cl::svm_allocation allocate_svm(const cl::svm_allocator& allocator, nb::handle size) {
    const std::size_t bytes = cl_unsigned(size, "SVMAllocator.__call__(size)");
    return as_cl_errors([&] { return cl::svm_allocation(allocator, bytes); }, "SVMAllocator.__call__");
}

cl::pooled_svm allocate_pooled_svm(svm_pool& pool, nb::handle size) {
    const std::size_t bytes = cl_unsigned(size, "SVMPool.allocate(size)");
    return as_cl_errors([&] { return cl::pooled_svm::allocate(pool, bytes); }, "SVMPool.allocate");
}

// The CommandQueue of `q`, or None.
nb::object bound_queue_object(cl_command_queue q) { return q ? nb::cast(cl::queue::wrap(q)) : nb::none(); }

// A second release is a mistake PyOpenCL reports as LogicError; `what` names the call.
[[noreturn]] void already_released(const std::string& what) {
    throw cl::logic_error(what + ": the memory was already released; release it once", CL_INVALID_VALUE, what);
}

void release_pooled_buffer(pooled_buffer& b) {
    if (!b.handle())
        already_released("PooledBuffer.release");
    b.release();
}

// Returns the block of `p` to its pool after waiting for `q`, or for the bound queue. The block
// moves out of `p` while the GIL is held, so `p` is released at once for every other thread
// (a second release finds nothing, a kernel call refuses it) while this one waits without the GIL.
void release_pooled_svm(cl::pooled_svm& p, const cl::queue* q, const char* what) {
    if (p.released())
        already_released(what);
    if (q && q->context_handle() != p.context_handle())
        throw cl::logic_error(
            "PooledSVM.enqueue_release: the queue belongs to another context than the SVM; "
            "expected a queue of the SVM's context",
            CL_INVALID_CONTEXT, "PooledSVM.enqueue_release");
    cl::pooled_svm taken = std::move(p);
    release_gil release;
    if (q)
        taken.release_after(q->handle());
    else
        taken.release();
}

// The counters and controls MemoryPool and SVMPool share; `pool_of` reaches the memory_pool.
template <class Class, class PoolOf>
void bind_pool_interface(Class& cls, PoolOf pool_of) {
    using self_type = typename Class::Type;
    cls.def_prop_ro("held_blocks", [=](const self_type& s) { return pool_of(s).held_blocks(); })
        .def_prop_ro("active_blocks", [=](const self_type& s) { return pool_of(s).active_blocks(); })
        .def_prop_ro("held_bytes", [=](const self_type& s) { return pool_of(s).held_bytes(); })
        .def_prop_ro("active_bytes", [=](const self_type& s) { return pool_of(s).active_bytes(); })
        .def_prop_ro("managed_bytes", [=](const self_type& s) { return pool_of(s).managed_bytes(); })
        .def_prop_ro("leading_bits_in_bin_id", [=](const self_type& s) { return pool_of(s).leading_bits_in_bin_id(); })
        .def(
            "free_held", [=](self_type& s) { pool_of(s).free_held(); }, "Release every held block.")
        .def(
            "stop_holding", [=](self_type& s) { pool_of(s).stop_holding(); },
            "Release held blocks, and from now on release returned blocks instead of holding them.")
        .def(
            "bin_number",
            [=](const self_type& s, nb::handle size) {
                const std::size_t bytes = cl_unsigned(size, "bin_number(size)");
                return as_cl_errors([&] { return pool_of(s).bin_number(bytes); }, "bin_number");
            },
            "size"_a.none(), "The bin a request of `size` bytes falls into.")
        .def(
            "alloc_size",
            [=](const self_type& s, nb::handle bin) {
                const std::size_t number = cl_unsigned(bin, "alloc_size(bin)");
                return as_cl_errors([&] { return pool_of(s).alloc_size(number); }, "alloc_size");
            },
            "bin"_a.none(), "The size of the blocks of bin `bin`.");
}

}  // namespace

void bind_cl_tools(nb::module_& parent) {
    nb::module_ cl_module = nb::borrow<nb::module_>(parent.attr("cl"));
    nb::module_ m = cl_module.def_submodule("tools", "OpenCL allocators and memory pools; use gpukit.cl.tools.");

    nb::class_<cl::buffer_allocator>(m, "AllocatorBase", "Makes Buffers: allocator(size) -> Buffer, or None for 0.")
        .def("__call__", &allocate_buffer, "size"_a.none())
        .def_prop_ro("is_deferred", &cl::buffer_allocator::is_deferred);

    nb::class_<deferred_binding, cl::buffer_allocator>(
        m, "DeferredAllocator", "clCreateBuffer only: OpenCL may report a shortage later, when the buffer is used.")
        .def(
            "__init__",
            [](deferred_binding* self, const cl::context& ctx, nb::handle flags) {
                new (self)
                    deferred_binding(cl::deferred_allocator(ctx, cl_unsigned(flags, "DeferredAllocator(mem_flags)")));
            },
            "context"_a, "mem_flags"_a.none() = CL_MEM_READ_WRITE);

    nb::class_<immediate_binding, cl::buffer_allocator>(
        m, "ImmediateAllocator", "Buffers made resident on the queue's device at once, so shortages show here.")
        .def(
            "__init__",
            [](immediate_binding* self, const cl::queue& q, nb::handle flags) {
                new (self)
                    immediate_binding(cl::immediate_allocator(q, cl_unsigned(flags, "ImmediateAllocator(mem_flags)")));
            },
            "queue"_a, "mem_flags"_a.none() = CL_MEM_READ_WRITE);

    nb::class_<pooled_buffer, cl::buffer>(m, "PooledBuffer", "A Buffer from a MemoryPool; dropping it returns it.")
        .def("release", &release_pooled_buffer, "Return the memory to its pool now (once).");

    auto memory_pool =
        nb::class_<buffer_pool_binding>(
            m, "MemoryPool",
            "A binned pool of Buffers: pool.allocate(size) gives a PooledBuffer that returns to the pool when dropped "
            "or "
            "on release(). Give it an ImmediateAllocator: a pool recovers from running out of memory only when the "
            "allocator reports the shortage at allocation.")
            .def(
                "__init__",
                [](buffer_pool_binding* self, const cl::buffer_allocator& allocator, nb::handle bits) {
                    const unsigned leading_bits = leading_bits_arg(bits, "MemoryPool(leading_bits_in_bin_id)");
                    if (allocator.is_deferred() &&
                        PyErr_WarnEx(
                            PyExc_UserWarning,
                            "MemoryPool got a DeferredAllocator: OpenCL may postpone the real allocation of its "
                            "buffers until a command uses them, so running out of memory shows up later as a failed "
                            "command, where the pool cannot free its held blocks and retry. Use "
                            "ImmediateAllocator(queue) to have shortages reported at allocation.",
                            1) != 0)
                        throw nb::python_error();
                    new (self) buffer_pool_binding{as_cl_errors([&] { return buffer_pool(allocator, leading_bits); },
                                                                "MemoryPool"),
                                                   allocator.flags()};
                },
                "allocator"_a, "leading_bits_in_bin_id"_a.none() = 4)
            .def("allocate", &allocate_pooled_buffer, "size"_a.none(), "A PooledBuffer of `size` bytes.")
            .def("__call__", &allocate_pooled_buffer, "size"_a.none());
    bind_pool_interface(
        memory_pool, [](auto& s) -> auto& { return s.pool; });

    nb::class_<cl::svm_allocator>(m, "SVMAllocator", "clSVMAlloc / clSVMFree in one context.")
        .def(
            "__init__",
            [](cl::svm_allocator* self, const cl::context& ctx, nb::handle alignment, nb::handle flags,
               const cl::queue* q) {
                new (self) cl::svm_allocator(ctx, cl_unsigned(alignment, "SVMAllocator(alignment)"),
                                             cl_unsigned(flags, "SVMAllocator(flags)"), q);
            },
            "context"_a, "alignment"_a.none() = 0, "flags"_a.none() = CL_MEM_READ_WRITE, "queue"_a.none() = nb::none(),
            "PyOpenCL's SVMAllocator(context, alignment=0, flags=svm_mem_flags.READ_WRITE, queue=None), by position "
            "or keyword.")
        .def("__call__", &allocate_svm, "size"_a.none(), "An SVMAllocation of `size` bytes (a null one for 0).")
        .def_prop_ro("alignment", &cl::svm_allocator::alignment)
        .def_prop_ro("flags", &cl::svm_allocator::flags);

    nb::class_<cl::svm_allocation, cl::svm_pointer>(m, "SVMAllocation", "SVM owned by the Python object.")
        .def(
            "__init__",
            [](cl::svm_allocation* self, const cl::context& ctx, nb::handle size, nb::handle alignment,
               nb::handle flags, const cl::queue* q) {
                // PyOpenCL's SVMAllocation(context, size, alignment, flags, queue=None): what
                // SVMAllocator(context, alignment=, flags=, queue=)(size) gives.
                cl::svm_allocator allocator(ctx, cl_unsigned(alignment, "SVMAllocation(alignment)"),
                                            cl_unsigned(flags, "SVMAllocation(flags)"), q);
                const std::size_t bytes = cl_unsigned(size, "SVMAllocation(size)");
                new (self) cl::svm_allocation(
                    as_cl_errors([&] { return cl::svm_allocation(std::move(allocator), bytes); }, "SVMAllocation"));
            },
            "context"_a, "size"_a.none(), "alignment"_a.none(), "flags"_a.none(), "queue"_a.none() = nb::none())
        .def(
            "release",
            [](cl::svm_allocation& a) {
                if (a.released())
                    already_released("SVMAllocation.release");
                a.release();
            },
            "Free the memory now (as the allocator frees it), once.")
        .def(
            "enqueue_release", [](cl::svm_allocation& a, const cl::queue* q) { return a.enqueue_release(q); },
            "queue"_a.none() = nb::none(),
            "Free the memory with clEnqueueSVMFree on `queue` (default: the bound queue); an Event.")
        .def("bind_to_queue", &cl::svm_allocation::bind_to_queue, "queue"_a,
             "Free the memory on `queue` from now on, after what the old queue queued on it.")
        .def("unbind_from_queue", &cl::svm_allocation::unbind_from_queue,
             "Wait for the bound queue, then free the memory at once when released.")
        .def_prop_ro(
            "_queue", [](const cl::svm_allocation& a) { return bound_queue_object(a.bound_queue()); },
            "The bound queue, or None (PyOpenCL's diagnostic attribute).");

    nb::class_<cl::pooled_svm, cl::svm_pointer>(m, "PooledSVM", "SVM from an SVMPool; dropping it returns it.")
        .def(
            "release", [](cl::pooled_svm& p) { release_pooled_svm(p, nullptr, "PooledSVM.release"); },
            "Wait for the bound queue (if any), then return the memory to its pool.")
        .def(
            "enqueue_release",
            [](cl::pooled_svm& p, const cl::queue* q) { release_pooled_svm(p, q, "PooledSVM.enqueue_release"); },
            "queue"_a.none() = nb::none(), "release(), waiting for `queue` instead of the bound queue when given.")
        .def("bind_to_queue", &cl::pooled_svm::bind_to_queue, "queue"_a)
        .def("unbind_from_queue", &cl::pooled_svm::unbind_from_queue)
        .def_prop_ro(
            "_queue", [](const cl::pooled_svm& p) { return bound_queue_object(p.bound_queue()); },
            "The bound queue, or None (PyOpenCL's diagnostic attribute).");

    auto pool_svm =
        nb::class_<svm_pool>(m, "SVMPool", "gpukit's binned memory pool of SVM.")
            .def(
                "__init__",
                [](svm_pool* self, const cl::svm_allocator& allocator, nb::handle bits) {
                    const unsigned leading_bits = leading_bits_arg(bits, "SVMPool(leading_bits_in_bin_id)");
                    new (self) svm_pool(as_cl_errors([&] { return svm_pool(allocator, leading_bits); }, "SVMPool"));
                },
                "allocator"_a, "leading_bits_in_bin_id"_a.none() = 4)
            .def("allocate", &allocate_pooled_svm, "size"_a.none(), "A PooledSVM of `size` bytes.")
            .def("__call__", &allocate_pooled_svm, "size"_a.none());
    bind_pool_interface(
        pool_svm, [](auto& s) -> auto& { return s; });
}

}  // namespace gpukit::python
