"""Runs benchmark cases side by side and reports them.

A case is a list of sides. Each side is a function returning one sample per repeat (the
seconds one operation took, or a rate), measured after its own warm-up; a side whose
library is missing raises Unavailable and is listed as skipped. The first available side is
the baseline every ratio is taken against.
"""
import argparse
import datetime
import json
import statistics
import sys


class Unavailable(Exception):
    """A side cannot run here (its library is not installed, no GPU, ...)."""


class Side:
    def __init__(self, name, run):
        self.name = name
        self.run = run  # run(settings) -> list of samples


class Case:
    def __init__(self, name, description, unit, sides, higher_is_better=False, scale=1.0):
        self.name = name
        self.description = description
        self.unit = unit  # how samples are printed, after multiplying by `scale`
        self.sides = sides
        self.higher_is_better = higher_is_better
        self.scale = scale


def _all_cases():
    from gpukit.bench import cases
    return cases.ALL


def select(cases, names):
    """The cases `names` asks for, in the order of `cases` (all of them when `names` is
    empty). A name is a case's name, or else a group: the cases whose names start with it
    and an underscore ("small" is small_add, small_axpy, ...). ValueError for a name that
    is neither."""
    chosen = set()
    for name in names:
        matches = [c.name for c in cases if c.name == name] or [c.name for c in cases if c.name.startswith(name + "_")]
        if not matches:
            raise ValueError(f"unknown case or group: {name}")
        chosen.update(matches)
    return [c for c in cases if not names or c.name in chosen]


def groups(cases):
    """The group names of `cases`: every prefix of a case name up to an underscore that
    several cases share."""
    prefixes = [c.name[:i] for c in cases for i, letter in enumerate(c.name) if letter == "_"]
    return sorted({p for p in prefixes if prefixes.count(p) > 1})


def run_case(case, settings):
    results = []
    for side in case.sides:
        try:
            samples = side.run(settings)
            results.append({"side": side.name, "samples": samples, "median": statistics.median(samples)})
        except Unavailable as why:
            results.append({"side": side.name, "skipped": str(why)})
        except Exception as e:  # a broken third-party library must not stop the other sides
            results.append({"side": side.name, "skipped": f"failed: {type(e).__name__}: {e}"})
    measured = [r for r in results if "median" in r]
    if measured:
        base = measured[0]["median"]
        for r in measured:
            # Ratio as "times the baseline's cost" (or rate), so 1.05 means 5 % more time (or rate).
            r["ratio"] = r["median"] / base if base else float("nan")
    return {"case": case.name, "description": case.description, "unit": case.unit,
            "higher_is_better": case.higher_is_better, "results": results, "scale": case.scale}


def print_table(report, out=sys.stdout):
    print(f"\n{report['case']}: {report['description']}", file=out)
    print(f"  {'side':<34} {'median (' + report['unit'] + ')':>18} {'ratio':>8}", file=out)
    for r in report["results"]:
        if "median" in r:
            print(f"  {r['side']:<34} {r['median'] * report['scale']:>18.3f} {r['ratio']:>8.2f}", file=out)
        else:
            print(f"  {r['side']:<34} {'skipped: ' + r['skipped']}", file=out)


def write_png(reports, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(len(reports), 1, figsize=(8, 2.5 * len(reports)), squeeze=False)
    for ax, report in zip(axes[:, 0], reports):
        measured = [r for r in report["results"] if "median" in r]
        ax.barh([r["side"] for r in measured], [r["median"] * report["scale"] for r in measured])
        ax.set_title(report["case"])
        ax.set_xlabel(report["unit"])
    fig.tight_layout()
    fig.savefig(path)
    return True


def device_description():
    try:
        import gpukit.driver as drv
        if drv.driver_available() and drv.Device.count() > 0:
            dev = drv.Device(0)
            return f"{dev.name()} (compute capability {'.'.join(map(str, dev.compute_capability()))})"
    except Exception as e:  # the description must never stop a benchmark run
        return f"unknown ({e})"
    return "no CUDA device"


def case_list_text():
    """The cases and groups, for the end of ``bench --help``."""
    cases = _all_cases()
    return f"cases: {', '.join(c.name for c in cases)}. groups: {', '.join(groups(cases))}."


DESCRIPTION = ("Runs benchmark cases, each with gpukit and its baselines (the raw driver call from C++, CuPy, "
               "PyCUDA, numba-cuda, cuda-python, PyOpenCL: whichever are installed) side by side in this process, "
               "and reports each side's median and its ratio to the first side's.")


def _positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_arguments(parser):
    """The bench subcommand's arguments (see run())."""
    parser.add_argument("cases", nargs="*", help="cases or groups of cases to run (default: all; listed below)")
    parser.add_argument("--repeats", type=_positive, default=15, metavar="N",
                        help="timed repeats per side (default 15; the median is reported)")
    parser.add_argument("--quick", action="store_true", help="3 short repeats per side: a smoke test")
    parser.add_argument("--json", default="bench-results/bench.json", metavar="PATH",
                        help="where to write the full results (default: bench-results/bench.json)")
    parser.add_argument("--png", default="bench-results/bench.png", metavar="PATH",
                        help="bar chart (needs matplotlib; default: bench-results/bench.png)")


def run(args, parser):
    """Runs the cases `args` names, prints a table per case, writes the JSON and the
    chart; the exit status."""
    try:
        chosen = select(_all_cases(), args.cases)
    except ValueError as e:
        parser.error(str(e))
    settings = {"repeats": 3 if args.quick else args.repeats, "quick": args.quick}

    device = device_description()
    print(f"gpukit bench on {device}; {settings['repeats']} repeats, medians; ratio = side / first side")
    reports = []
    for case in chosen:
        report = run_case(case, settings)
        print_table(report)
        reports.append(report)

    import os
    os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"device": device, "when": datetime.datetime.now().isoformat(), "settings": settings,
                   "cases": reports}, f, indent=1)
    print(f"\nresults: {args.json}" + (f", chart: {args.png}" if write_png(reports, args.png) else ""))
    return 0
