"""Runs benchmark cases side by side and reports them.

A case is a list of sides. Each side is a function returning one sample per repeat (the
seconds one operation took, or a rate), measured after its own warm-up; a side whose
library is missing raises Unavailable and is listed as skipped, with the reason. The first
measured side is the baseline every ratio is taken against.

Each measured side is reported by the median of its samples, with the minimum, the maximum
and the interquartile range; a side whose interquartile range is more than NOISY_SPREAD of
its median is flagged, since its median is then not to be trusted to a few percent. The
JSON report records the samples, the statistics, what was measured on (gpukit and the other
libraries, the CUDA driver, the GPU, the CPU, the OS, Python) and when.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import importlib.metadata
import importlib.util
import json
import os
import statistics
import sys
import textwrap
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, Required, TextIO, TypeAlias, TypedDict

#: A side whose interquartile range exceeds this fraction of its median is flagged as noisy.
NOISY_SPREAD = 0.10
#: The chart's axis is logarithmic for a case whose largest median exceeds its smallest this many times.
LOG_SCALE_RATIO = 30
#: The libraries whose versions the report records (those installed), by module name.
LIBRARIES = ["cupy", "pycuda", "numba", "numba_cuda", "cuda", "pyopencl"]

DESCRIPTION = (
    "Runs benchmark cases, each with gpukit and its baselines (the raw driver call from C++, CuPy, "
    "PyCUDA, numba-cuda, cuda-python, PyOpenCL: whichever are installed) side by side in this process. "
    "Each side reports min / median / max and the interquartile range of its repeats; the ratio is "
    "its median over the first side's. Results go to a JSON file and, with matplotlib, a chart."
)


class Unavailable(Exception):
    """A side cannot run here (its library is not installed, no GPU, ...)."""


class Settings(TypedDict):
    """How the sides measure: timed repeats per side, and whether it is a quick smoke test."""

    repeats: int
    quick: bool


#: A side's measurement: run(settings) -> one sample per repeat.
Run: TypeAlias = Callable[[Settings], list[float]]


class Statistics(TypedDict):
    """statistics_of()'s result."""

    min: float
    q1: float
    median: float
    q3: float
    max: float
    iqr: float
    spread: float | None
    noisy: bool


class SideReport(TypedDict, total=False):
    """One side in a case's report: measured (samples, the statistics, the ratio) or skipped."""

    side: Required[str]
    samples: list[float]
    min: float
    q1: float
    median: float
    q3: float
    max: float
    iqr: float
    spread: float | None
    noisy: bool
    ratio: float | None
    skipped: str


class CaseReport(TypedDict):
    """run_case()'s result."""

    case: str
    description: str
    unit: str
    higher_is_better: bool
    results: list[SideReport]
    scale: float


class Summary(TypedDict):
    """summary()'s result."""

    cases: int
    ran: list[str]
    could_not_run: dict[str, list[str]]
    sides_skipped: dict[str, int]


class LibraryVersion(TypedDict):
    """The package that provides a module, and its version."""

    package: str | None
    version: str | None


class Machine(TypedDict):
    """machine()'s result; the records of gpukit.info as it gives them."""

    date: str
    gpukit: Mapping[str, Any]
    libraries: dict[str, LibraryVersion | None]
    cuda_driver: Mapping[str, Any]
    gpu: Mapping[str, Any] | None
    host: Mapping[str, Any]


