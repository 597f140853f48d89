"""PyCUDA's ``pycuda._cluda``: CLUDA_PREAMBLE, the macros that let one kernel text serve CUDA
and OpenCL (compyle renders it into its CUDA kernels). On CUDA: a barrier, the kernel and
memory qualifiers, and the work-item indices and sizes by axis."""

CLUDA_PREAMBLE = """
#define local_barrier() __syncthreads();

#define WITHIN_KERNEL __device__
#define KERNEL extern "C" __global__
#define GLOBAL_MEM /* empty */
#define LOCAL_MEM __shared__
#define LOCAL_MEM_ARG /* empty */
#define REQD_WG_SIZE(X,Y,Z) __launch_bounds__(X*Y*Z, 1)

""" + "".join(
    f"#define {macro}_{axis} {cuda}.{'xyz'[axis]}\n"
    for macro, cuda in (("LID", "threadIdx"), ("GID", "blockIdx"), ("LDIM", "blockDim"), ("GDIM", "gridDim"))
    for axis in range(3)
)
