"""DynamicModule / DynamicSourceModule: linking runs without a GPU (nvJitLink), running the
linked kernels needs one."""
import numpy as np
import pytest

import gpukit.compiler as compiler
import gpukit.driver as drv
from gpukit import _gpukit

needs_toolkit = pytest.mark.skipif(not (_gpukit.nvrtc_available() and _gpukit.nvjitlink_available()),
                                   reason="NVRTC or nvJitLink is not installed")

PARENT_AND_CHILD = """
__global__ void child(int *out, int base) { out[base + threadIdx.x] = 3 * (base + threadIdx.x) + 1; }
__global__ void parent(int *out) { child<<<1, 32>>>(out, blockIdx.x * 32); }
"""


@needs_toolkit
def test_linking_a_kernel_that_launches_a_kernel_gives_a_cubin():
    relocatable = compiler.compile(PARENT_AND_CHILD, arch="sm_90", options=["-rdc=true"])
    linker = _gpukit._Linker("sm_90", [])
    linker.add_data(relocatable, "cubin", "parent")
    linker.add_file(_gpukit._find_device_library("cudadevrt", ""), "library")
    cubin = linker.complete()
    assert cubin[:4] == b"\x7fELF" and b"parent" in cubin and b"child" in cubin


@needs_toolkit
def test_link_errors_are_compile_errors():
    relocatable = compiler.compile(PARENT_AND_CHILD, arch="sm_90", options=["-rdc=true"])
    linker = _gpukit._Linker("sm_90", [])
    linker.add_data(relocatable, "cubin", "parent")
    with pytest.raises(drv.CompileError):
        linker.complete()  # no cudadevrt


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
    ptx = compiler.compile("extern __device__ int twice(int x);\n"
                           "__global__ void use(int *a) { a[threadIdx.x] = twice(a[threadIdx.x]) + 1; }",
                           arch="compute_" + arch[3:], options=["-rdc=true"])
    mod.add_data(ptx.rstrip(b"\0"), drv.jit_input_type.PTX, "use.ptx")
    with pytest.raises(drv.LogicError, match="link"):
        mod.get_function("use")
    mod.link()
    a = np.random.randint(-1000, 1000, size=64).astype(np.int32)
    mod.get_function("use")(drv.InOut(a2 := a.copy()), block=(64, 1, 1))
    np.testing.assert_array_equal(a2, 2 * a + 1)
