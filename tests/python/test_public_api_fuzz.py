"""The public-API fuzz (issue 29): every public callable of gpukit.driver, gpukit.cl,
gpukit.compiler, gpukit.gpuarray, gpukit.elementwise, reduction, scan, cumath, curandom, tools
and the drop-ins, called with a catalogue of bad inputs (api_fuzz.py says what and how). The
calls run in worker processes, so that a crash or a hang is one failing case, not the end of
the suite. GPUKIT_API_FUZZ=full runs the larger catalogue (about eight times the cases)."""

import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time

import pytest

LEVEL = os.environ.get("GPUKIT_API_FUZZ", "ci")
WORKERS = 2
CASE_TIMEOUT = float(os.environ.get("GPUKIT_API_FUZZ_TIMEOUT", "60"))
WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api_fuzz.py")


def run_shard(shard, environment, directory, results):
    """Runs the cases of one shard in as many worker processes as it takes: after a crash or a
    hang the next worker starts after the case that caused it."""
    first, failures, slow = 0, [], []
    while True:
        with tempfile.TemporaryFile() as stderr:
            worker = subprocess.Popen(
                [sys.executable, WORKER_SCRIPT, LEVEL, str(shard), str(WORKERS), str(first)],
                stdout=subprocess.PIPE,
                stderr=stderr,
                stdin=subprocess.DEVNULL,
                env=environment,
                cwd=directory,
                text=True,
                bufsize=1,
            )
            current, done, hung = None, False, False
            while True:
                ready, _, _ = select.select([worker.stdout], [], [], CASE_TIMEOUT)
                if not ready:
                    hung = True
                    worker.kill()
                    break
                line = worker.stdout.readline()
                if not line:
                    break
                word, _, rest = line.rstrip("\n").partition(" ")
                if word == "START":
                    index, _, label = rest.partition(" ")
                    current = (int(index), label)
                elif word == "FAIL":
                    _, _, payload = rest.partition(" ")
                    failures.append(json.loads(payload))
                elif word == "SLOW":
                    slow.append(rest)
                elif word == "DONE":
                    done = True
            returncode = worker.wait()
            stderr.seek(0)
            tail = stderr.read().decode(errors="replace")[-3000:]
        if done and returncode == 0:
            break
        label = current[1] if current else "(before the first case)"
        kind = "hang" if hung else ("crash at exit" if done else "crash")
        failures.append({"kind": kind, "case": label, "text": f"exit status {returncode}; stderr:\n{tail}"})
        if done or current is None:
            break
        first = current[0] + 1
    results[shard] = failures
    results[("slow", shard)] = slow


@pytest.mark.long_running
def test_no_public_callable_crashes_hangs_or_leaks_internal_names(tmp_path):
    # Under ASan (make sanitize-python), where the workers cannot limit their address space,
    # an allocation above 4 GiB fails instead (api_fuzz.limit_memory() says why).
    environment = dict(
        os.environ,
        CUDA_VISIBLE_DEVICES="",
        GPUKIT_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in sys.path),
        ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":max_allocation_size_mb=4096",
    )
    results = {}
    started = time.monotonic()
    # The workers run in a directory of their own: relative paths in the catalogue land there.
    threads = [
        threading.Thread(target=run_shard, args=(s, environment, str(tmp_path), results)) for s in range(WORKERS)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    failures = [f for s in range(WORKERS) for f in results.get(s, [{"kind": "lost", "case": f"shard {s}", "text": ""}])]
    order = ["crash", "hang", "crash at exit", "SystemError", "SystemExit"]
    failures = sorted(failures, key=lambda f: order.index(f["kind"]) if f["kind"] in order else len(order))
    slow = sorted((s for w in range(WORKERS) for s in results.get(("slow", w), [])), key=lambda s: -float(s.split()[0]))
    print("slowest cases:\n  " + "\n  ".join(slow[:10]))
    # One line per failing callable and kind of failure, with its first case.
    groups = {}
    for f in failures:
        groups.setdefault((f["kind"], f["case"].partition(":")[0]), []).append(f)
    report = "\n\n".join(
        f"[{kind}] {callable_} ({len(group)} cases), e.g. {group[0]['case']}\n    {group[0]['text']}"
        for (kind, callable_), group in groups.items()
    )
    seconds = time.monotonic() - started
    print(f"{len(failures)} failures in {seconds:.1f} s")
    assert not failures, f"{len(failures)} failing cases of {len(groups)} callables:\n\n{report}"
