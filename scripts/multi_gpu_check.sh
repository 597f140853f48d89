#!/usr/bin/env bash
# One call on a machine of several GPUs (issue 33), within GPUKIT_MULTI_GPU_BUDGET seconds
# (default 480): build what the multi-GPU checks need, the NCCL C++ tests, the NCCL and
# multi-GPU Python tests, the tests of one process per GPU (under mpiexec where mpi4py and
# a launcher are there, and under gpukit's own launcher), and the tables of all-reduce,
# all-gather, reduce-scatter and broadcast from 8 B to 1 GiB, gpukit beside CuPy and
# torch.distributed, one process per GPU on every side (GPUKIT_NCCL_TABLES=0 skips them,
# for a run that only checks the tests: the tests then get the tables' share of the budget).
# Every step is bounded by `timeout`, so one hang costs its step only. Logs and tables go to
# $OUT (8 files at most: build.log, ctest.log, pytest.log, ranks.log, mpi.log, bench.log,
# nccl.json, nccl.md); a short summary is printed last.
#
# The build: `make configure`, then the extension module and the NCCL test executables only
# (what the steps run: a whole `make build` leaves too little of one device call for the
# rest); GPUKIT_FULL_BUILD=1 builds everything (`make build`).
# MPI: when mpi4py does not import or no mpiexec/mpirun is on PATH, and .whl/ holds MPI
# wheels (PyPI's `mpich`, say, with mpi4py's if needed), they are unpacked under
# /tmp/gpukit-mpi and put on PATH, LD_LIBRARY_PATH and PYTHONPATH first. Without them the
# MPI test skips with the reason and the same job runs under gpukit's launcher.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-multi-gpu-logs}; mkdir -p "$OUT"
JOBS=${JOBS:-32}
BUDGET=${GPUKIT_MULTI_GPU_BUDGET:-480}
TABLES=${GPUKIT_NCCL_TABLES:-1}
# NVLink multicast (NVLS) stays off on every side: the lent machines do not offer it.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
# One node: Hydra (MPICH's mpiexec) starts every rank itself, never through ssh.
export HYDRA_LAUNCHER=${HYDRA_LAUNCHER:-fork}
summary=()
scratch=$(mktemp)  # a step's output, before it joins its log (outside $OUT: only logs go back)
left() { echo $((BUDGET - SECONDS)); }
# cap SECONDS RESERVE: at most SECONDS, leaving RESERVE for the steps after (what they need
# at least; they get more when the steps before them finish early); at least 10.
cap() { local t=$(( $(left) - $2 )); [ "$t" -gt "$1" ] && t=$1; [ "$t" -lt 10 ] && t=10; echo "$t"; }
# reserve WITH WITHOUT: a step's RESERVE with the tables to come, or without them.
reserve() { if [ "$TABLES" = 0 ]; then echo "$2"; else echo "$1"; fi; }
step() {  # step LOG NAME TIMEOUT COMMAND...: runs with a time limit, appends to $OUT/LOG
    local log=$1 name=$2 limit=$3; shift 3
    local start=$SECONDS
    echo "===== $name (at most $limit s)" >> "$OUT/$log"
    timeout -k 10 "$limit" "$@" > "$scratch" 2>&1
    local rc=$?
    cat "$scratch" >> "$OUT/$log"
    local note
    note=$(grep -E 'tests passed|[0-9]+ passed|[0-9]+ failed|[0-9]+ error|goal met' "$scratch" | tail -n 1)
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && note="TIMED OUT after $limit s; $note"
    summary+=("$name: rc=$rc ($((SECONDS - start)) s) $note")
    return $rc
}

{ timeout 30 nvidia-smi -L; timeout 30 nvidia-smi topo -m; python3 --version; } >> "$OUT/mpi.log" 2>&1
gpus=$(timeout 30 nvidia-smi -L 2>/dev/null | grep -c "^GPU")

# --- build ---------------------------------------------------------------------------------
if [ "${GPUKIT_FULL_BUILD:-0}" = 1 ]; then
    step build.log build "$(cap 240 "$(reserve 240 120)")" make build JOBS="$JOBS"
else
    step build.log build "$(cap 240 "$(reserve 240 120)")" bash -c "make configure >/dev/null && \
        cmake --build build -j $JOBS --target _gpukit test_nccl test_nccl_gpu"
fi
PY=$(cat build/.python 2>/dev/null || echo python3)
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

