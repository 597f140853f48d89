"""One rank of the multi-process jobs of test_nccl_ranks.py, one process per GPU, started by
mpiexec or by gpukit.bench.ranks.launch():

    python nccl_rank_job.py OUT_DIR

It joins a communicator with gpukit.nccl.from_mpi over MPI's COMM_WORLD or the launch's
FileComm, runs every collective on gpukit arrays, splits, checks agreement on purpose-made
disagreements and, under a CUDA-aware MPI, sends a gpukit array with mpi4py itself; it writes
what it received to OUT_DIR/rank<r>.json, where the test compares it with numpy. Inputs are
known to every rank: rank r holds inputs(r, n). An exception is written there too."""

import json
import os
import sys
import traceback

import numpy as np

from gpukit.bench import ranks

PART = 6  # elements per rank's part


def inputs(rank, n):
    return np.arange(PART * n, dtype=np.int64) * (rank + 1) + rank


def error_text(call):
    """What `call()` raised, as 'TypeName: message', or None when it returned."""
    try:
        call()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return None


def collectives(comm, rank, n, result):
    import gpukit.driver as drv
    import gpukit.gpuarray as gpuarray
    import gpukit.nccl as nccl

    x = gpuarray.to_gpu(inputs(rank, n))
    out = gpuarray.zeros(PART * n, np.int64)
    comm.all_reduce(x, out)
    result["all_reduce"] = out.get().tolist()
    gathered = gpuarray.zeros(PART * n * n, np.int64)
    comm.all_gather(x, gathered)
    result["all_gather"] = gathered.get().tolist()
    part = gpuarray.zeros(PART, np.int64)
    comm.reduce_scatter(x, part, op="max")
    result["reduce_scatter"] = part.get().tolist()
    b = gpuarray.to_gpu(inputs(rank, n))
    comm.broadcast(b, root=n - 1)
    result["broadcast"] = b.get().tolist()
    reduced = gpuarray.zeros(PART * n, np.int64)
    comm.reduce(x, reduced, root=0, op="min")
    result["reduce"] = reduced.get().tolist()
    ring = gpuarray.zeros(PART * n, np.int64)
    with nccl.group():
        comm.send(x, (rank + 1) % n)
        comm.recv(ring, (rank - 1) % n)
    result["ring"] = ring.get().tolist()
    stream = drv.Stream()
    f = gpuarray.to_gpu(np.full(1000, rank + 1, np.float32))
    comm.all_reduce(f, stream=stream)
    stream.synchronize()
    result["float32_on_a_stream"] = float(f.get()[0]), float(f.get()[-1])
    # One process per rank needs no group for a split; in one, NCCL makes it at the end.
    with nccl.group():
        half = comm.split(rank % 2)
        result["split_pending_in_group"] = half.is_pending
    result["split"] = [half.rank, half.size]
    h = gpuarray.to_gpu(inputs(rank, n))
    half.all_reduce(h)
    result["split_all_reduce"] = h.get().tolist()
    half.destroy()


def disagreements(comm, rank, n, result):
    """With check_agreement on: ranks that disagree get a ValueError each, none hangs."""
    import gpukit.gpuarray as gpuarray

    comm.check_agreement = True
    sizes = gpuarray.zeros(1000 if rank == 0 else 500, np.float32)
    result["disagreeing_sizes"] = error_text(lambda: comm.all_reduce(sizes))
    types = gpuarray.zeros(64, np.float32 if rank == 0 else np.float64)
    result["disagreeing_dtypes"] = error_text(lambda: comm.all_gather(types, gpuarray.zeros(64 * n, types.dtype)))
    roots = gpuarray.zeros(8, np.int32)
    result["disagreeing_roots"] = error_text(lambda: comm.broadcast(roots, root=rank))
    # Rank 1 passes buffers its own checks refuse; the others learn of it instead of waiting.
    send = gpuarray.zeros(16, np.float32)
    recv = gpuarray.zeros(16, np.int32 if rank == 1 else np.float32)
    result["refused_by_one_rank"] = error_text(lambda: comm.all_reduce(send, recv))
    after = gpuarray.to_gpu(np.full(8, rank + 1, np.float32))
    comm.all_reduce(after)  # the communicator works on
    result["after_disagreements"] = after.get().tolist()
    comm.check_agreement = False


def mpi_send_recv(world, rank, result):
    """mpi4py's own Send/Recv of a gpukit array, where the MPI is CUDA-aware."""
    import gpukit.driver as drv
    import gpukit.gpuarray as gpuarray
    from mpi4py import MPI

    result["mpi_library"] = MPI.Get_library_version().strip().splitlines()[0]
    result["mpi_cuda_aware"] = ranks.mpi_cuda_support()
    if not result["mpi_cuda_aware"]:
        return
    x = gpuarray.to_gpu(inputs(rank, 2))
    drv.Context.synchronize()  # MPI reads the memory itself: the copy must be done
    if rank == 0:
        world.Send(x, dest=1, tag=7)
    elif rank == 1:
        got = gpuarray.zeros_like(x)
        world.Recv(got, source=0, tag=7)
        result["mpi_recv"] = got.get().tolist()


def main(out_dir):
    world, device = ranks.world()
    rank, n = world.Get_rank(), world.Get_size()
    result = {"rank": rank, "size": n, "device": device, "under_mpi": ranks.under_mpi()}
    expected = int(os.environ.get("GPUKIT_TEST_RANKS", n))
    try:
        if n != expected:  # mpiexec of another MPI than mpi4py's starts singletons
            result["error"] = (
                f"this rank sees a world of {n} processes where {expected} were started: the "
                "launcher belongs to another MPI than the one mpi4py loaded"
            )
            return 0
        import gpukit.driver as drv
        import gpukit.nccl as nccl

        drv.init()
        context = drv.Device(device).retain_primary_context()
        context.push()
        try:
            comm = nccl.from_mpi(world, device=device)
            collectives(comm, rank, n, result)
            if n >= 2:
                disagreements(comm, rank, n, result)
            if ranks.under_mpi() and n >= 2:
                mpi_send_recv(world, rank, result)
            comm.destroy()
        finally:
            import gpukit.gpuarray as gpuarray

            gpuarray.release_default_pools()
            drv.Context.pop()
        return 0
    except Exception:
        result["error"] = traceback.format_exc()
        return 1
    finally:
        with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
