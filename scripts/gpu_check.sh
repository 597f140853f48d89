#!/usr/bin/env bash
# One call on the GPU machine: build, run the whole suite (C++ and Python, GPU tests
# included), the demo, `info`, optionally compute-sanitizer and the benchmarks. Logs go to
# $OUT (or ./gpu-logs); a short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-logs}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
summary=()
step() {  # step NAME COMMAND...: runs, logs to $OUT/NAME.log, records the last line
    local name=$1; shift
    local start=$SECONDS
    "$@" > "$OUT/$name.log" 2>&1
    local rc=$?
    summary+=("$name: rc=$rc ($((SECONDS - start)) s) $(grep -E 'tests passed|passed|failed|error' "$OUT/$name.log" | tail -n 1)")
    return $rc
}
{ nvidia-smi -L; python3 --version; ls /usr/include/gtest 2>&1 | head -1; } > "$OUT/env.log" 2>&1
step build make build
step ctest bash -c 'cd build && ctest --output-on-failure -j 8'
step pytest make test-python
step demo make demo
step info make info
if [ "${GPUKIT_SANITIZER:-0}" = 1 ]; then
    step sanitizer bash -c 'cd build && compute-sanitizer --tool memcheck --error-exitcode 9 ctest -L gpu -j 1'
fi
if [ "${GPUKIT_BENCH:-0}" = 1 ]; then
    step bench bash -c "PYTHONPATH=python python3 -m gpukit bench --json $OUT/bench.json --png $OUT/bench.png"
    tail -n 40 "$OUT/bench.log"
fi
printf '%s\n' "${summary[@]}"
