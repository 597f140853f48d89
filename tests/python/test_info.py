"""`gpukit info` and the command line: the JSON's keys and types, the text's sections, what
a missing library or a hung nvcc gets, the list of environment variables against the code
that reads them, --help and --version for the command and each subcommand."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gpukit
import gpukit.driver as drv
from gpukit import __main__ as command_line
from gpukit import _environment, _gpukit, info

REPO = Path(__file__).resolve().parents[2]

COMPONENT = {"found": bool, "version": (str, None), "path": (str, None), "error": (str, None)}
CUDA_DEVICE = {
    "number": int,
    "name": str,
    "compute_capability": str,
    "total_memory_bytes": int,
    "pci_bus_id": str,
    "uuid": str,
    "compute_mode": (str, None),
    "multiprocessors": (int, None),
    "clock_mhz": (float, None),
    "memory_clock_mhz": (float, None),
    "memory_bus_bits": (int, None),
    "l2_cache_bytes": (int, None),
    "max_threads_per_block": (int, None),
    "shared_memory_per_block_bytes": (int, None),
    "warp_size": (int, None),
    "async_engines": (int, None),
    "ecc_enabled": (bool, None),
    "integrated": (bool, None),
    "tcc_driver": (bool, None),
    "kernel_timeout": (bool, None),
    "managed_memory": (bool, None),
    "attributes": dict,
}
OPENCL_DEVICE = {
    "name": str,
    "type": (str, None),
    "vendor": str,
    "version": str,
    "driver_version": str,
    "compute_units": int,
    "global_memory_bytes": int,
    "local_memory_bytes": int,
    "max_allocation_bytes": int,
    "max_work_group_size": int,
}
SCHEMA = {
    "gpukit": {
        "version": str,
        "path": str,
        "extension": str,
        "build": {
            "compiler": str,
            "cxx_standard": int,
            "build_type": (str, None),
            "cuda_headers": str,
            "nanobind": str,
            "python": str,
        },
    },
    "host": {
        "python": str,
        "python_implementation": str,
        "python_executable": str,
        "numpy": str,
        "os": str,
        "kernel": str,
        "machine": str,
        "libc": (str, None),
        "cpu": str,
        "cpu_count": int,
    },
    "cuda_driver": COMPONENT,
    "nvrtc": COMPONENT,
    "nvjitlink": COMPONENT,
    "nvcc": COMPONENT,
    "curand": dict(COMPONENT, headers=(str, None), headers_version=(str, None)),
    "cuda_toolkit": {
        "found": bool,
        "include_dirs": [str],
        "found_via": (str, None),
        "looked_in": [str],
        "gpukit_include_dir": str,
    },
    "cuda_devices": {"count": int, "error": (str, None), "devices": [CUDA_DEVICE]},
    "opencl": {
        "found": bool,
        "error": (str, None),
        "platforms": [{"name": str, "vendor": str, "version": str, "devices": [OPENCL_DEVICE]}],
    },
    "compile_cache": {
        "directory": (str, None),
        "disabled": bool,
        "exists": bool,
        "entries": int,
        "bytes": int,
        "limit_bytes": (int, None),
        "limit_error": (str, None),
        "not_used_because": (str, None),
    },
    "environment": {name: (str, None) for name in _environment.VARIABLES},
}


def check_schema(value, schema, where="report"):
    """Asserts that `value` has exactly the keys of a dict schema, items of a [schema] list,
    or one of the types of a type or tuple of types (None for null); bool is not an int."""
    if isinstance(schema, dict):
        assert isinstance(value, dict), where
        assert sorted(value) == sorted(schema), f"{where}: keys {sorted(value)} != {sorted(schema)}"
        for key, item_schema in schema.items():
            check_schema(value[key], item_schema, f"{where}.{key}")
    elif isinstance(schema, list):
        assert isinstance(value, list), where
        for i, item in enumerate(value):
            check_schema(item, schema[0], f"{where}[{i}]")
    else:
        types = tuple(type(None) if t is None else t for t in (schema if isinstance(schema, tuple) else (schema,)))
        assert type(value) in types, f"{where}: {value!r} is not {types}"


def run_command(*args, env=None):
    """`python -m gpukit args...` in a process of its own: (exit status, stdout, stderr)."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **(env or {}))
    run = subprocess.run(
        [sys.executable, "-m", "gpukit", *args], env=environment, capture_output=True, text=True, timeout=120
    )
    return run.returncode, run.stdout, run.stderr


