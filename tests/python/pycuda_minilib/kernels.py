"""Computations: a templated kernel module compiled once, launched later on the thread's
stream with numpy scalars, 0-d arrays and records as arguments; one owns temporary buffers."""

import string

import numpy as np

import pycuda.driver as cuda
import pycuda.gpuarray as gpuarray

_SOURCE = string.Template("""
typedef struct { ${ctype} scale; ${ctype} shift; } affine_t;

extern "C" __global__ void affine(${ctype} *out, const ${ctype} *in, affine_t params, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * params.scale + params.shift;
}

extern "C" __global__ void strided_scale(${ctype} *out, const ${ctype} *in, int in_step, ${ctype} factor, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i * in_step] * factor;
}

// Two passes: per-block sums into a temporary buffer, then every element over the total.
extern "C" __global__ void block_sums(double *partial, const ${ctype} *in, int n)
{
    __shared__ double sums[256];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    sums[threadIdx.x] = i < n ? (double)in[i] : 0.0;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            sums[threadIdx.x] += sums[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sums[0];
}

extern "C" __global__ void divide_by_total(${ctype} *out, const ${ctype} *in, const double *partial,
                                            int blocks, int n)
{
    double total = 0;
    for (int b = 0; b < blocks; ++b)
        total += partial[b];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (${ctype})(in[i] / total);
}
""")

_CTYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
BLOCK = 256


class _Kernels:
    """One module per dtype, compiled on first use for the thread's context."""

    def __init__(self, thread, dtype):
        self.thread = thread
        self.dtype = np.dtype(dtype)
        module = thread.compile(_SOURCE.substitute(ctype=_CTYPES[self.dtype]))
        self.affine = module.get_function("affine")
        self.strided_scale = module.get_function("strided_scale")
        self.strided_scale.prepare([np.intp, np.intp, np.int32, self.dtype.type, np.int32])
        self.block_sums = module.get_function("block_sums")
        self.divide_by_total = module.get_function("divide_by_total")
        self.params = np.dtype([("scale", self.dtype), ("shift", self.dtype)])

    @staticmethod
    def grid(n):
        return ((n + BLOCK - 1) // BLOCK, 1)


class Scaler(_Kernels):
    def affine_into(self, out, x, scale, shift):
        """out = x * scale + shift: the parameters as a record, n as a 0-d array (PyCUDA passes
        both by value)."""
        params = np.zeros((), self.params)
        params["scale"], params["shift"] = scale, shift
        n = np.array(x.size, np.int32)
        self.affine(
            out, x.gpudata, params[()], n, grid=self.grid(x.size), block=(BLOCK, 1, 1), stream=self.thread.stream
        )
        return out

    def scaled_every(self, x, step, factor):
        """x[::step] * factor through prepare/prepared_async_call."""
        count = (x.size + step - 1) // step
        out = self.thread.array((count,), self.dtype)
        self.strided_scale.prepared_async_call(
            self.grid(count),
            (BLOCK, 1, 1),
            self.thread.stream,
            out.gpudata,
            x.gpudata,
            np.int32(step),
            self.dtype.type(factor),
            np.int32(count),
        )
        return out


class Normalizer(_Kernels):
    def __call__(self, x):
        """x / sum(x), through a temporary buffer of per-block sums the computation owns."""
        n = x.size
        blocks = self.grid(n)[0]
        partial = self.thread.temporary(blocks * 8)
        out = x._new_like_me()
        self.block_sums(partial, x, np.int32(n), grid=(blocks, 1), block=(BLOCK, 1, 1), stream=self.thread.stream)
        self.divide_by_total(
            out,
            x,
            partial,
            np.int32(blocks),
            np.int32(n),
            grid=(blocks, 1),
            block=(BLOCK, 1, 1),
            stream=self.thread.stream,
        )
        self.thread.synchronize()  # the temporary buffer must outlive the kernels
        return out


def elementwise_sum_of_views(thread, a, b):
    """a + b for two Arrays that are views with offsets into one buffer."""
    result = a + b
    assert isinstance(result, type(a)) and result.thread is thread
    return result


def common_dtype(a, b):
    return gpuarray._get_common_dtype(a, b)


def launch_grid(a):
    return a._grid, a._block


def device_name(thread):
    return thread.device.name()


def total_memory(thread):
    return cuda.Context.get_device().total_memory()
