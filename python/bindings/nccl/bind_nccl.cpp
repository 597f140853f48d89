// gpukit._gpukit.nccl: NCCL communicators and collectives (re-exported by gpukit.nccl).
// Translation only: Python buffers become gpukit::nccl::buffer_arg descriptions, checked by
// nccl::check_call() (C++) before NCCL sees them; nccl_error becomes gpukit.nccl.NcclError,
// argument_error ValueError, gpukit::type_error TypeError.
#include "array/array_object.hpp"
#include "common/object_text.hpp"
#include "common/bindings.hpp"
#include "cl/cl_host_memory.hpp"
#include "common/exception_types.hpp"
#include "common/int_args.hpp"
#include "common/path_args.hpp"
#include "common/memory_args.hpp"

#include "gpukit/cuda/default_pool.hpp"
#include "gpukit/cuda/device.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/nccl/agreement.hpp"
#include "gpukit/nccl/api.hpp"
#include "gpukit/nccl/call_checks.hpp"
#include "gpukit/nccl/communicator.hpp"
#include "gpukit/nccl/detail/group_book.hpp"
#include "gpukit/nccl/error.hpp"
#include "gpukit/nccl/group.hpp"
#include "gpukit/nccl/types.hpp"
#include "gpukit/nccl/unique_id.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

PyObject* nccl_error_type = nullptr;

// What a message names an argument by, "all_reduce(sendbuf)": built only on the way to an
// error, since every collective passes here.
struct arg_name {
    const char* call;
    const char* name;
    std::string text() const { return std::string(call) + "(" + name + ")"; }
};

[[noreturn]] void no_nccl_type(arg_name what, const std::string& dtype) {
    throw nb::type_error((what.text() + ": NCCL has no type for dtype " + dtype + "; its types are " +
                          std::string(nccl::data_type_names()))
                             .c_str());
}

// The NCCL type of a numpy dtype object: the common ones through gpukit's dtype table, the
// others (float16, ml_dtypes' bfloat16 and float8 types) by name, native byte order only.
nccl::data_type type_of_numpy(nb::handle dtype, arg_name what) {
    if (const std::optional<array::dtype> known = kernel_type(dtype)) {
        switch (*known) {
        case array::dtype::int8:
            return nccl::data_type::int8;
        case array::dtype::uint8:
            return nccl::data_type::uint8;
        case array::dtype::int32:
            return nccl::data_type::int32;
        case array::dtype::uint32:
            return nccl::data_type::uint32;
        case array::dtype::int64:
            return nccl::data_type::int64;
        case array::dtype::uint64:
            return nccl::data_type::uint64;
        case array::dtype::float32:
            return nccl::data_type::float32;
        case array::dtype::float64:
            return nccl::data_type::float64;
        default:
            no_nccl_type(what, std::string(array::name(*known)));
        }
    }
    const std::string name = nb::cast<std::string>(dtype.attr("name"));
    const std::optional<nccl::data_type> type = nccl::data_type_from_name(name);
    if (!type || !nb::cast<bool>(dtype.attr("isnative")))
        no_nccl_type(what, nb::cast<std::string>(nb::str(dtype)));
    return *type;
}

// The NCCL type of a __cuda_array_interface__ typestr ("<f4"), read without numpy.
nccl::data_type type_of_typestr(const std::string& typestr, arg_name what) {
    static const std::pair<const char*, nccl::data_type> known[] = {
        {"i1", nccl::data_type::int8},    {"u1", nccl::data_type::uint8},   {"i4", nccl::data_type::int32},
        {"u4", nccl::data_type::uint32},  {"i8", nccl::data_type::int64},   {"u8", nccl::data_type::uint64},
        {"f2", nccl::data_type::float16}, {"f4", nccl::data_type::float32}, {"f8", nccl::data_type::float64},
    };
    const bool native = !typestr.empty() && (typestr[0] == '<' || typestr[0] == '|' || typestr[0] == '=');
    if (native)
        for (const auto& [code, type] : known)
            if (typestr.compare(1, std::string::npos, code) == 0)
                return type;
    no_nccl_type(what, "'" + typestr + "'");
}

