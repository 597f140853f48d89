"""The compilation cache of gpukit.compiler; NVRTC compiles without a GPU, so this runs on
CPU-only machines."""

import multiprocessing
import os
import shutil
import subprocess
import sys

import pytest

import gpukit.compiler as compiler
from gpukit import _gpukit

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")

KERNEL = "__global__ void k(int *a) { a[0] = 42; }"


def entries(directory):
    return sorted(name for name in os.listdir(directory) if name.endswith(".gpukit-cache"))


# compiler.compile() always searches gpukit's device headers after the caller's and lets
# gpukit choose the compiler; the raw calls below do the same, so their keys match the
# public API's.
def request(
    source=KERNEL, options=(), arch="sm_90", include_dirs=(), no_extern_c=False, compiler_name="auto", output="cubin"
):
    return dict(
        source=source,
        options=list(options),
        arch=arch,
        include_dirs=list(include_dirs),
        system_include_dirs=[compiler.DEVICE_INCLUDE_DIR],
        no_extern_c=no_extern_c,
        compiler=compiler_name,
        nvcc="nvcc",
        output=output,
    )


def key(source=KERNEL, **kw):
    return _gpukit._prepare_compile(**request(source, **kw), keep=False).key


def raw_compile(cache_dir, source=KERNEL):
    prepared = _gpukit._prepare_compile(**request(source), keep=False)
    return prepared.compile(None if cache_dir is None else str(cache_dir))


@needs_nvrtc
def test_miss_then_hit(tmp_path):
    first = raw_compile(tmp_path)
    assert first.from_cache is False and len(entries(tmp_path)) == 1
    assert first.compiled_by == "nvrtc"
    second = raw_compile(tmp_path)
    assert second.from_cache is True
    assert second.compiled_by == "" and second.notes == []
    assert second.image == first.image
    assert second.key == first.key == key()
    assert compiler.compile(KERNEL, arch="sm_90", cache_dir=tmp_path) == first.image
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
    assert key(source, include_dirs=[str(tmp_path)], compiler_name="nvrtc") != base
    assert key(source, include_dirs=[str(tmp_path)], output="ptx") != base
    header.write_text("#define VALUE 2\n")
    assert key(source, include_dirs=[str(tmp_path)]) != base


@needs_nvrtc
def test_key_follows_the_toolkit_version_not_each_toolkit_header(tmp_path, monkeypatch):
    include = tmp_path / "include"
    include.mkdir()
    (include / "cuda_runtime.h").write_text("// a fake toolkit\n")
    (include / "cuda_runtime_api.h").write_text("#define CUDART_VERSION 13000\n")
    (include / "toolkit_only.h").write_text("#define FROM_TOOLKIT 1\n")
    source = "#include <toolkit_only.h>\n" + KERNEL
    base = key(source)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    with_fake = key(source)
    assert with_fake != base, "another toolkit is another key"
    # An in-place edit of a toolkit header (same size, same time) is not read...
    stat = os.stat(include / "toolkit_only.h")
    (include / "toolkit_only.h").write_text("#define FROM_TOOLKIT 2\n")
    os.utime(include / "toolkit_only.h", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    os.utime(include, ns=(os.stat(include).st_atime_ns, os.stat(include).st_mtime_ns))
    assert key(source) == with_fake
    # ...a new toolkit version is.
    (include / "cuda_runtime_api.h").write_text("#define CUDART_VERSION 13010 /* newer */\n")
    assert key(source) != with_fake


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
    result = raw_compile(tmp_path)
    assert result.from_cache is False, "a damaged entry must not be loaded"
    assert result.image == image
    assert raw_compile(tmp_path).from_cache is True


@needs_nvrtc
@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero"])
def test_entry_that_is_not_a_regular_file_is_recompiled_and_replaced(tmp_path, kind):
    # These used to hang compile() (a FIFO) or read without end (/dev/zero); the C++ test
    # cache_test.entries_that_are_not_regular_files_are_misses_and_replaced covers more kinds.
    path = tmp_path / (key() + ".gpukit-cache")
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink("/dev/zero", path)
    result = raw_compile(tmp_path)
    assert result.from_cache is False
    assert result.image == compiler.compile(KERNEL, arch="sm_90", cache_dir=False)
    assert path.is_file() and not path.is_symlink()
    assert raw_compile(tmp_path).from_cache is True


@needs_nvrtc
def test_cache_dir_false_disables_the_cache(tmp_path):
    compiler.compile(KERNEL, arch="sm_90", cache_dir=False)
    assert raw_compile(None).key == ""


@needs_nvrtc
def test_disable_environment_variable_wins_over_cache_dir(tmp_path):
    code = f"import gpukit.compiler as c; c.compile('{KERNEL}', arch='sm_90', cache_dir={str(tmp_path)!r})"
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
    assert raw_compile(tmp_path, source).from_cache is True


@needs_nvrtc
def test_keep_bypasses_the_cache(tmp_path, capsys):
    compiler.compile(KERNEL, arch="sm_90", cache_dir=tmp_path, keep=True)
    compiler.compile(KERNEL, arch="sm_90", cache_dir=tmp_path, options=["--keep"])
    assert entries(tmp_path) == []
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 2 and all(line.startswith("*** compiler output in ") for line in printed)
    for line in printed:
        shutil.rmtree(line.split(" in ", 1)[1])


@needs_nvrtc
def test_a_cache_others_can_write_is_not_used_and_a_new_one_is_private(tmp_path):
    import gpukit.driver as drv

    private = tmp_path / "private"
    compiler.compile(KERNEL, arch="sm_90", cache_dir=str(private))
    assert os.stat(private).st_mode & 0o777 == 0o700
    assert all(os.stat(private / name).st_mode & 0o777 == 0o600 for name in entries(private))
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.warns(
        drv.GpukitWarning, match="is not used: others can write to it .mode 0777.; kernels are compiled without it"
    ):
        image = compiler.compile(KERNEL, arch="sm_90", cache_dir=str(shared))
    assert image == compiler.compile(KERNEL, arch="sm_90", cache_dir=False) and entries(shared) == []
