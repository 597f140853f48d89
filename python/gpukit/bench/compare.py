"""``gpukit bench --compare OLD.json NEW.json``: two runs of the bench side by side, a line per
side measured in both, with the change of its median and whether the change is more than
noise (a two-sided Mann-Whitney U test on the two runs' samples, as pyperf's compare_to judges
with a test of its own)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, TextIO, TypeAlias

#: A bench report as read back from its JSON file (harness.run() writes it): JSON values.
Report: TypeAlias = dict[str, Any]
#: A row of rows(): (case, side, unit, old median, new median, new/old or None, verdict, p).
Row: TypeAlias = tuple[str, str, str, float, float, float | None, str, float]

#: A change counts when the test's p-value is below this and the medians differ by more than
#: MIN_CHANGE: with few repeats no change is significant, however large it looks.
SIGNIFICANCE = 0.05
MIN_CHANGE = 0.02


def load(path: str) -> Report:
    """The report a bench run wrote to `path`; ValueError saying what is wrong with it."""
    try:
        with open(path) as f:
            report: object = json.load(f)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None
    if not isinstance(report, dict) or not isinstance(report.get("cases"), list):
        raise ValueError(f"{path} is not a bench report (no 'cases' list): write one with bench --json")
    return report


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """The two-sided p-value of the Mann-Whitney U test of samples `a` and `b` (the normal
    approximation, with the correction for ties); 1.0 when there are too few to tell."""
    n, m = len(a), len(b)
    if n < 2 or m < 2:
        return 1.0
    pooled = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(pooled)
    ties = 0.0
    i = 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t**3 - t
        i = j + 1
    rank_sum_a = sum(r for r, (_, which) in zip(ranks, pooled) if which == 0)
    u = rank_sum_a - n * (n + 1) / 2
    total = n + m
    variance = n * m / 12 * ((total + 1) - ties / (total * (total - 1)))
    if variance <= 0:
        return 1.0
    z = (abs(u - n * m / 2) - 0.5) / math.sqrt(variance)  # continuity correction
    return math.erfc(max(z, 0.0) / math.sqrt(2))


def verdict(old: Mapping[str, Any], new: Mapping[str, Any], higher_is_better: bool) -> tuple[str, float]:
    """'faster', 'slower' or 'same' for a side's samples in two runs, and the p-value."""
    p = mann_whitney_p(old["samples"], new["samples"])
    change: float = new["median"] / old["median"] - 1 if old["median"] else 0.0
    if p >= SIGNIFICANCE or abs(change) <= MIN_CHANGE:
        return "same", p
    better = change > 0 if higher_is_better else change < 0
    return ("faster" if better else "slower"), p


def rows(old_report: Mapping[str, Any], new_report: Mapping[str, Any]) -> list[Row]:
    """(case, side, unit, old median, new median, new/old, verdict, p) per side measured in both
    runs, in the new run's order; the medians are in the case's unit."""
    old_cases = {c["case"]: c for c in old_report["cases"]}
    found: list[Row] = []
    for case in new_report["cases"]:
        before = old_cases.get(case["case"])
        if before is None:
            continue
        old_sides = {r["side"]: r for r in before["results"] if "samples" in r}
        for result in case["results"]:
            old = old_sides.get(result["side"])
            if old is None or "samples" not in result:
                continue
            word, p = verdict(old, result, case.get("higher_is_better", False))
            ratio = result["median"] / old["median"] if old["median"] else None
            found.append(
                (
                    case["case"],
                    result["side"],
                    case["unit"],
                    old["median"] * case["scale"],
                    result["median"] * case["scale"],
                    ratio,
                    word,
                    p,
                )
            )
    return found


def print_comparison(old_path: str, new_path: str, out: TextIO) -> int:
    """Prints the comparison of the two reports; returns the exit status (0)."""
    old_report, new_report = load(old_path), load(new_path)
    old_gpu = (old_report.get("machine", {}).get("gpu") or {}).get("name")
    new_gpu = (new_report.get("machine", {}).get("gpu") or {}).get("name")
    print(
        f"bench comparison: {old_path} (old) against {new_path} (new); new/old of the medians; a change "
        f"counts when Mann-Whitney's p < {SIGNIFICANCE} and it exceeds {MIN_CHANGE:.0%}",
        file=out,
    )
    if old_gpu != new_gpu:
        print(f"  note: measured on different GPUs ({old_gpu or 'none'} and {new_gpu or 'none'})", file=out)
    found = rows(old_report, new_report)
    if not found:
        print("  no side was measured in both runs", file=out)
        return 0
    width = max(len(f"{case} / {side}") for case, side, *_ in found)
    print(f"  {'case / side':<{width}} {'old':>10} {'new':>10} {'new/old':>8}  verdict", file=out)
    for case, side, unit, old, new, ratio, word, p in found:
        ratio_text = "-" if ratio is None else f"{ratio:.3f}"
        print(
            f"  {case + ' / ' + side:<{width}} {old:>10.4g} {new:>10.4g} {ratio_text:>8}  {word} (p={p:.2g}; {unit})",
            file=out,
        )
    counts = {w: sum(1 for *_, word, _ in found if word == w) for w in ("faster", "slower", "same")}
    print(f"  {counts['faster']} faster, {counts['slower']} slower, {counts['same']} the same within noise", file=out)
    return 0
