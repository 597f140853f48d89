"""``gpukit info`` (``python -m gpukit info``): what gpukit finds on this machine, for bug
reports and for checking an installation, as text or as JSON (``--json``).

It reports gpukit's version and build, the host (Python, numpy, OS, CPU), the CUDA driver,
NVRTC, nvJitLink and nvcc (found or not, version, file), the CUDA toolkit headers handed to
NVRTC, every CUDA device and every OpenCL platform and device, the compile cache, and every
environment variable gpukit reads. Each part is probed on its own: what is missing is
reported with the reason, and never stops the report (a machine without a GPU gets one).
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

import gpukit
from gpukit import _environment, _gpukit
from gpukit._text import printable

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from gpukit._gpukit.cl import Device as _CLDevice, device_type as _CLDeviceType

#: A part of the report: a dict of JSON values.
_Report = dict[str, Any]

#: Seconds ``nvcc --version`` may take before it is reported as not answering.
NVCC_TIMEOUT = 10

# The driver's device attributes reported for every CUDA device: the JSON key, the
# attribute's name (gpukit.driver.device_attribute) and the factor to the key's unit.
_DEVICE_ATTRIBUTES: list[tuple[str, str, float | type[bool]]] = [
    ("multiprocessors", "MULTIPROCESSOR_COUNT", 1),
    ("clock_mhz", "CLOCK_RATE", 1e-3),
    ("memory_clock_mhz", "MEMORY_CLOCK_RATE", 1e-3),
    ("memory_bus_bits", "GLOBAL_MEMORY_BUS_WIDTH", 1),
    ("l2_cache_bytes", "L2_CACHE_SIZE", 1),
    ("max_threads_per_block", "MAX_THREADS_PER_BLOCK", 1),
    ("shared_memory_per_block_bytes", "MAX_SHARED_MEMORY_PER_BLOCK", 1),
    ("warp_size", "WARP_SIZE", 1),
    ("async_engines", "ASYNC_ENGINE_COUNT", 1),
    ("ecc_enabled", "ECC_ENABLED", bool),
    ("integrated", "INTEGRATED", bool),
    ("tcc_driver", "TCC_DRIVER", bool),
    ("kernel_timeout", "KERNEL_EXEC_TIMEOUT", bool),
    ("managed_memory", "MANAGED_MEMORY", bool),
]


def _message(error: BaseException) -> str:
    """An exception's text for the report; its type when it has none."""
    return str(error) or type(error).__name__


def _component(path: Callable[[], str], version: Callable[[], str]) -> _Report:
    """A library or program: ``found``, its ``version`` and ``path`` (each the result of
    the given function, None when it raises) and the first ``error`` met."""
    report: _Report = {"found": False, "version": None, "path": None, "error": None}
    for key, probe in (("path", path), ("version", version)):
        try:
            report[key] = probe()
        except Exception as e:  # whatever fails is reported, never raised
            report["error"] = report["error"] or _message(e)
            break
    report["found"] = report["path"] is not None
    return report


def _driver_version() -> str:
    import gpukit.driver as drv

    version = drv.get_driver_version()
    return f"{version // 1000}.{version % 1000 // 10}"


def cuda_driver() -> _Report:
    """libcuda: found, version (the CUDA version it supports), file."""
    return _component(_gpukit._driver_library_path, _driver_version)


def _nvrtc() -> _Report:
    return _component(_gpukit._nvrtc_library_path, lambda: "{}.{}".format(*_gpukit.nvrtc_version()))


def _nvjitlink() -> _Report:
    return _component(_gpukit._nvjitlink_library_path, lambda: "{}.{}".format(*_gpukit._nvjitlink_version()))


def curand() -> _Report:
    """cuRAND: its host library (found, version, path), which holds the Sobol tables, and
    the directory of the device headers its generators are compiled with."""
    report = _component(_gpukit._curand_library_path, lambda: "{}.{}.{}".format(*_gpukit._curand_library_version()))
    # (directory, (major, minor, patch) or None) or None; the stub says object.
    headers = cast("tuple[str, tuple[int, int, int] | None] | None", _gpukit._curand_headers())
    report["headers"] = None if headers is None else headers[0]
    report["headers_version"] = None if headers is None or headers[1] is None else "{}.{}.{}".format(*headers[1])
    return report


def _find_nvcc() -> str:
    path = _gpukit._find_nvcc("nvcc")
    if not path:
        raise FileNotFoundError("nvcc is not on PATH, in $CUDA_PATH/bin, $CUDA_HOME/bin or /usr/local/cuda/bin")
    return path


