"""One array program, run on CUDA (gpukit.gpuarray, PyCUDA's names) and on OpenCL
(gpukit.cl.array, PyOpenCL's names), whichever this machine has: only making the arrays
differs. Each result is checked against numpy; the exit status is 1 when one is wrong."""

import sys

import numpy as np


def cuda_backend():
    """(upload, array module, math module) on the first CUDA device, or None."""
    import gpukit.driver as drv

    try:
        drv.init()
        if drv.Device.count() == 0:
            return None
    except (drv.Error, OSError):
        return None
    import gpukit.autoinit  # noqa: F401
    import gpukit.cumath as math
    import gpukit.gpuarray as arrays

    return arrays.to_gpu, arrays, math


def opencl_backend():
    """(upload, array module, math module) on an OpenCL device, or None."""
    import gpukit.cl as cl

    if not cl.available() or not any(p.get_devices() for p in cl.get_platforms()):
        return None
    import gpukit.cl.array as arrays
    import gpukit.cl.clmath as math

    queue = cl.CommandQueue(cl.create_some_context(interactive=False))
    return (lambda host: arrays.to_device(queue, host)), arrays, math


def program(upload, arrays, math):
    """The same code on either backend: a view, math, arithmetic, reductions."""
    x = upload(np.linspace(0, 1, 1001, dtype=np.float32))
    y = 2 * math.sin(x[::-1]) + 1
    return arrays.sum(y).get(), arrays.max(y).get(), y.get()


host = np.linspace(0, 1, 1001, dtype=np.float32)
want = 2 * np.sin(host[::-1]) + 1
ran = []
for name, make in (("CUDA", cuda_backend), ("OpenCL", opencl_backend)):
    backend = make()
    if backend is None:
        continue
    total, largest, values = program(*backend)
    if not (
        np.allclose(values, want, rtol=1e-6) and np.isclose(total, want.sum(), rtol=1e-5) and largest == want.max()
    ):
        print(f"{name}: wrong results: {total} {largest} {values[:3]}")
        sys.exit(1)
    ran.append(name)
    print(f"{name}: sum {total:.4f}, max {largest:.6f}: as numpy")
if not ran:
    sys.exit("no CUDA or OpenCL device")
