"""Faults seen from Python on a real device: a kernel that faults loses its context but not
the process, and a new context works; real out-of-memory is a MemoryError and leaves the
device usable. (Faults injected at every driver entry point are tests/cpp/cuda/test_faults.cpp.)"""
import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray

from conftest import run_in_fresh_process

pytestmark = pytest.mark.gpu


def test_a_faulting_kernel_loses_its_context_not_the_process():
    out = run_in_fresh_process("""
        import numpy as np
        import gpukit.driver as drv
        import gpukit.gpuarray as gpuarray
        from gpukit.compiler import SourceModule

        context = drv.Device(0).make_context()
        bad = SourceModule("__global__ void bad(int *p) { *(volatile int *)0 = 1; }").get_function("bad")
        bad(np.intp(0), block=(1, 1, 1))
        try:
            drv.Context.synchronize()
            raise SystemExit("the fault was not reported")
        except drv.LaunchError as e:
            print("fault:", e.routine)
        drv.Context.pop()
        context.detach()

        fresh = drv.Device(0).make_context()
        a = gpuarray.to_gpu(np.arange(1000, dtype=np.float32))
        assert ((2 * a).get() == 2 * np.arange(1000)).all()
        drv.Context.pop()
        fresh.detach()
        print("new context works")
        """)
    assert "fault:" in out and "new context works" in out


def test_out_of_device_memory_is_a_memory_error_and_the_device_stays_usable(ctx):
    free, total = drv.mem_get_info()
    with pytest.raises(drv.MemoryError, match="out of memory"):
        drv.mem_alloc(2 * total)
    with pytest.raises(drv.MemoryError):
        gpuarray.empty(2 * total, np.uint8)
    a = gpuarray.to_gpu(np.ones(1 << 20, np.float32))
    assert gpuarray.sum(a).get() == 1 << 20
    assert drv.mem_get_info()[0] > free // 2  # the failed requests left nothing allocated
