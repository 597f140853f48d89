"""Paths are bytes on Linux, in whatever encoding: gpukit takes every path as str (os.fsdecode's,
surrogate escapes and all), bytes or os.PathLike, passes its bytes on unchanged, and gives
paths back as os.fsdecode's str. A cache directory or HOME that is no UTF-8 used to make every
compile with the default cache and `python -m gpukit info` fail with UnicodeDecodeError, and
cache_dir=b'...' got nanobind's "incompatible function arguments"."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import installed_nvcc

import gpukit.compiler as compiler
import gpukit.driver as drv
from gpukit import _gpukit

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")

KERNEL = 'extern "C" __global__ void k(int *a) { a[0] = VALUE; }'


@pytest.fixture
def odd_dir(tmp_path):
    """A fresh directory whose name is no UTF-8, as bytes."""
    path = os.fsencode(tmp_path) + b"/odd\xff\xfe"
    os.mkdir(path)
    return path


def the_three_forms(path):
    """`path` (bytes) as bytes, as os.fsdecode's str and as a pathlib.Path."""
    return [path, os.fsdecode(path), pathlib.Path(os.fsdecode(path))]


def run(code, env_changes, *args):
    """Runs `code` (or, with args, `python -m gpukit ...`) in a child whose environment is this
    one's with `env_changes` (bytes values; None removes a variable); stdout must be printable
    strictly as UTF-8, as in a UTF-8 locale."""
    env = {os.fsencode(k): v for k, v in os.environ.items()}
    env[b"PYTHONPATH"] = os.fsencode(os.pathsep.join(sys.path))
    env[b"PYTHONIOENCODING"] = b"utf-8:strict"
    for name, value in env_changes.items():
        env.pop(name, None) if value is None else env.__setitem__(name, value)
    command = [sys.executable, "-m", "gpukit", *args] if args else [sys.executable, "-c", code]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


@needs_nvrtc
def test_cache_dir_takes_bytes_str_and_pathlike_of_a_name_that_is_no_utf8(odd_dir):
    images = set()
    for form in the_three_forms(odd_dir):
        outcome = compiler.compile_outcome(KERNEL, arch="sm_90", options=["-DVALUE=1"], cache_dir=form)
        images.add(outcome.image)
    assert len(images) == 1
    entries = os.listdir(odd_dir)
    assert len(entries) == 1 and entries[0].endswith(b".gpukit-cache"), entries
    assert outcome.from_cache  # the later forms found the first one's entry


@needs_nvrtc
def test_include_dirs_take_a_name_that_is_no_utf8_in_every_form(odd_dir):
    with open(odd_dir + b"/value.h", "w") as header:
        header.write("#define VALUE 7\n")
    source = '#include "value.h"\n' + KERNEL
    for form in the_three_forms(odd_dir):
        for cache_dir in (False, odd_dir + b"/cache"):
            image = compiler.compile(source, arch="sm_90", include_dirs=[form], cache_dir=cache_dir)
            assert image[:4] == b"\x7fELF"


@needs_nvrtc
def test_a_message_quoting_a_path_that_is_no_utf8_shows_its_bytes(odd_dir):
    os.mkfifo(odd_dir + b"/pipe.h")
    with pytest.raises(drv.CompileError) as info:
        compiler.compile('#include "pipe.h"\n' + KERNEL, arch="sm_90", include_dirs=[odd_dir], cache_dir=False)
    assert f"would read '{os.fsdecode(odd_dir)[:-2]}\\xff\\xfe/pipe.h'" in str(info.value), str(info.value)


@needs_nvrtc
def test_a_warning_quoting_a_path_that_is_no_utf8_shows_its_bytes(odd_dir):
    open(odd_dir + b"/file", "w").close()
    with pytest.warns(
        drv.GpukitWarning, match=r"cannot create the compilation cache directory .*odd\\xff\\xfe/file/sub"
    ):
        compiler.compile(KERNEL, arch="sm_90", options=["-DVALUE=9"], cache_dir=odd_dir + b"/file/sub")


@needs_nvrtc
def test_the_default_cache_under_gpukit_cache_dir_that_is_no_utf8(odd_dir):
    result = run(
        f"""
import os
import gpukit.compiler as compiler
from gpukit import _gpukit
assert os.fsencode(_gpukit._default_cache_dir()) == {odd_dir!r}, _gpukit._default_cache_dir()
compiler.compile({KERNEL!r}, arch="sm_90", options=["-DVALUE=2"])
print(len(os.listdir({odd_dir!r})))
""",
        {b"GPUKIT_CACHE_DIR": odd_dir},
    )
    assert (result.returncode, result.stdout) == (0, "1\n"), result.stderr


@needs_nvrtc
def test_the_default_cache_under_a_home_that_is_no_utf8(odd_dir):
    result = run(
        f"""
import os
import gpukit.compiler as compiler
compiler.compile({KERNEL!r}, arch="sm_90", options=["-DVALUE=3"])
print(len(os.listdir({odd_dir + b"/.cache/gpukit"!r})))
""",
        {b"HOME": odd_dir, b"GPUKIT_CACHE_DIR": None, b"PYCUDA_CACHE_DIR": None, b"XDG_CACHE_HOME": None},
    )
    assert (result.returncode, result.stdout) == (0, "1\n"), result.stderr


