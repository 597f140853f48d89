"""Run a library's own pytest suite twice, on PyCUDA itself and on gpukit through
gpukit.pycuda_compat, and list the tests whose outcome differs.

    python tools/compare_library_suites.py TESTS_DIR [--sides pycuda gpukit] [--out DIR]
        [--timeout S] [-- PYTEST_ARGS...]

TESTS_DIR is the directory pytest runs in (a library's source checkout, where its conftest.py
and tests are); PYTEST_ARGS go to pytest on both sides (e.g. ``--api=cuda -n 8``). The
library and, for the pycuda side, PyCUDA must be importable (PYTHONPATH). Each side runs in a
process of its own and writes a JUnit XML file; the summary names every test that passes on
PyCUDA and not on gpukit (the regressions), and the reverse. Nothing here is part of the test
suite: the libraries are not in this repository.
"""

import argparse
import collections
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The gpukit side installs the pycuda aliases before pytest imports anything of the library.
RUNNERS = {
    "gpukit": "import sys, gpukit.pycuda_compat, pytest; sys.exit(pytest.main(sys.argv[1:]))",
    "pycuda": "import sys, pytest; sys.exit(pytest.main(sys.argv[1:]))",
}


def start_side(side, tests_dir, pytest_args, out_dir, pycuda_path=None):
    """Starts the suite on `side` in a process of its own, writing <side>.log and <side>.xml.
    `pycuda_path` (where PyCUDA is installed) goes on the pycuda side's path only, so that on
    the gpukit side a module that escaped the aliases fails to import rather than running
    PyCUDA."""
    xml_path = os.path.join(out_dir, f"{side}.xml")
    pythonpath = [os.environ.get("PYTHONPATH", "")]
    if side == "gpukit":
        pythonpath.insert(0, os.path.join(REPO, "python"))
    elif pycuda_path:
        pythonpath.insert(0, pycuda_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in pythonpath if p), PYTHONUNBUFFERED="1")
    # `-p gpukit.pycuda_compat` installs the aliases in pytest-xdist's workers too, which are
    # fresh interpreters that never run the runner's own import.
    plugin = ["-p", "gpukit.pycuda_compat"] if side == "gpukit" else []
    command = [
        sys.executable,
        "-c",
        RUNNERS[side],
        "-q",
        "-rN",
        "-p",
        "no:cacheprovider",
        *plugin,
        f"--junitxml={xml_path}",
        *pytest_args,
    ]
    log = open(os.path.join(out_dir, f"{side}.log"), "w")
    return subprocess.Popen(command, cwd=tests_dir, env=env, stdout=log, stderr=subprocess.STDOUT), log


def finish_side(process, log, deadline):
    """Waits for a side until `deadline` (time.monotonic()), stopping it there."""
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        log.write("\n[compare_library_suites: stopped at the time limit]\n")
    log.close()


def outcomes(xml_path):
    """{test id: 'passed' | 'failed' | 'error' | 'skipped'} from a JUnit XML file (empty when
    the run wrote none)."""
    if not os.path.exists(xml_path):
        return {}
    result = {}
    for case in ElementTree.parse(xml_path).getroot().iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
        result[test_id] = outcome
    return result


def first_message(xml_path, test_id):
    """The first line of the failure message of `test_id` in a JUnit XML file."""
    for case in ElementTree.parse(xml_path).getroot().iter("testcase"):
        if f"{case.get('classname')}::{case.get('name')}" == test_id:
            for child in case:
                if child.tag in ("failure", "error"):
                    return (child.get("message") or "").splitlines()[0][:160] if child.get("message") else ""
    return ""


def summary(results):
    counts = collections.Counter(results.values())
    return ", ".join(f"{counts[k]} {k}" for k in ("passed", "failed", "error", "skipped") if counts[k])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tests_dir")
    parser.add_argument("--sides", nargs="+", choices=sorted(RUNNERS), default=["pycuda", "gpukit"])
    parser.add_argument("--out", default="library-suites")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--parallel", action="store_true", help="run the sides at the same time")
    parser.add_argument("--pycuda-path", help="a directory holding PyCUDA, put on the pycuda side's path only")
    parser.add_argument("pytest_args", nargs="*", help="after --: the arguments for pytest")
    args = parser.parse_args()
    pytest_args = args.pytest_args
    os.makedirs(args.out, exist_ok=True)

    tests_dir = os.path.abspath(args.tests_dir)
    batches = [args.sides] if args.parallel else [[side] for side in args.sides]
    results = {}
    for batch in batches:
        start = time.monotonic()
        running = {side: start_side(side, tests_dir, pytest_args, args.out, args.pycuda_path) for side in batch}
        for side, (process, log) in running.items():
            finish_side(process, log, start + args.timeout)
            results[side] = outcomes(os.path.join(args.out, f"{side}.xml"))
            print(f"{side}: {summary(results[side]) or 'no results'} ({time.monotonic() - start:.0f} s)", flush=True)
    if set(args.sides) == {"pycuda", "gpukit"}:
        original, ours = results["pycuda"], results["gpukit"]
        lost = sorted(t for t, o in original.items() if o == "passed" and ours.get(t) != "passed")
        gained = sorted(t for t, o in ours.items() if o == "passed" and original.get(t) != "passed")
        print(f"passing on PyCUDA, not through gpukit: {len(lost)}")
        for test_id in lost:
            message = first_message(os.path.join(args.out, "gpukit.xml"), test_id)
            print(f"  {ours.get(test_id, 'missing')}: {test_id}  {message}")
        print(f"passing through gpukit, not on PyCUDA: {len(gained)}")
        for test_id in gained[:50]:
            print(f"  {original.get(test_id, 'missing')} on PyCUDA: {test_id}")


if __name__ == "__main__":
    main()
