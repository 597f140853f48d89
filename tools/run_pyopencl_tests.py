"""Run PyOpenCL's own tests of its tools against gpukit.cl, under PyOpenCL's names.

    python tools/run_pyopencl_tests.py PYOPENCL_CHECKOUT [--all] [--test FILE::NAME ...] [--out DIR]

PYOPENCL_CHECKOUT is a directory with PyOpenCL's ``test/`` folder (a PyOpenCL source checkout or
sdist; none is part of this repository). The tests run under pytest, in a process of their own,
with ``import pyopencl...`` answered by gpukit (``gpukit.pyopencl_compat``). By default the
tests of the tools gpukit.cl implements (memory pools, allocators, SVM pools) run; ``--all``
runs every test of the files named by ``--test`` (default: test/test_wrapper.py).

A test module that imports a PyOpenCL module gpukit does not implement (pyopencl.array,
pyopencl.cltypes, ...) at its top still loads: the runner puts a stand-in module there whose
names raise ImportError with gpukit's message when used, so only the tests that use them fail,
and say why. A line per test (passed / failed / skipped / xfailed, with the reason) and a summary are
printed; the exit status is 1 when a test failed.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# PyOpenCL's tests of the tools of the seed (docs/opencl.md), in test/test_wrapper.py.
TOOLS_TESTS = [
    "test/test_wrapper.py::test_mempool",
    "test/test_wrapper.py::test_mempool_2",
    "test/test_wrapper.py::test_mempool_32bit_issues",
    "test/test_wrapper.py::test_allocator",
    "test/test_wrapper.py::test_zero_size_svm_allocations",
    "test/test_wrapper.py::test_buffer_release",
]

# Runs pytest with the pyopencl aliases installed and stand-ins for the unavailable modules that
# test modules import at their top.
BOOTSTRAP = """
import sys, types
import pytest
import gpukit.pyopencl_compat as compat

class Missing:
    # A name of an unavailable module, which a test module may mention at its top (a
    # parametrize value): using it raises ImportError.
    def __init__(self, module, name):
        self._what = f"{module}.{name}"
        self._message = compat.UNAVAILABLE[module] + f" (used: {self._what})"

    def __repr__(self):
        return self._what

    def __getattr__(self, attribute):
        if attribute.startswith("__"):  # what pytest and numpy probe for
            raise AttributeError(attribute)
        raise ImportError(self._message)

    def __call__(self, *args, **kwargs):
        raise ImportError(self._message)


class Unavailable(types.ModuleType):
    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return Missing(self.__name__, attribute)

# `import pyopencl.array as a` looks for gpukit.cl's attribute, then for sys.modules under
# gpukit.cl's own name ("gpukit.cl.array"): the stand-in goes under both names.
for name in compat.UNAVAILABLE:
    sys.modules[name] = sys.modules["gpukit.cl" + name[len("pyopencl"):]] = Unavailable(name)
sys.exit(pytest.main(sys.argv[1:]))
"""


def outcomes(junit_file):
    """(test id, outcome, reason) for every test case of a pytest JUnit XML report."""
    results = []
    for case in ElementTree.parse(junit_file).iter("testcase"):
        name = f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"
        outcome, reason = "passed", ""
        for child in case:
            message = (child.get("message") or child.text or "").strip().splitlines()
            first = message[0][:160] if message else ""
            if child.tag in ("failure", "error"):
                outcome, reason = ("failed" if child.tag == "failure" else "error"), first
            elif child.tag == "skipped":
                outcome = "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
                reason = first
        results.append((name, outcome, reason))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", help="a PyOpenCL source checkout (with test/)")
    parser.add_argument(
        "--test", action="append", help="a test file or FILE::NAME relative to the checkout (repeatable)"
    )
    parser.add_argument("--all", action="store_true", help="run every test of the files of --test")
    parser.add_argument("--out", help="a directory for pytest's full output")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    checkout = os.path.abspath(args.checkout)
    if not os.path.isdir(os.path.join(checkout, "test")):
        sys.exit(f"{checkout} has no test/ folder; expected a PyOpenCL checkout")
    if args.all:
        selected = sorted({t.split("::")[0] for t in (args.test or ["test/test_wrapper.py"])})
    else:
        selected = args.test or TOOLS_TESTS

    env = dict(
        os.environ,
        PYTHONPATH=os.path.join(REPO, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""),
        PYTHONUNBUFFERED="1",
    )
    with tempfile.TemporaryDirectory() as scratch:
        junit = os.path.join(scratch, "results.xml")
        command = [
            sys.executable,
            "-c",
            BOOTSTRAP,
            "-q",
            "-rfE",
            "-p",
            "no:cacheprovider",
            f"--junitxml={junit}",
            "-o",
            "junit_family=xunit1",
            *selected,
        ]
        try:
            done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, timeout=args.timeout)
            output = done.stdout + done.stderr
        except subprocess.TimeoutExpired as e:
            sys.exit(f"pytest did not finish within {args.timeout} s:\n{e.stdout or ''}")
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "pytest.log"), "w") as log:
                log.write(output)
        if not os.path.exists(junit):
            sys.exit(f"pytest wrote no report:\n{output}")
        results = outcomes(junit)

    width = max((len(name) for name, _, _ in results), default=10)
    counts = {}
    for name, outcome, reason in results:
        counts[outcome] = counts.get(outcome, 0) + 1
        print(f"{name:<{width}}  {outcome:<8} {reason}")
    print("summary: " + ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())))
    sys.exit(1 if counts.get("failed") or counts.get("error") else 0)


if __name__ == "__main__":
    main()
