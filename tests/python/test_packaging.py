"""The package's metadata (pyproject.toml): the license file, the project URLs, the
classifiers, the `gpukit` console script, and a requires-python that is the lowest Python
CI runs, kept in step with the classifiers and CMake. The metadata is built for real by
scikit-build-core, which compiles nothing for it."""

import email.parser
import importlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import gpukit

REPO = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


@pytest.fixture(scope="module")
def metadata(tmp_path_factory):
    """The wheel's METADATA and entry_points.txt, as scikit-build-core writes them."""
    out = tmp_path_factory.mktemp("metadata")
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom scikit_build_core.build import "
            "prepare_metadata_for_build_wheel as prepare\nprepare(sys.argv[1])",
            str(out),
        ],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=300,
    )
    [dist_info] = out.glob("gpukit-*.dist-info")
    return (
        email.parser.Parser().parsestr((dist_info / "METADATA").read_text()),
        (dist_info / "entry_points.txt").read_text(),
        dist_info,
    )


def test_the_license_is_mit_and_shipped(metadata):
    fields, _, dist_info = metadata
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the gpukit authors\n")
    assert "Permission is hereby granted, free of charge" in text
    assert fields["License-Expression"] == "MIT" and fields.get_all("License-File") == ["LICENSE"]
    assert (dist_info / "licenses" / "LICENSE").read_text() == text
    # PEP 639: the expression replaces the license classifier, which must not come back.
    assert not [c for c in fields.get_all("Classifier") if c.startswith("License ::")]


def test_urls_classifiers_and_keywords(metadata):
    fields, _, _ = metadata
    urls = dict(entry.split(", ", 1) for entry in fields.get_all("Project-URL"))
    assert set(urls) == {"Homepage", "Documentation", "Source", "Issues"}
    assert all(url.startswith("https://github.com/gpukit/gpukit") for url in urls.values())
    classifiers = fields.get_all("Classifier")
    for expected in [
        "Operating System :: POSIX :: Linux",
        "Programming Language :: C++",
        "Environment :: GPU :: NVIDIA CUDA",
        "Topic :: Scientific/Engineering",
        "Programming Language :: Python :: 3 :: Only",
    ]:
        assert expected in classifiers, expected
    assert {"cuda", "gpu", "opencl"} <= set(fields["Keywords"].split(","))
    assert fields["Version"] == gpukit.VERSION_TEXT  # the C++ version and the package's agree


def test_the_console_script_runs_the_command_line(metadata, capsys):
    _, entry_points, _ = metadata
    assert "[console_scripts]\ngpukit = gpukit.__main__:main" in entry_points
    module, function = PROJECT["scripts"]["gpukit"].split(":")
    main = getattr(importlib.import_module(module), function)
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out == f"gpukit {PROJECT['version']}\n"
    assert main(["info"]) == 0 and "Environment variables gpukit reads" in capsys.readouterr().out


def test_requires_python_is_the_lowest_python_ci_runs(metadata):
    fields, _, _ = metadata
    [lowest] = re.fullmatch(r">=(\d+\.\d+)", fields["Requires-Python"]).groups()
    versions = [
        c.rsplit(" :: ", 1)[1]
        for c in fields.get_all("Classifier")
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert min(versions, key=lambda v: tuple(map(int, v.split(".")))) == lowest
    # The extension's CMake asks for the same Python.
    assert f"find_package(Python {lowest} " in (REPO / "python" / "CMakeLists.txt").read_text()
    # The Python running the tests (CI's: the machine's python3) is one the package allows.
    assert sys.version_info[:2] >= tuple(map(int, lowest.split(".")))
    assert "{}.{}".format(*sys.version_info[:2]) in versions, "the Python under test has no classifier"


def test_the_build_requirements_agree_with_each_other():
    whole = tomllib.loads((REPO / "pyproject.toml").read_text())
    requires = whole["build-system"]["requires"]
    [skbuild] = [r for r in requires if r.startswith("scikit-build-core")]
    assert whole["tool"]["scikit-build"]["minimum-version"] == skbuild.split(">=")[1]
    [nanobind] = [r for r in requires if r.startswith("nanobind")]
    lowest = nanobind.split(">=")[1]
    assert f"if(nanobind_VERSION VERSION_LESS {lowest})" in (REPO / "python" / "CMakeLists.txt").read_text()
    setup = (REPO / "scripts" / "setup.sh").read_text()
    assert f'"nanobind>={lowest}"' in setup and f">= ({lowest.replace('.', ', ')})" in setup
