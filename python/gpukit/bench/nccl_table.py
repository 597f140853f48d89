"""Tables of the NCCL collectives (bench/nccl.py) over every GPU of the machine: all-reduce,
all-gather, reduce-scatter and broadcast from 8 B to 1 GiB, gpukit beside CuPy and PyTorch
(one process per GPU on every side), as JSON and as markdown for docs/multi-gpu.md.

    python -m gpukit.bench.nccl_table [--sides gpukit cupy torch] [--collectives ...]
        [--sizes BYTES ...] [--repeats N] [--quick] [--budget SECONDS] [--gpus N]
        [--json PATH] [--markdown PATH]

A cell is a side's median with the interquartile range over the median: microseconds per
call below 1 MiB, bus bandwidth (GB/s, 10^9 bytes) from 1 MiB. The ratio is gpukit's over the
best peer's (time below 1 MiB, bandwidth from 1 MiB); the goal column checks the issue's
goals: at least GOAL_BANDWIDTH of the best peer's bandwidth from GOAL_FROM bytes, at most
GOAL_LATENCY of its time at 8 bytes. With --budget the sides share that many seconds; a side
cut short keeps the measurements it finished.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Required, TypedDict

from gpukit.bench import harness, nccl

GOAL_FROM = 1 << 20
GOAL_BANDWIDTH = 0.95
GOAL_LATENCY = 1.10
OURS = "gpukit"


class SideStats(TypedDict):
    """side_stats()'s result."""

    seconds: harness.Statistics
    busbw: harness.Statistics
    samples_seconds: list[float]


class Row(TypedDict):
    """A row of make_rows(): a measurement, its sides' statistics, gpukit's ratio and goal."""

    collective: str
    nbytes: int
    bytes: int
    sides: dict[str, SideStats]
    ratio: float | None
    goal: bool | None


class SideStatus(TypedDict, total=False):
    """How a side's run went, in the report: its status, rank 0's versions, the launch's report."""

    status: Required[str]
    versions: Required[dict[str, Any]]
    report: str


class TableReport(TypedDict):
    """run()'s result, written as JSON and turned into markdown."""

    date: str
    gpus: int
    machine: harness.Machine
    settings: harness.Settings
    collectives: list[str]
    sides: dict[str, SideStatus]
    rows: list[Row]


def side_stats(seconds: list[float], collective: str, size: int, n: int) -> SideStats:
    """The statistics of one side's measurement: of the seconds per call and of the bus
    bandwidth (bytes per second) they give."""
    bandwidth = [size / s * nccl.bus_factor(collective, n) for s in seconds]
    return {
        "seconds": harness.statistics_of(seconds),
        "busbw": harness.statistics_of(bandwidth),
        "samples_seconds": seconds,
    }


def make_rows(results: Mapping[str, nccl.SideResult], measurements: Iterable[tuple[str, int]], n: int) -> list[Row]:
    """One row per measurement: each side's statistics (sides that measured it), gpukit's
    ratio to the best peer and whether it meets the goal (None where no goal applies or a
    side is missing)."""
    rows = []
    for collective, nbytes in measurements:
        size = nccl.counts(collective, nbytes, n)[3]
        row: Row = {"collective": collective, "nbytes": nbytes, "bytes": size, "sides": {}, "ratio": None, "goal": None}
        for side, result in results.items():
            seconds = result.seconds.get((collective, nbytes))
            if seconds:
                row["sides"][side] = side_stats(seconds, collective, size, n)
        row["ratio"], row["goal"] = judge(row)
        rows.append(row)
    return rows


def judge(row: Row) -> tuple[float | None, bool | None]:
    """(gpukit's ratio to the best peer, whether it meets the goal) for a row; ratio is None
    when gpukit or every peer is missing, goal None where no goal applies."""
    sides = row["sides"]
    peers = [s for s in sides if s != OURS]
    if OURS not in sides or not peers:
        return None, None
    if row["nbytes"] >= GOAL_FROM:
        best = max(sides[p]["busbw"]["median"] for p in peers)
        ratio = sides[OURS]["busbw"]["median"] / best
        return ratio, ratio >= GOAL_BANDWIDTH
    best = min(sides[p]["seconds"]["median"] for p in peers)
    ratio = sides[OURS]["seconds"]["median"] / best
    return ratio, (ratio <= GOAL_LATENCY if row["nbytes"] == nccl.LATENCY_BYTES else None)


def cell(stats: SideStats | None, nbytes: int) -> str:
    if stats is None:
        return ""
    if nbytes >= GOAL_FROM:
        s = stats["busbw"]
        text = f"{s['median'] / 1e9:.1f} GB/s"
    else:
        s = stats["seconds"]
        text = f"{s['median'] * 1e6:.3g} µs"
    return text + ("" if s["spread"] is None else f" ±{s['spread']:.0%}")


def goal_text(row: Row) -> str:
    if row["goal"] is None:
        return ""
    target = f"≥ {GOAL_BANDWIDTH}" if row["nbytes"] >= GOAL_FROM else f"≤ {GOAL_LATENCY}"
    return f"{'met' if row['goal'] else 'MISSED'} ({target})"


