"""gpukit.nccl: the library, unique ids and argument checks without a GPU; one-rank
communicators running every collective on GPUArray, gpukit.cuda, CuPy, PyTorch and numba
arrays (NCCL refuses two ranks on one GPU, so on one device every reduction gives back its
input: the tests then check the data path, counts, offsets and sentinels); groups with
NCCL's semantics (communicators made in a group pending until it ends, refused calls and
exceptions launching none of the group's calls, nesting); multi-rank tests (init_all over
every device, ranks made and split by one thread in groups, two processes joined by a unique
id) that skip with the reason on fewer than two GPUs; and from_mpi over a one-process MPI
world; check_agreement on one rank. One process per GPU (from_mpi over MPI or gpukit's
launcher, the agreement check across ranks) is in test_nccl_ranks.py.

IPC memory handles between two processes are tested in test_memory.py
(test_ipc_across_processes) and test_stream_event.py (test_ipc_event_across_processes)."""

import multiprocessing
import pickle

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.nccl as nccl
from conftest import cuda_device_count, drain_context_stack, in_context

# numpy's types that NCCL has (bfloat16 and float8 come from ml_dtypes, tested apart).
NUMPY_TYPES = [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32, np.float64]
OPS = ["sum", "prod", "max", "min", "avg"]


needs_nccl = pytest.mark.skipif(not nccl.available(), reason="libnccl.so.2 could not be loaded on this machine")
needs_two_gpus = pytest.mark.skipif(
    cuda_device_count() < 2, reason="needs two CUDA devices (NCCL runs one rank per GPU)"
)


