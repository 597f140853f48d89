"""Compare gpukit's per-call costs between builds: many short processes, alternated, pinned.

    python tools/per_call_ab.py NAME=PYTHON_DIR NAME=PYTHON_DIR ... [--rounds N] [--cpus 2,3]

Each PYTHON_DIR holds a built gpukit package (the `python` directory of a developer build:
gpukit/ with its _gpukit and _bench_baselines modules). Every round runs one process per
build, in the order given, each timing 22 per-call paths (empty-kernel launches from Python
and C++, small-array operations from Python and C++, pool hits) with the benchmark's own sides
(gpukit.bench.launch, .small, .pools), and prints the median over the rounds of each path,
with each build's ratio to the first build.

Why this shape: on a busy or shared machine a process runs in one of several speeds for its
whole life (on the H200 machine pool hits took 0.13 or 0.30 µs, by process), so one long run
per build measures the draw, not the build. Processes pinned to the same CPUs (taskset) and
alternated over many rounds leave only the build's difference (docs/performance.md,
"Optimization level"). Needs a CUDA device and the bench's C++ baselines.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

SMALL_OPERATIONS = ("add", "axpy", "scale", "sum", "dot", "slice", "copy", "astype")


def measure(repeats: int) -> dict[str, float]:
    """This process's median µs per call of each path (the child's side)."""
    from gpukit.bench import launch, pools, small
    from gpukit.bench.harness import Run, Settings

    settings: Settings = {"repeats": repeats, "quick": False}
    sides: dict[str, Run] = {
        "launch raw cuLaunchKernel (C++)": launch.raw_cpp,
        "launch gpukit::cuda::launch (C++)": launch.gpukit_cpp,
        "launch Function.__call__": launch.gpukit_call,
        "launch prepared_async_call": launch.gpukit_prepared,
    }
    for name in SMALL_OPERATIONS:
        sides[f"{name} (Python)"] = small.operation_side("gpukit", name)
        if name != "slice":
            sides[f"{name} (C++ device_array)"] = small.cpp_side(name)
    sides["add raw cuLaunchKernel (C++)"] = small.raw_add_floor
    sides["pool allocate+free (Python)"] = pools.gpukit_python_pool
    sides["pool allocate+free (C++)"] = pools.gpukit_cpp_pool(1)
    return {path: statistics.median(run(settings)) * 1e6 for path, run in sides.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("builds", nargs="*", metavar="NAME=PYTHON_DIR", help="the builds, the first the reference")
    parser.add_argument("--rounds", type=int, default=10, help="processes per build (default 10)")
    parser.add_argument("--cpus", default="2,3", help="the CPUs every process is pinned to (default 2,3)")
    parser.add_argument("--repeats", type=int, default=9, help="timed repeats per path in a process (default 9)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # a child's run
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.repeats)))
        return 0
    pairs = [build.partition("=") for build in args.builds]
    builds = {name: python_dir for name, _, python_dir in pairs}
    if len(pairs) < 2 or len(builds) < len(pairs) or not all(name and directory for name, _, directory in pairs):
        parser.error("give at least two builds as NAME=PYTHON_DIR, with distinct names")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in builds}
    for round_number in range(args.rounds):
        for name, python_dir in builds.items():
            child = subprocess.run(
                ["taskset", "-c", args.cpus, sys.executable, __file__, "--measure", "--repeats", str(args.repeats)],
                env={**os.environ, "PYTHONPATH": python_dir},
                capture_output=True,
                text=True,
                check=False,
            )
            if child.returncode != 0:
                print(f"{name}, round {round_number + 1}: failed\n{child.stderr}", file=sys.stderr)
                return 1
            results[name].append(json.loads(child.stdout.splitlines()[-1]))
    names = list(builds)
    print(f"median µs per call over {args.rounds} processes per build (pinned to CPUs {args.cpus})")
    print(
        f"{'path':36s}"
        + "".join(f"{name:>10s}" for name in names)
        + "".join(f"{n + '/' + names[0]:>12s}" for n in names[1:])
    )
    for path in results[names[0]][0]:
        medians = [statistics.median(run[path] for run in results[name]) for name in names]
        ratios = "".join(f"{m / medians[0]:12.3f}" for m in medians[1:])
        print(f"{path:36s}" + "".join(f"{m:10.3f}" for m in medians) + ratios)
    return 0


if __name__ == "__main__":
    sys.exit(main())
