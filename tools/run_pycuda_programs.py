"""Run PyCUDA's own test files and example programs through gpukit's drop-in.

    python tools/run_pycuda_programs.py PYCUDA_CHECKOUT [--out DIR] [--timeout S] [--only NAME ...]

PYCUDA_CHECKOUT is a directory with PyCUDA's ``test/`` and ``examples/`` folders (a PyCUDA
source checkout; none is part of this repository). Each test file runs under pytest and
each example as a script, in a process of its own, with ``import pycuda...`` answered by
gpukit (``gpukit.pycuda_compat``). A line per program and a summary are printed; with
``--out``, each program's output is written there.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs pytest on one file with the pycuda aliases installed first.
PYTEST = (
    "import sys, pytest, gpukit.pycuda_compat; "
    "sys.exit(pytest.main(['-q', '-rfE', '-p', 'no:cacheprovider', sys.argv[1]]))"
)


def run(command, cwd, timeout):
    env = dict(
        os.environ,
        PYTHONPATH=os.path.join(REPO, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""),
        MPLBACKEND="Agg",
        PYTHONUNBUFFERED="1",
    )
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout + done.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        output = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
        return "timeout", output, time.monotonic() - start


def last_error(output):
    """The line that says why a program failed: the last exception line, else the last line."""
    lines = [line for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^\w*(Error|Exception|Warning)\b|^E\s", line) or "Error:" in line:
            return line.strip()[:200]
    return lines[-1].strip()[:200] if lines else ""


def pytest_counts(output):
    found = re.findall(r"(\d+) (passed|failed|skipped|error|errors|xfailed|xpassed)", output)
    return ", ".join(f"{n} {what}" for n, what in found) or "no summary"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout")
    parser.add_argument("--out", help="directory for each program's full output")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--only", nargs="*", help="run only the programs whose file names contain one of these")
    args = parser.parse_args()
    args.checkout = os.path.abspath(args.checkout)

    programs = []
    for folder, kind in (("test", "tests"), ("examples", "example")):
        directory = os.path.join(args.checkout, folder)
        if not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            if not name.endswith(".py") or (kind == "tests" and not name.startswith("test_")):
                continue
            if args.only and not any(o in name for o in args.only):
                continue
            programs.append((kind, os.path.join(directory, name)))
    if args.out:
        os.makedirs(args.out, exist_ok=True)

    results = []
    for kind, path in programs:
        name = os.path.relpath(path, args.checkout)
        with tempfile.TemporaryDirectory() as scratch:  # examples may write files
            if kind == "tests":
                code, output, seconds = run([sys.executable, "-c", PYTEST, path], scratch, args.timeout)
                detail = pytest_counts(output)
            else:
                code, output, seconds = run([sys.executable, "-m", "gpukit.pycuda_compat", path], scratch, args.timeout)
                detail = "" if code == 0 else last_error(output)
        status = "ok" if code == 0 else ("timeout" if code == "timeout" else f"rc={code}")
        results.append((name, status, seconds, detail))
        print(f"{status:8s} {seconds:7.1f}s  {name}  {detail}", flush=True)
        if args.out:
            with open(os.path.join(args.out, name.replace(os.sep, "__") + ".log"), "w") as f:
                f.write(output)
    passed = sum(1 for r in results if r[1] == "ok")
    print(f"\n{passed} of {len(results)} PyCUDA programs ran cleanly through gpukit.pycuda_compat")


if __name__ == "__main__":
    main()
