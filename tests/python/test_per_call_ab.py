"""tools/per_call_ab.py, the per-call comparison of builds: what it refuses, and what it says
when a build's process fails (here: a package that cannot be imported)."""

import os
import subprocess
import sys

import pytest

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "per_call_ab.py")
PACKAGE = os.path.join(os.path.dirname(__file__), "..", "..", "python")


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(
    "builds",
    [[], ["a=" + PACKAGE], ["a=" + PACKAGE, "b="], ["a=" + PACKAGE, PACKAGE], ["a=" + PACKAGE, "a=" + PACKAGE]],
    ids=["none", "one", "no directory", "no name", "the same name twice"],
)
def test_fewer_than_two_named_builds_are_a_usage_error(builds):
    result = run(*builds)
    assert result.returncode == 2
    assert "give at least two builds as NAME=PYTHON_DIR" in result.stderr


def test_a_failing_build_process_is_reported_with_its_error(tmp_path):
    broken = tmp_path / "gpukit"
    broken.mkdir()
    (broken / "__init__.py").write_text('raise ImportError("this build is broken")\n')
    result = run("broken=" + str(tmp_path), "b=" + PACKAGE, "--rounds", "1", "--repeats", "1", "--cpus", "0")
    assert result.returncode == 1
    assert "broken, round 1: failed" in result.stderr
    assert "this build is broken" in result.stderr
