"""The tutorial of the seed: double every element of a 4x4 float32 array on the GPU.

Runs on the first CUDA device. With no CUDA driver or device it runs the same kernel,
written in OpenCL C, on the default OpenCL device (PoCL on the CPU when there is no GPU),
and says which device it used. With neither, it says in one line what to install.
"""

import numpy

import gpukit.driver as drv

CUDA_SOURCE = """
__global__ void doublify(float *a)
{
    int idx = threadIdx.x + threadIdx.y * 4;
    a[idx] *= 2;
}
"""

OPENCL_SOURCE = """
__kernel void doublify(__global float *a)
{
    int idx = get_global_id(0) + get_global_id(1) * 4;
    a[idx] *= 2;
}
"""


def cuda_available():
    return drv.driver_available() and drv.Device.count() > 0


def doublify_cuda(a):
    import gpukit.autoinit  # noqa: F401  (makes a context on the default device)
    from gpukit.compiler import SourceModule

    a_gpu = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(a_gpu, a)
    doublify = SourceModule(CUDA_SOURCE).get_function("doublify")
    doublify(a_gpu, block=(4, 4, 1))
    a_doubled = numpy.empty_like(a)
    drv.memcpy_dtoh(a_doubled, a_gpu)
    return a_doubled, f"CUDA device 0: {gpukit.autoinit.device.name()}"


def doublify_opencl(a):
    from gpukit import cl

    context = cl.create_some_context()
    queue = cl.CommandQueue(context)
    device = context.devices[0]
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    program = cl.Program(context, OPENCL_SOURCE).build()
    program.doublify(queue, a.shape, None, buffer)
    a_doubled = numpy.empty_like(a)
    cl.enqueue_copy(queue, a_doubled, buffer)
    queue.finish()
    return a_doubled, f"OpenCL device {device.name} on platform {device.platform.name}"


def main():
    a = numpy.random.randn(4, 4).astype(numpy.float32)
    if cuda_available():
        a_doubled, where = doublify_cuda(a)
    else:
        print("No CUDA driver or device here: running the OpenCL version instead.")
        from gpukit import cl

        try:
            a_doubled, where = doublify_opencl(a)
        except cl.Error as e:
            raise SystemExit(
                "No CUDA device and no OpenCL device here. For a GPU, install NVIDIA's driver; "
                "for the CPU, PoCL (Debian/Ubuntu: apt install pocl-opencl-icd). "
                f"OpenCL said: {e}"
            ) from None
    print(f"Ran on {where}")
    print("a:")
    print(a)
    print("doubled:")
    print(a_doubled)
    if not numpy.array_equal(a_doubled, 2 * a):
        raise SystemExit("wrong result: the doubled array is not 2 * a")
    print("correct: every element doubled")


if __name__ == "__main__":
    main()
