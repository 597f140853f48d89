"""The NCCL benchmarks: all-reduce, all-gather, reduce-scatter and broadcast of float32 over
every GPU of the machine, by gpukit.nccl, CuPy's cupy.cuda.nccl and torch.distributed (NCCL
backend), whichever are installed. Every side runs one process per GPU (ranks.launch), and
one program times them all (nccl_rank.py), so they differ only in the library's calls.

Sizes and bandwidths follow nccl-tests. A measurement's size is the bytes of its largest
buffer: all-gather's output and reduce-scatter's input hold one part per rank, so their
count (NCCL's: elements per part) is the size over 4 bytes and the ranks. The algorithm
bandwidth is that size over the time of one call; the bus bandwidth multiplies it by what
each link carries with n ranks: 2(n-1)/n for all-reduce, (n-1)/n for all-gather and
reduce-scatter, 1 for broadcast; one GPU has no bus, so there it is the algorithm bandwidth.
gpukit and CuPy work out of place (on GPUArrays and raw pointers); PyTorch's all-reduce and
broadcast work in place only (its all-gather and reduce-scatter out of place).

Timing: every rank runs the same deterministic number of calls (ranks that disagreed on it
would pair one rank's timed calls with another's warm-up and hang at the end). Before each
repeat the ranks meet (a one-element all-reduce and a wait); a repeat queues calls_per_repeat()
calls and waits for the GPU; a repeat's time is the slowest rank's.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from gpukit.bench import ranks
from gpukit.bench.harness import Unavailable

if TYPE_CHECKING:
    from gpukit.bench.harness import Run, Settings

#: Per (collective, nbytes) measured: per repeat, the slowest rank's seconds per call.
Seconds: TypeAlias = dict[tuple[str, int], list[float]]

COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "broadcast"]
#: The sides, by the name the rank program takes, with the names the tables show.
SIDES = {"gpukit": "gpukit nccl.Communicator", "cupy": "CuPy cupy.cuda.nccl", "torch": "torch.distributed (NCCL)"}

#: Sizes of the bench cases (`python -m gpukit bench nccl`), and of the tables (nccl_table.py).
SIZES = [64 << 10, 1 << 20, 16 << 20, 256 << 20, 1 << 30]
LATENCY_BYTES = 8
TABLE_SIZES = [8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30]

#: Repeats' worth of calls before a measurement's first sample (NCCL connects each algorithm
#: on first use); the rank program also warms the GPU up once before the first.
WARM_UP_REPEATS = 3
#: Seconds a repeat aims at; a repeat of the quick settings aims at a fifth of it.
REPEAT_SECONDS = 0.02
#: Exit status of a rank whose side cannot run here (its library is missing), printed after
#: UNAVAILABLE with the reason.
UNAVAILABLE_STATUS = 3
UNAVAILABLE = "side unavailable: "

ITEM = 4  # float32


def counts(collective: str, nbytes: int, n: int) -> tuple[int, int, int, int]:
    """(NCCL's count, elements of the send buffer, of the receive buffer, the size in bytes as
    nccl-tests counts it) for a measurement of `nbytes` over `n` ranks; at least one element
    per part, so a size below 4 n bytes grows to that."""
    if collective not in COLLECTIVES:
        raise ValueError(f"unknown collective {collective!r}; the benchmarks have {', '.join(COLLECTIVES)}")
    if collective in ("all_gather", "reduce_scatter"):
        part = max(nbytes // (ITEM * n), 1)
        whole = part * n
        send, recv = (part, whole) if collective == "all_gather" else (whole, part)
        return part, send, recv, whole * ITEM
    count = max(nbytes // ITEM, 1)
    return count, count, count, count * ITEM


def bus_factor(collective: str, n: int) -> float:
    """nccl-tests' bus bandwidth factor for `n` ranks; 1 (the algorithm bandwidth) on one."""
    if n == 1 or collective == "broadcast":
        return 1.0
    if collective == "all_reduce":
        return 2 * (n - 1) / n
    return (n - 1) / n


def calls_per_repeat(size: int, quick: bool) -> int:
    """Calls per repeat for a measurement of `size` bytes: about REPEAT_SECONDS of them by a
    deliberately rough estimate (25 µs plus 150 GB/s), the same on every rank."""
    estimate = 25e-6 + size / 150e9
    target, most = (REPEAT_SECONDS / 5, 100) if quick else (REPEAT_SECONDS, 400)
    return max(2, min(most, int(target / estimate)))


def size_text(nbytes: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift} {unit}"
    return f"{nbytes} B"


def device_count() -> int:
    import gpukit.driver as drv

    if not drv.driver_available() or drv.Device.count() == 0:
        raise Unavailable("no CUDA device")
    return drv.Device.count()