def reference(op, inputs):
    """What `op` over the ranks' inputs gives, in their dtype."""
    stack = np.stack(inputs)
    if op == "sum":
        return stack.sum(axis=0, dtype=stack.dtype)
    if op == "prod":
        return stack.prod(axis=0, dtype=stack.dtype)
    if op == "max":
        return stack.max(axis=0)
    if op == "min":
        return stack.min(axis=0)
    total = stack.sum(axis=0, dtype=stack.dtype)
    if np.issubdtype(stack.dtype, np.integer):
        return (total // len(inputs)).astype(stack.dtype)
    return (total / len(inputs)).astype(stack.dtype)


def values(dtype, n, seed):
    """n values exact in `dtype` (small integers, also exact in float16), none of them zero."""
    return np.random.default_rng(seed).integers(1, 8, n).astype(dtype)


def assert_one_rank_keeps(comm, dtype, op):
    """A one-rank communicator's in-place all_reduce leaves the values as they were; the array."""
    import gpukit.gpuarray as gpuarray

    x = values(dtype, 100, 30)
    a = gpuarray.to_gpu(x)
    comm.all_reduce(a, op=op)
    np.testing.assert_array_equal(a.get(), x)
    return a


# --- without a GPU -------------------------------------------------------------------------


def test_public_names():
    assert set(nccl.__all__) == {
        "Communicator",
        "NcclError",
        "available",
        "version",
        "library_path",
        "get_unique_id",
        "group",
        "from_mpi",
        "UNIQUE_ID_BYTES",
        "SPLIT_NOCOLOR",
    }
    assert issubclass(nccl.NcclError, drv.Error)
    assert nccl.UNIQUE_ID_BYTES == 128


def test_library_is_found_or_says_why():
    if not nccl.available():
        with pytest.raises(drv.RuntimeError, match="libnccl.so.2"):
            nccl.version()
        pytest.skip("libnccl.so.2 is not on this machine; the error above names it")
    assert nccl.version() >= 21800
    assert "libnccl" in nccl.library_path()


@needs_nccl
def test_unique_id_is_bytes_that_travel():
    first, second = nccl.get_unique_id(), nccl.get_unique_id()
    assert isinstance(first, bytes) and len(first) == nccl.UNIQUE_ID_BYTES
    assert first != second
    assert pickle.loads(pickle.dumps(first)) == first
    assert bytes.fromhex(first.hex()) == first


def test_bad_unique_ids_and_ranks_are_refused_before_cuda():
    with pytest.raises(ValueError, match="128 bytes, got 10"):
        nccl.Communicator(1, b"x" * 10, 0)
    with pytest.raises(ValueError, match="128 bytes, got 129"):
        nccl.Communicator(1, bytearray(129), 0)
    with pytest.raises(TypeError):
        nccl.Communicator(1, 12345, 0)
    with pytest.raises(ValueError, match=r"rank 2 is outside \[0, 2\)"):
        nccl.Communicator(2, bytes(128), 2)
    with pytest.raises(ValueError, match="at least one rank"):
        nccl.Communicator(0, bytes(128), 0)
    with pytest.raises(TypeError):
        nccl.Communicator(1, bytes(128), 0, devic=0)


def test_from_mpi_uses_the_mpi_ranks():
    class FakeComm:  # rank 3 of a world of 2: refused before any CUDA call
        def Get_rank(self):
            return 3

        def Get_size(self):
            return 2

        def bcast(self, obj, root):
            assert root == 0 and obj is None
            return bytes(128)

    with pytest.raises(ValueError, match=r"rank 3 is outside \[0, 2\)"):
        nccl.from_mpi(FakeComm())


def test_group_exit_without_enter():
    with pytest.raises(drv.LogicError, match="not entered"):
        nccl.group().__exit__(None, None, None)


# --- one GPU: a one-rank communicator -------------------------------------------------------


@pytest.fixture
def comm(primary_ctx):
    if not nccl.available():
        pytest.skip("libnccl.so.2 could not be loaded on this machine")
    c = nccl.Communicator(1, nccl.get_unique_id(), 0)
    yield c
    c.destroy()


@pytest.mark.gpu
def test_one_rank_describes_itself(comm):
    assert (comm.rank, comm.size, comm.device.pci_bus_id()) == (0, 1, drv.Device(0).pci_bus_id())
    assert "rank 0 of 1 on device 0" in repr(comm)
    assert not comm.is_destroyed


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", NUMPY_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("op", OPS)
def test_all_reduce_every_type_and_op_on_gpuarrays(comm, dtype, op):
    import gpukit.gpuarray as gpuarray

    x = values(dtype, 1001, 1)
    send = gpuarray.to_gpu(x)
    recv = gpuarray.to_gpu(np.full_like(x, 9))
    comm.all_reduce(send, recv, op)
    np.testing.assert_array_equal(recv.get(), reference(op, [x]))
    comm.all_reduce(send, op=op)  # in place
    np.testing.assert_array_equal(send.get(), reference(op, [x]))


@pytest.mark.gpu
def test_count_leaves_the_rest_of_the_buffer(comm):
    import gpukit.gpuarray as gpuarray

    x = values(np.float32, 50, 2)
    send, recv = gpuarray.to_gpu(x), gpuarray.zeros(50, np.float32)
    comm.all_reduce(send, recv, count=37)
    got = recv.get()
    np.testing.assert_array_equal(got[:37], x[:37])
    assert not got[37:].any()
    with pytest.raises(ValueError, match="count=51 needs 51 elements"):
        comm.all_reduce(send, recv, count=51)


@pytest.mark.gpu
def test_every_other_collective_out_of_place_and_in_place(comm):
    import gpukit.gpuarray as gpuarray

    x = values(np.int64, 77, 3)
    for run in (
        lambda s, r: comm.reduce(s, r, root=0, op="max"),
        lambda s, r: comm.broadcast(s, r, root=0),
        lambda s, r: comm.all_gather(s, r),
        lambda s, r: comm.reduce_scatter(s, r, op="min"),
    ):
        send, recv = gpuarray.to_gpu(x), gpuarray.zeros(77, np.int64)
        run(send, recv)
        np.testing.assert_array_equal(recv.get(), x)
        run(send, None)
        np.testing.assert_array_equal(send.get(), x)
        run(send, send)  # recvbuf is sendbuf: in place too
        np.testing.assert_array_equal(send.get(), x)


@pytest.mark.gpu
def test_gpukit_cuda_arrays_and_raw_pointers(comm):
    import gpukit.cuda as cuda

    x = values(np.uint32, 64, 4)
    send, recv = cuda.to_device(x), cuda.device_array(64, np.uint32)
    comm.all_reduce(send, recv)
    np.testing.assert_array_equal(recv.copy_to_host(), x)
    # Bare addresses say nothing of their type or length: dtype= and count= do.
    out = cuda.device_array(64, np.uint32)
    comm.broadcast(
        int(send.__cuda_array_interface__["data"][0]),
        int(out.__cuda_array_interface__["data"][0]),
        count=64,
        dtype=np.uint32,
    )
    np.testing.assert_array_equal(out.copy_to_host(), x)
    # A DeviceAllocation knows its size; dtype= gives the elements.
    allocation = drv.mem_alloc(x.nbytes)
    drv.memcpy_htod(allocation, x)
    result = np.zeros_like(x)
    target = drv.mem_alloc(x.nbytes)
    comm.all_reduce(allocation, target, op="max", dtype="uint32")
    drv.memcpy_dtoh(result, target)
    np.testing.assert_array_equal(result, x)


@pytest.mark.gpu
def test_cupy_arrays_and_streams(comm):
    cp = pytest.importorskip("cupy")
    for dtype in NUMPY_TYPES:
        x = values(dtype, 300, 5)
        send, recv = cp.asarray(x), cp.zeros(300, dtype)
        comm.all_reduce(send, recv, "sum")
        np.testing.assert_array_equal(cp.asnumpy(recv), x)
    stream = cp.cuda.Stream(non_blocking=True)
    if not hasattr(stream, "__cuda_stream__"):
        pytest.skip("this CuPy's streams lack __cuda_stream__")
    x = values(np.float64, 1 << 20, 6)
    with stream:
        send, recv = cp.asarray(x), cp.empty_like(cp.asarray(x))
    comm.all_gather(send, recv, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(recv), x)


@pytest.mark.gpu
def test_torch_tensors(comm):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this PyTorch has no CUDA")
    for dtype in (torch.float32, torch.int64, torch.float16, torch.int8):
        x = torch.arange(1, 130, dtype=dtype).cuda()
        out = torch.zeros_like(x)
        comm.all_reduce(x, out, op="max")
        torch.cuda.synchronize()
        assert torch.equal(out, x)
    with pytest.raises(ValueError, match="not C-contiguous"):
        comm.all_reduce(torch.zeros(8, 8, device="cuda").t())


@pytest.mark.gpu
def test_numba_arrays(comm):
    numba_cuda = pytest.importorskip("numba.cuda")
    x = values(np.int32, 33, 7)
    send, recv = numba_cuda.to_device(x), numba_cuda.device_array(33, np.int32)
    comm.reduce_scatter(send, recv, op="prod")
    numba_cuda.synchronize()
    np.testing.assert_array_equal(recv.copy_to_host(), x)


@pytest.mark.gpu
def test_bfloat16_and_float8_through_ml_dtypes(comm):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for dtype in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2):
        x = np.arange(1, 8).astype(dtype)
        send, recv = drv.mem_alloc(x.nbytes), drv.mem_alloc(x.nbytes)
        drv.memcpy_htod(send, x.view(np.uint8))  # plain bytes: numpy's buffer protocol lacks these types
        if "float8" in np.dtype(dtype).name and nccl.version() < 22400:
            with pytest.raises(ValueError, match="needs NCCL 2.24 or newer"):
                comm.all_reduce(send, recv, dtype=dtype)
            continue
        if "float8" in np.dtype(dtype).name:
            with pytest.raises(ValueError, match="NCCL has no avg for float8"):
                comm.all_reduce(send, recv, op="avg", dtype=dtype)
        comm.all_reduce(send, recv, dtype=dtype)
        out = np.zeros(x.nbytes, np.uint8)
        drv.memcpy_dtoh(out, recv)
        np.testing.assert_array_equal(out, x.view(np.uint8))


