#include "gpukit/nccl/call_checks.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/nccl/detail/group_book.hpp"
#include "gpukit/nccl/error.hpp"

#include <algorithm>
#include <string>

namespace gpukit::nccl {
namespace {

// How many counts each buffer holds: all_gather receives, and reduce_scatter sends, one
// count per rank.
struct extents {
    std::size_t send, recv;
};

extents extents_of(collective what, std::size_t ranks) {
    switch (what) {
    case collective::all_gather:
        return {1, ranks};
    case collective::reduce_scatter:
        return {ranks, 1};
    default:
        return {1, 1};
    }
}

std::string hex(std::uintptr_t address) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string text;
    do {
        text.insert(text.begin(), digits[address % 16]);
        address /= 16;
    } while (address);
    return "0x" + text;
}

std::string elements_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " element" : " elements"); }

// argument_error unless `b` is device memory the communicator's kernels may use: of its
// device, in its primary context or in no context (cuMemCreate, stream-ordered pools).
void require_resident(const char* call, const buffer_arg& b, const communicator& comm) {
    const CUcontext primary = comm.context()->handle;
    if (b.context == primary)
        return;  // the owner says so: no driver query on the common path
    // Built only on the way to an error: this runs on every collective.
    const auto where = [&] { return std::string(call) + ": " + b.name + " (" + hex(b.address) + ")"; };
    const cuda::driver_api& driver = cuda::api();
    CUcontext owner = nullptr;
    const CUresult found =
        driver.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, static_cast<CUdeviceptr>(b.address));
    if (found == CUDA_ERROR_INVALID_VALUE)
        throw argument_error(where() + " is not memory CUDA knows; NCCL needs device memory");
    if (found != CUDA_SUCCESS)
        cuda::throw_cuda_error(found, "cuPointerGetAttribute", where());
    if (owner == primary)
        return;
    int ordinal = -1;
    GPUKIT_CU(cuPointerGetAttribute, &ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
              static_cast<CUdeviceptr>(b.address));
    if (ordinal != comm.device_ordinal())
        throw argument_error(where() + " is memory of device " + std::to_string(ordinal) +
                             ", but the communicator is on device " + std::to_string(comm.device_ordinal()));
    if (owner != nullptr)
        throw argument_error(where() + " belongs to a CUDA context other than device " +
                             std::to_string(comm.device_ordinal()) +
                             "'s primary context, where NCCL works; allocate it with the primary context current "
                             "(import gpukit.autoprimaryctx, or Device.retain_primary_context().push())");
}

void require_stream_of(const char* call, cuda::stream_view stream, CUcontext known, const communicator& comm) {
    // 0, 1 and 2 are the legacy and per-thread default streams, which belong to every context.
    const CUcontext primary = comm.context()->handle;
    if (reinterpret_cast<std::uintptr_t>(stream.handle()) <= 2 || known == primary ||
        (!known && stream.context() == primary))
        return;
    throw argument_error(std::string(call) + ": the stream belongs to another CUDA context than device " +
                         std::to_string(comm.device_ordinal()) +
                         "'s primary context, where the communicator works; make it with that context current");
}

}  // namespace

checked_call plan_call(collective what, int rank_count, int rank, const buffer_arg& send, const buffer_arg& recv,
                       std::optional<std::size_t> count) {
    const char* call = name(what);
    if (send.type != recv.type)
        throw type_error(std::string(call) + ": " + send.name + " holds " + std::string(name(send.type)) + " but " +
                         recv.name + " holds " + std::string(name(recv.type)) +
                         "; NCCL does not convert, give both the same dtype");
    const auto ranks = static_cast<std::size_t>(rank_count);
    const bool in_place = send.address == recv.address;
    extents per = extents_of(what, ranks);
    if (in_place)  // one buffer serves both: it holds the larger of the two
        per.send = per.recv = std::max(per.send, per.recv);

    // The count: given, or from the first buffer that knows its extent.
    if (!count) {
        const buffer_arg* sized = send.elements ? &send : recv.elements ? &recv : nullptr;
        if (!sized)
            throw argument_error(std::string(call) + ": count= is needed when every buffer is a bare pointer");
        const std::size_t per_count = sized == &send ? per.send : per.recv;
        if (*sized->elements % per_count != 0)
            throw argument_error(std::string(call) + ": " + sized->name + " holds " + elements_text(*sized->elements) +
                                 ", not a multiple of the communicator's " + std::to_string(ranks) +
                                 " ranks; it must hold one equal part per rank");
        count = *sized->elements / per_count;
        // Without count=, the buffers must fit exactly.
        for (const auto& [b, factor] : {std::pair{&send, per.send}, std::pair{&recv, per.recv}})
            if (b->elements && *b->elements != factor * *count)
                throw argument_error(std::string(call) + ": " + b->name + " holds " + elements_text(*b->elements) +
                                     " but must hold " + elements_text(factor * *count) + " (" +
                                     (factor == 1 ? "as many as " + std::string(sized->name)
                                                  : std::to_string(factor) + " ranks times " + elements_text(*count)) +
                                     ")");
    } else {
        for (const auto& [b, factor] : {std::pair{&send, per.send}, std::pair{&recv, per.recv}})
            if (b->elements && *b->elements < factor * *count)
                throw argument_error(std::string(call) + ": " + b->name + " holds " + elements_text(*b->elements) +
                                     " but count=" + std::to_string(*count) + " needs " +
                                     elements_text(factor * *count));
    }

    checked_call args{reinterpret_cast<const void*>(send.address), reinterpret_cast<void*>(recv.address), *count,
                      send.type};
    // In place, NCCL finds this rank's part of the one buffer at rank * count elements.
    const std::size_t offset = static_cast<std::size_t>(rank) * *count * size_of(send.type);
    if (in_place && what == collective::all_gather)
        args.send = reinterpret_cast<const void*>(send.address + offset);
    if (in_place && what == collective::reduce_scatter)
        args.recv = reinterpret_cast<void*>(recv.address + offset);
    return args;
}

checked_call check_call(collective what, const communicator& comm, const buffer_arg& send, const buffer_arg& recv,
                        std::optional<std::size_t> count, cuda::stream_view stream, CUcontext stream_context) {
    return detail::refusing_in_group([&] {
        comm.handle();  // logic_error for a destroyed or pending communicator, before anything else
        const checked_call args = plan_call(what, comm.size(), comm.rank(), send, recv, count);
        if (args.count == 0)
            return args;  // nothing moves: NCCL never touches the buffers
        const char* call = name(what);
        require_resident(call, send, comm);
        if (send.address != recv.address)
            require_resident(call, recv, comm);
        require_stream_of(call, stream, stream_context, comm);
        return args;
    });
}

}  // namespace gpukit::nccl
