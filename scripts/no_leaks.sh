#!/usr/bin/env bash
# Runs a command (the Python test suite) and fails when nanobind's leak report, which the
# interpreter prints to stderr as it ends (the tests turn it on: tests/python/conftest.py),
# lists anything: a gpukit object that outlived the interpreter. The report comes after
# pytest's own summary, too late to change pytest's exit status.
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if grep -q "nanobind: leaked" "$log"; then
    echo "no_leaks.sh: nanobind's leak report above lists objects that outlived the interpreter" >&2
    exit 1
fi
exit "$status"