class SideResult:
    """What one side's ranks measured: `seconds[(collective, nbytes)]` (per repeat, the slowest
    rank's seconds per call), `versions` (rank 0's libraries), `status` ("ok", "timed out
    after ... measurements" or "failed: ...") and the launch's report."""

    def __init__(self, side: str, seconds: Seconds, versions: dict[str, Any], status: str, report: str = "") -> None:
        self.side, self.seconds, self.versions, self.status, self.report = side, seconds, versions, status, report


def merge_rank_lines(texts: Iterable[str]) -> tuple[Seconds, dict[str, Any]]:
    """The measurements every rank finished, from each rank's JSON lines (its first line
    describes the rank): ({(collective, nbytes): [slowest rank's seconds per repeat]},
    rank 0's description)."""
    per_rank: list[list[Any]] = []  # each rank's lines, JSON objects
    for text in texts:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        per_rank.append(lines)
    if not per_rank or any(not lines for lines in per_rank):
        return {}, {}
    merged: Seconds = {}
    finished = min(len(lines) for lines in per_rank) - 1
    for k in range(1, finished + 1):
        rows = [lines[k] for lines in per_rank]
        key = (rows[0]["collective"], rows[0]["nbytes"])
        if any((row["collective"], row["nbytes"]) != key for row in rows):
            raise RuntimeError(f"the ranks measured different things at line {k}: {rows}")
        merged[key] = [max(repeat) for repeat in zip(*(row["seconds"] for row in rows))]
    return merged, per_rank[0][0]


def run_side(
    side: str, measurements: Sequence[tuple[str, int]], n: int, settings: Settings, timeout: float
) -> SideResult:
    """Runs the rank program of `side` over `n` GPUs for `measurements` [(collective,
    nbytes)...] with `settings` (repeats, quick); a SideResult with what finished within
    `timeout` seconds. Unavailable when the side's library is missing."""
    with tempfile.TemporaryDirectory(prefix=f"gpukit-nccl-{side}-") as folder:
        plan = os.path.join(folder, "plan.json")
        with open(plan, "w") as f:
            json.dump({"measurements": measurements, "repeats": settings["repeats"], "quick": settings["quick"]}, f)
        argv = [sys.executable, "-m", "gpukit.bench.nccl_rank", side, plan, folder]
        env = dict(os.environ)
        # The ranks import this gpukit: the one whose bench is running, wherever it lives.
        package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(
            [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        )
        run = ranks.launch(argv, n, timeout, env=env)
        unavailable = [o for code, o in zip(run.returncodes, run.outputs) if code == UNAVAILABLE_STATUS]
        if unavailable:
            reason = next(
                (line[len(UNAVAILABLE) :] for line in unavailable[0].splitlines() if line.startswith(UNAVAILABLE)),
                "its library is missing",
            )
            raise Unavailable(reason)
        texts = []
        for r in range(n):
            path = os.path.join(folder, f"rank{r}.jsonl")
            texts.append(open(path).read() if os.path.exists(path) else "")
        seconds, about = merge_rank_lines(texts)
    if run.ok:
        status = "ok"
    elif run.timed_out:
        status = f"timed out after {len(seconds)} of {len(measurements)} measurements"
    else:
        status = f"failed (exit status {run.returncodes}) after {len(seconds)} of {len(measurements)} measurements"
    return SideResult(side, seconds, about.get("versions", {}), status, "" if run.ok else run.describe())


# ---- the cases of `python -m gpukit bench` --------------------------------------------


def _harness_side(side: str, nbytes: int, latency: bool) -> Run:
    """A bench-case side: all-reduce of `nbytes` over every GPU, seconds per call (latency)
    or bus bandwidth in bytes per second, one sample per repeat."""

    def run(settings: Settings) -> list[float]:
        n = device_count()
        if side == "torch" and not latency and n == 1:
            raise Unavailable(
                "on one GPU PyTorch's all-reduce, in place only, moves nothing, while the other "
                "sides copy their buffer (out of place): no bandwidth to compare"
            )
        result = run_side(side, [("all_reduce", nbytes)], n, settings, timeout=600)
        seconds = result.seconds.get(("all_reduce", nbytes))
        if seconds is None:
            raise RuntimeError(f"the {side} side measured nothing: {result.status}\n{result.report[-1500:]}")
        if latency:
            return seconds
        size = counts("all_reduce", nbytes, n)[3]
        return [size / s * bus_factor("all_reduce", n) for s in seconds]

    return run


def gpukit_side(nbytes: int, latency: bool = False) -> Run:
    return _harness_side("gpukit", nbytes, latency)


def cupy_side(nbytes: int, latency: bool = False) -> Run:
    return _harness_side("cupy", nbytes, latency)


def torch_side(nbytes: int, latency: bool = False) -> Run:
    return _harness_side("torch", nbytes, latency)
