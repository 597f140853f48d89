"""The compile cache as users manage it: its size limit (least recently used entries go first,
with several processes writing at once) and `gpukit cache list|stats|prune|clear`."""

import os
import subprocess
import sys
import time

import pytest

import gpukit.compiler as compiler
from gpukit import _gpukit

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")


def gpukit_command(*args, env=None):
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **(env or {}))
    environment.pop("GPUKIT_CACHE_SIZE", None)
    environment.update(env or {})
    done = subprocess.run(
        [sys.executable, "-m", "gpukit", "cache", *args], env=environment, capture_output=True, text=True, timeout=120
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def cache_dir(tmp_path):
    """A cache of four entries of 100, 200, 300 and 400 bytes, used 40, 10, 30 and 20 minutes ago."""
    directory = tmp_path / "cache"
    directory.mkdir(mode=0o700)
    now = time.time()
    for key, size, minutes_ago in [("a" * 64, 100, 40), ("b" * 64, 200, 10), ("c" * 64, 300, 30), ("d" * 64, 400, 20)]:
        path = directory / f"{key}.gpukit-cache"
        path.write_bytes(b"x" * size)
        os.utime(path, (now - 60 * minutes_ago, now - 60 * minutes_ago))
    (directory / "notes.txt").write_text("not an entry")
    return directory


def test_list_shows_the_entries_least_recently_used_first(cache_dir):
    status, out, err = gpukit_command("list", "--dir", str(cache_dir))
    assert status == 0, err
    lines = out.splitlines()
    assert [line.split()[-1][0] for line in lines] == ["a", "c", "d", "b"]
    assert lines[0].split()[1:3] == ["100", "bytes"]


def test_stats_says_where_how_much_and_the_limit(cache_dir):
    status, out, err = gpukit_command("stats", "--dir", str(cache_dir), env={"GPUKIT_CACHE_SIZE": "2M"})
    assert status == 0, err
    assert out.splitlines() == [
        f"directory: {cache_dir}",
        "holds:     4 entries, 1000 bytes",
        "limit:     2.0 MiB (GPUKIT_CACHE_SIZE, default 1 GiB; 0: no limit)",
    ]
    cache_dir.chmod(0o777)
    status, out, err = gpukit_command("stats", "--dir", str(cache_dir))
    assert "not used:  others can write to it (mode 0777)" in out


def test_prune_removes_the_least_recently_used_down_to_the_size(cache_dir):
    status, out, err = gpukit_command("prune", "--dir", str(cache_dir), "--max-size", "600")
    assert status == 0, err
    assert out.strip() == f"removed 2 entries, 400 bytes from {cache_dir}; left: 2 entries, 600 bytes"
    assert sorted(name[0] for name in os.listdir(cache_dir) if name.endswith(".gpukit-cache")) == ["b", "d"]
    # To the limit when no size is given.
    status, out, err = gpukit_command("prune", "--dir", str(cache_dir), env={"GPUKIT_CACHE_SIZE": "250"})
    assert out.strip() == f"removed 1 entry, 400 bytes from {cache_dir}; left: 1 entry, 200 bytes"


def test_clear_removes_every_entry_and_nothing_else(cache_dir):
    status, out, err = gpukit_command("clear", "--dir", str(cache_dir))
    assert status == 0, err
    assert out.strip() == f"removed 4 entries, 1000 bytes from {cache_dir}; left: 0 entries, 0 bytes"
    assert os.listdir(cache_dir) == ["notes.txt"]


@pytest.mark.parametrize(
    "args, env, message",
    [
        (["prune", "--max-size", "lots"], {}, "--max-size 'lots' is not a size"),
        (["stats", "--max-size", "1G"], {}, "--max-size is for prune only"),
        (["stats"], {"GPUKIT_CACHE_SIZE": "big"}, "GPUKIT_CACHE_SIZE 'big' is not a size"),
        (["prune"], {"GPUKIT_CACHE_SIZE": "0"}, "there is no limit to prune to"),
        (["stats"], {"GPUKIT_DISABLE_CACHE": "1"}, "no cache directory: GPUKIT_DISABLE_CACHE"),
        (["shrink"], {}, "invalid choice: 'shrink'"),
    ],
)
def test_bad_requests_are_one_line_errors(cache_dir, args, env, message):
    directory = [] if "GPUKIT_DISABLE_CACHE" in env else ["--dir", str(cache_dir)]
    status, out, err = gpukit_command(*args, *directory, env=env)
    assert status == 2 and message in err and "Traceback" not in err, err


def test_the_limit_is_set_per_process_and_checked():
    try:
        compiler.set_cache_size_limit("3M")
        assert compiler.get_cache_size_limit() == 3 << 20
        compiler.set_cache_size_limit(0)
        assert compiler.get_cache_size_limit() == 0
    finally:
        compiler.set_cache_size_limit(None)
    assert compiler.get_cache_size_limit() == (
        1 << 30
        if "GPUKIT_CACHE_SIZE" not in os.environ
        else _gpukit._parse_cache_size(os.environ["GPUKIT_CACHE_SIZE"], "x")
    )
    with pytest.raises(ValueError, match="at least 0 bytes"):
        compiler.set_cache_size_limit(-1)
    with pytest.raises(ValueError, match="set_cache_size_limit: the limit '1.5G' is not a size"):
        compiler.set_cache_size_limit("1.5G")
    with pytest.raises(TypeError, match="expected bytes"):
        compiler.set_cache_size_limit(2.0)


WRITER = """
import sys
import gpukit.compiler as compiler
first, count = int(sys.argv[2]), int(sys.argv[3])
for k in range(first, first + count):
    compiler.compile("__global__ void k%d(int *a) { a[0] = %d; }" % (k, k), arch="sm_90", cache_dir=sys.argv[1])
"""


@needs_nvrtc
def test_concurrent_writers_keep_the_cache_near_its_limit_and_whole(tmp_path):
    directory = tmp_path / "shared"
    one = len(compiler.compile("__global__ void k0(int *a) { a[0] = 0; }", arch="sm_90", cache_dir=False)) + 48
    limit = 4 * one
    writers, per_writer = 4, 6
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), GPUKIT_CACHE_SIZE=str(limit))
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(directory), str(w * per_writer), str(per_writer)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(writers)
    ]
    for p in processes:
        assert p.wait(timeout=300) == 0, p.stderr.read()
        p.stderr.close()
    entries, size = _gpukit._cache_usage(str(directory))
    # Each store prunes after its own write; a writer's rename can land just after another's prune.
    assert 0 < entries and size <= limit + (writers - 1) * (one + 64), (entries, size, limit)
    # What is left is whole: each entry loads and is the image compiling gives.
    left = {key for key, _, _ in _gpukit._cache_entries(str(directory))}
    for k in range(writers * per_writer):
        source = "__global__ void k%d(int *a) { a[0] = %d; }" % (k, k)
        outcome = compiler.compile_outcome(source, arch="sm_90", cache_dir=str(directory))
        if outcome.key in left:
            assert outcome.from_cache
            assert outcome.image == compiler.compile(source, arch="sm_90", cache_dir=False)
