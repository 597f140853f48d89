"""Device selection of gpukit.tools / gpukit.autoinit: CUDA_DEVICE and ~/.cuda-device."""

import os
import subprocess
import sys

import numpy as np
import pytest

import gpukit.driver as drv
import gpukit.tools as tools
from gpukit import _gpukit


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    monkeypatch.delenv("CUDA_DEVICE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def test_configured_device_sources(clean_env, monkeypatch):
    assert _gpukit._configured_device() is None
    (clean_env / ".cuda_device").write_text("2\n")
    assert _gpukit._configured_device() == (2, str(clean_env / ".cuda_device"))
    (clean_env / ".cuda-device").write_text("1")
    assert _gpukit._configured_device()[0] == 1
    monkeypatch.setenv("CUDA_DEVICE", "0")
    assert _gpukit._configured_device() == (0, "CUDA_DEVICE")


@pytest.mark.parametrize("bad", ["abc", "", "1.5", "0 1"])
def test_malformed_cuda_device(clean_env, monkeypatch, bad):
    monkeypatch.setenv("CUDA_DEVICE", bad)
    with pytest.raises(drv.LogicError, match="CUDA_DEVICE.*not an integer"):
        tools.make_default_context()
    with pytest.raises(drv.LogicError, match="not an integer"):
        tools.get_default_device()


def test_malformed_home_file(clean_env):
    (clean_env / ".cuda-device").write_text("first")
    with pytest.raises(drv.LogicError, match=".cuda-device.*not an integer"):
        tools.get_default_device()


@pytest.mark.gpu
def test_cuda_device_out_of_range(clean_env, monkeypatch):
    monkeypatch.setenv("CUDA_DEVICE", "999")
    with pytest.raises(drv.LogicError, match="CUDA_DEVICE.*out of range"):
        tools.make_default_context()


@pytest.mark.gpu
def test_make_default_context(clean_env):
    from conftest import drain_context_stack

    drain_context_stack()
    ctx = tools.make_default_context()
    assert drv.Context.get_current() == ctx
    drv.Context.pop()
    ctx.detach()
    made = []

    def maker(dev):
        made.append(dev)
        return dev.retain_primary_context()

    primary = tools.make_default_context(maker)
    assert made == [drv.Device(0)]
    primary.detach()
    assert tools.get_default_device() == drv.Device(0)


@pytest.mark.gpu
def test_autoinit_in_a_fresh_process():
    code = (
        "import gpukit.autoinit as a, gpukit.driver as d\n"
        "assert d.Context.get_current() == a.context\n"
        "print(a.device.name())"
    )
    env = dict(os.environ, CUDA_DEVICE="0")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == drv.Device(0).name()
    env["CUDA_DEVICE"] = "many"
    proc = subprocess.run(
        [sys.executable, "-c", "import gpukit.autoinit"], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode != 0 and "not an integer" in proc.stderr


# ---- mark_cuda_test and init_cuda_context_fixture


def test_arguments_are_named_when_wrong():
    # Each was nanobind's "incompatible function arguments" or a failure at first use.
    with pytest.raises(TypeError, match=r"make_default_context\(ctx_maker\): expected a callable"):
        tools.make_default_context(5)
    with pytest.raises(TypeError, match=r"get_default_device\(default\): expected an integer, got NoneType"):
        tools.get_default_device(None)
    with pytest.raises(drv.LogicError, match=r"get_default_device\(default\): expected an integer from"):
        tools.get_default_device(2**70)
    with pytest.raises(TypeError, match=r"context_dependent_memoize\(func\): expected a function"):
        tools.context_dependent_memoize(None)
    with pytest.raises(TypeError, match=r"mark_cuda_test\(func\): expected a function"):
        tools.mark_cuda_test("test")
    with pytest.raises(TypeError, match=r"PageLockedMemoryPool\(allocator\): expected a PageLockedAllocator"):
        tools.PageLockedMemoryPool(allocator=5)


def test_mark_cuda_test_marks_and_wraps():
    def body(x, y=2):
        """Doc."""
        return x * y

    marked = tools.mark_cuda_test(body)
    assert [m.name for m in marked.pytestmark] == ["cuda"]
    assert marked.__name__ == "body" and marked.__doc__ == "Doc." and marked.__wrapped__ is body


@pytest.mark.gpu
def test_mark_cuda_test_runs_in_a_fresh_context_even_over_a_current_one(ctx):
    seen = []
    left_pushed = []
    calls = []

    @tools.context_dependent_memoize
    def remembered(x):
        calls.append(x)
        return x

    remembered(1)

    @tools.mark_cuda_test
    def body(factor):
        seen.append(drv.Context.get_current())
        left_pushed.append(drv.Device(0).make_context())  # left on the stack: the wrapper pops it too
        return 21 * factor

    assert body(2) == 42
    assert seen[0] is not None and seen[0] != ctx
    assert drv.Context.get_current() == ctx  # the outer context is current again
    remembered(1)  # the caches were cleared after the test: computed again
    assert calls == [1, 1]
    drv.mem_alloc(16).free()  # and the outer context still works
    left_pushed[0].detach()


@pytest.mark.gpu
def test_mark_cuda_test_releases_the_context_when_the_test_fails():
    from conftest import drain_context_stack

    drain_context_stack()

    @tools.mark_cuda_test
    def failing():
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        failing()
    assert drv.Context.get_current() is None


@pytest.mark.gpu
def test_mark_cuda_test_collects_garbage(ctx, monkeypatch):
    collected = []
    monkeypatch.setattr(tools.gc, "collect", lambda: collected.append(drv.Context.get_current()))

    # A named function: pytest's mark treats a lambda as mark arguments, not a test.
    @tools.mark_cuda_test
    def test_body():
        pass

    test_body()
    assert collected == [ctx]  # after the test's context was popped


@pytest.fixture
def fresh_context():
    yield from tools.init_cuda_context_fixture()


@pytest.mark.gpu
def test_init_cuda_context_fixture_gives_a_current_context(fresh_context):
    assert drv.Context.get_current() == fresh_context
    assert drv.Context.get_device() == tools.get_default_device()


@pytest.mark.gpu
def test_init_cuda_context_fixture_restores_the_stack(ctx):
    fixture = tools.init_cuda_context_fixture()
    inner = next(fixture)
    assert inner != ctx and drv.Context.get_current() == inner
    with pytest.raises(StopIteration):
        next(fixture)
    assert drv.Context.get_current() == ctx


@pytest.mark.parametrize("pool_class", [tools.DeviceMemoryPool, tools.PageLockedMemoryPool])
def test_bin_number_and_alloc_size_are_static_as_in_pycuda(pool_class):
    # PyCUDA's test_mempool_2: the class itself answers, with the default bin layout.
    rng = np.random.default_rng(3)
    for _ in range(2000):
        size = int(rng.integers(0, 1 << 31)) >> int(rng.integers(0, 32))
        bin_nr = pool_class.bin_number(size)
        alloc = pool_class.alloc_size(bin_nr)
        assert alloc >= size
        assert pool_class.bin_number(alloc) == bin_nr
        assert alloc <= max(size, 1) * (1 + 1 / 16)  # four leading bits: less than 1/16 rounding
    with pytest.raises(drv.LogicError, match="not a bin"):
        pool_class.alloc_size(1 << 40)


# The documented scheme (PyCUDA's and PyOpenCL's): a request is rounded up to the largest size
# that shares its leading 1 + leading_bits_in_bin_id bits. Exact values from PyCUDA/PyOpenCL.
BIN_VALUES = [
    (0, 0, 1),
    (1, 0, 1),
    (2, 16, 2),
    (3, 24, 3),
    (15, 62, 15),
    (16, 64, 16),
    (17, 65, 17),
    (31, 79, 31),
    (32, 80, 33),
    (33, 80, 33),
    (1000, 159, 1023),
    (1023, 159, 1023),
    (1024, 160, 1087),
    (4096, 192, 4351),
    (4351, 192, 4351),
    (4352, 193, 4607),
    (1 << 20, 320, 1114111),
    (2**64 - 1, 1023, 2**64 - 1),
]


@pytest.mark.parametrize("pool_class", [tools.DeviceMemoryPool, tools.PageLockedMemoryPool])
@pytest.mark.parametrize(("size", "bin_nr", "alloc"), BIN_VALUES)
def test_bins_follow_the_documented_scheme_exactly(pool_class, size, bin_nr, alloc):
    assert pool_class.bin_number(size) == bin_nr
    assert pool_class.alloc_size(bin_nr) == alloc