@pytest.mark.gpu
def test_gpukit_stream(comm):
    import gpukit.gpuarray as gpuarray

    x = values(np.float32, 1 << 16, 8)
    stream = drv.Stream()
    send, recv = gpuarray.to_gpu(x), gpuarray.zeros(1 << 16, np.float32)
    comm.all_reduce(send, recv, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(recv.get(), x)


@pytest.mark.gpu
def test_send_and_recv_to_itself_in_a_group(comm):
    import gpukit.gpuarray as gpuarray

    x = values(np.float64, 129, 9)
    send, recv = gpuarray.to_gpu(x), gpuarray.zeros(129, np.float64)
    with nccl.group():
        comm.send(send, 0)
        comm.recv(recv, 0)
    np.testing.assert_array_equal(recv.get(), x)
    # An exception inside the block is the one raised, and NCCL launches none of its calls.
    untouched = gpuarray.to_gpu(np.full(129, 5.0))
    with pytest.raises(KeyError):
        with nccl.group():
            comm.send(send, 0)
            comm.recv(untouched, 0)
            raise KeyError("inside")
    drv.Context.synchronize()
    np.testing.assert_array_equal(untouched.get(), np.full(129, 5.0))
    comm.all_reduce(send)  # NCCL is out of the group again
    drv.Context.synchronize()
    np.testing.assert_array_equal(send.get(), x)


# --- groups: NCCL's semantics for every call that may stand in one ---------------------------


@pytest.mark.gpu
def test_a_communicator_made_in_a_group_is_pending_until_the_block_ends(comm):
    with nccl.group():
        made = nccl.Communicator(1, nccl.get_unique_id(), 0, device=0)
        assert made.is_pending and not made.is_destroyed
        assert (made.rank, made.size) == (0, 1)  # given, so known before NCCL makes it
        assert "pending" in repr(made)
        with pytest.raises(drv.LogicError, match="before the group that makes it ends"):
            made.destroy()
    assert not made.is_pending
    assert_one_rank_keeps(made, np.int32, "sum")
    made.destroy()
    assert made.is_destroyed


@pytest.mark.gpu
def test_a_split_in_a_group_is_made_when_the_block_ends(comm):
    with nccl.group():
        half = comm.split(3)
        assert half.is_pending
        with pytest.raises(drv.LogicError, match="group that has not ended"):
            half.rank
    assert not half.is_pending
    assert (half.rank, half.size) == (0, 1)
    assert "rank 0 of 1" in repr(half)
    assert_one_rank_keeps(half, np.float64, "max")
    half.destroy()
    with nccl.group():  # a colour of none: None at once, as NCCL leaves it null
        assert comm.split(None) is None


@pytest.mark.gpu
def test_a_refused_call_fails_the_group_which_launches_none_of_its_calls(comm):
    import gpukit.gpuarray as gpuarray

    x = values(np.float32, 64, 10)
    send, recv = gpuarray.to_gpu(x), gpuarray.to_gpu(np.full(64, 7, np.float32))
    with pytest.raises(nccl.NcclError, match="none of its calls was issued.*peer 4 is outside") as caught:
        with nccl.group():
            made = nccl.Communicator(1, nccl.get_unique_id(), 0, device=0)
            comm.all_reduce(send, recv)
            with pytest.raises(ValueError, match="peer 4 is outside"):
                comm.send(send, 4)  # refused, and caught: the group fails all the same, as NCCL's does
    assert caught.value.routine == "ncclGroupEnd"
    drv.Context.synchronize()
    np.testing.assert_array_equal(recv.get(), np.full(64, 7, np.float32))  # never ran
    assert made.is_destroyed and not made.is_pending  # never made
    with pytest.raises(drv.LogicError, match="group that was making this communicator failed"):
        made.all_reduce(send)
    made.destroy()  # nothing left to do
    # A gpukit check refusing an argument (a dtype) fails the group too.
    with pytest.raises(nccl.NcclError, match="recvbuf holds int32"):
        with nccl.group():
            comm.all_reduce(send, recv)
            with pytest.raises(TypeError):
                comm.all_reduce(send, gpuarray.zeros(64, np.int32))
    # A pending communicator used in its own group is refused, and fails the group.
    with pytest.raises(nccl.NcclError, match="group that has not ended"):
        with nccl.group():
            other = nccl.Communicator(1, nccl.get_unique_id(), 0, device=0)
            with pytest.raises(drv.LogicError):
                other.all_reduce(send)
    assert other.is_destroyed
    comm.all_reduce(send, recv)  # NCCL is out of the group
    drv.Context.synchronize()
    np.testing.assert_array_equal(recv.get(), x)


@pytest.mark.gpu
def test_nested_groups_launch_at_the_outermost_end(comm):
    import gpukit.gpuarray as gpuarray

    x = values(np.int64, 16, 11)
    send, recv = gpuarray.to_gpu(x), gpuarray.zeros(16, np.int64)
    with nccl.group():
        with nccl.group():
            made = nccl.Communicator(1, nccl.get_unique_id(), 0, device=0)
            comm.all_reduce(send, recv)
        assert made.is_pending
    assert not made.is_pending
    drv.Context.synchronize()
    np.testing.assert_array_equal(recv.get(), x)
    made.destroy()
    # An inner block left by an exception that the outer one catches fails the outer one.
    recv.fill(0)
    with pytest.raises(nccl.NcclError, match="cancelled"):
        with nccl.group():
            comm.all_reduce(send, recv)
            with pytest.raises(KeyError):
                with nccl.group():
                    raise KeyError("inner")
    drv.Context.synchronize()
    assert not recv.get().any()


@pytest.mark.gpu
def test_a_group_keeps_what_its_calls_use_until_it_ends(comm):
    """The calls of a block are issued when it ends: the arrays they use stay alive until then,
    and a communicator destroyed in the block is destroyed after its calls ran."""
    import gpukit.gpuarray as gpuarray

    x = values(np.float32, 4096, 13)
    recv = gpuarray.zeros(4096, np.float32)
    other = nccl.Communicator(1, nccl.get_unique_id(), 0, device=0)
    copied = gpuarray.zeros(4096, np.float32)
    with nccl.group():
        comm.all_reduce(gpuarray.to_gpu(x), recv)  # the sending array is dropped at once
        zeros = gpuarray.to_gpu(np.zeros(4096, np.float32))  # would take its memory if it were freed
        other.broadcast(gpuarray.to_gpu(x), copied)
        other.destroy()
        assert other.is_destroyed
    drv.Context.synchronize()
    np.testing.assert_array_equal(recv.get(), x)
    np.testing.assert_array_equal(copied.get(), x)
    assert not zeros.get().any()
    other.destroy()  # nothing left to do


@pytest.mark.gpu
def test_check_agreement_on_one_rank(comm):
    import gpukit.gpuarray as gpuarray

    assert comm.check_agreement is False
    comm.check_agreement = True
    x = values(np.float32, 100, 12)
    send, recv = gpuarray.to_gpu(x), gpuarray.zeros(100, np.float32)
    comm.all_reduce(send, recv, op="min")  # one rank agrees with itself
    comm.reduce_scatter(send, recv)
    comm.broadcast(send, recv, root=0)
    np.testing.assert_array_equal(recv.get(), x)
    with pytest.raises(ValueError, match="root 2 is outside"):
        comm.broadcast(send, recv, root=2)
    comm.check_agreement = False


@pytest.mark.gpu
def test_split_abort_destroy_and_init_all(comm):
    half = comm.split(0)
    assert (half.rank, half.size) == (0, 1)
    a = assert_one_rank_keeps(half, np.int32, "prod")
    half.abort()
    assert half.is_destroyed
    with pytest.raises(drv.LogicError, match="destroyed or aborted"):
        half.all_reduce(a)
    half.destroy()  # nothing left to do
    assert comm.split(None) is None
    with pytest.raises(ValueError, match="color must be 0 or more"):
        comm.split(-5)
    every = nccl.Communicator.init_all()
    assert [c.rank for c in every] == list(range(len(every))) == list(range(drv.Device.count()))
    for c in every:
        c.destroy()
    [only] = nccl.Communicator.init_all([drv.Device(0)])
    assert only.size == 1
    with pytest.raises(ValueError, match="named twice"):
        nccl.Communicator.init_all([0, 0])


@pytest.mark.gpu
def test_bad_arguments_are_refused_before_nccl(comm):
    import gpukit.gpuarray as gpuarray

    f32, i32 = gpuarray.zeros(8, np.float32), gpuarray.zeros(8, np.int32)
    with pytest.raises(TypeError, match="sendbuf holds float32 but recvbuf holds int32"):
        comm.all_reduce(f32, i32)
    with pytest.raises(ValueError, match="recvbuf holds 4 elements but must hold 8 elements"):
        comm.all_gather(f32, gpuarray.zeros(4, np.float32))
    with pytest.raises(ValueError, match="not C-contiguous"):
        comm.all_reduce(gpuarray.zeros((4, 4), np.float32)[:, ::2])
    with pytest.raises(ValueError, match="not C-contiguous"):
        comm.all_reduce(gpuarray.zeros((4, 4), np.float32, order="F"))
    with pytest.raises(ValueError, match="unknown op 'mean'"):
        comm.all_reduce(f32, op="mean")
    with pytest.raises(TypeError, match="op must be a string"):
        comm.all_reduce(f32, op=0)
    for dtype in (np.int16, np.bool_, np.complex64):
        with pytest.raises(TypeError, match="NCCL has no type for dtype"):
            comm.all_reduce(gpuarray.zeros(4, dtype))
    with pytest.raises(TypeError, match="NCCL has no type"):
        comm.all_reduce(int(f32.gpudata), count=8, dtype=np.int16)
    with pytest.raises(TypeError, match="pass dtype="):
        comm.all_reduce(int(f32.gpudata), count=8)
    with pytest.raises(ValueError, match="count= is needed"):
        comm.all_reduce(int(f32.gpudata), dtype=np.float32)
    with pytest.raises(TypeError, match="arrays carry their own dtype"):
        comm.all_reduce(f32, dtype=np.float32)
    with pytest.raises(TypeError):
        comm.all_reduce(np.zeros(8, np.float32))  # host memory is no device pointer
    with pytest.raises(ValueError, match="root 1 is outside"):
        comm.broadcast(f32, root=1)
    with pytest.raises(ValueError, match="peer 3 is outside"):
        comm.send(f32, 3)
    with pytest.raises(TypeError):
        comm.all_reduce(f32, strem=None)
    with pytest.raises(TypeError, match="stream must be"):
        comm.all_reduce(f32, stream="default")


@pytest.mark.gpu
def test_memory_of_another_context_is_refused(comm):
    import gpukit.gpuarray as gpuarray

    own = drv.Device(0).make_context()
    try:
        foreign = gpuarray.zeros(8, np.float32)
        with pytest.raises(ValueError, match="primary context"):
            comm.all_reduce(foreign)
        # The owner's context spares the driver query only when it is the primary one.
        allocation = drv.mem_alloc(32)
        with pytest.raises(ValueError, match="primary context"):
            comm.all_reduce(allocation, count=8, dtype=np.float32)
        del foreign
        allocation.free()
        gpuarray.release_default_pools()
    finally:
        drv.Context.pop()
        own.detach()


@pytest.mark.gpu
def test_a_stream_of_another_context_is_refused(comm):
    import gpukit.gpuarray as gpuarray

    buffer = gpuarray.arange(8, dtype=np.float32)  # the primary context's, as NCCL needs
    own = drv.Device(0).make_context()
    try:
        stream = drv.Stream()
    finally:
        drv.Context.pop()
    try:
        with pytest.raises(ValueError, match="stream belongs to another CUDA context"):
            comm.all_reduce(buffer, stream=stream)
        home = drv.Stream()  # made with the primary context current: accepted
        comm.all_reduce(buffer, stream=home)
        home.synchronize()
        np.testing.assert_array_equal(buffer.get(), np.arange(8, dtype=np.float32))
    finally:
        del stream  # destroyed in its own context, which it holds until then
        own.detach()


# --- two or more GPUs -----------------------------------------------------------------------


@pytest.fixture
def primaries():
    drain_context_stack()
    contexts = [drv.Device(k).retain_primary_context() for k in range(cuda_device_count())]
    yield contexts
    import gpukit.gpuarray as gpuarray

    for c in contexts:
        c.push()
        gpuarray.release_default_pools()
        drv.Context.pop()
    drain_context_stack()
    for c in contexts:
        c.detach()


@pytest.mark.gpu
@needs_nccl
@needs_two_gpus
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint64, np.float16])
@pytest.mark.parametrize("op", OPS)
def test_init_all_all_reduce_against_numpy(primaries, dtype, op):
    import gpukit.gpuarray as gpuarray

    comms = nccl.Communicator.init_all()
    n = len(comms)
    inputs = [values(dtype, 999, 20 + k) for k in range(n)]
    sends = [in_context(primaries[k], lambda k=k: gpuarray.to_gpu(inputs[k])) for k in range(n)]
    recvs = [in_context(primaries[k], lambda: gpuarray.zeros(999, dtype)) for k in range(n)]
    with nccl.group():  # one thread drives every rank: NCCL needs them grouped
        for c, s, r in zip(comms, sends, recvs):
            c.all_reduce(s, r, op)
    expected = reference(op, inputs)
    for k in range(n):
        got = in_context(primaries[k], recvs[k].get)
        if np.issubdtype(dtype, np.floating) and op == "avg":
            np.testing.assert_allclose(got, expected, rtol=1e-3)
        else:
            np.testing.assert_array_equal(got, expected)
    for c in comms:
        c.destroy()