# --- MPI: what there is, and the wheels in .whl/ where it is missing -----------------------
mpi_works() {
    { command -v mpiexec || command -v mpirun; } >/dev/null 2>&1 &&
        timeout 60 "$PY" -c 'from mpi4py import MPI' >/dev/null 2>&1
}
if ! mpi_works && ls .whl/*.whl >/dev/null 2>&1; then
    prefix=/tmp/gpukit-mpi
    echo "===== installing" .whl/*.whl "under $prefix" >> "$OUT/mpi.log"
    # Unpacked by hand, keeping the files' modes: a wheel's data (bin/, lib/) goes to the
    # prefix, its packages to the prefix's site directory; needs no pip.
    "$PY" - "$prefix" .whl/*.whl >> "$OUT/mpi.log" 2>&1 <<'EOF'
import os, sys, zipfile
prefix, wheels = sys.argv[1], sys.argv[2:]
site = os.path.join(prefix, "site")
for wheel in wheels:
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            parts = info.filename.split("/")
            if info.is_dir() or parts[0].endswith(".dist-info"):
                continue
            if parts[0].endswith(".data"):
                scheme, rest = parts[1], parts[2:]
                home = {"purelib": site, "platlib": site, "scripts": os.path.join(prefix, "bin"),
                        "headers": os.path.join(prefix, "include")}.get(scheme, prefix)
                target = os.path.join(home, *rest)
            else:
                target = os.path.join(site, *parts)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(info) as src, open(target, "wb") as dst:
                dst.write(src.read())
            mode = (info.external_attr >> 16) & 0o777
            os.chmod(target, mode or 0o644)
    print("unpacked", wheel)
EOF
    export PATH="$prefix/bin:$PATH" LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PYTHONPATH="$PYTHONPATH:$prefix/site"
    # mpi4py's wheels load the MPI library at run time: this one (its libmpi.so is a linker
    # script, which dlopen refuses).
    for lib in "$prefix"/lib/libmpi.so.[0-9]*; do [ -f "$lib" ] && export MPI4PY_LIBMPI="$lib" && break; done
fi
{ echo "===== MPI"; timeout 120 "$PY" -m gpukit.bench.ranks; } >> "$OUT/mpi.log" 2>&1
mpi_lines=$(sed -n '/===== MPI/,$p' "$OUT/mpi.log" | tail -n +2 | head -n 5)

# --- tests ---------------------------------------------------------------------------------
step ctest.log ctest-nccl "$(cap 90 "$(reserve 200 80)")" bash -c 'cd build && ctest -R "^Nccl" -j 4 --output-on-failure'
step pytest.log pytest-nccl-multi-gpu "$(cap 150 "$(reserve 130 15)")" "$PY" -X faulthandler -m pytest -ra -o faulthandler_timeout=120 \
    tests/python/test_nccl.py tests/python/test_multi_gpu.py
# The benchmark sides are measured in full by the bench step below.
step ranks.log pytest-one-process-per-gpu "$(cap 150 "$(reserve 100 0)")" "$PY" -X faulthandler -m pytest -ra -s \
    -o faulthandler_timeout=150 tests/python/test_nccl_ranks.py -k 'not benchmark_sides'

# --- tables --------------------------------------------------------------------------------
if [ "$TABLES" = 0 ]; then
    summary+=("nccl-tables: skipped (GPUKIT_NCCL_TABLES=0)")
else
    bench_budget=$(( $(left) - 25 ))
    [ "$bench_budget" -gt 300 ] && bench_budget=300
    [ "$bench_budget" -lt 60 ] && bench_budget=60
    step bench.log nccl-tables $((bench_budget + 20)) "$PY" -m gpukit.bench.nccl_table --budget "$bench_budget" \
        --json "$OUT/nccl.json" --markdown "$OUT/nccl.md"
fi

# --- summary -------------------------------------------------------------------------------
[ -f "$OUT/nccl.md" ] && cat "$OUT/nccl.md"  # the tables, also in the output should the files not come back
echo
echo "== multi-GPU check: $gpus GPUs, $SECONDS s of $BUDGET"
printf '%s\n' "${summary[@]}"
echo "== MPI"
echo "$mpi_lines"
grep -E '^(SKIPPED|FAILED|ERROR)' "$OUT/pytest.log" "$OUT/ranks.log" 2>/dev/null | cut -c1-240 | head -n 25
grep -E 'mpi4py Send/Recv' "$OUT/ranks.log" | head -n 2
if [ "$TABLES" != 0 ]; then
    echo "== tables"
    sed -n '/GPUs: goal met/,$p' "$OUT/bench.log" | head -n 30
fi
echo "== measured on $gpus GPUs only: other GPU counts need a machine of that size"
rm -f "$scratch"