class Baselines(Protocol):
    """gpukit._bench_baselines, the C++ module of the raw baselines (built from source, with no
    stub): the functions the sides call. Each returns one value per repeat."""

    __name__: str

    def raw_launch_seconds(self, launches: int, repeats: int) -> list[float]: ...
    def gpukit_launch_seconds(self, launches: int, repeats: int) -> list[float]: ...
    def device_array_operations(self) -> list[str]: ...
    def device_array_seconds(
        self, operation: str, elements: int, launches: int, batches: int, repeats: int
    ) -> list[float]: ...
    def raw_add_launch_seconds(self, elements: int, launches: int, batches: int, repeats: int) -> list[float]: ...
    def device_pool_pair_seconds(self, bytes: int, pairs: int, repeats: int, threads: int) -> list[float]: ...
    def raw_alloc_pair_seconds(self, bytes: int, pairs: int, repeats: int) -> list[float]: ...
    def raw_async_alloc_pair_seconds(self, bytes: int, pairs: int, repeats: int) -> list[float]: ...
    def raw_htod_rate(self, device: int, host: int, bytes: int, repeats: int) -> list[float]: ...
    def raw_dtoh_rate(self, host: int, device: int, bytes: int, repeats: int) -> list[float]: ...
    def raw_dtod_rate(self, dst: int, src: int, bytes: int, repeats: int) -> list[float]: ...
    def raw_peer_rate(
        self, dst: int, dst_context: int, src: int, src_context: int, bytes: int, repeats: int
    ) -> list[float]: ...


def seconds_per_call(
    call: Callable[[], object], calls: int, settings: Settings, synchronize: Callable[[], object] | None = None
) -> list[float]:
    """One sample per repeat: the seconds `calls` calls of call() take, divided by `calls`;
    with synchronize() after them, inside the timing (the work must be done). The sides
    warm up before."""
    samples = []
    for _ in range(settings["repeats"]):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        if synchronize is not None:
            synchronize()
        samples.append((time.perf_counter() - start) / calls)
    return samples


def cpp_baselines() -> Baselines:
    """gpukit._bench_baselines, the C++ baselines (raw driver calls timed in C++): built beside
    the extension from source, not part of an installed wheel."""
    try:
        # A module of its own with no stub (built only from source): Baselines describes it.
        from gpukit import _bench_baselines  # type: ignore[attr-defined]
    except ImportError:
        raise Unavailable(
            "the C++ baselines (gpukit._bench_baselines) are built only from source: make build"
        ) from None
    baselines: Baselines = _bench_baselines
    return baselines


class Side:
    def __init__(self, name: str, run: Run) -> None:
        self.name = name
        self.run = run  # run(settings) -> list of samples


class Case:
    def __init__(
        self,
        name: str,
        description: str,
        unit: str,
        sides: list[Side],
        higher_is_better: bool = False,
        scale: float = 1.0,
    ) -> None:
        self.name = name
        self.description = description
        self.unit = unit  # how samples are printed, after multiplying by `scale`
        self.sides = sides
        self.higher_is_better = higher_is_better
        self.scale = scale


def _all_cases() -> list[Case]:
    from gpukit.bench import cases

    return cases.ALL


def select(cases: Sequence[Case], names: Sequence[str]) -> list[Case]:
    """The cases `names` asks for, in the order of `cases` (all of them when `names` is
    empty). A name is a case's name, or else a group: the cases whose names start with it
    and an underscore ("small" is small_add, small_axpy, ...). ValueError for a name that
    is neither."""
    chosen: set[str] = set()
    for name in names:
        matches = [c.name for c in cases if c.name == name] or [c.name for c in cases if c.name.startswith(name + "_")]
        if not matches:
            raise ValueError(f"unknown case or group: {name}")
        chosen.update(matches)
    return [c for c in cases if not names or c.name in chosen]


def groups(cases: Iterable[Case]) -> list[str]:
    """The group names of `cases`: every prefix of a case name up to an underscore that
    several cases share."""
    prefixes = [c.name[:i] for c in cases for i, letter in enumerate(c.name) if letter == "_"]
    return sorted({p for p in prefixes if prefixes.count(p) > 1})


def case_list_text() -> str:
    """The cases and groups, for the end of ``bench --help``."""
    cases = _all_cases()
    opencl = [c.name for c in cases if c.name.startswith("cl_")]
    return (
        f"cases: {', '.join(c.name for c in cases)}. groups: {', '.join(groups(cases))}. "
        f"Without a CUDA device only the OpenCL cases run ({', '.join(opencl)}: PoCL on the CPU is "
        "enough); the others report that they could not run, in milliseconds."
    )


# ---- statistics -------------------------------------------------------------------------


