"""DynamicModule / DynamicSourceModule: linking runs without a GPU (nvJitLink), running the
linked kernels needs one. The GPU tests port PyCUDA's test_recursive_launch and
test_jit_link_module (test/test_driver.py) and its examples/demo_cdpSimplePrint.py."""

import numpy as np
import pytest

from conftest import run_in_fresh_process

import gpukit.compiler as compiler
import gpukit.driver as drv
from gpukit import _gpukit

needs_toolkit = pytest.mark.skipif(
    not (_gpukit.nvrtc_available() and _gpukit.nvjitlink_available()), reason="NVRTC or nvJitLink is not installed"
)

PARENT_AND_CHILD = """
__global__ void child(int *out, int base) { out[base + threadIdx.x] = 3 * (base + threadIdx.x) + 1; }
__global__ void parent(int *out) { child<<<1, 32>>>(out, blockIdx.x * 32); }
"""

# PyCUDA's test_jit_link_module: two sources, <cstdio>, device printf, a kernel declared
# extern inside another and launched from it; options as PyCUDA programs pass them.
OUTER = """#include <cstdio>
        __global__ void test_kernel() {
            extern __global__ void test_kernel_inner();
            printf("Hello outer world!\\n");
            test_kernel_inner<<<2, 1>>>();
        }"""

INNER = """#include <cstdio>
        __global__ void test_kernel_inner() {
            printf("  Hello inner world!\\n");
        }"""

PYCUDA_OPTIONS = ["-rdc=true", "-lcudadevrt"] + compiler.DEFAULT_NVCC_FLAGS


@needs_toolkit
def test_linking_a_kernel_that_launches_a_kernel_gives_a_cubin():
    relocatable = compiler.compile(PARENT_AND_CHILD, arch="sm_90", options=["-rdc=true"])
    linker = _gpukit._Linker("sm_90", [])
    linker.add_data(relocatable, "cubin", "parent")
    linker.add_file(_gpukit._find_device_library("cudadevrt", ""), "library")
    cubin = linker.complete()
    assert cubin[:4] == b"\x7fELF" and b"parent" in cubin and b"child" in cubin


@needs_toolkit
def test_pycudas_jit_link_sources_and_options_compile_with_nvrtc_and_link():
    linker = _gpukit._Linker("sm_90", [])
    for name, source in (("outer", OUTER), ("inner", INNER)):
        outcome = compiler.compile_outcome(source, arch="sm_90", options=PYCUDA_OPTIONS, cache_dir=False)
        assert outcome.compiled_by == "nvrtc"
        assert any(note.startswith("-lcudadevrt: dropped") for note in outcome.notes)
        linker.add_data(outcome.image, "cubin", name)
    linker.add_file(_gpukit._find_device_library("cudadevrt", ""), "library")
    cubin = linker.complete()
    assert b"test_kernel_inner" in cubin and b"vprintf" in cubin


@needs_toolkit
def test_link_errors_are_compile_errors():
    relocatable = compiler.compile(PARENT_AND_CHILD, arch="sm_90", options=["-rdc=true"])
    linker = _gpukit._Linker("sm_90", [])
    linker.add_data(relocatable, "cubin", "parent")
    with pytest.raises(drv.CompileError):
        linker.complete()  # no cudadevrt


@needs_toolkit
def test_log_verbose_asks_nvjitlink_for_its_messages():
    relocatable = compiler.compile(PARENT_AND_CHILD, arch="sm_90", options=["-rdc=true"])
    linker = _gpukit._Linker("sm_90", ["-verbose"])
    linker.add_data(relocatable, "cubin", "parent")
    linker.add_file(_gpukit._find_device_library("cudadevrt", ""), "library")
    linker.complete()
    assert linker.info_log != ""


def test_bad_input_type_and_missing_library_are_explained(tmp_path):
    with pytest.raises(ValueError, match="input_type"):
        compiler._input_type_name(42)
    assert compiler._input_type_name(drv.jit_input_type.PTX) == "ptx"
    with pytest.raises(drv.RuntimeError, match="cudadevrt"):
        _gpukit._find_device_library("cudadevrt", str(tmp_path))


