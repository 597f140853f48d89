"""Device selection of gpukit.tools / gpukit.autoinit: CUDA_DEVICE and ~/.cuda-device."""
import os
import subprocess
import sys

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
    code = ("import gpukit.autoinit as a, gpukit.driver as d\n"
            "assert d.Context.get_current() == a.context\n"
            "print(a.device.name())")
    env = dict(os.environ, CUDA_DEVICE="0")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == drv.Device(0).name()
    env["CUDA_DEVICE"] = "many"
    proc = subprocess.run([sys.executable, "-c", "import gpukit.autoinit"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode != 0 and "not an integer" in proc.stderr