def statistics_of(samples: Sequence[float]) -> Statistics:
    """min, first quartile, median, third quartile, max, the interquartile range, the spread
    (iqr / median; None for a median of 0) and whether the spread makes the side noisy."""
    if not samples:
        raise ValueError("a side returned no samples")
    ordered = sorted(samples)
    median = statistics.median(ordered)
    # The quartiles of the samples themselves (inclusive): with 3 repeats, the middle of
    # each half; one sample is its own quartiles.
    q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive") if len(ordered) > 1 else (median,) * 3
    spread = (q3 - q1) / abs(median) if median else None
    return {
        "min": ordered[0],
        "q1": q1,
        "median": median,
        "q3": q3,
        "max": ordered[-1],
        "iqr": q3 - q1,
        "spread": spread,
        "noisy": spread is not None and spread > NOISY_SPREAD,
    }


def run_case(case: Case, settings: Settings) -> CaseReport:
    results: list[SideReport] = []
    for side in case.sides:
        try:
            samples = side.run(settings)
            # mypy cannot tell that a Statistics holds no "ratio" or "skipped" key: it holds only its own.
            results.append({"side": side.name, "samples": samples, **statistics_of(samples)})  # type: ignore[typeddict-item]
        except Unavailable as why:
            results.append({"side": side.name, "skipped": str(why)})
        except Exception as e:  # a broken third-party library must not stop the other sides
            results.append({"side": side.name, "skipped": f"failed: {type(e).__name__}: {e}"})
    measured = [r for r in results if "median" in r]
    if measured:
        base = measured[0]["median"]
        for r in measured:
            # Ratio as "times the baseline's cost" (or rate), so 1.05 means 5 % more time (or rate).
            r["ratio"] = r["median"] / base if base else None
    return {
        "case": case.name,
        "description": case.description,
        "unit": case.unit,
        "higher_is_better": case.higher_is_better,
        "results": results,
        "scale": case.scale,
    }


# ---- text -------------------------------------------------------------------------------


def print_table(report: CaseReport, out: TextIO) -> None:
    scale = report["scale"]
    width = max(len(r["side"]) for r in report["results"])
    print(f"\n{report['case']}: {report['description']}", file=out)
    print(
        f"  {'side':<{width}} {'median':>10} {'min':>10} {'max':>10} {'IQR/median':>10} {'ratio':>7}"
        f"   ({report['unit']})",
        file=out,
    )
    noisy = False
    for r in report["results"]:
        if "median" not in r:
            print(f"  {r['side']:<{width}} skipped: {r['skipped']}", file=out)
            continue
        spread = "-" if r["spread"] is None else f"{r['spread']:.1%}"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
        flag = " !" if r["noisy"] else ""
        noisy = noisy or r["noisy"]
        print(
            f"  {r['side']:<{width}} {r['median'] * scale:>10.4g} {r['min'] * scale:>10.4g} "
            f"{r['max'] * scale:>10.4g} {spread:>10} {ratio:>7}{flag}",
            file=out,
        )
    if noisy:
        print(
            f"  ! noisy: interquartile range above {NOISY_SPREAD:.0%} of the median (a busy machine, or a "
            "side that varies); more --repeats or a quieter machine help",
            file=out,
        )


def summary(reports: Sequence[CaseReport]) -> Summary:
    """How many cases ran (at least one side measured), the cases that could not, by reason
    (the reasons their sides gave, sorted and joined), and the sides skipped in cases that
    ran, by reason."""
    ran: list[str] = []
    could_not: collections.defaultdict[str, list[str]] = collections.defaultdict(list)
    sides_skipped: collections.Counter[str] = collections.Counter()
    for report in reports:
        reasons = [r["skipped"] for r in report["results"] if "skipped" in r]
        if any("median" in r for r in report["results"]):
            ran.append(report["case"])
            sides_skipped.update(reasons)
        else:
            could_not["; ".join(sorted(set(reasons), key=str.lower)) or "the case has no sides"].append(report["case"])
    return {"cases": len(reports), "ran": ran, "could_not_run": dict(could_not), "sides_skipped": dict(sides_skipped)}