def test_json_has_the_documented_keys_and_types(tmp_path):
    status, out, err = run_command("info", "--json", env={"GPUKIT_CACHE_DIR": str(tmp_path), "GPUKIT_FUSION": "0"})
    assert status == 0, err
    report = json.loads(out)
    check_schema(report, SCHEMA)
    assert report["gpukit"]["version"] == gpukit.VERSION_TEXT
    assert report["gpukit"]["build"]["cuda_headers"] == "{}.{}".format(*drv.get_version()[:2])
    assert report["gpukit"]["build"]["python"].startswith("{}.{}.".format(*sys.version_info[:2]))
    assert report["host"]["python"] == "{}.{}.{}".format(*sys.version_info[:3])
    assert report["environment"]["GPUKIT_FUSION"] == "0"
    assert report["compile_cache"] == {
        "directory": str(tmp_path),
        "disabled": False,
        "exists": True,
        "entries": 0,
        "bytes": 0,
        "limit_bytes": 1 << 30,
        "limit_error": None,
        "not_used_because": None,
    }


def test_libraries_are_reported_as_this_process_finds_them():
    report = info.collect()
    assert report["cuda_driver"]["found"] == drv.driver_available()
    assert report["nvrtc"]["found"] == _gpukit.nvrtc_available()
    assert report["nvjitlink"]["found"] == _gpukit.nvjitlink_available()
    assert report["nvcc"]["found"] == bool(_gpukit._find_nvcc("nvcc"))
    if report["nvrtc"]["found"]:
        assert report["nvrtc"]["version"] == "{}.{}".format(*_gpukit.nvrtc_version())
        assert os.path.basename(report["nvrtc"]["path"]).startswith("libnvrtc.so") and report["nvrtc"]["error"] is None
    if report["nvjitlink"]["found"]:
        assert os.path.isfile(report["nvjitlink"]["path"])
        assert int(report["nvjitlink"]["version"].split(".")[0]) >= 12
    curand = report["curand"]
    if curand["found"]:  # this machine's toolkit has cuRAND, and CI's too
        assert os.path.basename(curand["path"]).startswith("libcurand.so") and os.path.isfile(curand["path"])
        assert re.fullmatch(r"\d+\.\d+\.\d+", curand["version"]), curand
    else:
        assert "libcurand.so" in curand["error"]
    if curand["headers"] is not None:
        assert os.path.isfile(os.path.join(curand["headers"], "curand_kernel.h"))
    if report["nvcc"]["found"]:
        assert re.fullmatch(r"\d+\.\d+\.\d+", report["nvcc"]["version"]), report["nvcc"]
    include_dirs, found_via, _ = _gpukit._find_cuda_toolkit()
    assert report["cuda_toolkit"]["include_dirs"] == include_dirs and report["cuda_toolkit"]["found_via"] == (
        found_via or None
    )
    if not drv.driver_available():
        assert "libcuda.so.1" in report["cuda_driver"]["error"]
        assert report["cuda_devices"] == {"count": 0, "error": "no CUDA driver", "devices": []}


def test_cache_size_counts_the_entries_a_compilation_stores(tmp_path):
    if not _gpukit.nvrtc_available():
        pytest.skip("NVRTC is not installed")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), GPUKIT_CACHE_DIR=str(tmp_path))
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from gpukit.compiler import compile\ncompile('__global__ void k(int *a) { a[0] = 1; }', arch='sm_90')",
        ],
        env=env,
        check=True,
        timeout=120,
    )
    entries = [p for p in tmp_path.iterdir() if p.name.endswith(".gpukit-cache")]
    (tmp_path / "stray.txt").write_text("not an entry")
    status, out, err = run_command("info", "--json", env={"GPUKIT_CACHE_DIR": str(tmp_path)})
    assert status == 0, err
    cache = json.loads(out)["compile_cache"]
    assert cache["entries"] == len(entries) == 1
    assert cache["bytes"] == sum(p.stat().st_size for p in entries)


