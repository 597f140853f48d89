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
# NVIDIA's OpenCL library registered beside whatever ICDs the machine has (PoCL), so the
# OpenCL tests run on both.
icd_dir=$(mktemp -d)
cp /etc/OpenCL/vendors/*.icd "$icd_dir"/ 2>/dev/null
ldconfig -p | grep -q libnvidia-opencl.so.1 && echo libnvidia-opencl.so.1 > "$icd_dir/nvidia.icd"
export OCL_ICD_VENDORS=$icd_dir
{ nvidia-smi -L; python3 --version; ls "$icd_dir"; ldconfig -p | grep -i opencl; } > "$OUT/env.log" 2>&1
step build make build
step ctest bash -c 'cd build && ctest --output-on-failure -j 8'
step pytest make test-python
# The C++ OpenCL tests once more, on NVIDIA's OpenCL (the Python ones run on every device).
GPUKIT_CL_TEST=nvidia step ctest-nvidia-opencl bash -c 'cd build && ctest -L opencl -j 4 --output-on-failure'
step demo make demo
step info make info
if [ "${GPUKIT_SANITIZER:-0}" = 1 ]; then
    # The C++ and Python GPU tests of memory, copies and launches under memcheck; the tests
    # that fault a kernel on purpose are left out, since memcheck rightly reports them.
    step sanitizer-cpp compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        build/tests/test_cuda_gpu --gtest_filter='-*fault*'
    step sanitizer-py env PYTHONPATH=python compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        python3 -m pytest -q -k 'not fault' tests/python/test_memory.py tests/python/test_function.py \
        tests/python/test_pools.py tests/python/test_stream_event.py
fi
if [ "${GPUKIT_BENCH:-0}" = 1 ]; then
    step bench bash -c "PYTHONPATH=python python3 -m gpukit bench --json $OUT/bench.json --png $OUT/bench.png"
    tail -n 40 "$OUT/bench.log"
fi
printf '%s\n' "${summary[@]}"