def _nvcc_version() -> str:
    # Bounded: a broken install or a hung network file system must not hang the report.
    try:
        run = subprocess.run([_find_nvcc(), "--version"], capture_output=True, text=True, timeout=NVCC_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise TimeoutError(f"'nvcc --version' did not answer within {NVCC_TIMEOUT} s") from None
    if run.returncode != 0:
        raise RuntimeError(f"'nvcc --version' failed ({run.returncode}): {run.stderr.strip()}")
    # "Cuda compilation tools, release 13.0, V13.0.88"
    found = re.search(r"release [\d.]+, V([\d.]+)", run.stdout)
    return found.group(1) if found else run.stdout.strip()


def _nvcc() -> _Report:
    return _component(_find_nvcc, _nvcc_version)


def _cuda_toolkit() -> _Report:
    from gpukit import compiler  # sets the pip packages' directories the search includes

    include_dirs, found_via, looked_in = _gpukit._find_cuda_toolkit()
    return {
        "found": bool(include_dirs),
        "include_dirs": list(include_dirs),
        "found_via": found_via or None,
        "looked_in": list(looked_in),
        "gpukit_include_dir": compiler.DEVICE_INCLUDE_DIR,
    }


def _uuid_text(raw: bytes) -> str:
    hex_digits = raw.hex()
    return f"GPU-{hex_digits[:8]}-{hex_digits[8:12]}-{hex_digits[12:16]}-{hex_digits[16:20]}-{hex_digits[20:]}"


def cuda_device(number: int) -> _Report:
    """Device `number`: name, compute capability, memory, PCI bus id, UUID, the attributes
    of _DEVICE_ATTRIBUTES (None where the driver does not answer) and every attribute the
    driver reports (``attributes``)."""
    import gpukit.driver as drv

    device = drv.Device(number)
    attributes = {attribute.name: value for attribute, value in device.get_attributes().items()}
    report: _Report = {
        "number": number,
        "name": device.name(),
        "compute_capability": "{}.{}".format(*device.compute_capability()),
        "total_memory_bytes": device.total_memory(),
        "pci_bus_id": device.pci_bus_id(),
        "uuid": _uuid_text(device.uuid()),
        "compute_mode": drv.compute_mode(attributes["COMPUTE_MODE"]).name if "COMPUTE_MODE" in attributes else None,
    }
    for key, name, convert in _DEVICE_ATTRIBUTES:
        value = attributes.get(name)
        report[key] = None if value is None else convert(value) if convert is bool else round(value * convert, 3)
    report["attributes"] = attributes
    return report


def _cuda_devices() -> _Report:
    report: _Report = {"count": 0, "error": None, "devices": []}
    try:
        import gpukit.driver as drv

        if not drv.driver_available():
            report["error"] = "no CUDA driver"
            return report
        report["count"] = drv.Device.count()
    except Exception as e:
        report["error"] = _message(e)
        return report
    for number in range(report["count"]):
        try:
            report["devices"].append(cuda_device(number))
        except Exception as e:
            report["devices"].append({"number": number, "error": _message(e)})
    return report


def _opencl_device(device: _CLDevice) -> _Report:
    kind = cast("_CLDeviceType", device.type)  # the stub says object
    return {
        "name": device.name,
        "type": kind.name,
        "vendor": device.vendor,
        "version": device.version,
        "driver_version": device.driver_version,
        "compute_units": device.max_compute_units,
        "global_memory_bytes": device.global_mem_size,
        "local_memory_bytes": device.local_mem_size,
        "max_allocation_bytes": device.max_mem_alloc_size,
        "max_work_group_size": device.max_work_group_size,
    }


def _opencl() -> _Report:
    report: _Report = {"found": False, "error": None, "platforms": []}
    try:
        from gpukit import cl

        for platform_ in cl.get_platforms():
            report["platforms"].append(
                {
                    "name": platform_.name,
                    "vendor": platform_.vendor,
                    "version": platform_.version,
                    "devices": [_opencl_device(d) for d in platform_.get_devices()],
                }
            )
    except Exception as e:
        report["error"] = _message(e)
    report["found"] = bool(report["platforms"])
    return report


def _compile_cache() -> _Report:
    directory = _gpukit._default_cache_dir()
    entries, size = _gpukit._cache_usage(directory) if directory else (0, 0)
    try:
        limit, limit_error = _gpukit._cache_size_limit(), None
    except ValueError as e:  # a malformed GPUKIT_CACHE_SIZE
        limit, limit_error = None, str(e)
    return {
        "directory": directory,
        "disabled": _gpukit._cache_disabled_by_environment(),
        "exists": directory is not None and os.path.isdir(directory),
        "entries": entries,
        "bytes": size,
        "limit_bytes": limit,
        "limit_error": limit_error,
        "not_used_because": (_gpukit._cache_distrust(directory) or None) if directory else None,
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _os_name() -> str:
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME") or platform.system()
    except OSError:
        return platform.system()


def host() -> _Report:
    """Python, numpy, the OS and the CPU."""
    import numpy

    return {
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "python_executable": sys.executable,
        "numpy": numpy.__version__,
        "os": _os_name(),
        "kernel": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
        "libc": " ".join(platform.libc_ver()).strip() or None,
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
    }


def gpukit_build() -> _Report:
    """gpukit's version, where it is installed, and how its extension module was built."""
    build = _gpukit._build_info()
    return {
        "version": gpukit.VERSION_TEXT,
        "path": os.path.dirname(os.path.abspath(gpukit.__file__)),
        "extension": _gpukit.__file__,
        "build": {
            "compiler": build["compiler"],
            "cxx_standard": build["cxx_standard"],
            "build_type": build["build_type"] or None,
            "cuda_headers": "{}.{}".format(*build["cuda_headers"]),
            "nanobind": "{}.{}.{}".format(*build["nanobind"]),
            "python": build["python"],
        },
    }


def collect() -> _Report:
    """The whole report as a dict of JSON types (its keys are those of SECTIONS)."""
    return {
        "gpukit": gpukit_build(),
        "host": host(),
        "cuda_driver": cuda_driver(),
        "nvrtc": _nvrtc(),
        "nvjitlink": _nvjitlink(),
        "curand": curand(),
        "nvcc": _nvcc(),
        "cuda_toolkit": _cuda_toolkit(),
        "cuda_devices": _cuda_devices(),
        "opencl": _opencl(),
        "compile_cache": _compile_cache(),
        "environment": {name: os.environ.get(name) for name in _environment.VARIABLES},
    }


# ---- text -----------------------------------------------------------------------------


def _size(count: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if count < 1024:
            return f"{count} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} TiB"


def _component_text(component: _Report) -> str:
    if not component["found"]:
        return f"not found: {component['error']}"
    version = component["version"] or f"version unknown ({component['error']})"
    return f"{version}, {component['path']}"


def _gpukit_lines(report: _Report) -> Iterator[str]:
    build = report["build"]
    standard = f"C++{build['cxx_standard'] // 100 % 100}"
    yield f"version          {report['version']}"
    yield f"installed in     {report['path']}"
    yield f"extension        {report['extension']}"
    yield (
        f"built with       {build['compiler']}, {standard}, {build['build_type'] or 'no build type'}, "
        f"CUDA {build['cuda_headers']} headers, nanobind {build['nanobind']}, Python {build['python']}"
    )


def _host_lines(report: _Report) -> Iterator[str]:
    yield f"Python           {report['python']} ({report['python_implementation']}, {report['python_executable']})"
    yield f"numpy            {report['numpy']}"
    libc = report["libc"] or "libc unknown"
    yield f"OS               {report['os']}, {report['kernel']}, {report['machine']}, {libc}"
    yield f"CPU              {report['cpu']}, {report['cpu_count']} logical CPUs"


def _cuda_lines(report: _Report) -> Iterator[str]:
    yield f"driver           {_component_text(report['cuda_driver'])}"
    yield f"NVRTC            {_component_text(report['nvrtc'])}"
    yield f"nvJitLink        {_component_text(report['nvjitlink'])}"
    curand_report = report["curand"]
    yield f"cuRAND library   {_component_text(curand_report)}"
    if curand_report["headers"] is None:
        yield "cuRAND headers   not found (the XORWOW, MRG32k3a and Sobol generators need them)"
    else:
        yield f"cuRAND headers   {curand_report['headers_version'] or 'version unknown'}, {curand_report['headers']}"
    yield f"nvcc             {_component_text(report['nvcc'])}"
    toolkit = report["cuda_toolkit"]
    if toolkit["found"]:
        yield f"toolkit headers  {', '.join(toolkit['include_dirs'])} (found via {toolkit['found_via']})"
    else:
        yield f"toolkit headers  not found (NVRTC gets none); looked in: {'; '.join(toolkit['looked_in'])}"
    yield f"gpukit headers   {toolkit['gpukit_include_dir']}"


def _device_lines(report: _Report) -> Iterator[str]:
    if report["error"]:
        yield f"none: {report['error']}"
    elif not report["devices"]:
        yield "none: the driver reports no CUDA device"
    for device in report["devices"]:
        if "error" in device:
            yield f"[{device['number']}] could not be queried: {device['error']}"
            continue
        yield (
            f"[{device['number']}] {device['name']}: compute capability {device['compute_capability']}, "
            f"{_size(device['total_memory_bytes'])}, {device['multiprocessors']} multiprocessors"
        )
        yield (
            f"    clocks {device['clock_mhz']} MHz (SM), {device['memory_clock_mhz']} MHz (memory), "
            f"{device['memory_bus_bits']}-bit memory bus, L2 {_size(device['l2_cache_bytes'] or 0)}"
        )
        yield (
            f"    PCI bus id {device['pci_bus_id']}, {device['uuid']}, compute mode {device['compute_mode']}, "
            f"ECC {'on' if device['ecc_enabled'] else 'off'}, "
            f"driver model {'TCC' if device['tcc_driver'] else 'default'}, "
            f"{'integrated' if device['integrated'] else 'discrete'}, "
            f"kernel time limit {'yes' if device['kernel_timeout'] else 'no'}"
        )


def _opencl_lines(report: _Report) -> Iterator[str]:
    if not report["platforms"]:
        yield f"no platform: {report['error'] or 'no OpenCL implementation is installed'}"
    for p, platform_ in enumerate(report["platforms"]):
        yield f"platform [{p}] {platform_['name']} ({platform_['vendor']}, {platform_['version']})"
        for d, device in enumerate(platform_["devices"]):
            yield (
                f"    [{p}:{d}] {device['name']}: {device['type']}, {device['compute_units']} compute units, "
                f"{_size(device['global_memory_bytes'])}, {device['version']}, driver {device['driver_version']}"
            )


def _cache_lines(report: _Report) -> Iterator[str]:
    if report["disabled"]:
        yield "disabled (GPUKIT_DISABLE_CACHE or PYCUDA_DISABLE_CACHE is set)"
    elif not report["directory"]:
        yield "no directory: neither GPUKIT_CACHE_DIR, XDG_CACHE_HOME nor HOME is set"
    elif not report["exists"]:
        yield f"{report['directory']} (not made yet: nothing compiled so far)"
    else:
        count = report["entries"]
        yield f"{report['directory']}: {count} {'entry' if count == 1 else 'entries'}, {_size(report['bytes'])}"
        if report["not_used_because"]:
            yield f"not used: {report['not_used_because']}"
    if report["limit_error"]:
        yield f"limit: {report['limit_error']}"
    elif report["limit_bytes"] is not None:
        yield "limit: " + ("none (GPUKIT_CACHE_SIZE=0)" if report["limit_bytes"] == 0 else _size(report["limit_bytes"]))


def _environment_lines(report: dict[str, str | None]) -> Iterator[str]:
    set_here = {name: value for name, value in report.items() if value is not None}
    width = max(map(len, set_here), default=0)
    for name, value in set_here.items():
        yield f"{name:<{width}}  {value}"
        yield f"{'':<{width}}    ({_environment.VARIABLES[name]})"
    unset = [name for name, value in report.items() if value is None]
    yield from textwrap.wrap(", ".join(unset), width=96, initial_indent="not set: ", subsequent_indent=" " * 9)


#: The text's sections: (title, the report's keys it shows, its lines).
SECTIONS: list[tuple[str, list[str], Callable[[_Report], Iterator[str]]]] = [
    ("gpukit", ["gpukit"], lambda r: _gpukit_lines(r["gpukit"])),
    ("Host", ["host"], lambda r: _host_lines(r["host"])),
    ("CUDA", ["cuda_driver", "nvrtc", "nvjitlink", "curand", "nvcc", "cuda_toolkit"], _cuda_lines),
    ("CUDA devices", ["cuda_devices"], lambda r: _device_lines(r["cuda_devices"])),
    ("OpenCL", ["opencl"], lambda r: _opencl_lines(r["opencl"])),
    ("Compile cache", ["compile_cache"], lambda r: _cache_lines(r["compile_cache"])),
    ("Environment variables gpukit reads", ["environment"], lambda r: _environment_lines(r["environment"])),
]


def format_text(report: _Report) -> str:
    """The report as text: one titled section after another."""
    blocks = []
    for title, _, lines in SECTIONS:
        blocks.append("\n".join([title] + [f"  {line}" for line in lines(report)]))
    return "\n\n".join(blocks) + "\n"


def main(as_json: bool = False, out: SupportsWrite[str] | None = None) -> int:
    """Prints the report (as JSON when `as_json`: surrogate escapes as \\udcNN) to `out`
    (stdout); returns the exit status."""
    report = collect()
    text = json.dumps(report, indent=2) + "\n" if as_json else printable(format_text(report))
    (out or sys.stdout).write(text)
    return 0