@pytest.mark.gpu
@needs_nccl
@needs_two_gpus
def test_init_all_every_collective_against_numpy(primaries):
    import gpukit.gpuarray as gpuarray

    comms = nccl.Communicator.init_all()
    n = len(comms)
    inputs = [np.arange(6 * n, dtype=np.int64) * (k + 1) + k for k in range(n)]

    def run(call, recv_size):
        sends = [in_context(primaries[k], lambda k=k: gpuarray.to_gpu(inputs[k])) for k in range(n)]
        recvs = [in_context(primaries[k], lambda: gpuarray.zeros(recv_size, np.int64)) for k in range(n)]
        with nccl.group():
            for c, s, r in zip(comms, sends, recvs):
                call(c, s, r)
        return [in_context(primaries[k], recvs[k].get) for k in range(n)]

    root = n - 1
    got = run(lambda c, s, r: c.reduce(s, r, root=root, op="sum"), 6 * n)
    np.testing.assert_array_equal(got[root], sum(inputs))
    got = run(lambda c, s, r: c.broadcast(s, r, root=root), 6 * n)
    for g in got:
        np.testing.assert_array_equal(g, inputs[root])
    got = run(lambda c, s, r: c.all_gather(s, r), 6 * n * n)
    for g in got:
        np.testing.assert_array_equal(g, np.concatenate(inputs))
    got = run(lambda c, s, r: c.reduce_scatter(s, r, op="max"), 6)
    total = np.max(np.stack(inputs), axis=0)
    for k, g in enumerate(got):
        np.testing.assert_array_equal(g, total[6 * k : 6 * (k + 1)])
    # A ring of send/recv: rank k sends to k+1.
    got = run(lambda c, s, r: (c.send(s, (c.rank + 1) % n), c.recv(r, (c.rank - 1) % n)), 6 * n)
    for k, g in enumerate(got):
        np.testing.assert_array_equal(g, inputs[(k - 1) % n])
    # Wrong device: rank 0's communicator with rank 1's memory.
    other = in_context(primaries[1], lambda: gpuarray.zeros(4, np.int64))
    with pytest.raises(ValueError, match="memory of device 1, but the communicator is on device 0"):
        comms[0].all_reduce(other)
    # Split into odd and even ranks: one thread drives every rank, so in a group, where NCCL
    # makes the new communicators when the block ends.
    with nccl.group():
        halves = [c.split(c.rank % 2) for c in comms]
        assert all(h.is_pending for h in halves)
    assert [h.size for h in halves] == [len(range(k % 2, n, 2)) for k in range(n)]
    assert [h.rank for h in halves] == [k // 2 for k in range(n)]
    sends = [in_context(primaries[k], lambda k=k: gpuarray.to_gpu(inputs[k])) for k in range(n)]
    with nccl.group():
        for h, s in zip(halves, sends):
            h.all_reduce(s)
    for k in range(n):
        np.testing.assert_array_equal(in_context(primaries[k], sends[k].get), sum(inputs[k % 2 :: 2]))
    for c in halves + comms:
        c.destroy()


@pytest.mark.gpu
@needs_nccl
@needs_two_gpus
def test_one_thread_makes_every_rank_in_a_group(primaries):
    """NCCL's way of making several ranks from one thread: ncclCommInitRank in a group."""
    import gpukit.gpuarray as gpuarray

    n = len(primaries)
    unique_id = nccl.get_unique_id()
    with nccl.group():  # without it, rank 0 would wait for the others forever
        comms = [nccl.Communicator(n, unique_id, k, device=k) for k in range(n)]
        assert all(c.is_pending for c in comms)
        assert [(c.rank, c.size) for c in comms] == [(k, n) for k in range(n)]
    assert not any(c.is_pending for c in comms)
    inputs = [values(np.float64, 333, 40 + k) for k in range(n)]
    sends = [in_context(primaries[k], lambda k=k: gpuarray.to_gpu(inputs[k])) for k in range(n)]
    gathered = [in_context(primaries[k], lambda: gpuarray.zeros(333 * n, np.float64)) for k in range(n)]
    with nccl.group():
        for c, s, g in zip(comms, sends, gathered):
            c.all_gather(s, g)
    for k in range(n):
        np.testing.assert_array_equal(in_context(primaries[k], gathered[k].get), np.concatenate(inputs))
    # Rank 0 alone in a new communicator, the others in none.
    with nccl.group():
        split = [c.split(0 if c.rank == 0 else None) for c in comms]
    assert split[1:] == [None] * (n - 1)
    assert (split[0].rank, split[0].size) == (0, 1)
    for c in [split[0]] + comms:
        c.destroy()


def _two_process_rank(rank, nranks, ids, results):
    """One rank of a communicator across processes (multiprocessing spawn): rank 0 makes the
    unique id and hands it to the others through a queue."""
    import gpukit.driver as drv
    import gpukit.gpuarray as gpuarray
    import gpukit.nccl as nccl

    drv.init()
    context = drv.Device(rank).retain_primary_context()
    context.push()
    if rank == 0:
        unique_id = nccl.get_unique_id()
        for _ in range(nranks - 1):
            ids.put(unique_id)
    else:
        unique_id = ids.get(timeout=60)
    comm = nccl.Communicator(nranks, unique_id, rank, device=rank)
    a = gpuarray.to_gpu(np.arange(1000, dtype=np.float32) * (rank + 1))
    comm.all_reduce(a, op="sum")
    results.put((rank, a.get()))
    comm.destroy()
    del a
    drv.Context.pop()


@pytest.mark.gpu
@needs_nccl
@needs_two_gpus
def test_two_processes_joined_by_a_unique_id():
    spawn = multiprocessing.get_context("spawn")
    ids, results = spawn.Queue(), spawn.Queue()
    ranks = [spawn.Process(target=_two_process_rank, args=(k, 2, ids, results)) for k in range(2)]
    for p in ranks:
        p.start()
    try:
        got = dict(results.get(timeout=120) for _ in ranks)
    finally:
        for p in ranks:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
    for k in range(2):
        np.testing.assert_array_equal(got[k], np.arange(1000, dtype=np.float32) * 3)
    assert [p.exitcode for p in ranks] == [0, 0]


# --- MPI ------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_from_mpi_in_a_one_process_world(primary_ctx):
    if not nccl.available():
        pytest.skip("libnccl.so.2 could not be loaded on this machine")
    MPI = pytest.importorskip("mpi4py.MPI")
    world = MPI.COMM_WORLD
    if world.Get_size() != 1:
        pytest.skip("run outside mpirun: the test expects a world of one process")
    comm = nccl.from_mpi(world, device=0)
    assert (comm.rank, comm.size) == (0, 1)
    assert_one_rank_keeps(comm, np.float32, "max")
    comm.destroy()
