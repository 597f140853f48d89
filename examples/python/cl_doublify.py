"""Double a 4x4 float32 array with an OpenCL kernel (PoCL runs it on the CPU) and check it."""

import numpy as np

import gpukit.cl as cl

SOURCE = """
__kernel void doublify(__global float *a) {
    int idx = get_global_id(0) + get_global_id(1) * 4;
    a[idx] *= 2;
}
"""


def main():
    ctx = cl.create_some_context()
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, SOURCE).build()

    a = np.random.default_rng().standard_normal((4, 4)).astype(np.float32)
    a_device = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    program.doublify(queue, (4, 4), None, a_device)
    result = np.empty_like(a)
    cl.enqueue_copy(queue, result, a_device)

    assert np.array_equal(result, 2 * a), "the kernel did not double every element"
    device = queue.device
    print(f"doubled a 4x4 array on '{device.name}' of platform '{device.platform.name}'")


if __name__ == "__main__":
    main()
