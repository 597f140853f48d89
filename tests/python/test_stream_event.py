"""gpukit.driver.Stream and Event, IPC across processes included."""

import subprocess
import sys
import textwrap

import pytest

import gpukit.driver as drv

pytestmark = pytest.mark.gpu


def test_stream_basics(ctx):
    s = drv.Stream()
    assert s.handle != 0
    s.synchronize()
    assert s.is_done()
    assert s.__cuda_stream__() == (0, s.handle)
    nb = drv.Stream(flags=drv.stream_flags.NON_BLOCKING)
    assert nb.flags == drv.stream_flags.NON_BLOCKING
    with pytest.raises(drv.Error):
        drv.Stream(flags=0x40)


def test_stream_priority(ctx):
    least, greatest = ctx.get_stream_priority_range()
    assert drv.Stream(priority=greatest).priority == greatest
    assert drv.Stream(priority=least).priority == least


def test_event_timing(ctx):
    s = drv.Stream()
    start = drv.Event()
    end = drv.Event()
    assert start.record(s) is start
    end.record(s)
    assert end.synchronize() is end
    assert end.query()
    assert end.time_since(start) >= 0
    assert start.time_till(end) >= 0
    s.wait_for_event(end)
    s.synchronize()
    drv.Event().record()  # the default stream


def test_unrecorded_events(ctx):
    a, b = drv.Event(), drv.Event()
    assert a.query()  # CUDA reports a never-recorded event as complete
    with pytest.raises(drv.LogicError, match="never recorded"):
        b.time_since(a)
    with pytest.raises(drv.LogicError, match="never recorded"):
        a.time_till(b)
    untimed = drv.Event(drv.event_flags.DISABLE_TIMING).record()
    a.record().synchronize()
    untimed.synchronize()
    with pytest.raises(drv.LogicError, match="DISABLE_TIMING"):
        a.time_since(untimed)
    with pytest.raises(TypeError):
        a.record(stream=5)


def test_ipc_handle_flags(ctx):
    with pytest.raises(drv.LogicError, match="INTERPROCESS"):
        drv.Event().ipc_handle()
    with pytest.raises(drv.LogicError, match="bytes"):
        drv.Event.from_ipc_handle(b"short")


def test_ipc_event_across_processes(ctx):
    flags = drv.event_flags.INTERPROCESS | drv.event_flags.DISABLE_TIMING
    evt = drv.Event(flags)
    evt.record()
    handle = evt.ipc_handle()
    assert isinstance(handle, bytes) and len(handle) == 64
    child = textwrap.dedent(f"""
        import gpukit.autoinit, gpukit.driver as drv
        evt = drv.Event.from_ipc_handle(bytes.fromhex("{handle.hex()}"))
        s = drv.Stream()
        s.wait_for_event(evt)
        evt.synchronize()
        s.synchronize()
        print("opened", evt.query())
    """)
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "opened True" in proc.stdout


def test_no_context_is_a_clear_error(ctx):
    drv.Context.pop()
    try:
        with pytest.raises(drv.LogicError, match="current CUDA context"):
            drv.Stream()
        with pytest.raises(drv.LogicError, match="current CUDA context"):
            drv.Event()
    finally:
        ctx.push()