// The context gpukit's own allocations (the memory of GPUArrays it made, mem_alloc's) belong
// to; null for any other memory, whose context check_call() asks the driver for.
CUcontext context_of_owner(nb::handle gpudata) {
    if (nb::isinstance<cuda::pooled_device_memory>(gpudata)) {
        const auto& memory = nb::cast<const cuda::pooled_device_memory&>(gpudata);
        return memory.block && memory.context ? memory.context->handle : nullptr;
    }
    if (nb::isinstance<cuda::device_allocation>(gpudata)) {
        const auto& memory = nb::cast<const cuda::device_allocation&>(gpudata);
        return memory.is_freed() ? nullptr : memory.owner()->handle;
    }
    return nullptr;
}

// A buffer argument, described for check_call(). `dtype` is the dtype= keyword, which types
// bare pointers; `used_dtype` records that one needed it.
nccl::buffer_arg buffer_of(nb::handle obj, arg_name what, std::optional<nccl::data_type> dtype, bool& used_dtype) {
    nccl::buffer_arg b;
    b.name = what.name;
    if (nb::isinstance<array_object>(obj)) {  // GPUArray, gpukit.cuda's device arrays
        const array_object& a = settled(obj);
        // C order only: NCCL pairs elements by their place in memory, so a Fortran-ordered
        // buffer beside a C-ordered one would pair the wrong elements.
        if (!a.layout.is_c_contiguous())
            throw nb::value_error((what.text() + ": the array is not C-contiguous (" + a.layout.describe() +
                                   "); NCCL needs one block of memory in C order, copy it first")
                                      .c_str());
        b.address = static_cast<std::uintptr_t>(a.data());
        b.type = type_of_numpy(a.dtype, what);
        b.elements = static_cast<std::size_t>(a.layout.size());
        b.context = context_of_owner(a.gpudata);
        return b;
    }
    if (const auto iface = cuda_array_interface_of(obj, what.text())) {  // CuPy, PyTorch, numba, ...
        if (iface->masked)
            throw nb::type_error((what.text() + ": masked arrays are not supported").c_str());
        b.type = type_of_typestr(iface->typestr, what);
        if (iface->strides && iface->elements() > 1) {
            // Contiguous in C order, allowing any stride on axes of extent 1, as numpy does.
            std::size_t expected = nccl::size_of(b.type);
            for (std::size_t k = iface->shape.size(); k-- > 0;) {
                if (iface->shape[k] != 1 && (*iface->strides)[k] != static_cast<std::int64_t>(expected))
                    throw nb::value_error((what.text() + ": the " + type_name_of(obj) +
                                           " is not C-contiguous; NCCL needs one block of memory, copy it first")
                                              .c_str());
                expected *= iface->shape[k];
            }
        }
        b.address = static_cast<std::uintptr_t>(iface->address);
        b.elements = iface->elements();
        return b;
    }
    // A bare address, DeviceAllocation, IPCMemoryHandle, ...: typed by dtype=.
    const cuda::device_pointer pointer = device_pointer_arg(obj, what.text().c_str());
    if (!dtype)
        throw nb::type_error((what.text() + ": a " + type_name_of(obj) +
                              " does not say its element type; pass dtype= (and count= for a bare address)")
                                 .c_str());
    used_dtype = true;
    b.address = static_cast<std::uintptr_t>(pointer.address);
    b.type = *dtype;
    b.context = context_of_owner(obj);
    if (pointer.capacity) {
        const std::size_t item = nccl::size_of(*dtype);
        b.elements = *pointer.capacity / item;
    }
    return b;
}

nccl::reduce_op op_of(nb::handle op, const char* call) {
    if (!nb::isinstance<nb::str>(op))
        throw nb::type_error((std::string(call) + ": op must be a string (" + std::string(nccl::reduce_op_names()) +
                              "), got " + type_name_of(op))
                                 .c_str());
    // The str's own UTF-8, which lives as long as `op`: no copy on the way to a known op.
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(op.ptr(), &size);
    if (!text)
        throw nb::python_error();
    const std::string_view name(text, static_cast<std::size_t>(size));
    if (const std::optional<nccl::reduce_op> found = nccl::reduce_op_from_name(name))
        return *found;
    throw nb::value_error((std::string(call) + ": unknown op '" + std::string(name) + "'; NCCL's are " +
                           std::string(nccl::reduce_op_names()))
                              .c_str());
}

// The arguments every collective takes, translated and checked.
struct collective_call {
    nccl::checked_call args;
    cuda::stream_view stream;
    nccl::reduce_op op = nccl::reduce_op::sum;
};

