"""Sides of the NCCL cases: all-reduce of float32 sums over every GPU of the machine (one rank
per GPU), by gpukit.nccl, CuPy's cupy.cuda.nccl and PyTorch's
torch.distributed (NCCL backend), whichever are installed.

Bandwidth follows nccl-tests: the algorithm bandwidth is the bytes of one buffer over the
time of one all-reduce; the bus bandwidth multiplies it by 2(n-1)/n, what each link carries
with n ranks. One GPU moves nothing over a bus, so there the cases report the algorithm
bandwidth. The latency case times 8-byte all-reduces. Every side runs on buffers of its own
(out of place; PyTorch's all_reduce only works in place), queues `calls` all-reduces and
waits for all GPUs once per sample. gpukit and CuPy drive every GPU from this process (a
group of calls, one per communicator); PyTorch, which drives one GPU per process, runs in
one process per GPU started for the side, timed by rank 0 after a barrier."""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from gpukit.bench.gpu import synchronize
from gpukit.bench.harness import Unavailable

#: Buffer sizes of the bandwidth cases, in bytes.
SIZES = [64 << 10, 1 << 20, 16 << 20, 256 << 20, 1 << 30]
LATENCY_BYTES = 8


def device_count():
    import gpukit.driver as drv
    if not drv.driver_available() or drv.Device.count() == 0:
        raise Unavailable("no CUDA device")
    return drv.Device.count()


def bus_factor(n):
    """nccl-tests' all-reduce bus bandwidth factor; 1 (the algorithm bandwidth) on one GPU."""
    return 2 * (n - 1) / n if n > 1 else 1.0


