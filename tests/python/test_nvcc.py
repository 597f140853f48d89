"""gpukit.compiler with nvcc: nvcc compiles without a GPU, so this runs wherever it is installed."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import installed_nvcc

import gpukit.compiler as compiler
import gpukit.driver as drv


NVCC = installed_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")

KERNEL = "__global__ void triple(int *a) { a[threadIdx.x] *= 3; }"


@needs_nvcc
def test_compiler_nvcc_gives_a_cubin(tmp_path):
    cubin = compiler.compile(KERNEL, compiler="nvcc", arch="sm_90", cache_dir=tmp_path)
    assert cubin[:4] == b"\x7fELF"
    assert b"triple" in cubin


@needs_nvcc
def test_a_non_default_nvcc_path_selects_nvcc_and_warns_what_it_printed(tmp_path):
    with pytest.warns(UserWarning, match="ptxas info"):
        outcome = compiler.compile_outcome(KERNEL, nvcc=NVCC, arch="sm_90", options=["-Xptxas", "-v"], cache_dir=False)
    assert outcome.compiled_by == "nvcc"
    assert outcome.image[:4] == b"\x7fELF"


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
        compiler.compile(
            "__global__ void k() { undeclared = 1; }",
            compiler="nvcc",
            arch="sm_90",
            options=["-DMARK=1"],
            cache_dir=False,
        )
    e = info.value
    assert "undeclared" in e.stderr
    assert "--cubin" in e.command_line and "-DMARK=1" in e.command_line
    assert isinstance(e.stdout, str)


@needs_nvcc
def test_keep_leaves_the_directory_and_prints_it(capsys):
    compiler.compile(KERNEL, compiler="nvcc", arch="sm_90", keep=True)
    directory = capsys.readouterr().out.strip().split(" in ")[-1]
    files = os.listdir(directory)
    assert "kernel.cu" in files and "kernel.cubin" in files
    assert any(name.endswith(".ptx") for name in files), "--keep keeps nvcc's intermediate files"
    shutil.rmtree(directory)


@needs_nvcc
def test_nvcc_gets_the_options_as_given_less_what_gpukit_sets():
    outcome = compiler.compile_outcome(
        KERNEL,
        compiler="nvcc",
        arch="sm_90",
        cache_dir=False,
        options=["-O3", "-Xcompiler", "-Wall", "--cubin", "-o", "other.cubin"],
    )
    assert outcome.compiled_by == "nvcc"
    assert [note.split(":")[0] for note in outcome.notes] == ["--cubin", "-o other.cubin"]
    with pytest.raises(drv.CompileError) as info:
        compiler.compile(
            "__global__ void k() { undeclared = 1; }",
            compiler="nvcc",
            arch="sm_90",
            cache_dir=False,
            options=["-O3", "--ptx"],
        )
    assert " -O3 " in info.value.command_line and "--ptx" not in info.value.command_line


@needs_nvcc
def test_cub_cuh_and_host_headers_go_to_nvcc_automatically():
    source = """#include <cub/cub.cuh>
__global__ void block_sum(const float *in, float *out) {
    typedef cub::BlockReduce<float, 128> reduce;
    __shared__ typename reduce::TempStorage scratch;
    float total = reduce(scratch).Sum(in[threadIdx.x]);
    if (threadIdx.x == 0) out[0] = total;
}
"""
    outcome = compiler.compile_outcome(source, arch="sm_90", cache_dir=False, no_extern_c=True)
    assert outcome.compiled_by == "nvcc"
    assert outcome.notes and outcome.notes[-1].startswith("compiled with nvcc")


@needs_nvcc
def test_when_both_compilers_fail_both_errors_are_shown():
    source = "#include <vector>\nint h() { return not_declared_anywhere; }\n__global__ void k() {}"
    with pytest.raises(drv.CompileError) as info:
        compiler.compile(source, arch="sm_90", cache_dir=False)
    message = str(info.value)
    assert 'NVRTC found no header "vector"' in message
    assert "failed too" in message and "not_declared_anywhere" in info.value.stderr


@needs_nvcc
def test_gpukit_compiler_environment_makes_unchanged_code_use_nvcc():
    code = (
        f"import gpukit.compiler as c; print(c.compile_outcome({KERNEL!r}, arch='sm_90', cache_dir=False).compiled_by)"
    )
    env = dict(os.environ, GPUKIT_COMPILER="nvcc", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "nvcc"


def test_unknown_compiler_is_a_value_error():
    with pytest.raises(ValueError, match="compiler"):
        compiler.compile(KERNEL, compiler="clang")


def run_bounded(source, **environment):
    """compile(source) with compiler='nvcc' in a child under `environment`: its CompileError's text."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **environment)
    code = f"""
import gpukit.compiler as compiler, gpukit.driver as drv
try:
    compiler.compile({source!r}, compiler="nvcc", arch="sm_90", cache_dir=False)
except drv.CompileError as e:
    print(e)
"""
    # A timeout of our own, so that a bound that fails to hold fails the test, not the suite.
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


# An #include spelled through a macro escapes gpukit's checks of what a source includes, so
# nvcc still runs within a memory and a time bound.
@needs_nvcc
def test_nvcc_reading_a_device_stops_at_its_memory_limit():
    out = run_bounded("#define ZERO </dev/zero>\n#include ZERO\n__global__ void k() {}", GPUKIT_NVCC_MEMORY_LIMIT="512")
    assert "nvcc failed to compile kernel.cu for sm_90" in out, out
    assert "it ran out of the 512 MiB of address space each of its programs may use (GPUKIT_NVCC_MEMORY_LIMIT" in out


@needs_nvcc
def test_nvcc_waiting_on_a_fifo_stops_at_its_time_limit(tmp_path):
    os.mkfifo(tmp_path / "pipe.h")
    out = run_bounded(
        f'#define PIPE "{tmp_path / "pipe.h"}"\n#include PIPE\n__global__ void k() {{}}', GPUKIT_NVCC_TIMEOUT="2"
    )
    assert out.startswith(
        "nvcc did not compile kernel.cu for sm_90 within 2 s, so it was stopped with the programs "
        "it ran (GPUKIT_NVCC_TIMEOUT sets the limit in seconds, 0: none)"
    ), out


@needs_nvcc
def test_a_bad_limit_in_the_environment_is_named():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), GPUKIT_NVCC_TIMEOUT="soon")
    code = "import gpukit.compiler as c; c.compile('__global__ void k() {}', compiler='nvcc', cache_dir=False)"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "GPUKIT_NVCC_TIMEOUT must be a whole number of seconds (0: no limit), got 'soon'" in result.stderr