def test_gpukit_info_under_a_home_that_is_no_utf8(odd_dir):
    env = {b"HOME": odd_dir, b"GPUKIT_CACHE_DIR": None, b"PYCUDA_CACHE_DIR": None, b"XDG_CACHE_HOME": None}
    text = run(None, env, "info")
    assert text.returncode == 0, text.stderr
    shown = os.fsdecode(odd_dir)[:-2] + "\\xff\\xfe"  # the bytes as \xNN: printable in any locale
    assert f"{shown}/.cache/gpukit (not made yet" in text.stdout, text.stdout
    as_json = run(None, env, "info", "--json")
    assert as_json.returncode == 0, as_json.stderr
    report = json.loads(as_json.stdout)
    assert os.fsencode(report["compile_cache"]["directory"]) == odd_dir + b"/.cache/gpukit"
    assert os.fsencode(report["environment"]["HOME"]) == odd_dir


@needs_nvrtc
def test_kept_files_in_a_temporary_directory_that_is_no_utf8(odd_dir, capsys):
    result = run(
        f"""
import os
import gpukit.compiler as compiler
outcome = compiler.compile_outcome({KERNEL!r}, arch="sm_90", options=["-DVALUE=4"], keep=True)
assert os.fsencode(outcome.kept_dir).startswith({odd_dir!r}), outcome.kept_dir
print(sorted(os.listdir(outcome.kept_dir)))
""",
        {b"TMPDIR": odd_dir},
    )
    assert result.returncode == 0, result.stderr
    assert "*** compiler output in " + os.fsdecode(odd_dir)[:-2] + "\\xff\\xfe/gpukit-compile-" in result.stdout
    assert "'kernel.cubin'" in result.stdout


@pytest.mark.skipif(installed_nvcc() is None, reason="nvcc is not installed")
def test_an_nvcc_path_that_is_no_utf8(odd_dir):
    link = odd_dir + b"/nvcc"  # a script: nvcc finds its toolkit from where it is, so no symbolic link
    with open(link, "wb") as script:
        script.write(b'#!/bin/sh\nexec "' + os.fsencode(installed_nvcc()) + b'" "$@"\n')
    os.chmod(link, 0o755)
    for form in the_three_forms(link):
        outcome = compiler.compile_outcome(KERNEL, nvcc=form, arch="sm_90", options=["-DVALUE=5"], cache_dir=False)
        assert outcome.compiled_by == "nvcc" and outcome.image[:4] == b"\x7fELF"
    assert os.fsencode(_gpukit._find_nvcc(link)) == link


@pytest.mark.skipif(
    not (_gpukit.nvrtc_available() and _gpukit.nvjitlink_available()), reason="NVRTC or nvJitLink is not installed"
)
def test_dynamic_module_adds_a_file_whose_name_is_no_utf8(odd_dir):
    path = odd_dir + b"/k.ptx"
    with open(path, "wb") as f:
        f.write(compiler.compile(KERNEL, arch="compute_90", options=["-DVALUE=6"], cache_dir=False).rstrip(b"\0"))
    for form in the_three_forms(path):
        module = compiler.DynamicModule(arch="sm_90").add_file(form, "ptx")
        assert module._linker.complete()[:4] == b"\x7fELF"


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: compiler.compile(KERNEL, cache_dir=5),
            "compile(cache_dir): expected a path (str, bytes or os.PathLike), got int",
        ),
        (lambda: compiler.compile(KERNEL, include_dirs=["/usr", 5]), "compile(include_dirs)[1]: expected a path"),
        (
            lambda: compiler.compile(KERNEL, nvcc=None),
            "compile(nvcc): expected a path (str, bytes or os.PathLike), got NoneType",
        ),
        (
            lambda: compiler.compile(KERNEL, cache_dir=b"/tmp/a\0b"),
            "compile(cache_dir): the path b'/tmp/a\\x00b' holds a NUL character",
        ),
        (lambda: drv.module_from_file(5), "module_from_file(path): expected a path"),
        (lambda: drv.module_from_file(None), "module_from_file(path): expected a path"),
        (
            lambda: compiler.DynamicModule(arch="sm_90").add_file(3.5, "ptx"),
            "DynamicModule.add_file(filename): expected",
        ),
        (lambda: _gpukit._find_device_library("cudadevrt", 7), "DynamicModule(cuda_libdir): expected a path"),
    ],
)
def test_a_path_of_another_type_is_named(call, message):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    assert message in str(info.value), str(info.value)


def test_paths_come_back_as_fsdecoded_str(odd_dir):
    assert _gpukit._find_nvcc(odd_dir + b"/no-nvcc") == ""
    result = run(
        f"""
import os
from gpukit import _gpukit
include_dirs, _, looked_in = _gpukit._find_cuda_toolkit()
assert all(isinstance(d, str) for d in include_dirs + looked_in)
assert any({odd_dir!r} in os.fsencode(d) for d in looked_in), looked_in
assert os.fsencode(_gpukit._default_cache_dir()) == {odd_dir!r}
""",
        {b"CUDA_PATH": odd_dir, b"GPUKIT_CACHE_DIR": odd_dir},
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.gpu
def test_module_from_file_and_graph_dot_print_take_names_that_are_no_utf8(ctx, odd_dir):
    path = odd_dir + b"/k.cubin"
    with open(path, "wb") as f:
        f.write(compiler.compile(KERNEL, options=["-DVALUE=8"]))
    for form in the_three_forms(path):
        assert drv.module_from_file(form).get_function("k") is not None
    graph = drv.Graph()
    graph.add_empty_node()
    for form in the_three_forms(odd_dir + b"/graph.dot"):
        graph.debug_dot_print(form)
        assert os.path.getsize(form) > 0
        os.remove(form)