def print_summary(result: Summary, out: TextIO) -> None:
    print(f"\nSummary: {len(result['ran'])} of {result['cases']} cases ran here", end="", file=out)
    missing = sum(map(len, result["could_not_run"].values()))
    print(f"; {missing} could not:" if missing else ".", file=out)
    for reason, names in sorted(result["could_not_run"].items(), key=lambda item: -len(item[1])):
        text = f"{reason}: {len(names)} case{'s' * (len(names) != 1)} ({', '.join(names)})"
        print("\n".join(textwrap.wrap(text, width=100, initial_indent="  ", subsequent_indent="      ")), file=out)
    if result["sides_skipped"]:
        print("Sides skipped in the cases that ran:", file=out)
        for reason, count in sorted(result["sides_skipped"].items(), key=lambda item: -item[1]):
            print(f"  {reason}: {count} side{'s' * (count != 1)}", file=out)


# ---- what was measured on ---------------------------------------------------------------


def library_versions(modules: Iterable[str] = LIBRARIES) -> dict[str, LibraryVersion | None]:
    """For each module that can be imported here: the package that provides it and its
    version (found without importing it, so nothing is initialised); None for the others."""
    providers = importlib.metadata.packages_distributions()
    versions: dict[str, LibraryVersion | None] = {}
    for module in modules:
        if importlib.util.find_spec(module) is None:
            versions[module] = None
            continue
        package = sorted(providers.get(module, []))
        # cuda-python's `cuda` namespace is shared by several packages: name the umbrella one.
        name = "cuda-python" if "cuda-python" in package else package[0] if package else None
        versions[module] = {"package": name, "version": importlib.metadata.version(name) if name else None}
    return versions


def machine() -> Machine:
    """What the benchmarks run on: gpukit, the other libraries, the CUDA driver, the GPU
    (device 0, the one the cases use), the host and the date (ISO 8601, with the offset)."""
    from gpukit import info

    gpu: Mapping[str, Any] | None = None
    try:
        import gpukit.driver as drv

        if drv.driver_available() and drv.Device.count() > 0:
            gpu = info.cuda_device(0)
    except Exception as e:  # the description must never stop a benchmark run
        gpu = {"error": f"{type(e).__name__}: {e}"}
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "gpukit": info.gpukit_build(),
        "libraries": library_versions(),
        "cuda_driver": info.cuda_driver(),
        "gpu": gpu,
        "host": info.host(),
    }


def _gpu_text(gpu: Mapping[str, Any] | None) -> str:
    if gpu is None:
        return "no CUDA device"
    if "error" in gpu:
        return f"a GPU that could not be queried ({gpu['error']})"
    return f"{gpu['name']} (compute capability {gpu['compute_capability']})"


# ---- the chart --------------------------------------------------------------------------


def chart_reports(reports: Iterable[CaseReport]) -> list[tuple[CaseReport, list[SideReport]]]:
    """The reports the chart shows: those with a measured side, each with its measured sides."""
    charted = []
    for report in reports:
        measured = [r for r in report["results"] if "median" in r]
        if measured:
            charted.append((report, measured))
    return charted


def uses_log_scale(values: Sequence[float]) -> bool:
    """Whether a case's chart needs a log axis: positive values that differ more than LOG_SCALE_RATIO times."""
    return min(values) > 0 and max(values) / min(values) > LOG_SCALE_RATIO


def matplotlib_missing() -> str | None:
    """Why no chart can be drawn here, or None when matplotlib is installed."""
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]  # noqa: F401  (optional, typed where installed)
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib)"
    return None