// Inside a group, the call is recorded and issued when the outermost group ends: until then
// the group keeps the Python objects it uses (its buffers and stream), whatever the caller
// drops. The group drops them with the GIL released; _Group.__exit__ releases them.
void keep_for_the_group(nb::handle sendbuf, nb::handle recvbuf, nb::handle stream) {
    nccl::detail::group_book& book = nccl::detail::this_thread_groups();
    if (!book.open())
        return;
    python_hold hold;
    for (nb::handle used : {sendbuf, recvbuf, stream})
        if (!used.is_none())
            hold.keep(used);
    book.keep(share_hold(std::move(hold)));
}

// `op`: the reduction's name, or None for a call that does not reduce. Inside a group, a call
// refused here makes the group fail at its end, as in C++ (nccl::detail::refusing_in_group).
collective_call prepare(nccl::collective what, const nccl::communicator& comm, nb::handle sendbuf, nb::handle recvbuf,
                        nb::handle count, nb::handle dtype, nb::handle stream, nb::handle op = nb::none()) {
    try {
        return nccl::detail::refusing_in_group([&] {
            const char* call = nccl::name(what);
            collective_call prepared;
            if (!op.is_none())
                prepared.op = op_of(op, call);
            std::optional<nccl::data_type> dtype_kw;
            if (!dtype.is_none())
                dtype_kw = type_of_numpy(as_numpy_dtype(dtype), {call, "dtype"});
            bool used_dtype = false;
            const char* send_name = what == nccl::collective::recv ? "recvbuf" : "sendbuf";
            const nccl::buffer_arg send = buffer_of(sendbuf, {call, send_name}, dtype_kw, used_dtype);
            // Without recvbuf (or with sendbuf again) the call works in place.
            const nccl::buffer_arg recv = recvbuf.is_none() || recvbuf.is(sendbuf)
                                              ? send
                                              : buffer_of(recvbuf, {call, "recvbuf"}, dtype_kw, used_dtype);
            if (dtype_kw && !used_dtype)
                throw nb::type_error(
                    (std::string(call) + ": dtype= types bare pointers; arrays carry their own dtype").c_str());
            std::optional<std::size_t> count_kw;
            if (!count.is_none())
                count_kw = integer_arg<std::size_t>(count, arg_name{call, "count"}.text().c_str());
            prepared.stream = stream_arg(stream);
            // gpukit's own streams know their context, which spares check_call a driver query.
            CUcontext stream_context = nullptr;
            if (nb::isinstance<cuda::stream>(stream))
                if (const cuda::context_state_ptr& owner = nb::cast<const cuda::stream&>(stream).owner())
                    stream_context = owner->handle;
            prepared.args = nccl::check_call(what, comm, send, recv, count_kw, prepared.stream, stream_context);
            keep_for_the_group(sendbuf, recvbuf, stream);
            return prepared;
        });
    } catch (...) {
        // With the agreement check on, the other ranks are gathering the collective's
        // description: this rank takes part, so that they raise too instead of waiting for it.
        // (send and recv are not checked: they involve two ranks only.)
        const bool point_to_point = what == nccl::collective::send || what == nccl::collective::recv;
        if (comm.checks_agreement() && !point_to_point && !nccl::detail::this_thread_groups().open()) {
            release_gil release;
            nccl::announce_refusal(comm, what);
        }
        throw;
    }
}

cuda::device device_arg(nb::handle d, const char* what) {
    if (nb::isinstance<cuda::device>(d))
        return nb::cast<cuda::device>(d);
    return cuda::device::get(integer_arg<int>(d, what));
}

nccl::unique_id unique_id_arg(nb::handle id) {
    host_buffer bytes(id, false, "Communicator(unique_id)");
    return nccl::unique_id::from_bytes(
        std::span<const std::byte>(static_cast<const std::byte*>(bytes.data()), bytes.size()));
}

nb::bytes id_bytes(const nccl::unique_id& id) {
    return nb::bytes(reinterpret_cast<const char*>(id.bytes().data()), id.bytes().size());
}

// all_reduce and reduce_scatter: two buffers, an op, and the call itself.
using reduction_call = void (*)(const nccl::communicator&, const nccl::checked_call&, nccl::reduce_op,
                                cuda::stream_view);

