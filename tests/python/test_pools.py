"""gpukit.tools.DeviceMemoryPool and PageLockedMemoryPool on a real GPU, and the driver's
occupancy queries against gpukit's OccupancyRecord."""

import subprocess
import sys
import threading

import numpy as np
import pytest

import gpukit.driver as drv
from gpukit import tools
from gpukit.compiler import SourceModule

pytestmark = pytest.mark.gpu


def test_device_pool_bins_and_reuse(ctx):
    pool = tools.DeviceMemoryPool()
    a = pool.allocate(1 << 20)
    assert len(a) == 1 << 20 and int(a) != 0
    address = int(a)
    assert (pool.active_blocks, pool.held_blocks, pool.active_bytes) == (1, 0, 1 << 20)
    a.free()
    assert (pool.active_blocks, pool.held_blocks) == (0, 1)
    b = pool.allocate((1 << 20) + 100)  # the same bin (1 MiB up to 1 MiB + 64 KiB - 1): the same block
    assert int(b) == address
    assert pool.stats()["hits"] == 1
    assert pool.bin_number(1 << 20) == pool.bin_number((1 << 20) + 100) != pool.bin_number((1 << 20) - 100)
    assert pool.alloc_size(pool.bin_number(1 << 20)) == (1 << 20) + (1 << 16) - 1
    del b
    assert pool.held_blocks == 1
    pool.free_held()
    assert (pool.held_blocks, pool.managed_bytes) == (0, 0)
    c = pool.allocate(4096)
    c.free()
    c.free()  # a second free is harmless and changes nothing
    assert pool.held_blocks == 1 and pool.active_blocks == 0
    pool.stop_holding()
    assert pool.held_blocks == 0
    d = pool.allocate(4096)
    d.free()
    assert pool.held_blocks == 0  # after stop_holding, freed blocks go straight back


def test_pooled_memory_is_a_device_pointer(ctx):
    pool = tools.DeviceMemoryPool()
    data = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    block = pool.allocate(data.nbytes)
    drv.memcpy_htod(block, data)
    scale = SourceModule(
        "__global__ void scale(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
        " if (i < n) a[i] *= 3; }"
    ).get_function("scale")
    scale(block, np.int32(data.size), block=(256, 1, 1), grid=(4, 1))
    out = np.empty_like(data)
    drv.memcpy_dtoh(out, block)
    np.testing.assert_array_equal(out, data * 3)
    with pytest.raises(drv.LogicError):
        drv.memcpy_htod(block, np.zeros(2000, np.float32))  # larger than the block
    block.free()
    with pytest.raises(drv.LogicError, match="freed"):
        drv.memcpy_htod(block, data)


def test_max_held_bytes_and_stats(ctx):
    pool = tools.DeviceMemoryPool()
    pool.max_held_bytes = 1 << 20
    blocks = [pool.allocate(1 << 19) for _ in range(4)]
    del blocks
    assert pool.held_bytes <= 1 << 20
    pool.max_held_bytes = None
    assert pool.max_held_bytes is None
    stats = pool.stats()
    assert stats["misses"] == 4 and stats["releases"] >= 2


def test_device_pool_threads(ctx):
    pool = tools.DeviceMemoryPool()
    handed_over = []
    errors = []

    def worker(seed):
        try:
            ctx.push()
            rng = np.random.default_rng(seed)
            for _ in range(300):
                block = pool.allocate(int(rng.integers(1, 1 << 16)))
                if rng.random() < 0.2:
                    handed_over.append(block)  # freed later, by another thread
            drv.Context.pop()
        except Exception as e:  # reported below, in the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert pool.active_blocks == len(handed_over)
    handed_over.clear()
    assert pool.active_blocks == 0 and pool.active_bytes == 0


