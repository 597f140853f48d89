"""Contexts go away when the program lets them go, whatever ran in them: nothing gpukit
keeps for its own use (default memory pools, loaded kernels, staging buffers) keeps a
context alive (issue: PyCUDA's per-test pattern of make context, use, pop, clear caches)."""

import os
import time
import warnings

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
import gpukit.tools as tools
from gpukit.compiler import SourceModule

from conftest import drain_context_stack

pytestmark = pytest.mark.gpu

MiB = 1 << 20
# Cycles of the churn tests; GPUKIT_CONTEXT_CHURN_CYCLES may lower it for a quick run.
CYCLES = int(os.environ.get("GPUKIT_CONTEXT_CHURN_CYCLES", "1000"))

KERNEL = """
__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
"""


def use_context():
    """What a typical test does in its context: array arithmetic and a reduction (default
    pool, cached array kernels, a staged copy), a SourceModule launch and a user pool."""
    host = np.arange(1 << 18, dtype=np.float32)
    a = gpuarray.to_gpu(host)
    b = 2 * a + a
    np.testing.assert_array_equal(b.get()[[0, 1, 7, -1]], 3 * host[[0, 1, 7, -1]])
    assert gpuarray.sum(a).get() == host.astype(np.float64).sum()
    add_one = SourceModule(KERNEL).get_function("add_one")
    add_one(a, np.int32(a.size), block=(256, 1, 1), grid=((a.size + 255) // 256, 1))
    assert a.get()[5] == 6.0
    pool = tools.DeviceMemoryPool()
    block = pool.allocate(4 * MiB)
    drv.memset_d8(block, 0, 4 * MiB)
    block.free()


def churn(release, cycles):
    """Free device memory at the start of each cycle of: make a context, use it, pop or
    detach it, clear the caches, drop it."""
    drain_context_stack()
    free = []
    for _ in range(cycles):
        ctx = tools.make_default_context()
        free.append(drv.mem_get_info()[0])
        use_context()
        release(ctx)
        tools.clear_context_caches()
        del ctx
    return free


def pop(ctx):
    ctx.pop()


def detach(ctx):
    ctx.detach()


def least_loss(measure, tolerated, attempts=3):
    """The smallest loss of up to `attempts` runs of `measure()` (which returns bytes lost and
    a description), stopping at the first within `tolerated()`. The device's free memory also
    moves with other processes' allocations (parallel test workers hold GiBs for seconds at a
    time): what this process leaks is lost in every attempt, another process's comes and goes.
    A measurement taken again is reported as a warning (the parallel run's summary shows it),
    since each attempt of a churn test costs minutes there."""
    losses, seconds = [], []
    for _ in range(attempts):
        start = time.monotonic()
        losses.append(measure())
        seconds.append(time.monotonic() - start)
        if losses[-1][0] < tolerated():
            break
    if len(losses) > 1:
        attempts_text = "; ".join(f"{text} in {s:.0f} s" for (_, text), s in zip(losses, seconds))
        warnings.warn(f"measured {len(losses)} times: {attempts_text}", stacklevel=2)
    return min(losses)


@pytest.mark.long_running
@pytest.mark.parametrize("release", [pop, detach], ids=["pop", "detach"])
def test_context_churn_keeps_device_memory_flat(release, capsys):
    def measure():
        free = churn(release, CYCLES)
        # The most free at cycles 10-20 (past the warm-up) and at the last ten: memory this
        # process leaks stays lost in every later cycle, another worker's comes and goes.
        first, last = max(free[min(9, CYCLES - 1) : 20]), max(free[-10:])
        with capsys.disabled():
            print(
                f"\ncontext churn ({release.__name__}, {CYCLES} cycles): free device memory "
                f"{first / MiB:.0f} MiB at cycles 10-20, {last / MiB:.0f} MiB at the last 10 of {CYCLES}"
            )
        return first - last, f"{(first - last) / MiB:.0f} MiB lost over {CYCLES} cycles"

    lost, described = least_loss(measure, lambda: 64 * MiB)
    assert lost < 64 * MiB, f"{described}, in each of 3 attempts"


def test_a_given_up_context_is_destroyed_without_clearing_caches():
    """No clear_context_caches(), no release_default_pools(): dropping the program's last
    handle is enough, even after arrays, kernels and pools were used in the context."""
    drain_context_stack()
    primary = drv.Device(0).retain_primary_context()

    def free_bytes():
        primary.push()
        try:
            return drv.mem_get_info()[0]
        finally:
            drv.Context.pop()

    costs = []  # of one context, each time one is made: their median is robust to other processes

    def one_context():
        return float(np.median(costs))

    def measure():
        before = free_bytes()
        for _ in range(4):
            ctx = drv.Device(0).make_context()
            costs.append(before - drv.mem_get_info()[0])
            use_context()
            drv.Context.pop()
            del ctx
        leaked = before - free_bytes()
        return leaked, f"{leaked} bytes not returned"

    leaked, described = least_loss(measure, lambda: one_context() / 2)
    primary.detach()
    if one_context() < 8 * MiB:
        pytest.skip(f"a context costs only {one_context():.0f} bytes of device memory here: too little to see")
    assert leaked < one_context() / 2, f"{described}, in each of 3 attempts; one context costs {one_context():.0f}"


def test_clear_context_caches_keeps_live_contexts_working(ctx):
    a = gpuarray.to_gpu(np.arange(1000, dtype=np.float64))
    np.testing.assert_array_equal((a + a).get(), 2 * np.arange(1000))
    tools.clear_context_caches()
    gpuarray.release_default_pools()
    # Kernels load again, the pool is made again; the array made before keeps its memory.
    np.testing.assert_array_equal((a * 3).get(), 3 * np.arange(1000))
    assert gpuarray.sum(a).get() == np.arange(1000).sum()


def test_context_equality_with_other_objects(ctx):
    assert ctx == drv.Context.get_current()
    assert not ctx != drv.Context.get_current()
    for other in (None, 0, "context", object()):
        assert (ctx == other) is False
        assert (ctx != other) is True