def _calls(nbytes, settings):
    """All-reduces per sample: enough to outlast the launch and wait costs."""
    many = 20 if settings["quick"] else 200
    return max(1, min(many, (64 << 20) // max(nbytes, 1)))


#: Seconds of calls before the first sample: NCCL connects each algorithm on first use, and
#: an idle GPU takes some milliseconds of work to reach its clocks (one round of calls was
#: not enough: a side's first samples of 64 KiB ran at a third of its last ones).
WARM_UP_SECONDS = 0.25


def _warm_up(run_calls, wait):
    start = time.perf_counter()
    while True:
        run_calls()
        wait()
        if time.perf_counter() - start >= WARM_UP_SECONDS:
            return


def _samples(run_calls, wait, calls, settings):
    _warm_up(run_calls, wait)
    samples = []
    for _ in range(settings["repeats"]):
        start = time.perf_counter()
        run_calls()
        wait()
        samples.append((time.perf_counter() - start) / calls)
    return samples


def _measure(nbytes, settings, latency, seconds_of):
    """Samples of one side: seconds per all-reduce (latency) or bus bandwidth in bytes per
    second. seconds_of(n, count, calls, settings) -> seconds per all-reduce, one a repeat."""
    n = device_count()
    count = max(nbytes // 4, 1)
    seconds = seconds_of(n, count, _calls(nbytes, settings), settings)
    if latency:
        return seconds
    return [count * 4 / s * bus_factor(n) for s in seconds]


def _in_process(setup):
    """seconds_of for a side that drives every GPU from this process: setup(n, count, calls)
    -> (run_calls, wait)."""
    def seconds_of(n, count, calls, settings):
        run_calls, wait = setup(n, count, calls)
        return _samples(run_calls, wait, calls, settings)
    return seconds_of


def _gpukit_setup(n, count, calls):
    import gpukit.driver as drv
    import gpukit.gpuarray as gpuarray
    import gpukit.nccl as nccl
    if not nccl.available():
        raise Unavailable("libnccl.so.2 could not be loaded")
    contexts = [drv.Device(k).retain_primary_context() for k in range(n)]
    buffers = []
    for context in contexts:
        context.push()
        buffers.append((gpuarray.to_gpu(np.ones(count, np.float32)), gpuarray.empty(count, np.float32)))
        drv.Context.pop()
    comms = nccl.Communicator.init_all(list(range(n)))

    def run_calls():
        for _ in range(calls):
            if n == 1:
                comms[0].all_reduce(*buffers[0])
            else:
                with nccl.group():
                    for comm, (send, recv) in zip(comms, buffers):
                        comm.all_reduce(send, recv)

    return run_calls, lambda: synchronize(*contexts)


def _cupy_setup(n, count, calls):
    try:
        import cupy as cp
        from cupy.cuda import nccl
    except ImportError:
        raise Unavailable("CuPy (with cupy.cuda.nccl) is not installed") from None
    if not nccl.available:
        raise Unavailable("CuPy was built without NCCL")
    buffers = []
    for k in range(n):
        with cp.cuda.Device(k):
            buffers.append((cp.ones(count, cp.float32), cp.empty(count, cp.float32)))
    comms = nccl.NcclCommunicator.initAll(list(range(n)))

    def run_calls():
        for _ in range(calls):
            if n > 1:
                nccl.groupStart()
            for comm, (send, recv) in zip(comms, buffers):
                comm.allReduce(send.data.ptr, recv.data.ptr, count, nccl.NCCL_FLOAT32, nccl.NCCL_SUM,
                               cp.cuda.get_current_stream().ptr)
            if n > 1:
                nccl.groupEnd()

    def wait():
        for k in range(n):
            cp.cuda.Device(k).synchronize()

    return run_calls, wait


# One rank of the PyTorch side: torch.distributed drives one GPU per process, so the side
# starts one process per GPU. The ranks meet at a barrier before each sample; rank 0's
# samples (seconds per all-reduce) come back as JSON.
_TORCH_RANK = """
import json, sys, time
import torch
import torch.distributed as dist
rank, n, store_path, count, calls, repeats, warm_up, out = sys.argv[1:]
rank, n, count, calls, repeats, warm_up = int(rank), int(n), int(count), int(calls), int(repeats), float(warm_up)
torch.cuda.set_device(rank)
dist.init_process_group("nccl", store=dist.FileStore(store_path, n), rank=rank, world_size=n)
buffer = torch.ones(count, dtype=torch.float32, device=f"cuda:{rank}")
def run_calls():
    for _ in range(calls):
        dist.all_reduce(buffer)  # in place only
start = time.perf_counter()
while time.perf_counter() - start < warm_up:  # as the other sides warm up
    run_calls()
    torch.cuda.synchronize()
samples = []
for _ in range(repeats):
    dist.barrier()
    torch.cuda.synchronize()
    start = time.perf_counter()
    run_calls()
    torch.cuda.synchronize()
    samples.append((time.perf_counter() - start) / calls)
if rank == 0:
    with open(out, "w") as f:
        json.dump(samples, f)
dist.destroy_process_group()
"""


def _torch_seconds(n, count, calls, settings):
    """Seconds per all-reduce, one sample per repeat, from n processes of one GPU each."""
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        raise Unavailable("PyTorch is not installed") from None
    if not torch.cuda.is_available() or not dist.is_nccl_available():
        raise Unavailable("this PyTorch has no CUDA or no NCCL backend")
    with tempfile.TemporaryDirectory(prefix="gpukit-bench-") as folder:
        out = os.path.join(folder, "samples.json")
        args = [os.path.join(folder, "store"), str(count), str(calls), str(settings["repeats"]),
                str(WARM_UP_SECONDS), out]
        ranks = [subprocess.Popen([sys.executable, "-c", _TORCH_RANK, str(rank), str(n), *args],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for rank in range(n)]
        outputs = [rank.communicate(timeout=600)[0] for rank in ranks]
        failed = [(k, rank.returncode) for k, rank in enumerate(ranks) if rank.returncode != 0]
        if failed:
            k, code = failed[0]
            raise RuntimeError(f"the PyTorch side's rank {k} exited with {code}: {outputs[k].strip()[-400:]}")
        with open(out) as f:
            return json.load(f)


def gpukit_side(nbytes, latency=False):
    return lambda settings: _measure(nbytes, settings, latency, _in_process(_gpukit_setup))


def cupy_side(nbytes, latency=False):
    return lambda settings: _measure(nbytes, settings, latency, _in_process(_cupy_setup))


def torch_side(nbytes, latency=False):
    def run(settings):
        if not latency and device_count() == 1:
            raise Unavailable("on one GPU PyTorch's all-reduce, in place only, moves nothing, while the other "
                              "sides copy their buffer (out of place): no bandwidth to compare")
        return _measure(nbytes, settings, latency, _torch_seconds)
    return run


def size_text(nbytes):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift:
            return f"{nbytes >> shift} {unit}"
    return f"{nbytes} B"
