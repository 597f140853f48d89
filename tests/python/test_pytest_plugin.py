"""gpukit's pytest plugin is registered once, whether pytest loads it from the installed
entry point or the test suite's conftest lists it."""

import os
import subprocess
import sys

import gpukit.pytest_plugin


def test_the_plugin_is_registered_once(request):
    names = [name for name, plugin in request.config.pluginmanager.list_name_plugin() if plugin is gpukit.pytest_plugin]
    assert len(names) == 1, names
    print(f"gpukit plugin registered as {names[0]}")
    assert any(line.startswith("cuda:") for line in request.config.getini("markers"))


def test_an_installed_entry_point_does_not_register_it_twice(tmp_path):
    # What pip install leaves: a distribution whose pytest11 entry point names the plugin.
    info = tmp_path / "gpukit_entry_point_probe-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gpukit-entry-point-probe\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\ngpukit = gpukit.pytest_plugin\n")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    environment.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
            f"{__file__}::test_the_plugin_is_registered_once",
        ],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "gpukit plugin registered as gpukit\n" in run.stdout  # the entry point's name
