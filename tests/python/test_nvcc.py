"""gpukit.compiler with nvcc: nvcc compiles without a GPU, so this runs wherever it is installed."""
import os
import shutil

import pytest

import gpukit.compiler as compiler
import gpukit.driver as drv


def _nvcc():
    found = shutil.which("nvcc")
    if found is None and os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        found = "/usr/local/cuda/bin/nvcc"
    return found


NVCC = _nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")

KERNEL = "__global__ void triple(int *a) { a[threadIdx.x] *= 3; }"


@needs_nvcc
def test_compiler_nvcc_gives_a_cubin(tmp_path):
    cubin = compiler.compile(KERNEL, compiler="nvcc", arch="sm_90", cache_dir=tmp_path)
    assert cubin[:4] == b"\x7fELF"
    assert b"triple" in cubin


@needs_nvcc
def test_a_non_default_nvcc_path_selects_nvcc_and_takes_nvcc_only_flags(tmp_path):
    # -Xptxas is an nvcc flag NVRTC rejects.
    cubin = compiler.compile(KERNEL, nvcc=NVCC, arch="sm_90", options=["-Xptxas", "-v"], cache_dir=False)
    assert cubin[:4] == b"\x7fELF"


@needs_nvcc
def test_compute_arch_gives_ptx():
    ptx = compiler.compile(KERNEL, compiler="nvcc", arch="compute_90", cache_dir=False)
    assert b".target sm_90" in ptx and ptx.endswith(b"\0")


@needs_nvcc
def test_nvcc_is_cached_and_keyed_on_headers(tmp_path):
    (tmp_path / "inc").mkdir()
    header = tmp_path / "inc" / "value.h"
    header.write_text("#define VALUE 3\n")
    source = '#include "value.h"\n__global__ void k(int *a) { a[0] = VALUE; }'
    args = dict(compiler="nvcc", arch="sm_90", include_dirs=[tmp_path / "inc"], cache_dir=tmp_path / "cache")
    first = compiler.compile(source, **args)
    assert len(os.listdir(tmp_path / "cache")) == 1
    assert compiler.compile(source, **args) == first
    assert len(os.listdir(tmp_path / "cache")) == 1
    header.write_text("#define VALUE 4\n")
    compiler.compile(source, **args)
    assert len(os.listdir(tmp_path / "cache")) == 2


@needs_nvcc
def test_failure_is_a_compile_error_with_output_and_command_line():
    with pytest.raises(drv.CompileError) as info:
        compiler.compile("__global__ void k() { undeclared = 1; }", compiler="nvcc", arch="sm_90",
                         options=["-DMARK=1"], cache_dir=False)
    e = info.value
    assert "undeclared" in e.stderr
    assert "--cubin" in e.command_line and "-DMARK=1" in e.command_line
    assert isinstance(e.stdout, str)


@needs_nvcc
def test_keep_leaves_the_directory_and_prints_it(capsys):
    compiler.compile(KERNEL, compiler="nvcc", arch="sm_90", keep=True)
    directory = capsys.readouterr().err.strip().split(" in ")[-1]
    files = os.listdir(directory)
    assert "kernel.cu" in files and "kernel.cubin" in files
    assert any(name.endswith(".ptx") for name in files), "--keep keeps nvcc's intermediate files"
    shutil.rmtree(directory)


def test_unknown_compiler_is_a_value_error():
    with pytest.raises(ValueError, match="compiler"):
        compiler.compile(KERNEL, compiler="clang")
