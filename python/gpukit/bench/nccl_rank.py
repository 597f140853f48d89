"""One rank of an NCCL benchmark side (see bench/nccl.py), started by ranks.launch():

    python -m gpukit.bench.nccl_rank SIDE PLAN.json OUT_DIR

SIDE is gpukit, cupy or torch; PLAN.json holds the measurements ([collective, bytes] pairs),
the repeats and the quick flag. The rank writes OUT_DIR/rank<r>.jsonl: a line describing
itself, then one line per measurement as soon as it is done (so a run cut short keeps what
finished). A rank whose side's library is missing prints nccl.UNAVAILABLE and the reason and
exits with nccl.UNAVAILABLE_STATUS.

Each side is three things: a communicator over the ranks (bootstrapped through the launch's
FileComm), prepare() returning a call of one collective on fresh zeroed buffers (zeros stay
zeros, in place too), and sync() waiting for the GPU. Everything else is shared.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from gpukit.bench import nccl, ranks
from gpukit.bench.harness import Unavailable

if TYPE_CHECKING:
    from gpukit.bench.ranks import Comm
    from gpukit.gpuarray import GPUArray


class RankSide(Protocol):
    """What main() uses of a side (GpukitSide, CupySide, TorchSide)."""

    #: The libraries' versions, for the rank's first line.
    about: dict[str, object]

    def prepare(self, collective: str, count: int, send_n: int, recv_n: int) -> Callable[[], object]: ...
    def sync(self) -> None: ...
    def barrier(self) -> None: ...
    def close(self) -> None: ...


class GpukitSide:
    def __init__(self, world: Comm, device: int, n: int) -> None:
        import gpukit
        import gpukit.driver as drv
        import gpukit.gpuarray as gpuarray
        import gpukit.nccl as gnccl

        if not gnccl.available():
            raise Unavailable("libnccl.so.2 could not be loaded")
        self.drv, self.gpuarray, self.nccl = drv, gpuarray, gnccl
        drv.init()
        self.context = drv.Device(device).retain_primary_context()
        self.context.push()
        self.comm = gnccl.from_mpi(world, device=device)
        self.flag: GPUArray | None = gpuarray.zeros(1, np.float32)
        self.about: dict[str, object] = {
            "gpukit": gpukit.__version__,
            "nccl": gnccl.version(),
            "nccl_library": gnccl.library_path(),
        }

    def prepare(self, collective: str, count: int, send_n: int, recv_n: int) -> Callable[[], object]:
        send, recv = self.gpuarray.zeros(send_n, np.float32), self.gpuarray.zeros(recv_n, np.float32)
        # count is implied by the buffers, which gpukit checks on every call, as its users get it.
        return functools.partial(getattr(self.comm, collective), send, recv)

    def sync(self) -> None:
        self.drv.Context.synchronize()

    def barrier(self) -> None:
        self.comm.all_reduce(self.flag)
        self.sync()

    def close(self) -> None:
        self.comm.destroy()
        self.flag = None
        self.gpuarray.release_default_pools()
        self.drv.Context.pop()


class CupySide:
    def __init__(self, world: Comm, device: int, n: int) -> None:
        try:
            import cupy as cp  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, and has no type information
            from cupy.cuda import nccl as cnccl  # type: ignore[import-not-found, import-untyped, unused-ignore]  # as above
        except ImportError:
            raise Unavailable("CuPy (with cupy.cuda.nccl) is not installed") from None
        if not cnccl.available:
            raise Unavailable("CuPy was built without NCCL")
        self.cp, self.cnccl = cp, cnccl
        cp.cuda.Device(device).use()
        unique_id = world.bcast(cnccl.get_unique_id() if world.Get_rank() == 0 else None, root=0)
        self.comm = cnccl.NcclCommunicator(n, unique_id, world.Get_rank())
        self.stream: int = cp.cuda.get_current_stream().ptr
        self.flag = cp.zeros(1, cp.float32)
        self.about: dict[str, object] = {"cupy": cp.__version__, "nccl": cnccl.get_version()}

    def prepare(self, collective: str, count: int, send_n: int, recv_n: int) -> Callable[[], object]:
        cp, c = self.cp, self.cnccl
        self.buffers = (cp.zeros(send_n, cp.float32), cp.zeros(recv_n, cp.float32))  # alive while in use
        s, r = (b.data.ptr for b in self.buffers)
        if collective == "all_reduce":
            return functools.partial(self.comm.allReduce, s, r, count, c.NCCL_FLOAT32, c.NCCL_SUM, self.stream)
        if collective == "all_gather":
            return functools.partial(self.comm.allGather, s, r, count, c.NCCL_FLOAT32, self.stream)
        if collective == "reduce_scatter":
            return functools.partial(self.comm.reduceScatter, s, r, count, c.NCCL_FLOAT32, c.NCCL_SUM, self.stream)
        return functools.partial(self.comm.broadcast, s, r, count, c.NCCL_FLOAT32, 0, self.stream)

    def sync(self) -> None:
        self.cp.cuda.Device().synchronize()

    def barrier(self) -> None:
        c = self.cnccl
        self.comm.allReduce(self.flag.data.ptr, self.flag.data.ptr, 1, c.NCCL_FLOAT32, c.NCCL_SUM, self.stream)
        self.sync()

    def close(self) -> None:
        self.comm.destroy()


class TorchSide:
    def __init__(self, world: Comm, device: int, n: int) -> None:
        try:
            import torch  # type: ignore[import-not-found, unused-ignore]  # optional, typed where installed
            import torch.distributed as dist  # type: ignore[import-not-found, unused-ignore]  # as above
        except ImportError:
            raise Unavailable("PyTorch is not installed") from None
        if not torch.cuda.is_available() or not dist.is_nccl_available():
            raise Unavailable("this PyTorch has no CUDA or no NCCL backend")
        self.torch, self.dist = torch, dist
        torch.cuda.set_device(device)
        self.device = torch.device("cuda", device)
        store = world.bcast(
            os.path.join(tempfile.mkdtemp(prefix="gpukit-torch-"), "store") if world.Get_rank() == 0 else None, root=0
        )
        dist.init_process_group("nccl", store=dist.FileStore(store, n), rank=world.Get_rank(), world_size=n)
        self.flag = torch.zeros(1, device=self.device)
        version = torch.cuda.nccl.version()  # a tuple in recent PyTorch, an int in old ones
        self.about: dict[str, object] = {
            "torch": torch.__version__,
            "nccl": ".".join(map(str, version)) if isinstance(version, tuple) else version,
        }

    def prepare(self, collective: str, count: int, send_n: int, recv_n: int) -> Callable[[], object]:
        zeros = functools.partial(self.torch.zeros, dtype=self.torch.float32, device=self.device)
        dist = self.dist
        if collective == "all_reduce":  # in place only
            return functools.partial(dist.all_reduce, zeros(count))
        if collective == "broadcast":  # in place only
            return functools.partial(dist.broadcast, zeros(count), 0)
        send, recv = zeros(send_n), zeros(recv_n)
        if collective == "all_gather":
            return functools.partial(dist.all_gather_into_tensor, recv, send)
        return functools.partial(dist.reduce_scatter_tensor, recv, send)

    def sync(self) -> None:
        self.torch.cuda.synchronize()

    def barrier(self) -> None:
        self.dist.all_reduce(self.flag)
        self.sync()

    def close(self) -> None:
        self.dist.destroy_process_group()


SIDE_CLASSES: dict[str, Callable[[Comm, int, int], RankSide]] = {
    "gpukit": GpukitSide,
    "cupy": CupySide,
    "torch": TorchSide,
}


def warm_up(side: RankSide, quick: bool) -> None:
    """Wakes the GPU and NCCL up before the first measurement: the same calls on every rank."""
    call = side.prepare("all_reduce", 2, 2, 2)
    for _ in range(500 if quick else 4000):
        call()
    big = nccl.counts("all_reduce", 16 << 20, 1)[0]
    call = side.prepare("all_reduce", big, big, big)
    for _ in range(20):
        call()
    side.sync()


def measure(
    side: RankSide, collective: str, nbytes: int, n: int, repeats: int, quick: bool
) -> tuple[list[float], int, int]:
    """Seconds per call of this rank, one per repeat."""
    count, send_n, recv_n, size = nccl.counts(collective, nbytes, n)
    call = side.prepare(collective, count, send_n, recv_n)
    calls = nccl.calls_per_repeat(size, quick)
    for _ in range(nccl.WARM_UP_REPEATS * calls):
        call()
    side.sync()
    seconds = []
    for _ in range(repeats):
        side.barrier()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        side.sync()
        seconds.append((time.perf_counter() - start) / calls)
    return seconds, calls, size


def main(argv: Sequence[str]) -> int:
    side_name, plan_path, out_dir = argv
    with open(plan_path) as f:
        plan: dict[str, Any] = json.load(f)  # the plan nccl.run_side() wrote
    world, device = ranks.world()
    rank, n = world.Get_rank(), world.Get_size()
    try:
        side = SIDE_CLASSES[side_name](world, device, n)
    except Unavailable as why:
        print(f"{nccl.UNAVAILABLE}{why}", flush=True)
        return nccl.UNAVAILABLE_STATUS
    with open(os.path.join(out_dir, f"rank{rank}.jsonl"), "w", buffering=1) as out:
        out.write(json.dumps({"side": side_name, "rank": rank, "ranks": n, "versions": side.about}) + "\n")
        warm_up(side, plan["quick"])
        for collective, nbytes in plan["measurements"]:
            seconds, calls, size = measure(side, collective, nbytes, n, plan["repeats"], plan["quick"])
            out.write(
                json.dumps(
                    {"collective": collective, "nbytes": nbytes, "bytes": size, "calls": calls, "seconds": seconds}
                )
                + "\n"
            )
    side.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