@pytest.mark.gpu
def test_dynamic_source_module_parent_launches_child(ctx):
    mod = compiler.DynamicSourceModule(PARENT_AND_CHILD)
    out = np.zeros(4 * 32, dtype=np.int32)
    mod.get_function("parent")(drv.Out(out), grid=(4, 1), block=(1, 1, 1))
    np.testing.assert_array_equal(out, 3 * np.arange(4 * 32, dtype=np.int32) + 1)


@pytest.mark.gpu
def test_dynamic_module_links_two_sources_and_ptx(ctx):
    mod = compiler.DynamicModule()
    mod.add_source("__device__ int twice(int x) { return 2 * x; }", name="helper")
    arch = mod.arch
    ptx = compiler.compile(
        "extern __device__ int twice(int x);\n"
        "__global__ void use(int *a) { a[threadIdx.x] = twice(a[threadIdx.x]) + 1; }",
        arch="compute_" + arch[3:],
        options=["-rdc=true"],
    )
    mod.add_data(ptx.rstrip(b"\0"), drv.jit_input_type.PTX, "use.ptx")
    with pytest.raises(drv.LogicError, match="link"):
        mod.get_function("use")
    mod.link()
    a = np.random.randint(-1000, 1000, size=64).astype(np.int32)
    mod.get_function("use")(drv.InOut(a2 := a.copy()), block=(64, 1, 1))
    np.testing.assert_array_equal(a2, 2 * a + 1)


# PyCUDA's test_recursive_launch, unchanged source, with keep=True; results checked.
RECURSIVE = """
        __device__ void  saxpy(double* s, float a, long* p, int b, long* q)
        {
            int tx = threadIdx.x;
            s[tx] = a*p[tx]+b*q[tx];
        }

        __global__ void  sub(long* p, long* q, long* d)
        {
            int tx = threadIdx.x;
            p[tx] = 2*p[tx];
            d[tx] = p[tx]-q[tx];
        }

        __device__ long add(long p, long q)
        {
            p = p+1;
            return p+q;
        }

        __global__ void math(long* a, long* b, long* c, long* d, long* e, double* f)
        {
            int tx = threadIdx.x;
            __shared__ long x[100];
            x[tx] = a[tx + 0];
            __shared__ long y[100];
            y[tx] = b[tx + 0];
            c[tx]=add(x[tx],y[tx]);
            dim3 dimGrid_sub(1,1,1);
            dim3 dimBlock_sub(100,1,1);
            sub<<<dimGrid_sub,dimBlock_sub>>>(a,b,d);
            saxpy(f,1.0345,x,-2,y);
        }
        """


@pytest.mark.gpu
def test_recursive_launch_from_pycudas_tests(ctx, capsys):
    a = np.random.randint(10, size=100).astype(np.int64)
    b = np.random.randint(10, size=100).astype(np.int64)
    c, d, e = np.empty_like(a), np.empty_like(a), np.empty_like(a)
    f = np.array(a, dtype=np.float64)
    mod = compiler.DynamicSourceModule(RECURSIVE, keep=True)
    assert "*** compiler output in" in capsys.readouterr().out
    a_gpu = drv.to_device(a)
    b_gpu = drv.to_device(b)
    c_gpu, d_gpu, e_gpu, f_gpu = (drv.mem_alloc(x.nbytes) for x in (c, d, e, f))
    mod.get_function("math")(a_gpu, b_gpu, c_gpu, d_gpu, e_gpu, f_gpu, block=(100, 1, 1), grid=(1, 1, 1))
    for host, device in ((c, c_gpu), (d, d_gpu), (f, f_gpu)):
        drv.memcpy_dtoh(host, device)
    np.testing.assert_array_equal(c, a + 1 + b)
    expected_f = (np.float32(1.0345) * a.astype(np.float32) + (-2 * b).astype(np.float32)).astype(np.float64)
    # The device contracts a*p + b*q into one fused multiply-add: compare at float32 rounding
    # of the terms (up to ~20), not relative to results that may cancel to near zero.
    np.testing.assert_allclose(f, expected_f, rtol=1e-6, atol=1e-5)
    # Each of the 100 parent threads launches a child grid that doubles every p[tx] (racing
    # with the other children, so how often is not fixed): the children ran when every
    # non-zero element of a changed. d depends on that race, as in PyCUDA's test.
    doubled = drv.from_device(a_gpu, a.shape, a.dtype)
    assert np.all((doubled != a) | (a == 0))