def markdown(report: TableReport) -> str:
    """The tables, one per collective, with a heading naming the machine and the runs."""
    n, sides = report["gpus"], [s for s in nccl.SIDES if s in report["sides"]]
    gpu = (report["machine"].get("gpu") or {}).get("name", "GPU")
    ours: dict[str, Any] = {}
    if OURS in report["sides"]:
        ours = report["sides"][OURS].get("versions", {})
    nccl_version = ours.get("nccl")
    if isinstance(nccl_version, int):
        nccl_version = f"{nccl_version // 10000}.{nccl_version // 100 % 100}.{nccl_version % 100}"
    lines = [
        f"<!-- written by python -m gpukit.bench.nccl_table ({report['date']}) -->",
        f"#### {n} × {gpu}, NCCL {nccl_version or '?'}, {report['settings']['repeats']} repeats"
        f"{' (quick)' if report['settings']['quick'] else ''}",
        "",
        "Below 1 MiB: median µs per call; from 1 MiB: median bus bandwidth, GB/s; ± the interquartile "
        "range over the median. Ratio: gpukit over the best peer (time below 1 MiB, bandwidth from 1 MiB).",
        "",
    ]
    titles = {s: nccl.SIDES[s].split(" ")[0] for s in sides}
    for collective in report["collectives"]:
        lines += [
            f"**{collective}**",
            "",
            "| size | " + " | ".join(titles[s] for s in sides) + " | gpukit / best | goal |",
            "|---:|" + "---:|" * len(sides) + "---:|:---|",
        ]
        for row in (r for r in report["rows"] if r["collective"] == collective):
            ratio = "" if row["ratio"] is None else f"{row['ratio']:.2f}x"
            cells = [cell(row["sides"].get(s), row["nbytes"]) for s in sides]
            lines.append(
                f"| {nccl.size_text(row['nbytes'])} | " + " | ".join(cells) + f" | {ratio} | {goal_text(row)} |"
            )
        lines.append("")
    for side in sides:
        status = report["sides"][side]["status"]
        if status != "ok":
            lines.append(f"- {nccl.SIDES[side]}: {status}")
    return "\n".join(lines).rstrip() + "\n"


def summary(report: TableReport) -> list[str]:
    """Lines saying how the goals fared and what did not run."""
    checked = [r for r in report["rows"] if r["goal"] is not None]
    missed = [r for r in checked if not r["goal"]]
    lines = [f"{report['gpus']} GPUs: goal met in {len(checked) - len(missed)} of {len(checked)} checked rows"]
    for r in missed:
        lines.append(f"  missed: {r['collective']} {nccl.size_text(r['nbytes'])}: {r['ratio']:.3f}x")
    for side, about in report["sides"].items():
        if about["status"] != "ok":
            lines.append(f"  {side}: {about['status']}")
    return lines


def run(args: argparse.Namespace) -> TableReport:
    n = args.gpus or nccl.device_count()
    measurements = [(c, b) for c in args.collectives for b in args.sizes]
    settings: harness.Settings = {"repeats": 3 if args.quick else args.repeats, "quick": args.quick}
    deadline = time.monotonic() + args.budget if args.budget else None
    results: dict[str, nccl.SideResult] = {}
    sides: dict[str, SideStatus] = {}
    for k, side in enumerate(args.sides):
        left = args.sides[k:]
        timeout = (deadline - time.monotonic()) / len(left) if deadline else 3600
        if timeout < 5:
            sides[side] = {"status": "not run: the time budget ran out", "versions": {}}
            continue
        print(
            f"[{k + 1}/{len(args.sides)}] {side}: {len(measurements)} measurements on {n} GPUs, "
            f"at most {timeout:.0f} s",
            file=sys.stderr,
            flush=True,
        )
        try:
            result = nccl.run_side(side, measurements, n, settings, timeout)
        except harness.Unavailable as why:
            sides[side] = {"status": f"unavailable: {why}", "versions": {}}
            continue
        results[side] = result
        sides[side] = {"status": result.status, "versions": result.versions, "report": result.report[-4000:]}
    report: TableReport = {
        "date": time.strftime("%Y-%m-%d"),
        "gpus": n,
        "machine": harness.machine(),
        "settings": settings,
        "collectives": args.collectives,
        "sides": sides,
        "rows": make_rows(results, measurements, n),
    }
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpukit.bench.nccl_table", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sides", nargs="+", choices=list(nccl.SIDES), default=list(nccl.SIDES))
    parser.add_argument("--collectives", nargs="+", choices=nccl.COLLECTIVES, default=nccl.COLLECTIVES)
    parser.add_argument("--sizes", nargs="+", type=int, default=nccl.TABLE_SIZES, metavar="BYTES")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="3 short repeats: a smoke test")
    parser.add_argument(
        "--budget", type=float, default=0, metavar="SECONDS", help="seconds all sides share (default: no limit)"
    )
    parser.add_argument("--gpus", type=int, default=0, help="ranks (default: every GPU)")
    parser.add_argument("--json", default="bench-results/nccl.json", metavar="PATH")
    parser.add_argument("--markdown", default="bench-results/nccl.md", metavar="PATH")
    args = parser.parse_args(argv)
    try:
        report = run(args)
    except harness.Unavailable as why:
        print(f"no tables: {why}", file=sys.stderr)
        return 1
    for path, text in ((args.json, json.dumps(report, indent=1)), (args.markdown, markdown(report))):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    print(markdown(report))
    print("\n".join(summary(report)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
