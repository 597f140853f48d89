"""gpukit.compiler: NVRTC compiles without a GPU, so most of this runs on CPU-only machines."""
import importlib
import os
import subprocess
import sys

import pytest

import gpukit.compiler as compiler
import gpukit.driver as drv
from gpukit import _gpukit

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")

DOUBLIFY = """
__global__ void doublify(float *a)
{
    int idx = threadIdx.x + threadIdx.y*4;
    a[idx] *= 2;
}
"""


@needs_nvrtc
def test_compile_for_sm_90_gives_a_cubin_without_a_gpu():
    cubin = compiler.compile(DOUBLIFY, arch="sm_90")
    assert isinstance(cubin, bytes)
    assert cubin[:4] == b"\x7fELF"
    assert b"doublify" in cubin


@needs_nvrtc
def test_code_names_the_target_and_compute_gives_ptx():
    ptx = compiler.compile(DOUBLIFY, arch="compute_80", code="compute_90")
    assert b".target sm_90" in ptx
    assert ptx.endswith(b"\0")


@needs_nvrtc
def test_no_extern_c_keeps_mangled_names():
    ptx = compiler.compile(DOUBLIFY, arch="compute_90", no_extern_c=True)
    assert b"_Z8doublifyPf" in ptx


@needs_nvrtc
def test_options_and_include_dirs(tmp_path):
    (tmp_path / "scale.h").write_text("#define SCALE 7\n")
    ptx = compiler.compile('#include "scale.h"\n__global__ void f(int *a) { a[0] = SCALE * OFFSET; }',
                           arch="compute_90", options=["-DOFFSET=3"], include_dirs=[str(tmp_path)])
    assert b"21" in ptx


@needs_nvrtc
def test_syntax_error_is_a_compile_error_with_the_log_and_line_number():
    with pytest.raises(drv.CompileError) as info:
        compiler.compile("__global__ void f(float *a)\n{\n    a[0] = not_declared;\n}\n", arch="sm_90",
                         options=["-DMARKER=1"])
    e = info.value
    assert "kernel.cu(3)" in str(e)
    assert "not_declared" in e.msg
    assert "kernel.cu(3)" in e.stderr
    assert "-DMARKER=1" in e.command_line
    assert isinstance(e, drv.Error)


@needs_nvrtc
def test_unknown_option_is_explained():
    with pytest.raises(drv.CompileError, match="rejected an option"):
        compiler.compile(DOUBLIFY, arch="sm_90", options=["--no-such-flag"])


@needs_nvrtc
def test_bad_arch_is_a_logic_error():
    with pytest.raises(drv.LogicError, match="sm_XY"):
        compiler.compile(DOUBLIFY, arch="hopper")


@needs_nvrtc
def test_keep_writes_the_outputs(capsys):
    compiler.compile(DOUBLIFY, arch="sm_90", keep=True)
    line = capsys.readouterr().err
    directory = line.strip().split(" in ")[-1]
    assert sorted(os.listdir(directory)) == ["kernel.cu", "kernel.cubin", "kernel.log", "kernel.ptx"]


def test_a_missing_nvcc_is_a_clear_runtime_error():
    with pytest.raises(drv.RuntimeError, match="/opt/bin/nvcc"):
        compiler.compile(DOUBLIFY, nvcc="/opt/bin/nvcc", arch="sm_90")


def test_default_flags_come_from_the_environment():
    code = "import gpukit.compiler as c; print(c.DEFAULT_NVCC_FLAGS)"
    env = dict(os.environ, GPUKIT_DEFAULT_NVCC_FLAGS="-O3  -DA=1", PYCUDA_DEFAULT_NVCC_FLAGS="-DIGNORED")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['-O3', '-DA=1']"
    env = {k: v for k, v in os.environ.items() if k != "GPUKIT_DEFAULT_NVCC_FLAGS"}
    env["PYCUDA_DEFAULT_NVCC_FLAGS"] = "--use_fast_math"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['--use_fast_math']"


@needs_nvrtc
def test_default_flags_are_used_when_options_is_none(monkeypatch):
    monkeypatch.setattr(compiler, "DEFAULT_NVCC_FLAGS", ["-DVALUE=5"])
    ptx = compiler.compile("__global__ void f(int *a) { a[0] = VALUE * 11; }", arch="compute_90")
    assert b"55" in ptx


@needs_nvrtc
def test_default_arch_without_a_context():
    if drv.driver_available():
        pytest.skip("a driver is present; a context might be current")
    assert _gpukit.nvrtc_default_arch() == "sm_90"
    assert _gpukit.nvrtc_version()[0] >= 12


def test_initialize_profiler_is_explained_as_removed():
    with pytest.raises(drv.LogicError, match="cuProfilerInitialize"):
        drv.initialize_profiler("cfg", "out", 0)


def test_function_attribute_properties_exist():
    for name in ["num_regs", "shared_size_bytes", "local_size_bytes", "const_size_bytes", "max_threads_per_block",
                 "ptx_version", "binary_version", "max_dynamic_shared_size_bytes"]:
        assert isinstance(getattr(drv.Function, name), property)


def test_argument_handlers_are_classes():
    import numpy as np
    a = np.zeros(3)
    for cls in (drv.In, drv.Out, drv.InOut):
        h = cls(a)
        assert isinstance(h, drv.ArgumentHandler)
        assert h.array is a
