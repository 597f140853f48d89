"""Faults seen from Python on a real device: a kernel that faults loses its context but not
the process (the process goes on with clean errors); real out-of-memory is a MemoryError and leaves the
device usable. (Faults injected at every driver entry point are tests/cpp/cuda/test_faults.cpp.)"""

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.gpuarray as gpuarray

from conftest import run_in_fresh_process

pytestmark = pytest.mark.gpu


def test_a_faulting_kernel_loses_its_context_not_the_process():
    # Driver 580 keeps the device unusable for the rest of a process after an illegal
    # address (even a new context is refused); the process must go on with clean errors,
    # exit as it chooses, and a new process must find the device working.
    out = run_in_fresh_process(
        """
        import numpy as np
        import gpukit.driver as drv
        import gpukit.gpuarray as gpuarray
        from gpukit.compiler import SourceModule

        context = drv.Device(0).make_context()
        a = gpuarray.to_gpu(np.arange(1000, dtype=np.float32))
        bad = SourceModule("__global__ void bad(int *p) { *(volatile int *)0 = 1; }").get_function("bad")
        bad(np.intp(0), block=(1, 1, 1))
        try:
            drv.Context.synchronize()
            raise SystemExit("the fault was not reported")
        except drv.LaunchError as e:
            print("fault:", e.routine)
        for later in (lambda: a.get(), lambda: 2 * a, lambda: drv.mem_alloc(1024)):
            try:
                later()
                raise SystemExit("a call in the faulted context succeeded")
            except drv.Error as e:
                print("then:", type(e).__name__)
        drv.Context.pop()
        context.detach()
        del a, bad
        try:
            fresh = drv.Device(0).make_context()
            b = gpuarray.to_gpu(np.arange(1000, dtype=np.float32))
            assert ((2 * b).get() == 2 * np.arange(1000)).all()
            drv.Context.pop()
            fresh.detach()
            print("a new context works")
        except drv.LaunchError as e:
            assert "ILLEGAL_ADDRESS" in str(e), e
            print("a new context is refused")
        raise SystemExit(3)
        """,
        expect_returncode=3,
    )
    assert "fault:" in out and out.count("then: ") == 3
    assert "a new context works" in out or "a new context is refused" in out
    out = run_in_fresh_process("""
        import numpy as np
        import gpukit.autoinit
        import gpukit.gpuarray as gpuarray
        print((2 * gpuarray.to_gpu(np.arange(10.0))).get().sum())
        """)
    assert out.strip() == "90.0"


def test_out_of_device_memory_is_a_memory_error_and_the_device_stays_usable(ctx):
    free, total = drv.mem_get_info()
    with pytest.raises(drv.MemoryError, match="out of memory"):
        drv.mem_alloc(2 * total)
    with pytest.raises(drv.MemoryError):
        gpuarray.empty(2 * total, np.uint8)
    a = gpuarray.to_gpu(np.ones(1 << 20, np.float32))
    assert gpuarray.sum(a).get() == 1 << 20
    assert drv.mem_get_info()[0] > free // 2  # the failed requests left nothing allocated