def test_a_disabled_cache_and_a_missing_library_are_said_in_text(monkeypatch):
    monkeypatch.setenv("GPUKIT_DISABLE_CACHE", "1")
    report = info.collect()
    assert report["compile_cache"]["disabled"] and report["compile_cache"]["directory"] is None
    report["nvrtc"] = {"found": False, "version": None, "path": None, "error": "NVRTC could not be loaded (tried X)"}
    text = info.format_text(report)
    assert "NVRTC            not found: NVRTC could not be loaded (tried X)" in text
    assert "disabled (GPUKIT_DISABLE_CACHE" in text


@pytest.fixture
def fake_nvcc(tmp_path, monkeypatch):
    """Puts an executable `nvcc` with the given shell body first on PATH."""

    def make(body):
        nvcc = tmp_path / "nvcc"
        nvcc.write_text(f"#!/bin/sh\n{body}\n")
        nvcc.chmod(0o755)
        monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
        return str(nvcc)

    return make


def test_nvcc_version_is_read_from_its_release_line(fake_nvcc):
    path = fake_nvcc(
        "echo 'nvcc: NVIDIA (R) Cuda compiler driver'; echo 'Cuda compilation tools, release 12.4, V12.4.131'"
    )
    assert info._nvcc() == {"found": True, "version": "12.4.131", "path": path, "error": None}


def test_an_nvcc_that_hangs_or_fails_is_reported_not_waited_for(fake_nvcc, monkeypatch):
    monkeypatch.setattr(info, "NVCC_TIMEOUT", 0.5)
    path = fake_nvcc("sleep 30")
    assert info._nvcc() == {
        "found": True,
        "version": None,
        "path": path,
        "error": "'nvcc --version' did not answer within 0.5 s",
    }
    fake_nvcc("echo broken install >&2; exit 3")
    report = info._nvcc()
    assert (
        report["found"]
        and report["version"] is None
        and report["error"] == "'nvcc --version' failed (3): broken install"
    )
    assert "version unknown ('nvcc --version' failed (3)" in info._component_text(report)


def test_text_has_every_section_and_every_variable(capsys, monkeypatch):
    monkeypatch.setenv("GPUKIT_COMPILER", "nvrtc")
    assert command_line.main(["info"]) == 0
    text = capsys.readouterr().out
    report = info.collect()
    assert sorted(key for _, keys, _ in info.SECTIONS for key in keys) == sorted(report)
    titles = re.findall(r"^(\S.*)$", text, re.MULTILINE)
    assert titles == [title for title, _, _ in info.SECTIONS]
    for label in [
        "version",
        "installed in",
        "built with",
        "Python",
        "numpy",
        "OS",
        "CPU",
        "driver",
        "NVRTC",
        "nvJitLink",
        "nvcc",
        "toolkit headers",
        "gpukit headers",
    ]:
        assert re.search(rf"^  {re.escape(label)}\s", text, re.MULTILINE), label
    for name in _environment.VARIABLES:
        assert name in text, name
    assert re.search(r"^  GPUKIT_COMPILER\s+nvrtc$", text, re.MULTILINE)
    # Without arguments the command is `info`.
    assert command_line.main([]) == 0
    assert capsys.readouterr().out.splitlines()[:3] == text.splitlines()[:3]