def test_pagelocked_pool(ctx):
    pool = tools.PageLockedMemoryPool()
    a = pool.allocate((100, 3), np.float64)
    assert isinstance(a.base, tools.PooledHostAllocation)
    assert a.shape == (100, 3) and a.flags.c_contiguous
    f = pool.allocate((5, 7), np.int32, order="F")
    assert f.flags.f_contiguous
    a[:] = np.random.default_rng(1).standard_normal((100, 3))
    device = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(device, a)
    back = pool.allocate((100, 3), np.float64)
    drv.memcpy_dtoh(back, device)
    np.testing.assert_array_equal(back, a)
    with pytest.raises(drv.LogicError, match="still use"):
        a.base.free()
    address = a.base.ptr
    del a
    assert pool.held_blocks >= 1
    again = pool.allocate((100, 3), np.float64)
    assert again.base.ptr == address
    assert pool.allocate(0, np.float32).size == 0
    with pytest.raises(ValueError, match="negative"):
        pool.allocate((3, -1), np.float32)
    allocator = tools.PageLockedAllocator(drv.host_alloc_flags.PORTABLE)
    assert tools.PageLockedMemoryPool(allocator).allocate(10, np.uint8).base is not None


def test_pools_need_a_context():
    from conftest import drain_context_stack

    drain_context_stack()
    with pytest.raises(drv.LogicError, match="current CUDA context"):
        tools.DeviceMemoryPool()
    with pytest.raises(drv.LogicError, match="current CUDA context"):
        tools.PageLockedAllocator()


def test_exit_with_blocks_held_and_active():
    code = (
        "import gpukit.autoinit, numpy as np\n"
        "from gpukit import tools\n"
        "pool = tools.DeviceMemoryPool()\n"
        "held = pool.allocate(1 << 20); held.free()\n"
        "active = pool.allocate(1 << 22)\n"
        "hp = tools.PageLockedMemoryPool(); arr = hp.allocate((1000,), np.float32)\n"
        "import builtins; builtins.keep = (pool, active, arr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr.lower() and "abort" not in proc.stderr.lower(), proc.stderr


OCCUPANCY_SOURCE = r"""
__global__ void light(float *a) { a[threadIdx.x] += 1.0f; }

__global__ void __launch_bounds__(256) heavy(float *a, int n)
{
    // Many values live at once, so the compiler needs many registers.
    float v[48];
    for (int k = 0; k < 48; ++k) v[k] = a[(threadIdx.x * 7 + k * 13) % n];
    float s = 0;
    for (int r = 0; r < 8; ++r)
        for (int k = 0; k < 48; ++k) s += v[k] * v[(k + r) % 48];
    a[threadIdx.x] = s;
}

__global__ void shared_hungry(float *a)
{
    __shared__ float tile[8192];  // 32 KiB
    tile[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}
"""


@pytest.mark.parametrize("kernel", ["light", "heavy", "shared_hungry"])
@pytest.mark.parametrize("threads", [32, 128, 256])
def test_occupancy_record_matches_the_driver(ctx, kernel, threads):
    f = SourceModule(OCCUPANCY_SOURCE).get_function(kernel)
    record = tools.OccupancyRecord(tools.DeviceData(), threads, shared_mem=f.shared_size_bytes, registers=f.num_regs)
    assert record.tb_per_mp == tools.max_active_blocks_per_multiprocessor(f, threads), (
        kernel,
        threads,
        f.num_regs,
        f.shared_size_bytes,
        record.limited_by,
    )
    min_grid, block = tools.max_potential_block_size(f)
    assert min_grid > 0 and 0 < block <= f.max_threads_per_block
    with pytest.raises(drv.LogicError):
        tools.max_active_blocks_per_multiprocessor(f, 0)


def test_a_pool_uses_its_own_bin_layout(ctx):
    coarse, fine = tools.DeviceMemoryPool(leading_bits_in_bin_id=1), tools.DeviceMemoryPool(leading_bits_in_bin_id=6)
    # 1000 = 0b1111101000: the largest size sharing its leading 1 + 1 bits is 0b1111111111 = 1023,
    # sharing 1 + 6 bits 0b1111101111 = 1007 (PyCUDA's values).
    assert (coarse.bin_number(1000), coarse.alloc_size(coarse.bin_number(1000))) == (19, 1023)
    assert (fine.bin_number(1000), fine.alloc_size(fine.bin_number(1000))) == (637, 1007)
    assert tools.DeviceMemoryPool.alloc_size(tools.DeviceMemoryPool.bin_number(1000)) == 1023  # the default: 4