void def_reduction(nb::class_<nccl::communicator>& cls, const char* name, nccl::collective what, reduction_call call,
                   const char* doc) {
    cls.def(
        name,
        [what, call](const nccl::communicator& c, nb::handle sendbuf, nb::handle recvbuf, nb::handle op,
                     nb::handle count, nb::handle dtype, nb::handle stream) {
            const collective_call p = prepare(what, c, sendbuf, recvbuf, count, dtype, stream, op);
            release_gil release;
            call(c, p.args, p.op, p.stream);
        },
        "sendbuf"_a, "recvbuf"_a = nb::none(), "op"_a = "sum", nb::kw_only(), "count"_a = nb::none(),
        "dtype"_a = nb::none(), "stream"_a = nb::none(), doc);
}

// send and recv: one buffer (passed as both of check_call's), a peer, and the call itself.
using point_to_point_call = void (*)(const nccl::communicator&, const nccl::checked_call&, int, cuda::stream_view);

void def_point_to_point(nb::class_<nccl::communicator>& cls, const char* name, nccl::collective what,
                        const char* buffer, point_to_point_call call, const char* doc) {
    cls.def(
        name,
        [what, call](const nccl::communicator& c, nb::handle buf, int peer, nb::handle count, nb::handle dtype,
                     nb::handle stream) {
            const collective_call p = prepare(what, c, buf, buf, count, dtype, stream);
            release_gil release;
            call(c, p.args, peer, p.stream);
        },
        nb::arg(buffer), "peer"_a, nb::kw_only(), "count"_a = nb::none(), "dtype"_a = nb::none(),
        "stream"_a = nb::none(), doc);
}

// A group made by gpukit.nccl.group(): starts at __enter__, ends at __exit__.
struct group_scope {
    std::unique_ptr<nccl::group> open;
};

}  // namespace

