"""One process per GPU: gpukit.bench.ranks (the launcher, FileComm, the MPI summary) and the
NCCL benchmark's bookkeeping (sizes, bus factors, merging ranks, the calls every rank makes,
the tables) without a GPU; with GPUs, jobs of one process per GPU that join through
gpukit.nccl.from_mpi, run every collective on gpukit arrays (checked here against numpy),
split, and get a clear error on every rank when the ranks disagree (check_agreement): under
mpiexec where mpi4py and a launcher of the same MPI are installed, and always under gpukit's
own launcher (files on this machine); and the benchmark sides themselves."""

import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import gpukit.nccl as nccl
from gpukit.bench import harness, ranks
from gpukit.bench import nccl as bench
from gpukit.bench import nccl_table
from conftest import cuda_device_count

JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nccl_rank_job.py")


def child_env(**more):
    """This process's environment, with its import path (the tests' PYTHONPATH may be relative)."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), **more)


def needs_nccl_and_a_gpu(test):
    test = pytest.mark.skipif(cuda_device_count() == 0, reason="needs a CUDA device")(test)
    test = pytest.mark.skipif(not nccl.available(), reason="libnccl.so.2 could not be loaded here")(test)
    return pytest.mark.gpu(test)


# --- the launcher and FileComm, without a GPU ------------------------------------------------


def test_ranks_meet_through_files():
    program = textwrap.dedent("""
        from gpukit.bench import ranks
        comm, device = ranks.world()
        r, n = comm.Get_rank(), comm.Get_size()
        first = comm.bcast({"from": r} if r == 1 else None, root=1)
        every = comm.allgather(r * r)
        comm.barrier()
        second = comm.bcast(f"again {r}", root=0)
        print(r, n, device, first["from"], every, second)
    """)
    run = ranks.launch([sys.executable, "-c", program], 3, timeout=60, env=child_env())
    assert run.ok, run.describe()
    assert run.launcher == "gpukit" and run.returncodes == [0, 0, 0]
    assert [o.strip() for o in run.outputs] == [f"{r} 3 {r} 1 [0, 1, 4] again 0" for r in range(3)]


def test_a_rank_that_hangs_is_killed_at_the_timeout():
    run = ranks.launch([sys.executable, "-c", "import time; time.sleep(120)"], 2, timeout=1, env=child_env())
    assert run.timed_out and not run.ok
    assert all(code is not None and code != 0 for code in run.returncodes)
    assert "timed out" in run.describe()


def test_ranks_die_with_their_launcher(tmp_path):
    """A launcher killed at a time limit (say, by the `timeout` of a test run) leaves no rank
    behind, though each rank has a session of its own."""
    pid_file = tmp_path / "pid"
    rank = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)"
    launcher = f"import sys; from gpukit.bench import ranks; ranks.launch([sys.executable, '-c', {rank!r}], 1, 120)"
    process = subprocess.Popen([sys.executable, "-c", launcher], env=child_env())
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        pid = int(pid_file.read_text())
    finally:
        process.kill()
        process.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status") as f:
                state = next(line for line in f if line.startswith("State:"))
        except (FileNotFoundError, ProcessLookupError):
            return  # gone
        if "Z" in state.split()[1]:
            return  # dead, waiting for whoever adopted it to reap it
        time.sleep(0.05)
    pytest.fail(f"rank {pid} outlived its launcher: {state}")


def test_a_failing_rank_is_reported_with_its_output():
    program = "import os, sys; r = int(os.environ['GPUKIT_RANK']); print('rank', r, 'says bye'); sys.exit(r * 3)"
    run = ranks.launch([sys.executable, "-c", program], 2, timeout=60, env=child_env())
    assert run.returncodes == [0, 3] and not run.ok and not run.timed_out
    text = run.describe()
    assert "exit status [0, 3]" in text and "rank 1 says bye" in text


def test_file_comm_says_which_rank_it_waited_for(tmp_path):
    comm = ranks.FileComm(str(tmp_path), 1, 3, timeout=0.2)
    assert (comm.Get_rank(), comm.Get_size()) == (1, 3)
    with pytest.raises(TimeoutError, match="rank 1 waited 0.2 s for rank 2's broadcast"):
        comm.bcast(None, root=2)
    with pytest.raises(ValueError, match=r"rank 3 is outside \[0, 3\)"):
        ranks.FileComm(str(tmp_path), 3, 3)


def test_a_process_started_by_hand_is_a_world_of_one(monkeypatch):
    for name in (ranks.RENDEZVOUS, "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"):
        monkeypatch.delenv(name, raising=False)
    assert not ranks.under_mpi()
    comm, device = ranks.world()
    assert (comm.Get_rank(), comm.Get_size(), device) == (0, 1, 0)
    assert comm.bcast("alone") == "alone" and comm.allgather(5) == [5]
    monkeypatch.setenv("PMI_SIZE", "2")
    assert ranks.under_mpi()


def fake_launcher(tmp_path, version):
    """An executable that prints `version` for --version and otherwise its arguments."""
    path = tmp_path / "mpiexec"
    path.write_text(f"#!/bin/sh\nif [ \"$1\" = --version ]; then echo '{version}'; exit 0; fi\nprintf '%s\\n' \"$*\"\n")
    path.chmod(0o755)
    return str(path)


def test_open_mpis_launcher_is_told_what_to_pass_on(tmp_path):
    env = {"PATH": "/bin:/usr/bin", "PYTHONPATH": "/x", "NCCL_NVLS_ENABLE": "0", "HOME": "/root", "GPUKIT_TEST": "1"}
    openmpi = fake_launcher(tmp_path, "mpirun (Open MPI) 5.0.11")
    run = ranks.launch(["prog", "arg"], 2, timeout=60, use_mpi=True, env=env, mpiexec=openmpi)
    assert run.ok and run.launcher == f"mpiexec {openmpi}"
    assert run.outputs[0].split() == [
        "-n",
        "2",
        "-x",
        "GPUKIT_TEST",
        "-x",
        "NCCL_NVLS_ENABLE",
        "-x",
        "PATH",
        "-x",
        "PYTHONPATH",
        "prog",
        "arg",
    ]
    hydra = fake_launcher(tmp_path, "HYDRA build details:")  # MPICH passes everything by itself
    run = ranks.launch(["prog"], 3, timeout=60, use_mpi=True, env=env, mpiexec=hydra)
    assert run.outputs[0].split() == ["-n", "3", "prog"]


def test_the_mpi_summary_says_what_mpi_there_is():
    out = subprocess.run(
        [sys.executable, "-m", "gpukit.bench.ranks"], env=child_env(), capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("launcher: ")
    assert lines[1].startswith("mpi4py ") or lines[1].startswith("mpi4py: does not import")


# --- the benchmark's bookkeeping, without a GPU ----------------------------------------------


def test_counts_follow_nccl_tests():
    assert bench.counts("all_reduce", 1 << 20, 4) == (1 << 18, 1 << 18, 1 << 18, 1 << 20)
    assert bench.counts("broadcast", 8, 2) == (2, 2, 2, 8)
    # all-gather's output and reduce-scatter's input hold one part per rank.
    assert bench.counts("all_gather", 1 << 20, 4) == (1 << 16, 1 << 16, 1 << 18, 1 << 20)
    assert bench.counts("reduce_scatter", 1 << 20, 4) == (1 << 16, 1 << 18, 1 << 16, 1 << 20)
    # At least one element per part: 8 bytes over 8 ranks grow to 32.
    assert bench.counts("all_gather", 8, 8) == (1, 1, 8, 32)
    assert bench.counts("all_reduce", 2, 1) == (1, 1, 1, 4)
    with pytest.raises(ValueError, match="unknown collective 'all_to_all'"):
        bench.counts("all_to_all", 8, 2)


def test_bus_factors():
    assert bench.bus_factor("all_reduce", 2) == 1.0
    assert bench.bus_factor("all_reduce", 8) == 1.75
    assert bench.bus_factor("all_gather", 4) == bench.bus_factor("reduce_scatter", 4) == 0.75
    assert bench.bus_factor("broadcast", 8) == 1.0
    assert all(bench.bus_factor(c, 1) == 1.0 for c in bench.COLLECTIVES)


def test_calls_per_repeat_are_bounded_and_the_same_everywhere():
    for quick in (False, True):
        calls = [bench.calls_per_repeat(size, quick) for size in bench.TABLE_SIZES]
        assert calls == sorted(calls, reverse=True)  # fewer calls for bigger sizes
        assert min(calls) == 2 and max(calls) <= (100 if quick else 400)
    assert bench.calls_per_repeat(8, False) == 400
    assert bench.size_text(8) == "8 B" and bench.size_text(3 << 20) == "3 MiB" and bench.size_text(1536) == "1536 B"


def rank_lines(*rows, about=None):
    head = {"side": "gpukit", "versions": about or {"nccl": 22809}}
    return "\n".join(json.dumps(r) for r in [head, *rows]) + "\n"


def test_merging_ranks_takes_the_slowest_per_repeat_and_what_all_finished():
    a = rank_lines(
        {"collective": "all_reduce", "nbytes": 8, "seconds": [1.0, 4.0, 2.0]},
        {"collective": "broadcast", "nbytes": 8, "seconds": [1.0]},
    )
    b = rank_lines({"collective": "all_reduce", "nbytes": 8, "seconds": [3.0, 1.0, 2.5]})  # cut short
    merged, about = bench.merge_rank_lines([a, b])
    assert merged == {("all_reduce", 8): [3.0, 4.0, 2.5]}
    assert about["versions"] == {"nccl": 22809}
    assert bench.merge_rank_lines([a, ""]) == ({}, {})
    c = rank_lines({"collective": "all_gather", "nbytes": 8, "seconds": [1.0]})
    with pytest.raises(RuntimeError, match="measured different things"):
        bench.merge_rank_lines([a, c])


def fake_result(side, per_call, sizes, status="ok"):
    """A side that took per_call(collective, nbytes) seconds for every repeat."""
    seconds = {(c, b): [per_call(c, b) * f for f in (0.98, 1.0, 1.02)] for c in bench.COLLECTIVES for b in sizes}
    return bench.SideResult(side, seconds, {"nccl": 22809}, status)


def test_rows_judge_gpukit_against_the_best_peer():
    sizes = [8, 4096, 1 << 20, 1 << 30]
    measurements = [(c, b) for c in bench.COLLECTIVES for b in sizes]
    results = {
        "gpukit": fake_result("gpukit", lambda c, b: 25e-6 + b / 300e9, sizes),
        "cupy": fake_result("cupy", lambda c, b: 24e-6 + b / 330e9, sizes),
        "torch": fake_result("torch", lambda c, b: 48e-6 + b / 320e9, sizes),
    }
    rows = nccl_table.make_rows(results, measurements, 2)
    by = {(r["collective"], r["nbytes"]): r for r in rows}
    small = by[("all_reduce", 8)]
    assert small["ratio"] == pytest.approx((25e-6 + 8 / 300e9) / (24e-6 + 8 / 330e9))
    assert small["goal"] is True  # 1.04x the time: within 1.1
    assert by[("all_reduce", 4096)]["goal"] is None  # no goal between 8 B and 1 MiB
    big = by[("all_reduce", 1 << 30)]
    assert big["ratio"] == pytest.approx((24e-6 + 2**30 / 330e9) / (25e-6 + 2**30 / 300e9))
    assert big["goal"] is False  # 0.91x the bandwidth
    assert big["sides"]["gpukit"]["busbw"]["median"] == pytest.approx(2**30 / (25e-6 + 2**30 / 300e9))
    # all-gather's bus bandwidth: (n-1)/n of the algorithm bandwidth.
    gather = by[("all_gather", 1 << 20)]["sides"]["cupy"]
    assert gather["busbw"]["median"] == pytest.approx(0.5 * (1 << 20) / (24e-6 + (1 << 20) / 330e9))
    # Without a peer there is nothing to judge.
    alone = nccl_table.make_rows({"gpukit": results["gpukit"]}, measurements, 2)
    assert all(r["ratio"] is None and r["goal"] is None for r in alone)


def test_the_markdown_table_and_summary():
    sizes = [8, 1 << 20]
    results = {
        "gpukit": fake_result("gpukit", lambda c, b: 10e-6 + b / 100e9, sizes),
        "cupy": fake_result("cupy", lambda c, b: 10e-6 + b / 120e9, sizes),
    }
    report = {
        "date": "2026-11-28",
        "gpus": 2,
        "machine": {"gpu": {"name": "NVIDIA H200"}},
        "settings": {"repeats": 3, "quick": True},
        "collectives": ["all_reduce", "broadcast"],
        "sides": {
            "gpukit": {"status": "ok", "versions": {"nccl": 22809}},
            "cupy": {"status": "ok", "versions": {}},
            "torch": {"status": "unavailable: PyTorch is not installed", "versions": {}},
        },
        "rows": nccl_table.make_rows(
            results, [("all_reduce", 8), ("all_reduce", 1 << 20), ("broadcast", 8), ("broadcast", 1 << 20)], 2
        ),
    }
    text = nccl_table.markdown(report)
    assert "#### 2 × NVIDIA H200, NCCL 2.28.9, 3 repeats (quick)" in text
    assert "| size | gpukit | CuPy | torch.distributed | gpukit / best | goal |" in text
    assert "| 8 B | 10 µs ±2% | 10 µs ±2% |  | 1.00x | met (≤ 1.1) |" in text
    # 1 MiB all-reduce on 2 ranks: bus bandwidth = algorithm bandwidth.
    gb = (1 << 20) / (10e-6 + (1 << 20) / 100e9) / 1e9
    assert f"| 1 MiB | {gb:.1f} GB/s ±2% |" in text
    assert "MISSED (≥ 0.95)" in text
    assert "**broadcast**" in text
    assert "- torch.distributed (NCCL): unavailable: PyTorch is not installed" in text
    lines = nccl_table.summary(report)
    assert lines[0] == "2 GPUs: goal met in 2 of 4 checked rows"
    assert any(line.startswith("  missed: all_reduce 1 MiB: 0.91") for line in lines)
    assert "  torch: unavailable: PyTorch is not installed" in lines


class CountingSide:
    """A side that only counts what the rank program asks of it."""

    made = []
    about = {}

    def __init__(self, world, device, n):
        self.calls, self.barriers, self.syncs, self.closed = {}, 0, 0, False
        CountingSide.made.append(self)

    def prepare(self, collective, count, send_n, recv_n):
        key = (collective, count, send_n, recv_n)
        self.calls.setdefault(key, 0)

        def call():
            self.calls[key] += 1

        return call

    def sync(self):
        self.syncs += 1

    def barrier(self):
        self.barriers += 1

    def close(self):
        self.closed = True


def test_the_rank_program_makes_the_same_calls_on_every_rank(tmp_path, monkeypatch):
    """The number of calls depends on the plan only (never on a clock), so ranks never pair one
    rank's warm-up with another's timed calls."""
    from gpukit.bench import nccl_rank

    monkeypatch.setitem(nccl_rank.SIDE_CLASSES, "gpukit", CountingSide)
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps({"measurements": [["all_gather", 8], ["broadcast", 1 << 20]], "repeats": 4, "quick": True})
    )
    monkeypatch.setenv(ranks.RENDEZVOUS, str(tmp_path))
    counts = []
    for rank in range(2):  # two ranks of one job, one after the other
        monkeypatch.setenv(ranks.RANK, str(rank))
        monkeypatch.setenv(ranks.WORLD_SIZE, "2")
        assert nccl_rank.main(["gpukit", str(plan), str(tmp_path)]) == 0
        side = CountingSide.made[-1]
        assert side.closed and side.barriers == 2 * 4
        counts.append(side.calls)
    assert counts[0] == counts[1]
    gather, broadcast = bench.calls_per_repeat(8, True), bench.calls_per_repeat(1 << 20, True)
    assert counts[0][("all_gather", 1, 1, 2)] == (bench.WARM_UP_REPEATS + 4) * gather
    assert counts[0][("broadcast", 1 << 18, 1 << 18, 1 << 18)] == (bench.WARM_UP_REPEATS + 4) * broadcast
    merged, about = bench.merge_rank_lines([(tmp_path / f"rank{r}.jsonl").read_text() for r in range(2)])
    assert sorted(merged) == [("all_gather", 8), ("broadcast", 1 << 20)]
    assert all(len(seconds) == 4 for seconds in merged.values())
    assert about == {"side": "gpukit", "rank": 0, "ranks": 2, "versions": {}}


def test_the_table_command_writes_json_and_markdown(tmp_path, monkeypatch, capsys):
    asked = []

    def run_side(side, measurements, n, settings, timeout):
        asked.append((side, measurements, n, settings))
        if side == "torch":
            raise harness.Unavailable("PyTorch is not installed")
        speed = {"gpukit": 100e9, "cupy": 101e9}[side]
        return fake_result(side, lambda c, b: 10e-6 + b / speed, [8, 1 << 20])

    monkeypatch.setattr(bench, "run_side", run_side)
    out_json, out_md = tmp_path / "t.json", tmp_path / "t.md"
    assert (
        nccl_table.main(
            [
                "--gpus",
                "2",
                "--sizes",
                "8",
                "1048576",
                "--collectives",
                "all_reduce",
                "--quick",
                "--json",
                str(out_json),
                "--markdown",
                str(out_md),
            ]
        )
        == 0
    )
    assert [a[0] for a in asked] == ["gpukit", "cupy", "torch"]
    assert asked[0][1:] == ([("all_reduce", 8), ("all_reduce", 1 << 20)], 2, {"repeats": 3, "quick": True})
    report = json.loads(out_json.read_text())
    assert report["gpus"] == 2 and report["sides"]["torch"]["status"] == "unavailable: PyTorch is not installed"
    assert [r["goal"] for r in report["rows"]] == [True, True]
    assert "| 1 MiB |" in out_md.read_text()
    assert "2 GPUs: goal met in 2 of 2 checked rows" in capsys.readouterr().out


def test_a_side_whose_library_is_missing_is_unavailable():
    import importlib.util

    missing = [
        side for side, module in (("cupy", "cupy"), ("torch", "torch")) if importlib.util.find_spec(module) is None
    ]
    if not missing:
        pytest.skip("CuPy and PyTorch are both installed here")
    with pytest.raises(harness.Unavailable, match="not installed"):
        bench.run_side(missing[0], [("all_reduce", 8)], 1, {"repeats": 1, "quick": True}, timeout=120)


# --- one process per GPU, with GPUs ----------------------------------------------------------


def inputs(rank, n):
    return np.arange(6 * n, dtype=np.int64) * (rank + 1) + rank


def run_job(tmp_path, n, use_mpi):
    run = ranks.launch(
        [sys.executable, JOB, str(tmp_path)], n, timeout=90, use_mpi=use_mpi, env=child_env(GPUKIT_TEST_RANKS=str(n))
    )
    results = {}
    for r in range(n):
        path = tmp_path / f"rank{r}.json"
        if path.exists():
            results[r] = json.loads(path.read_text())
    return run, results


def check_job(run, results, n):
    """Every rank's results against numpy."""
    assert run.ok and sorted(results) == list(range(n)), run.describe()
    everyone = [inputs(r, n) for r in range(n)]
    total_max = np.max(np.stack(everyone), axis=0)
    for r in range(n):
        got = results[r]
        assert "error" not in got, f"rank {r}: {got['error']}"
        assert (got["rank"], got["size"]) == (r, n)
        np.testing.assert_array_equal(got["all_reduce"], sum(everyone))
        np.testing.assert_array_equal(got["all_gather"], np.concatenate(everyone))
        np.testing.assert_array_equal(got["reduce_scatter"], total_max[6 * r : 6 * (r + 1)])
        np.testing.assert_array_equal(got["broadcast"], everyone[n - 1])
        np.testing.assert_array_equal(got["ring"], everyone[(r - 1) % n])
        assert got["float32_on_a_stream"] == [n * (n + 1) / 2] * 2
        assert got["split_pending_in_group"] is True
        assert got["split"] == [r // 2, len(range(r % 2, n, 2))]
        np.testing.assert_array_equal(got["split_all_reduce"], sum(everyone[r % 2 :: 2]))
    np.testing.assert_array_equal(results[0]["reduce"], np.min(np.stack(everyone), axis=0))
    if n < 2:
        return
    for r in range(n):
        got = results[r]
        assert got["disagreeing_sizes"].startswith("ValueError: all_reduce: the ranks disagree"), got
        assert (
            "rank 0: all_reduce of 1000 float32, op sum; rank 1: all_reduce of 500 float32, op sum"
            in got["disagreeing_sizes"]
        ), got["disagreeing_sizes"]
        assert "rank 0: all_gather of 64 float32; rank 1: all_gather of 64 float64" in got["disagreeing_dtypes"]
        assert "rank 0: broadcast of 8 int32, root 0; rank 1: broadcast of 8 int32, root 1" in got["disagreeing_roots"]
        if r == 1:  # its own checks refused the call
            assert got["refused_by_one_rank"].startswith(
                "TypeError: all_reduce: sendbuf holds float32 but recvbuf holds int32"
            ), got["refused_by_one_rank"]
        else:
            assert "rank 1: all_reduce that the rank's own checks refused" in got["refused_by_one_rank"]
        assert got["after_disagreements"] == [n * (n + 1) / 2] * 8


@needs_nccl_and_a_gpu
@pytest.mark.long_running
def test_a_job_of_one_process_per_gpu_under_gpukits_launcher(tmp_path):
    n = cuda_device_count()
    run, results = run_job(tmp_path, n, use_mpi=False)
    check_job(run, results, n)
    assert not results[0]["under_mpi"]


def mpi_on_this_machine():
    """Why MPI-launched jobs cannot run here, or None."""
    if not ranks.mpi_launcher():
        return "no mpiexec or mpirun on PATH"
    out = subprocess.run(
        [sys.executable, "-m", "gpukit.bench.ranks"], env=child_env(), capture_output=True, text=True, timeout=120
    )
    if out.returncode != 0 or "does not import" in out.stdout:
        return f"mpi4py cannot run here: {out.stdout.strip()} {out.stderr.strip()[-300:]}"
    return None


@needs_nccl_and_a_gpu
@pytest.mark.long_running
def test_a_job_of_one_process_per_gpu_under_mpiexec(tmp_path):
    why = mpi_on_this_machine()
    if why:
        pytest.skip(why)
    n = cuda_device_count()
    run, results = run_job(tmp_path, n, use_mpi=True)
    mismatch = [r.get("error", "") for r in results.values() if "another MPI" in r.get("error", "")]
    if mismatch:
        pytest.skip(f"{ranks.mpi_launcher()}: {mismatch[0]}")
    check_job(run, results, n)
    assert results[0]["under_mpi"]
    if n >= 2:
        if results[0]["mpi_cuda_aware"]:
            np.testing.assert_array_equal(results[1]["mpi_recv"], inputs(0, 2))
        else:  # said, not silently passed: the test log shows it
            print(
                f"mpi4py Send/Recv of gpukit arrays not run: {results[0]['mpi_library']} is not CUDA-aware "
                f"(its query: {results[0]['mpi_cuda_aware']})"
            )


@needs_nccl_and_a_gpu
@pytest.mark.long_running
def test_the_benchmark_sides_run_one_process_per_gpu():
    n = cuda_device_count()
    measurements = [("all_reduce", 8), ("all_gather", 1 << 20), ("reduce_scatter", 4096), ("broadcast", 64)]
    for side in bench.SIDES:
        try:
            result = bench.run_side(side, measurements, n, {"repeats": 2, "quick": True}, timeout=240)
        except harness.Unavailable as why:
            assert side != "gpukit", why
            continue
        assert result.status == "ok", result.report
        assert sorted(result.seconds) == sorted(measurements)
        assert all(len(s) == 2 and min(s) > 0 for s in result.seconds.values())
        assert "nccl" in result.versions
