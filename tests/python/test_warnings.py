"""Warnings from the C++ core reach Python's warnings machinery (python/bindings/common/bind_warnings.cpp)."""

import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import gpukit.driver as drv
from gpukit import _gpukit, compiler


def test_the_category_is_a_runtime_warning():
    assert issubclass(drv.GpukitWarning, RuntimeWarning)
    assert drv.GpukitWarning.__module__ == "gpukit.driver"


def test_a_warning_from_this_thread_is_a_python_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _gpukit._cleanup_warning("cuMemFree failed", False)
    assert [(w.category, str(w.message)) for w in caught] == [(drv.GpukitWarning, "cuMemFree failed")]


def test_a_warning_from_a_thread_without_the_gil_arrives_soon():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _gpukit._cleanup_warning("from a C++ thread", True)
        deadline = time.monotonic() + 10
        while not caught and time.monotonic() < deadline:
            time.sleep(0.001)  # the main thread runs pending calls between bytecodes
    assert [(w.category, str(w.message)) for w in caught] == [(drv.GpukitWarning, "from a C++ thread")]


def test_filters_apply_and_an_error_filter_is_reported_not_raised(monkeypatch):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", drv.GpukitWarning)
        _gpukit._cleanup_warning("ignored", False)
    assert caught == []
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    with warnings.catch_warnings():
        warnings.simplefilter("error", drv.GpukitWarning)
        _gpukit._cleanup_warning("made an error", False)  # a destructor cannot raise it
    assert len(reported) == 1 and isinstance(reported[0].exc_value, drv.GpukitWarning)
    assert str(reported[0].exc_value) == "made an error"


def test_a_pending_exception_survives_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            raise KeyError("kept")
        except KeyError:
            _gpukit._cleanup_warning("while an exception is handled", False)
            assert sys.exc_info()[0] is KeyError
    assert len(caught) == 1


@pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="needs NVRTC to compile")
def test_a_kernel_that_cannot_be_cached_warns_once_without_a_doubled_prefix(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        image = compiler.compile("__global__ void k() {}", arch="sm_90", cache_dir=str(blocker / "cache"))
    assert image
    messages = [str(w.message) for w in caught if w.category is drv.GpukitWarning]
    assert len(messages) == 1 and messages[0].startswith("compiled, but not cached: "), messages


def test_minus_w_error_and_exit_are_clean():
    # In a process of its own: a warning at exit (after atexit) goes to stderr, never into a
    # finalizing interpreter.
    script = (
        "import warnings, gpukit.driver as drv\n"
        "from gpukit import _gpukit\n"
        "import atexit\n"
        "atexit.register(lambda: _gpukit._cleanup_warning('after exit began', True))\n"
        "_gpukit._cleanup_warning('queued before exit', True)\n"
    )
    run = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", script], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert "after exit began" in run.stderr and "Fatal" not in run.stderr


@pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")
def test_a_warning_from_the_core_names_the_line_that_called_gpukit(tmp_path):
    # The cache directory cannot be made (a file is in the way): the C++ core warns from inside
    # gpukit's compiler module, and the warning names this file's line, not gpukit's.
    (tmp_path / "file").write_text("")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calling_line = sys._getframe().f_lineno + 1
        compiler.compile(
            "__global__ void k(int *x) { x[0] = 7; }", arch="sm_90", cache_dir=str(tmp_path / "file" / "sub")
        )
    [warning] = [w for w in caught if w.category is drv.GpukitWarning]
    assert "cannot create the compilation cache directory" in str(warning.message)
    assert (warning.filename, warning.lineno) == (__file__, calling_line)


def test_a_warning_of_the_python_layer_names_the_callers_line():
    # make_float4 with components left out warns from gpukit's cltypes; the warning names the
    # line below, whatever gpukit frames lie between.
    from gpukit.cl import cltypes

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calling_line = sys._getframe().f_lineno + 1
        cltypes.make_float4(1.0)
    [warning] = [w for w in caught if w.category is DeprecationWarning]
    assert (warning.filename, warning.lineno) == (__file__, calling_line)


def test_the_warning_helper_skips_every_gpukit_frame():
    from gpukit import _warnings
    from gpukit._array import c_types

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calling_line = sys._getframe().f_lineno + 1
        c_types.register_dtype(np.dtype([("gk_x", np.int16), ("gk_y", np.int16)]), "gk_pair_for_warning")
    [warning] = [w for w in caught if w.category is DeprecationWarning]
    assert (warning.filename, warning.lineno) == (__file__, calling_line)
    assert _warnings._PACKAGE.endswith(os.sep + "gpukit" + os.sep)