void bind_nccl(nb::module_& parent) {
    nb::module_ m = parent.def_submodule("nccl", "NCCL communicators and collectives (see gpukit.nccl).");

    nccl_error_type = new_exception_type(m, "gpukit.nccl", "NcclError", parent.attr("Error").ptr(),
                                         "An NCCL call failed; `code` is the ncclResult_t, `routine` the call.");
    // Registered after bind_errors, so this translator is tried first.
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const nccl::nccl_error& e) {
            raise_api_error(nccl_error_type, e);
        } catch (const nccl::argument_error& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        }
    });

    m.def("available", &nccl::nccl_available, "True when libnccl.so.2 can be loaded; never raises.");
    m.def("version", &nccl::version, "NCCL's version as major * 10000 + minor * 100 + patch.");
    m.def(
        "library_path", [] { return path_text(nccl::nccl_library_path()); },
        "The file libnccl was loaded from, links resolved.");
    m.def(
        "get_unique_id", [] { return id_bytes(nccl::get_unique_id()); },
        "A new unique id (128 bytes) naming a communicator to make; send it to every rank.");
    m.attr("UNIQUE_ID_BYTES") = nccl::unique_id_bytes;
    m.attr("SPLIT_NOCOLOR") = nccl::split_no_color;

    auto communicator_class =
        nb::class_<nccl::communicator>(m, "Communicator",
                                       "One rank of an NCCL communicator, working in its device's primary context.")
            .def(
                "__init__",
                [](nccl::communicator* self, int nranks, nb::handle unique_id, int rank, nb::handle device) {
                    const auto [id, dev] = nccl::detail::refusing_in_group([&] {
                        std::optional<cuda::device> on;
                        if (!device.is_none())
                            on = device_arg(device, "Communicator(device)");
                        return std::pair{unique_id_arg(unique_id), on};
                    });
                    release_gil release;  // blocks until every rank has joined (outside a group)
                    new (self) nccl::communicator(dev ? nccl::communicator::create(id, nranks, rank, *dev)
                                                      : nccl::communicator::create(id, nranks, rank));
                },
                "nranks"_a, "unique_id"_a, "rank"_a, "device"_a = nb::none(),
                "Joins the communicator `unique_id` names (bytes from get_unique_id()) as `rank` of `nranks`, on "
                "`device` (a Device or number; default: the current context's). Blocks until every rank joined; in "
                "a group, returns at once a pending communicator that the end of the group makes (so one thread "
                "can make several ranks).")
            .def_static(
                "init_all",
                [](nb::handle devices) {
                    const std::vector<cuda::device> list = nccl::detail::refusing_in_group([&] {
                        std::vector<cuda::device> each;
                        if (devices.is_none()) {
                            for (int k = 0; k < cuda::device::count(); ++k)
                                each.push_back(cuda::device::get(k));
                        } else {
                            for (nb::handle d : devices)
                                each.push_back(device_arg(d, "init_all(devices)"));
                        }
                        return each;
                    });
                    release_gil release;
                    return nccl::communicator::init_all(list);
                },
                "devices"_a = nb::none(),
                "One communicator per device (Devices or numbers; default: every device), rank k on "
                "devices[k], all driven by this process (pending until the end of a group it is made in).")
            .def_prop_ro("rank", &nccl::communicator::rank,
                         "This rank's number, from 0 (LogicError while a split's communicator is pending).")
            .def_prop_ro("size", &nccl::communicator::size,
                         "The number of ranks (LogicError while a split's communicator is pending).")
            .def_prop_ro("device", &nccl::communicator::device, "The Device this rank runs on.")
            .def_prop_ro("is_destroyed", &nccl::communicator::is_destroyed,
                         "True after destroy() or abort(), and when the group that was making it failed.")
            .def_prop_rw("check_agreement", &nccl::communicator::checks_agreement,
                         &nccl::communicator::set_checks_agreement,
                         "When True, each collective first checks that every rank makes the same call (collective, "
                         "count, dtype, op, root), raising ValueError on every rank when they differ instead of "
                         "hanging; an all-gather and a wait per call, outside groups only. Set it alike on every rank.")
            .def_prop_ro("is_pending", &nccl::communicator::is_pending,
                         "True while the group it was made in has not ended: NCCL makes it at the group's end.")
            .def("destroy", &nccl::communicator::destroy, nb::call_guard<release_gil>(),
                 "Waits for pending work and frees the communicator; later calls raise LogicError. In a group, "
                 "the communicator is freed after the group ends (its calls may use it).")
            .def("abort", &nccl::communicator::abort, nb::call_guard<release_gil>(),
                 "Frees the communicator without waiting, stopping pending work (in a group, after the group ends).")
            .def(
                "split",
                [](const nccl::communicator& c, nb::handle color, nb::handle key) -> std::optional<nccl::communicator> {
                    const auto [colour, order] = nccl::detail::refusing_in_group([&] {
                        return std::pair{color.is_none() ? nccl::split_no_color
                                                         : integer_arg<int>(color, "split(color)"),
                                         key.is_none() ? c.rank() : integer_arg<int>(key, "split(key)")};
                    });
                    release_gil release;  // every rank must call it: it waits for them (outside a group)
                    return c.split(colour, order);
                },
                "color"_a.none(), "key"_a = nb::none(),
                "Every rank calls it: ranks of one color form a new communicator, ranked by key (default: rank). "
                "A rank whose color is None (or SPLIT_NOCOLOR) joins none and gets None. In a group (one thread "
                "splitting several ranks must use one), the communicator is pending until the group ends.")
            .def(
                "reduce",
                [](const nccl::communicator& c, nb::handle sendbuf, nb::handle recvbuf, int root, nb::handle op,
                   nb::handle count, nb::handle dtype, nb::handle stream) {
                    const collective_call p =
                        prepare(nccl::collective::reduce, c, sendbuf, recvbuf, count, dtype, stream, op);
                    release_gil release;
                    c.reduce(p.args.send, p.args.recv, p.args.count, p.args.type, p.op, root, p.stream);
                },
                "sendbuf"_a, "recvbuf"_a = nb::none(), "root"_a = 0, "op"_a = "sum", nb::kw_only(),
                "count"_a = nb::none(), "dtype"_a = nb::none(), "stream"_a = nb::none(),
                "root's recvbuf = op over every rank's sendbuf (in place without recvbuf).")
            .def(
                "broadcast",
                [](const nccl::communicator& c, nb::handle sendbuf, nb::handle recvbuf, int root, nb::handle count,
                   nb::handle dtype, nb::handle stream) {
                    const collective_call p =
                        prepare(nccl::collective::broadcast, c, sendbuf, recvbuf, count, dtype, stream);
                    release_gil release;
                    c.broadcast(p.args.send, p.args.recv, p.args.count, p.args.type, root, p.stream);
                },
                "sendbuf"_a, "recvbuf"_a = nb::none(), "root"_a = 0, nb::kw_only(), "count"_a = nb::none(),
                "dtype"_a = nb::none(), "stream"_a = nb::none(),
                "Every rank's recvbuf = root's sendbuf (in place without recvbuf).")
            .def(
                "all_gather",
                [](const nccl::communicator& c, nb::handle sendbuf, nb::handle recvbuf, nb::handle count,
                   nb::handle dtype, nb::handle stream) {
                    const collective_call p =
                        prepare(nccl::collective::all_gather, c, sendbuf, recvbuf, count, dtype, stream);
                    release_gil release;
                    c.all_gather(p.args.send, p.args.recv, p.args.count, p.args.type, p.stream);
                },
                "sendbuf"_a, "recvbuf"_a = nb::none(), nb::kw_only(), "count"_a = nb::none(), "dtype"_a = nb::none(),
                "stream"_a = nb::none(),
                "recvbuf = every rank's sendbuf, in rank order: size times as long. In place (one buffer, recvbuf "
                "omitted), rank r's part of the buffer is what it sends.")
            .def("__repr__", [](const nccl::communicator& c) {
                if (c.is_destroyed())
                    return std::string("<gpukit.nccl.Communicator (destroyed)>");
                const std::string device = " on device " + std::to_string(c.device_ordinal());
                if (c.is_pending())  // a split's rank and size are NCCL's to work out
                    return "<gpukit.nccl.Communicator" + device + " (pending: its group has not ended)>";
                return "<gpukit.nccl.Communicator rank " + std::to_string(c.rank()) + " of " +
                       std::to_string(c.size()) + device + ">";
            });
    def_reduction(
        communicator_class, "all_reduce", nccl::collective::all_reduce,
        [](const nccl::communicator& c, const nccl::checked_call& a, nccl::reduce_op o, cuda::stream_view s) {
            c.all_reduce(a.send, a.recv, a.count, a.type, o, s);
        },
        "recvbuf = op over every rank's sendbuf (in place without recvbuf).");
    def_reduction(
        communicator_class, "reduce_scatter", nccl::collective::reduce_scatter,
        [](const nccl::communicator& c, const nccl::checked_call& a, nccl::reduce_op o, cuda::stream_view s) {
            c.reduce_scatter(a.send, a.recv, a.count, a.type, o, s);
        },
        "Rank r's recvbuf = op over part r of every rank's sendbuf (size parts). In place (recvbuf "
        "omitted), part r of the one buffer receives it.");
    def_point_to_point(
        communicator_class, "send", nccl::collective::send, "sendbuf",
        [](const nccl::communicator& c, const nccl::checked_call& a, int peer, cuda::stream_view s) {
            c.send(a.send, a.count, a.type, peer, s);
        },
        "Sends sendbuf to rank `peer`, which calls recv(); see group().");
    def_point_to_point(
        communicator_class, "recv", nccl::collective::recv, "recvbuf",
        [](const nccl::communicator& c, const nccl::checked_call& a, int peer, cuda::stream_view s) {
            c.recv(a.recv, a.count, a.type, peer, s);
        },
        "Receives into recvbuf what rank `peer` sends; see group().");

    nb::class_<group_scope>(m, "_Group", "A with-block of grouped NCCL calls (gpukit.nccl.group()).")
        .def(nb::init<>())
        .def("__enter__",
             [](nb::handle self) {
                 group_scope& g = nb::cast<group_scope&>(self);
                 if (g.open)
                     throw logic_error("this NCCL group is open already; make a new group() for each with-block");
                 g.open = std::make_unique<nccl::group>();
                 return nb::borrow(self);
             })
        .def(
            "__exit__",
            [](group_scope& g, nb::handle type, nb::handle, nb::handle) {
                if (!g.open)
                    throw logic_error("this NCCL group was not entered");
                std::unique_ptr<nccl::group> open = std::move(g.open);
                try {
                    release_gil release;  // issuing the grouped calls may wait for peers
                    if (type.is_none())
                        open->end();
                    else
                        open->cancel();  // none of the block's calls is issued; the block's exception is raised
                } catch (...) {
                    release_dropped_holds();
                    throw;
                }
                release_dropped_holds();  // what the outermost group kept for its calls until it issued them
                return false;
            },
            "exc_type"_a.none(), "exc_value"_a.none(), "traceback"_a.none());
}

}  // namespace gpukit::python