def test_devices_are_described_in_text():
    # The text of a device, from a report shaped like cuda_device()'s (checked on a GPU below).
    device = {key: None for key in CUDA_DEVICE}
    device.update(
        number=0,
        name="Fake GPU",
        compute_capability="9.0",
        total_memory_bytes=80 * 2**30,
        pci_bus_id="0000:65:00.0",
        uuid="GPU-01234567-89ab-cdef-0123-456789abcdef",
        compute_mode="DEFAULT",
        multiprocessors=132,
        clock_mhz=1980.0,
        memory_clock_mhz=2619.0,
        memory_bus_bits=5120,
        l2_cache_bytes=50 * 2**20,
        ecc_enabled=True,
        tcc_driver=False,
        integrated=False,
        kernel_timeout=False,
        attributes={},
    )
    report = info.collect()
    report["cuda_devices"] = {"count": 2, "error": None, "devices": [device, {"number": 1, "error": "it fell over"}]}
    text = info.format_text(report)
    assert "[0] Fake GPU: compute capability 9.0, 80.0 GiB, 132 multiprocessors" in text
    assert "clocks 1980.0 MHz (SM), 2619.0 MHz (memory), 5120-bit memory bus, L2 50.0 MiB" in text
    assert "PCI bus id 0000:65:00.0, GPU-01234567-89ab-cdef-0123-456789abcdef, compute mode DEFAULT, ECC on" in text
    assert "[1] could not be queried: it fell over" in text


@pytest.mark.gpu
def test_every_gpu_is_reported_with_its_attributes():
    report = info.collect()
    check_schema(report, SCHEMA)
    assert report["cuda_driver"]["found"] and os.path.basename(report["cuda_driver"]["path"]).startswith("libcuda.so")
    assert re.fullmatch(r"\d+\.\d+", report["cuda_driver"]["version"])
    assert report["cuda_devices"]["count"] == drv.Device.count() == len(report["cuda_devices"]["devices"])
    for number, device in enumerate(report["cuda_devices"]["devices"]):
        dev = drv.Device(number)
        assert device["name"] == dev.name() and device["pci_bus_id"] == dev.pci_bus_id()
        assert device["compute_capability"] == "{}.{}".format(*dev.compute_capability())
        assert device["multiprocessors"] == dev.multiprocessor_count > 0
        assert device["total_memory_bytes"] == dev.total_memory()
        assert device["uuid"].replace("-", "")[3:] == dev.uuid().hex()


# ---- the environment variables against the code ----------------------------------------

READS = re.compile(r"getenv\w*\(|os\.environ|os\.getenv|\benvironment\(")
WRITES = re.compile(r"os\.environ(\[[^]]*\]\s*=[^=]|\.setdefault\(|\.pop\()")
QUOTED_NAME = re.compile(r"[\"']([A-Z][A-Z0-9_]{2,})[\"']")
NAME_IN_A_VARIABLE = re.compile(r"(?:environ\.get\(|getenv\(|environ\[)\s*([A-Z][A-Z0-9_]+)\b")
CONSTANT = re.compile(r"^([A-Z][A-Z0-9_]+)\s*=\s*[\"']([A-Z][A-Z0-9_]{2,})[\"']", re.MULTILINE)
CALL_WITH_A_VARIABLE = re.compile(r"getenv\(\s*[a-z_]\w*\s*\)")
# Read by gpukit, but not settings of gpukit's: the bench saves and restores CuPy's around
# CuPy's cold-compile side; nanobind's stub generator sets NB_STUBGEN while the build
# generates the stubs (gpukit/__init__.py).
NOT_SETTINGS = {"CUPY_CACHE_DIR", "CUPY_CACHE_IN_MEMORY", "NB_STUBGEN"}


def variables_read_by(path):
    """The environment variables the file at `path` reads: the quoted names on each line
    that reads the environment (and on the line before one that passes getenv a variable,
    which names the loop's list), and module constants passed by name."""
    text = path.read_text()
    constants = dict(CONSTANT.findall(text))
    lines = text.splitlines()
    names = set()
    for number, line in enumerate(lines):
        if not READS.search(line) or WRITES.search(line):
            continue
        names.update(QUOTED_NAME.findall(line))
        names.update(constants[name] for name in NAME_IN_A_VARIABLE.findall(line) if name in constants)
        if CALL_WITH_A_VARIABLE.search(line) and number > 0:
            names.update(QUOTED_NAME.findall(lines[number - 1]))
    return names


