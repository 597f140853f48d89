"""gpukit.driver.Context: the stack, detach, threads, configuration, and clean exits."""

import subprocess
import sys
import threading

import pytest

import gpukit.driver as drv
from conftest import drain_context_stack

pytestmark = pytest.mark.gpu


def test_make_context_push_pop():
    drain_context_stack()
    ctx = drv.Device(0).make_context()
    assert drv.Context.get_current() == ctx
    assert drv.Context.get_device() == drv.Device(0)
    assert ctx.get_api_version() >= 3020
    drv.Context.synchronize()
    drv.Context.pop()
    assert drv.Context.get_current() is None
    ctx.push()
    assert drv.Context.get_current() == ctx
    assert hash(drv.Context.get_current()) == hash(ctx)
    ctx.detach()
    assert drv.Context.get_current() is None


def test_pop_on_empty_stack():
    drain_context_stack()
    with pytest.raises(drv.LogicError, match="empty"):
        drv.Context.pop()
    with pytest.raises(drv.LogicError, match="current CUDA context"):
        drv.Context.synchronize()


def test_use_after_detach():
    drain_context_stack()
    ctx = drv.Device(0).make_context()
    ctx.detach()
    assert ctx.is_detached
    with pytest.raises(drv.LogicError, match="detached"):
        ctx.push()
    with pytest.raises(drv.LogicError, match="detached"):
        ctx.get_api_version()
    ctx.detach()  # harmless


def test_failed_make_context_keeps_the_stack(ctx):
    with pytest.raises(drv.Error):
        drv.Device(0).make_context(flags=0xFFFF)
    assert drv.Context.get_current() == ctx


def test_resources_keep_their_context_alive():
    drain_context_stack()
    ctx = drv.Device(0).make_context()
    stream = drv.Stream()
    ctx.detach()
    del ctx
    stream.synchronize()  # the context lives on inside the stream
    assert stream.is_done()
    del stream


def test_context_from_another_thread(ctx):
    drv.Context.pop()
    seen = {}

    def worker():
        ctx.push()
        try:
            s = drv.Stream()
            s.synchronize()
            seen["current"] = drv.Context.get_current()
        finally:
            drv.Context.pop()

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen["current"] == ctx
    assert drv.Context.get_current() is None
    ctx.push()


def test_configuration_and_limits(ctx):
    drv.Context.set_cache_config(drv.func_cache.PREFER_L1)
    assert drv.Context.get_cache_config() == drv.func_cache.PREFER_L1
    drv.Context.set_limit(drv.limit.PRINTF_FIFO_SIZE, 1 << 20)
    assert drv.Context.get_limit(drv.limit.PRINTF_FIFO_SIZE) >= 1 << 20
    assert isinstance(drv.Context.get_shared_config(), drv.shared_config)
    least, greatest = ctx.get_stream_priority_range()
    assert greatest <= least
    with pytest.raises(drv.Error):
        drv.Context.set_limit(999, 1)


def test_primary_context():
    drain_context_stack()
    a = drv.Device(0).retain_primary_context()
    b = drv.Device(0).retain_primary_context()
    assert a == b
    assert drv.Context.get_current() is None
    a.push()
    drv.Context.pop()
    a.detach()
    b.detach()


@pytest.mark.skipif(
    True if drv.driver_available() is False else drv.Device.count() < 2, reason="peer access needs two GPUs"
)
def test_peer_access():
    drain_context_stack()
    c0 = drv.Device(0).make_context()
    c1 = drv.Device(1).make_context()
    if drv.Device(1).can_access_peer(drv.Device(0)):
        c1.enable_peer_access(c0)
        with pytest.raises(drv.LogicError):
            c1.enable_peer_access(c0)  # already enabled
        c1.disable_peer_access(c0)
    drain_context_stack()
    c0.detach()
    c1.detach()


EXIT_SCRIPTS = {
    "context left on the stack": "import gpukit.driver as d; c = d.Device(0).make_context()",
    "stream outlives a detached context": (
        "import gpukit.driver as d\nc = d.Device(0).make_context()\ns = d.Stream()\nc.detach()\n"
        "import builtins; builtins.keep = s"
    ),
    "nested contexts": (
        "import gpukit.driver as d\na = d.Device(0).make_context()\nb = d.Device(0).make_context()\n"
        "e = d.Event(); e.record()"
    ),
    "autoinit": "import gpukit.autoinit, gpukit.driver as d; s = d.Stream(); e = d.Event().record(s)",
    "autoprimaryctx": "import gpukit.autoprimaryctx, gpukit.driver as d; s = d.Stream()",
    "autoinit then manual pop": "import gpukit.autoinit, gpukit.driver as d; d.Context.pop()",
}


@pytest.mark.parametrize("case", sorted(EXIT_SCRIPTS))
def test_interpreter_exit_is_clean(case):
    proc = subprocess.run([sys.executable, "-c", EXIT_SCRIPTS[case]], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "abort" not in proc.stderr.lower() and "warning" not in proc.stderr.lower(), proc.stderr
