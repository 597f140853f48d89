"""The compilation cache of gpukit.compiler; NVRTC compiles without a GPU, so this runs on
CPU-only machines."""
import multiprocessing
import os
import subprocess
import sys

import pytest

import gpukit.compiler as compiler
from gpukit import _gpukit

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")

KERNEL = "__global__ void k(int *a) { a[0] = 42; }"


def entries(directory):
    return sorted(name for name in os.listdir(directory) if name.endswith(".gpukit-cache"))


# compiler.compile() always searches gpukit's device headers last; the raw calls below do
# the same, so their keys match the public API's.
DIRS = [compiler.DEVICE_INCLUDE_DIR]


def key(source=KERNEL, options=(), arch="sm_90", include_dirs=(), no_extern_c=False):
    return _gpukit._cache_key(source, list(options), arch, list(include_dirs) + DIRS, no_extern_c, "nvrtc", "")


@needs_nvrtc
def test_miss_then_hit(tmp_path):
    first = _gpukit._compile(KERNEL, [], "sm_90", DIRS, False, "nvrtc", "", False, str(tmp_path))
    assert first[5] is False and len(entries(tmp_path)) == 1
    second = _gpukit._compile(KERNEL, [], "sm_90", DIRS, False, "nvrtc", "", False, str(tmp_path))
    assert second[5] is True
    assert second[0] == first[0]
    assert second[4] == first[4] == key()
    assert compiler.compile(KERNEL, arch="sm_90", cache_dir=tmp_path) == first[0]
    assert len(entries(tmp_path)) == 1


@needs_nvrtc
def test_key_changes_with_source_options_arch_and_header_content(tmp_path):
    header = tmp_path / "value.h"
    header.write_text("#define VALUE 1\n")
    source = '#include "value.h"\n' + KERNEL
    base = key(source, include_dirs=[str(tmp_path)])
    assert key(source, include_dirs=[str(tmp_path)]) == base
    assert key(source + "\n", include_dirs=[str(tmp_path)]) != base
    assert key(source, options=["-DX=1"], include_dirs=[str(tmp_path)]) != base
    assert key(source, arch="sm_80", include_dirs=[str(tmp_path)]) != base
    assert key(source, include_dirs=[str(tmp_path)], no_extern_c=True) != base
    header.write_text("#define VALUE 2\n")
    assert key(source, include_dirs=[str(tmp_path)]) != base


@needs_nvrtc
def test_header_change_recompiles(tmp_path):
    (tmp_path / "inc").mkdir()
    header = tmp_path / "inc" / "value.h"
    source = '#include "value.h"\n__global__ void k(int *a) { a[0] = VALUE; }'
    header.write_text("#define VALUE 1234567\n")
    ptx1 = compiler.compile(source, arch="compute_90", include_dirs=[tmp_path / "inc"], cache_dir=tmp_path / "c")
    header.write_text("#define VALUE 7654321\n")
    ptx2 = compiler.compile(source, arch="compute_90", include_dirs=[tmp_path / "inc"], cache_dir=tmp_path / "c")
    assert b"1234567" in ptx1 and b"7654321" in ptx2
    assert len(entries(tmp_path / "c")) == 2


@needs_nvrtc
@pytest.mark.parametrize("damage", ["corrupt", "truncate", "empty"])
def test_bad_entry_is_recompiled_and_rewritten(tmp_path, damage):
    image = compiler.compile(KERNEL, arch="sm_90", cache_dir=tmp_path)
    [name] = entries(tmp_path)
    path = tmp_path / name
    data = bytearray(path.read_bytes())
    if damage == "corrupt":
        data[len(data) // 2] ^= 0xFF
    elif damage == "truncate":
        data = data[: len(data) - 10]
    else:
        data = b""
    path.write_bytes(bytes(data))
    result = _gpukit._compile(KERNEL, [], "sm_90", DIRS, False, "nvrtc", "", False, str(tmp_path))
    assert result[5] is False, "a damaged entry must not be loaded"
    assert result[0] == image
    assert _gpukit._compile(KERNEL, [], "sm_90", DIRS, False, "nvrtc", "", False, str(tmp_path))[5] is True


@needs_nvrtc
def test_cache_dir_false_disables_the_cache(tmp_path):
    compiler.compile(KERNEL, arch="sm_90", cache_dir=False)
    assert _gpukit._compile(KERNEL, [], "sm_90", DIRS, False, "nvrtc", "", False, None)[4] == ""


@needs_nvrtc
def test_disable_environment_variable_wins_over_cache_dir(tmp_path):
    code = ("import gpukit.compiler as c; "
            f"c.compile('{KERNEL}', arch='sm_90', cache_dir={str(tmp_path)!r})")
    env = dict(os.environ, GPUKIT_DISABLE_CACHE="1", PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert entries(tmp_path) == []


def test_default_directory_follows_the_environment(tmp_path):
    code = "from gpukit import _gpukit; print(_gpukit._default_cache_dir())"
    env = {k: v for k, v in os.environ.items() if k not in ("GPUKIT_CACHE_DIR", "PYCUDA_CACHE_DIR")}
    env.update(XDG_CACHE_HOME=str(tmp_path), PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(tmp_path / "gpukit")
    env["GPUKIT_CACHE_DIR"] = str(tmp_path / "mine")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(tmp_path / "mine")


def _compile_in_child(directory, source, barrier):
    barrier.wait()
    compiler.compile(source, arch="sm_90", cache_dir=directory)


@needs_nvrtc
def test_processes_compiling_the_same_source_at_once_share_one_entry(tmp_path):
    source = KERNEL + "\n// shared by four processes\n"
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(4)
    children = [context.Process(target=_compile_in_child, args=(str(tmp_path), source, barrier)) for _ in range(4)]
    for child in children:
        child.start()
    for child in children:
        child.join(120)
    assert [child.exitcode for child in children] == [0, 0, 0, 0]
    assert os.listdir(tmp_path) == entries(tmp_path), "temporary files were left behind"
    assert len(entries(tmp_path)) == 1
    assert _gpukit._compile(source, [], "sm_90", DIRS, False, "nvrtc", "", False, str(tmp_path))[5] is True


@needs_nvrtc
def test_keep_bypasses_the_cache(tmp_path, capsys):
    compiler.compile(KERNEL, arch="sm_90", cache_dir=tmp_path, keep=True)
    assert entries(tmp_path) == []
    assert "compiler output in" in capsys.readouterr().err