@pytest.mark.gpu
def test_jit_link_module_from_pycudas_tests_prints():
    out = run_in_fresh_process(f"""
        import gpukit.autoinit
        import gpukit.driver as drv
        from gpukit.compiler import DEFAULT_NVCC_FLAGS, DynamicModule
        mod = DynamicModule()
        mod.add_source({OUTER!r}, nvcc_options=(["-rdc=true", "-lcudadevrt"] + DEFAULT_NVCC_FLAGS))
        mod.add_source({INNER!r}, nvcc_options=(["-rdc=true", "-lcudadevrt"] + DEFAULT_NVCC_FLAGS))
        mod.add_stdlib("cudadevrt")
        mod.link()
        mod.get_function("test_kernel")(grid=(2, 1), block=(1, 1, 1))
        drv.Context.synchronize()
        """)
    lines = out.splitlines()
    assert lines.count("Hello outer world!") == 2
    assert lines.count("  Hello inner world!") == 4


CDP_SIMPLE_PRINT = r"""
#include <cstdio>
__device__ int g_uids = 0;
__device__ void print_info( int depth, int thread, int uid, int parent_uid )
{
  if( threadIdx.x == 0 )
  {
    if( depth == 0 )
      printf( "BLOCK %d launched by the host\n", uid );
    else
    {
      char buffer[32];
      for( int i = 0 ; i < depth ; ++i )
      {
        buffer[3*i+0] = '|';
        buffer[3*i+1] = ' ';
        buffer[3*i+2] = ' ';
      }
      buffer[3*depth] = '\0';
      printf( "%sBLOCK %d launched by thread %d of block %d\n", buffer, uid, thread, parent_uid );
    }
  }
  __syncthreads();
}
__global__ void cdp_kernel( int max_depth, int depth, int thread, int parent_uid )
{
  __shared__ int s_uid;
  if( threadIdx.x == 0 )
  {
    s_uid = atomicAdd( &g_uids, 1 );
  }
  __syncthreads();
  print_info( depth, thread, s_uid, parent_uid );
  if( ++depth >= max_depth )
  {
    return;
  }
  cdp_kernel<<<gridDim.x, blockDim.x>>>( max_depth, depth, threadIdx.x, s_uid );
}
"""


@pytest.mark.gpu
def test_cdp_simple_print_demo():
    out = run_in_fresh_process(f"""
        import gpukit.autoinit
        import gpukit.driver as cuda
        from gpukit.compiler import DynamicSourceModule
        mod = DynamicSourceModule({CDP_SIMPLE_PRINT!r})
        cdp_kernel = mod.get_function('cdp_kernel').prepare('iiii').prepared_call
        gpukit.autoinit.context.set_limit(cuda.limit.PRINTF_FIFO_SIZE, 11 << 20)
        # PyCUDA's demo also sets DEV_RUNTIME_SYNC_DEPTH, which CUDA 12's device runtime no
        # longer has on sm_90 (CUDA_ERROR_UNSUPPORTED_LIMIT, with PyCUDA too).
        cdp_kernel((2, 1), (2, 1, 1), 2, 0, 0, -1)
        cuda.Context.synchronize()
        """)
    lines = [line for line in out.splitlines() if "BLOCK" in line]
    assert sum(line.endswith("launched by the host") for line in lines) == 2
    children = [line for line in lines if line.startswith("|  BLOCK ")]
    assert len(children) == 8, out
    uids = sorted(int(line.split("BLOCK ")[1].split()[0]) for line in lines)
    assert uids == list(range(10))