def write_png(reports: Iterable[CaseReport], path: str) -> bool:
    """A bar chart of the medians, one panel per case with data, the interquartile range as
    whiskers; False (nothing written) when no case has data."""
    charted = chart_reports(reports)
    if not charted:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]  # as above

    heights = [1.0 + 0.35 * len(measured) for _, measured in charted]
    fig, axes = plt.subplots(
        len(charted), 1, figsize=(9, sum(heights)), squeeze=False, gridspec_kw={"height_ratios": heights}
    )
    for ax, (report, measured) in zip(axes[:, 0], charted):
        scale = report["scale"]
        medians = [r["median"] * scale for r in measured]
        whiskers = [
            [(r["median"] - r["q1"]) * scale for r in measured],
            [(r["q3"] - r["median"]) * scale for r in measured],
        ]
        bars = ax.barh(
            [r["side"] for r in measured],
            medians,
            xerr=whiskers,
            capsize=3,
            color=["tab:red" if r["noisy"] else "tab:blue" for r in measured],
        )
        ax.bar_label(bars, fmt="%.3g", fontsize=7, padding=8)
        ax.invert_yaxis()  # the first side on top, as in the table
        log = uses_log_scale(medians)
        if log:
            ax.set_xscale("log")
        notes = ["higher is better" if report["higher_is_better"] else "lower is better"]
        notes += ["log scale"] if log else []
        notes += (
            [f"red: noisy (IQR above {NOISY_SPREAD:.0%} of the median)"] if any(r["noisy"] for r in measured) else []
        )
        ax.set_title(report["case"], loc="left", fontsize=10)
        ax.set_title(", ".join(notes), loc="right", fontsize=8)
        ax.set_xlabel(f"{report['unit']} (bars: median; whiskers: first to third quartile)", fontsize=8)
        ax.tick_params(labelsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return True


# ---- the command ------------------------------------------------------------------------


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The bench subcommand's arguments (see run())."""
    parser.add_argument("cases", nargs="*", help="cases or groups of cases to run (default: all; listed below)")
    parser.add_argument(
        "--repeats", type=_positive, default=15, metavar="N", help="timed repeats per side (default 15)"
    )
    parser.add_argument("--quick", action="store_true", help="3 short repeats per side: a smoke test")
    parser.add_argument(
        "--json",
        default="bench-results/bench.json",
        metavar="PATH",
        help="where to write the full results (default: bench-results/bench.json)",
    )
    parser.add_argument(
        "--png",
        metavar="PATH",
        help="where to draw the chart, which needs matplotlib: an error without it (default: "
        "bench-results/bench.png when matplotlib is installed, else no chart, with a note)",
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("OLD", "NEW"),
        help="run nothing: compare two --json reports, each side's median new/old and whether "
        "the change is more than noise",
    )


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Runs the cases `args` names, prints a table per case and a summary to stdout and a
    progress line per case to stderr, writes the JSON and the chart; the exit status."""
    out, progress = sys.stdout, sys.stderr
    if args.compare:
        if args.cases:
            parser.error("--compare runs no cases: leave out the case names")
        from gpukit.bench import compare

        old, new = args.compare  # nargs=2: OLD and NEW
        try:
            return compare.print_comparison(old, new, out)
        except ValueError as e:
            parser.error(str(e))
    try:
        chosen = select(_all_cases(), args.cases)
    except ValueError as e:
        parser.error(str(e))
    no_chart = matplotlib_missing()
    if args.png and no_chart:
        parser.error(f"--png needs matplotlib: {no_chart}; leave out --png for no chart")
    png = args.png or "bench-results/bench.png"
    settings: Settings = {"repeats": 3 if args.quick else args.repeats, "quick": args.quick}

    about = machine()
    print(
        f"gpukit {about['gpukit']['version']} bench on {_gpu_text(about['gpu'])}, {about['host']['cpu']}; "
        f"{settings['repeats']} repeats per side; ratio = median / the first side's median",
        file=out,
    )
    reports: list[CaseReport] = []
    for number, case in enumerate(chosen, 1):
        print(f"[{number}/{len(chosen)}] {case.name}: {len(case.sides)} sides", file=progress, flush=True)
        report = run_case(case, settings)
        print_table(report, out)
        reports.append(report)
    result = summary(reports)
    print_summary(result, out)

    os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"machine": about, "settings": settings, "cases": reports, "summary": result}, f, indent=1)
    if no_chart:
        chart = f"no chart: {no_chart}"
    elif write_png(reports, png):
        chart = f"chart: {png}"
    else:
        chart = "no chart: no case measured anything"
    from gpukit._text import printable  # the path may hold bytes that are no UTF-8

    print(printable(f"\nresults: {args.json}; {chart}"), file=out)
    return 0
