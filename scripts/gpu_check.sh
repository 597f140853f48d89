#!/usr/bin/env bash
# One call on the GPU machine: build, run the whole suite (C++ and Python, GPU tests
# included), the C++ OpenCL tests on NVIDIA's OpenCL, the demo and `info`; optionally the
# GPU tests under compute-sanitizer (GPUKIT_SANITIZER=1) and under AddressSanitizer
# (GPUKIT_ASAN=1; GPUKIT_ASAN_PYTHON=1 for the extension module under pytest), PyCUDA's own
# tests and examples through the drop-in (GPUKIT_PYCUDA_CHECKOUT=<a PyCUDA checkout>), and
# the benchmarks (GPUKIT_BENCH=1). The Python suite runs on GPUKIT_TEST_WORKERS workers (one
# per core) where pytest-xdist is importable. Logs go to $OUT (at most 8 files: cpp.log, python.log,
# sanitizer.log, misc.log, pycuda.log, bench.log, bench.json, bench.png); a line per step is
# printed last, then one line for the whole check (its exit status is 1 when a step failed).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-gpu-logs}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
# 100 context-churn cycles (of the issue's 1000, ~7 minutes for both tests) keep the whole
# check within one 10-minute device call; set GPUKIT_CONTEXT_CHURN_CYCLES=1000 for the full run.
export GPUKIT_CONTEXT_CHURN_CYCLES=${GPUKIT_CONTEXT_CHURN_CYCLES:-100}
summary=()
failed=()
run_step() {  # run_step LOG NAME COMMAND...: runs, appends to $OUT/LOG, prints the result line
    local log=$1 name=$2; shift 2
    local start=$SECONDS output
    output=$(mktemp "$OUT/.step.XXXXXX")
    "$@" > "$output" 2>&1
    local rc=$?
    { echo "===== $name"; cat "$output"; } >> "$OUT/$log"
    echo "$rc $name: rc=$rc ($((SECONDS - start)) s) $(grep -E 'tests passed|passed|failed|ERROR SUMMARY|ran cleanly' "$output" | tail -n 1)"
    rm -f "$output"
}
record() {  # record RESULT-LINES: adds run_step's lines to the summary; 1 when one failed
    local code rest rc=0
    while read -r code rest; do
        summary+=("$rest")
        [ "$code" = 0 ] || { failed+=("${rest%%:*}"); rc=1; }
    done <<< "$1"
    return $rc
}
step() {  # step LOG NAME COMMAND...: run_step, recorded at once
    record "$(run_step "$@")"
}
# OpenGL's loaders for the gpukit.gl tests, where the machine has none: Debian's packages in
# $GPUKIT_GL_DEBS, unpacked (docs/opengl.md, "Headless rendering"); NVIDIA's EGL driver is the
# machine's own.
if [ -n "${GPUKIT_GL_DEBS:-}" ]; then
    for deb in "$GPUKIT_GL_DEBS"/*.deb; do dpkg -x "$deb" /; done
    ldconfig
fi
# NVIDIA's OpenCL library registered beside whatever ICDs the machine has (PoCL), so the
# OpenCL tests run on both.
icd_dir=$(mktemp -d)
cp /etc/OpenCL/vendors/*.icd "$icd_dir"/ 2>/dev/null
ldconfig -p | grep -q libnvidia-opencl.so.1 && echo libnvidia-opencl.so.1 > "$icd_dir/nvidia.icd"
export OCL_ICD_VENDORS=$icd_dir
{ nvidia-smi -L; python3 --version; ls "$icd_dir"; } >> "$OUT/misc.log" 2>&1

step cpp.log build make build
# The C++ suite runs beside the Python one (it waits on the GPU and the driver more than on
# the CPU): the whole check in 8.5 minutes on one H200 instead of 11 (CONTRIBUTING.md). Then
# the C++ OpenCL tests once more, on NVIDIA's OpenCL.
cpp_results=$(mktemp "$OUT/.cpp.XXXXXX")
{
    run_step cpp.log ctest bash -c 'cd build && ctest --output-on-failure -j 8'
    GPUKIT_CL_TEST=nvidia run_step cpp.log ctest-nvidia-opencl bash -c 'cd build && ctest -L opencl -j 4 --output-on-failure'
} > "$cpp_results" &
cpp_suite=$!
# Over parallel workers where pytest-xdist can be imported (PYTHONPATH may name where it is),
# one per CPU core by default: every GPU test makes its own context, and the tests that
# measure the device's free memory measure again when another worker's allocation gets in.
# The OpenCL tests run on NVIDIA's OpenCL only where it is registered (CI runs them on PoCL).
pythonpath=python${PYTHONPATH:+:$PYTHONPATH}
workers=$(PYTHONPATH=$pythonpath python3 -c 'import xdist' 2>/dev/null && echo "-n ${GPUKIT_TEST_WORKERS:-$(nproc)}")
[ -f "$icd_dir/nvidia.icd" ] && export GPUKIT_CL_TEST=${GPUKIT_CL_TEST:-nvidia}
step python.log pytest bash -c "PYTHONPATH=$pythonpath python3 -X faulthandler -m pytest -ra --durations=25 $workers tests/python"
wait $cpp_suite
record "$(cat "$cpp_results")"
rm -f "$cpp_results"
# The C++ example, built by ctest's package test against the installed and moved gpukit.
step misc.log cpp-example build/tests/package/find_package/examples/arrays
step misc.log demo make demo
step misc.log info make info
if [ "${GPUKIT_SANITIZER:-0}" = 1 ]; then
    # The GPU tests of memory, copies and launches under memcheck (device memory errors only;
    # the API errors that bad-input tests provoke on purpose are not counted); the tests that
    # fault a kernel on purpose are left out, since memcheck rightly reports them.
    step sanitizer.log memcheck-cpp compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        build/tests/test_cuda_gpu --gtest_filter='-*fault*:*Fault*'
    # At most 100 tests per process: every GPU test makes a context of its own, and memcheck
    # keeps memory of its own per context until the process ends (~300 contexts ran the
    # H200 out of memory), though test_detached_contexts_are_destroyed passes without it.
    # (Not test_context_lifetime: memcheck's own memory per context makes its free-memory
    # checks fail by design.)
    for file in memory async_host_memory function pools stream_event staged_copy gpuarray fusion texture structured_copy \
        elementwise_kernel graph; do
        PYTHONPATH=python python3 -m pytest --collect-only -q -k 'not fault' "tests/python/test_$file.py" \
            | grep '::' > "$OUT/.ids"
        split -l 100 -d "$OUT/.ids" "$OUT/.ids."
        for chunk in "$OUT"/.ids.[0-9]*; do
            # shellcheck disable=SC2046  # test ids have no spaces
            step sanitizer.log "memcheck-python $file ${chunk##*.}" env PYTHONPATH=python compute-sanitizer \
                --tool memcheck --report-api-errors no --error-exitcode 9 python3 -m pytest -q $(cat "$chunk")
            rm -f "$chunk"
        done
        rm -f "$OUT/.ids"
    done
fi
if [ "${GPUKIT_ASAN:-0}" = 1 ]; then
    # Host-side memory errors in the GPU code paths: the C++ GPU tests built with ASan + UBSan.
    step sanitizer.log asan-build bash -c 'cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
        -DGPUKIT_SANITIZE=ON -DGPUKIT_BUILD_PYTHON=OFF > /dev/null && cmake --build build-asan -j 16'
    ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0 step sanitizer.log asan-gpu-tests \
        bash -c 'cd build-asan && ctest -L gpu -j 8 --output-on-failure'
fi
if [ "${GPUKIT_ASAN_PYTHON:-0}" = 1 ]; then
    # The extension module itself under ASan, with the Python GPU tests (last: it replaces
    # the module in python/gpukit).
    step sanitizer.log asan-python-build bash -c 'cmake -S . -B build-asan-py -G Ninja -DCMAKE_BUILD_TYPE=Debug \
        -DGPUKIT_SANITIZE=ON -DGPUKIT_BUILD_PYTHON=ON -DGPUKIT_BUILD_TESTS=OFF -DPython_EXECUTABLE=$(command -v python3) \
        > /dev/null && cmake --build build-asan-py -j 16'
    PYTHONMALLOC=malloc ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0 \
        LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
        step sanitizer.log asan-python bash -c "PYTHONPATH=python python3 -X faulthandler -m pytest -x -q -p no:cacheprovider \
        ${GPUKIT_ASAN_PYTHON_TESTS:-tests/python}"
fi
if [ -n "${GPUKIT_PYCUDA_CHECKOUT:-}" ]; then
    # PyCUDA's own tests and examples through the drop-in (tools/run_pycuda_programs.py).
    step pycuda.log pycuda-programs python3 tools/run_pycuda_programs.py "$GPUKIT_PYCUDA_CHECKOUT" --timeout 60
    grep -E "^(ok|rc=|timeout)" "$OUT/pycuda.log" | tail -n 60
fi
if [ "${GPUKIT_BENCH:-0}" = 1 ]; then
    # The chart only where matplotlib is: `--png` without it is an error before anything runs.
    chart=$(python3 -c 'import matplotlib' 2>/dev/null && echo "--png $OUT/bench.png")
    step bench.log bench bash -c "PYTHONPATH=python python3 -m gpukit bench --json $OUT/bench.json $chart"
    grep -v '^  File\|^    \|Traceback' "$OUT/bench.log" | tail -n 80
fi
printf '%s\n' "${summary[@]}"
# The one line that says how it went.
if [ ${#failed[@]} = 0 ]; then
    echo "gpu_check: all ${#summary[@]} steps passed in $SECONDS s"
else
    echo "gpu_check: ${#failed[@]} of ${#summary[@]} steps failed (${failed[*]}) in $SECONDS s"
    exit 1
fi