def test_the_variable_list_is_what_the_code_reads():
    sources = [
        p
        for folder in ("src", "include", "python/gpukit", "python/bindings", "bench/cpp")
        for p in sorted((REPO / folder).rglob("*"))
        if p.suffix in (".cpp", ".hpp", ".h", ".inc", ".py")
    ]
    assert len(sources) > 100
    read = set().union(*(variables_read_by(p) for p in sources))
    assert read - NOT_SETTINGS == set(_environment.VARIABLES), (
        f"read but not listed: {sorted(read - NOT_SETTINGS - set(_environment.VARIABLES))}; "
        f"listed but not read: {sorted(set(_environment.VARIABLES) - read)}"
    )


def test_the_scan_finds_the_ways_the_code_reads_a_variable(tmp_path):
    # The scan itself, on the forms the code uses, so that the test above cannot pass by
    # finding nothing.
    source = tmp_path / "reads.py"
    source.write_text(
        'COUNT_VARIABLE = "GPUKIT_A"\n'
        'x = os.environ.get(COUNT_VARIABLE, "1")\n'
        'y = os.environ.get("GPUKIT_B") or os.getenv("GPUKIT_C")\n'
        'RANK_VARIABLE = "GPUKIT_E"\n'
        "z = int(os.environ[RANK_VARIABLE])\n"
        'os.environ["GPUKIT_WRITTEN"] = "1"\n'
        'os.environ.setdefault("GPUKIT_DEFAULTED", "1")\n'
        'print("GPUKIT_NOT_READ")\n'
    )
    assert variables_read_by(source) == {"GPUKIT_A", "GPUKIT_B", "GPUKIT_C", "GPUKIT_E"}
    source = tmp_path / "reads.cpp"
    source.write_text(
        'const char* a = std::getenv("GPUKIT_D");\n'
        'for (const char* variable : {"GPUKIT_E", "GPUKIT_F"})\n'
        "    if (const char* home = std::getenv(variable); home && *home) {}\n"
        'std::string b = getenv_or_empty("GPUKIT_G");\n'
        'return environment("GPUKIT_H", "PYCUDA_H") != nullptr;\n'
        'const char* c = "GPUKIT_NOT_READ";\n'
    )
    assert variables_read_by(source) == {"GPUKIT_D", "GPUKIT_E", "GPUKIT_F", "GPUKIT_G", "GPUKIT_H", "PYCUDA_H"}


def test_the_documentation_describes_every_variable():
    text = (REPO / "docs" / "command-line.md").read_text()
    for name in _environment.VARIABLES:
        assert f"`{name}`" in text, name


# ---- --help and --version ----------------------------------------------------------------


@pytest.mark.parametrize("args", [["--version"], ["info", "--version"], ["bench", "--version"], ["cache", "--version"]])
def test_version_is_printed_by_the_command_and_each_subcommand(capsys, args):
    with pytest.raises(SystemExit) as exited:
        command_line.main(args)
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"gpukit {gpukit.VERSION_TEXT}\n"


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--help"], ["{info,bench,cache}", "info", "bench", "cache", "--version"]),
        (["cache", "--help"], ["{list,stats,prune,clear}", "--dir DIR", "--max-size SIZE", "--version"]),
        (["info", "--help"], ["--json", "--version", "environment variables"]),
        (
            ["bench", "--help"],
            ["--repeats N", "--quick", "--json PATH", "--png PATH", "--version", "small_add", "groups: "],
        ),
    ],
)
def test_help_describes_the_command_and_each_subcommand(capsys, args, expected):
    with pytest.raises(SystemExit) as exited:
        command_line.main(args)
    assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for text in expected:
        assert text in out, text


def test_the_module_runs_as_a_program_and_refuses_unknown_commands():
    status, out, err = run_command("--version")
    assert (status, out) == (0, f"gpukit {gpukit.VERSION_TEXT}\n"), err
    status, out, err = run_command("inof")
    assert status == 2 and "invalid choice: 'inof'" in err and err.startswith("usage: python -m gpukit")
    status, out, err = run_command("info", "--jsn")
    assert status == 2 and "unrecognized arguments: --jsn" in err
