"""The benchmark harness and its cases: every case imports and is described without a GPU;
case selection by name and group; the statistics, the table, the summary, the JSON report
and the chart on fake cases; the small-array operations compute what their names say (run
on numpy, which has the same names); the C++ baselines check their arguments. The GPU
tests run the new cases in a process of their own (the harness makes the primary context
current once per process) and check that every gpukit side measured something."""

import datetime
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import run_in_fresh_process
from test_info import COMPONENT, SCHEMA, check_schema

import gpukit
import gpukit.driver as drv
from gpukit import __main__ as command_line
from gpukit.bench import arrays, cases, copies, harness, reductions, scans, small

SMALL_OPERATIONS = ["add", "axpy", "scale", "neg", "less", "abs", "astype", "sum", "dot", "slice", "reshape", "copy"]
SMALL_CASES = [f"small_{name}" for name in SMALL_OPERATIONS] + ["small_add_1000_kernels"]


def by_name(name):
    [case] = [c for c in cases.ALL if c.name == name]
    return case


@pytest.mark.parametrize(
    "elements, launches, batches, repeats", [(0, 200, 1, 1), (1000, 0, 1, 1), (1000, 200, -1, 1), (1000, 200, 1, 0)]
)
def test_the_raw_add_floor_refuses_counts_that_are_not_positive(elements, launches, batches, repeats):
    # Checked before anything touches the driver, so this runs without a GPU.
    with pytest.raises(drv.LogicError, match="must be positive"):
        harness.cpp_baselines().raw_add_launch_seconds(elements, launches, batches, repeats)


def test_the_cpp_side_of_the_small_cases_times_what_the_python_sides_do():
    baselines = harness.cpp_baselines()
    assert set(cases.CPP_OPERATIONS) == set(baselines.device_array_operations())
    assert set(cases.CPP_OPERATIONS) <= set(SMALL_OPERATIONS)
    for name in cases.CPP_OPERATIONS:
        assert "gpukit device_array (C++)" in [side.name for side in by_name(f"small_{name}").sides]
    # Checked before anything touches the driver, so these run without a GPU.
    with pytest.raises(drv.LogicError, match="no operation 'abs'"):
        baselines.device_array_seconds("abs", 1000, 200, 1, 1)
    with pytest.raises(drv.LogicError, match="must be positive"):
        baselines.device_array_seconds("add", 1000, 0, 1, 1)


def test_the_cpp_baselines_are_a_module_of_their_own():
    import gpukit._gpukit

    assert not hasattr(gpukit._gpukit, "_bench")  # not in the extension users install
    assert harness.cpp_baselines().__name__ == "gpukit._bench_baselines"


def test_every_case_is_named_described_and_has_sides():
    names = [c.name for c in cases.ALL]
    assert len(names) == len(set(names))
    for case in cases.ALL:
        assert case.name and " " not in case.name
        assert case.description.strip() and case.unit.strip() and case.scale > 0
        assert case.sides, case.name
        side_names = [side.name for side in case.sides]
        assert len(side_names) == len(set(side_names)), case.name
        assert all(side.name.strip() and callable(side.run) for side in case.sides), case.name


def test_small_cases_compare_gpukit_with_cupy_and_pycuda():
    assert [c.name for c in cases.ALL if c.name.startswith("small_")] == SMALL_CASES
    for name in SMALL_OPERATIONS:
        case = by_name(f"small_{name}")
        assert case.unit == "µs per operation" and case.scale == 1e6 and not case.higher_is_better
        assert "1000 float32" in case.description
        cpp = ["gpukit device_array (C++)"] if name in cases.CPP_OPERATIONS else []
        floor = ["raw cuLaunchKernel add (C++)"] if name == "add" else []
        assert [side.name for side in case.sides] == ["CuPy", "gpukit", "PyCUDA"] + cpp + floor


def test_many_kernels_case_times_add_before_and_after():
    case = by_name("small_add_1000_kernels")
    count = small.kernel_count()
    assert [side.name for side in case.sides] == ["gpukit x + y, before", f"gpukit x + y, {count} kernels cached"]
    assert small.KERNELS_VARIABLE in case.description and "cache" in case.description


@pytest.mark.parametrize("value, count", [(None, 1000), ("16", 16), ("1", 1), (" 7 ", 7)])
def test_kernel_count_comes_from_the_environment(monkeypatch, value, count):
    if value is None:
        monkeypatch.delenv(small.KERNELS_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(small.KERNELS_VARIABLE, value)
    assert small.kernel_count() == count


@pytest.mark.parametrize("value", ["0", "-3", "many", "1.5", ""])
def test_kernel_count_rejects_what_is_not_a_positive_integer(monkeypatch, value):
    monkeypatch.setenv(small.KERNELS_VARIABLE, value)
    with pytest.raises(ValueError, match=small.KERNELS_VARIABLE):
        small.kernel_count()


def test_small_operations_compute_what_their_names_say():
    # numpy has every name the table uses (sum, dot, astype, reshape, ...), so the table's
    # operations run on numpy arrays; the expected results are written out independently.
    x = np.array([3.0, -1.5, 0.0, 2.25, -7.0, 4.0], dtype=np.float32)
    y = np.array([1.0, 2.0, -3.0, 2.25, 0.5, -8.0], dtype=np.float32)
    expected = {
        "add": [4.0, 0.5, -3.0, 4.5, -6.5, -4.0],
        "axpy": [7.0, -1.0, -3.0, 6.75, -13.5, 0.0],
        "scale": [9.0, -4.5, 0.0, 6.75, -21.0, 12.0],
        "neg": [-3.0, 1.5, 0.0, -2.25, 7.0, -4.0],
        "less": [False, True, False, False, True, False],
        "abs": [3.0, 1.5, 0.0, 2.25, 7.0, 4.0],
        "astype": [3.0, -1.5, 0.0, 2.25, -7.0, 4.0],
        "sum": 0.75,
        "dot": 3.0 - 3.0 + 0.0 + 5.0625 - 3.5 - 32.0,
        "slice": [3.0, 0.0, -7.0],
        "copy": [3.0, -1.5, 0.0, 2.25, -7.0, 4.0],
    }
    assert sorted(small.OPERATIONS) == sorted(SMALL_OPERATIONS)
    for name, want in expected.items():
        got = small.OPERATIONS[name][1](np, x, y)
        np.testing.assert_array_equal(got, np.array(want), err_msg=name)
    assert small.OPERATIONS["astype"][1](np, x, y).dtype == np.float64
    assert small.OPERATIONS["less"][1](np, x, y).dtype == np.bool_
    # The views stay views; the copy does not.
    big = np.arange(1000, dtype=np.float32)
    assert np.shares_memory(small.OPERATIONS["slice"][1](np, big, big), big)
    reshaped = small.OPERATIONS["reshape"][1](np, big, big)
    assert reshaped.shape == (10, 100) and np.shares_memory(reshaped, big)
    assert not np.shares_memory(small.OPERATIONS["copy"][1](np, x, y), x)


def test_broadcast_case_compares_with_the_same_size_add():
    assert arrays.BROADCAST_ROWS * arrays.BROADCAST_COLUMNS == arrays.COUNT
    assert arrays.BROADCAST_BYTES == (arrays.BROADCAST_ROWS + arrays.BROADCAST_COLUMNS + arrays.COUNT) * 4
    case = by_name("elementwise_broadcast_add")
    assert case.higher_is_better and case.unit == "GB/s"
    assert [side.name for side in case.sides] == [
        "gpukit x + y, same size",
        "gpukit a + b, broadcast",
        "CuPy a + b, broadcast",
    ]


@pytest.mark.gpu
def test_broadcast_side_measures_a_rate():
    out = run_in_fresh_process("""
        from gpukit.bench import arrays
        rates = arrays.broadcast_add("gpukit")({"repeats": 2, "quick": True})
        assert len(rates) == 2 and all(rate > 0 for rate in rates), rates
        print("measured")
    """)
    assert "measured" in out


def test_fresh_get_case_compares_with_a_copy_into_existing_memory():
    assert copies.GET_BYTES == 256 * 1024 * 1024
    case = by_name("get_fresh_256MiB")
    assert case.higher_is_better and case.unit == "GB/s"
    assert [side.name for side in case.sides] == [
        "gpukit memcpy_dtoh, existing array",
        "gpukit GPUArray.get(), new array",
        "gpukit GPUArray.get(), new array, first touch (no reuse)",
        "CuPy ndarray.get(), new array",
    ]


def test_scan_cases_compare_with_a_copy_cupy_and_pycuda():
    assert scans.BIG == 2**26 and scans.SMALL == 1000 and scans.moved_bytes(10) == 80  # read + written
    big = by_name("scan_sum")
    assert big.higher_is_better and big.unit == "GB/s" and "2^26 float32" in big.description
    assert [side.name for side in big.sides] == [
        "raw cuMemcpyDtoD, same bytes (C++)",
        "CuPy cp.cumsum",
        "gpukit InclusiveScanKernel",
        "PyCUDA InclusiveScanKernel",
    ]
    small_case = by_name("scan_sum_small")
    assert not small_case.higher_is_better and small_case.unit == "µs per call" and small_case.scale == 1e6
    assert "1000 float32" in small_case.description
    assert [side.name for side in small_case.sides] == [
        "CuPy cp.cumsum",
        "gpukit InclusiveScanKernel",
        "PyCUDA InclusiveScanKernel",
    ]
    assert [c.name for c in harness.select(cases.ALL, ["scan"])] == ["scan_sum", "scan_sum_small"]


@pytest.mark.gpu
def test_scan_cases_measure_every_gpukit_side(tmp_path):
    report = bench_in_fresh_process(tmp_path, "scan")
    assert [c["case"] for c in report["cases"]] == ["scan_sum", "scan_sum_small"]
    assert_gpukit_and_raw_sides_measured(report)


def test_peer_case_compares_memcpy_peer_with_the_raw_call():
    case = by_name("peer_1GiB")
    assert case.higher_is_better and case.unit == "GB/s" and copies.PEER_BYTES == 1 << 30
    assert [side.name for side in case.sides] == [
        "raw cuMemcpyPeer (C++)",
        "gpukit memcpy_peer",
        "CuPy cupy.cuda.runtime.memcpyPeer",
    ]


@pytest.mark.gpu
def test_peer_case_measures_the_gpukit_and_raw_sides(tmp_path):
    report = bench_in_fresh_process(tmp_path, "peer_1GiB")
    assert [c["case"] for c in report["cases"]] == ["peer_1GiB"]
    assert_gpukit_and_raw_sides_measured(report)


@pytest.mark.gpu
@pytest.mark.long_running
def test_nccl_cases_measure_the_gpukit_side(tmp_path):
    import gpukit.nccl

    if not gpukit.nccl.available():
        pytest.skip("libnccl.so.2 cannot be loaded here")
    # In a fresh process no context is current: the side must make its own current to wait.
    report = bench_in_fresh_process(tmp_path, "nccl_all_reduce_8B", "nccl_all_reduce_64KiB")
    assert [c["case"] for c in report["cases"]] == ["nccl_all_reduce_8B", "nccl_all_reduce_64KiB"]
    assert_gpukit_and_raw_sides_measured(report)
    for case in report["cases"]:
        assert any(result["side"].startswith("gpukit") and "median" in result for result in case["results"])
        # No side may fail: CuPy and PyTorch are either measured or missing from this machine.
        for result in case["results"]:
            assert not result.get("skipped", "").startswith("failed"), (case["case"], result)


def test_array_cases_look_for_a_device_before_making_their_operands(monkeypatch):
    # Their operands are gigabytes: without a device, a side must say so before making them.
    if drv.driver_available() and drv.Device.count():
        pytest.skip("a CUDA device is here: the sides run")
    monkeypatch.setattr(arrays, "_host_data", lambda: pytest.fail("operands made without a device"))
    monkeypatch.setattr(arrays, "_broadcast_host_data", lambda: pytest.fail("operands made without a device"))
    settings = {"repeats": 1, "quick": True}
    for case in cases.ALL:
        if case.name.startswith(("elementwise_", "reduction_")) and "kernel" not in case.name:
            for side in case.sides:
                with pytest.raises(harness.Unavailable, match="no CUDA device|not installed"):
                    side.run(settings)


def test_the_help_says_which_cases_run_without_cuda():
    text = harness.case_list_text()
    assert "Without a CUDA device only the OpenCL cases run (cl_pool_alloc, " in text
    assert all(name.startswith("cl_") for name in text.split("OpenCL cases run (")[1].split(":")[0].split(", "))


def test_select_takes_names_and_groups_in_case_order():
    assert harness.select(cases.ALL, []) == cases.ALL
    assert [c.name for c in harness.select(cases.ALL, ["small"])] == SMALL_CASES
    # An exact name wins over the group it starts: small_add is not small_add_1000_kernels.
    assert [c.name for c in harness.select(cases.ALL, ["small_add"])] == ["small_add"]
    picked = harness.select(cases.ALL, ["small_dot", "launch_empty", "small_dot"])
    assert [c.name for c in picked] == ["launch_empty", "small_dot"]
    assert {"small", "elementwise", "reduction"} <= set(harness.groups(cases.ALL))
    for wrong in ["nonsense", "smal", "small_", "elementwise_"]:
        with pytest.raises(ValueError, match="unknown case or group"):
            harness.select(cases.ALL, [wrong])


def test_the_command_line_refuses_an_unknown_case(capsys):
    with pytest.raises(SystemExit) as raised:
        command_line.main(["bench", "no_such_case"])
    assert raised.value.code == 2
    assert "unknown case or group: no_such_case" in capsys.readouterr().err


@pytest.mark.parametrize("repeats", ["0", "-2", "many"])
def test_the_command_line_refuses_repeats_that_are_not_positive(capsys, repeats):
    with pytest.raises(SystemExit) as raised:
        command_line.main(["bench", "--repeats", repeats, "small_add"])
    assert raised.value.code == 2
    assert "--repeats" in capsys.readouterr().err


# ---- statistics, the report, the summary and the chart, on fake cases (no GPU) ---------


def test_statistics_of_samples():
    stats = harness.statistics_of([5.0, 1.0, 4.0, 2.0, 3.0])  # any order
    assert stats == {
        "min": 1.0,
        "q1": 2.0,
        "median": 3.0,
        "q3": 4.0,
        "max": 5.0,
        "iqr": 2.0,
        "spread": pytest.approx(2 / 3),
        "noisy": True,
    }
    quiet = harness.statistics_of([10.0, 10.2, 10.1])
    assert (quiet["min"], quiet["median"], quiet["max"]) == (10.0, 10.1, 10.2)
    assert quiet["q1"] == pytest.approx(10.05) and quiet["q3"] == pytest.approx(10.15)
    assert quiet["spread"] == pytest.approx(0.1 / 10.1) and not quiet["noisy"]
    # The flag's threshold: 10 % of the median.
    assert not harness.statistics_of([9.5, 10.0, 10.5])["noisy"]  # IQR 0.5: 5 %
    assert harness.statistics_of([9.0, 10.0, 11.4])["noisy"]  # IQR 1.2: 12 %
    one = harness.statistics_of([7.0])
    assert (one["min"], one["q1"], one["median"], one["q3"], one["max"], one["iqr"]) == (7.0,) * 5 + (0.0,)
    assert harness.statistics_of([0.0, 0.0, 1.0])["spread"] is None  # a median of 0 has no relative spread
    with pytest.raises(ValueError, match="no samples"):
        harness.statistics_of([])


class FakeClock:
    """perf_counter for the timing loops: a call costs 1 s, a synchronize 10 s."""

    def __init__(self):
        self.now, self.calls, self.synchronizations = 0.0, 0, 0

    def perf_counter(self):
        return self.now

    def call(self):
        self.now += 1.0
        self.calls += 1

    def synchronize(self):
        self.now += 10.0
        self.synchronizations += 1


def test_seconds_per_call_times_each_repeat_with_its_synchronize(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(harness.time, "perf_counter", clock.perf_counter)
    settings = {"repeats": 3, "quick": False}
    assert harness.seconds_per_call(clock.call, 4, settings, clock.synchronize) == [14 / 4] * 3
    assert (clock.calls, clock.synchronizations) == (12, 3)
    assert harness.seconds_per_call(clock.call, 5, settings) == [1.0] * 3
    assert (clock.calls, clock.synchronizations) == (27, 3)


def test_the_sides_timing_loops_warm_up_and_scale_their_samples(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(harness.time, "perf_counter", clock.perf_counter)
    settings = {"repeats": 2, "quick": True}
    # arrays: one warm-up, then batches of OPERATIONS_PER_SAMPLE; bytes per second.
    ops = arrays.OPERATIONS_PER_SAMPLE
    assert arrays._rates(clock.call, clock.synchronize, 100, settings) == [pytest.approx(100 * ops / (ops + 10))] * 2
    assert (clock.calls, clock.synchronizations) == (1 + 2 * ops, 3)
    # copies: one warm-up, then one copy per sample.
    clock.calls = clock.synchronizations = 0
    assert copies._rates(clock.call, clock.synchronize, 110, settings) == [pytest.approx(10.0)] * 2
    assert (clock.calls, clock.synchronizations) == (3, 3)
    # small: a warm-up batch, then _batches(settings) batches of BATCH, each synchronized.
    clock.calls = clock.synchronizations = 0
    batches = small._batches(settings)
    assert (
        small._per_operation(clock.call, clock.synchronize, settings)
        == [pytest.approx((small.BATCH + 10) / small.BATCH)] * 2
    )
    assert (clock.calls, clock.synchronizations) == ((1 + 2 * batches) * small.BATCH, 1 + 2 * batches)


def fake_side(name, samples=None, unavailable=None, error=None):
    def run(settings):
        if unavailable:
            raise harness.Unavailable(unavailable)
        if error:
            raise error
        return list(samples[: settings["repeats"]])

    return harness.Side(name, run)


FAKE_CASES = [
    harness.Case(
        "fake_spread",
        "two sides 50x apart, one noisy",
        "µs per call",
        [
            fake_side("steady", [1e-6, 1.01e-6, 0.99e-6, 1e-6]),
            fake_side("noisy", [50e-6, 40e-6, 70e-6, 55e-6]),
            fake_side("missing", unavailable="Other is not installed"),
            fake_side("broken", error=ZeroDivisionError("division by zero")),
        ],
        scale=1e6,
    ),
    harness.Case(
        "fake_nodevice",
        "nothing runs here",
        "GB/s",
        [fake_side("gpu", unavailable="no CUDA device"), fake_side("other", unavailable="Other is not installed")],
        higher_is_better=True,
        scale=1e-9,
    ),
    harness.Case(
        "fake_nodevice_too",
        "nothing runs here either",
        "GB/s",
        [fake_side("other", unavailable="Other is not installed"), fake_side("gpu", unavailable="no CUDA device")],
        higher_is_better=True,
        scale=1e-9,
    ),
]


def test_a_case_reports_each_side_and_its_ratio():
    report = harness.run_case(FAKE_CASES[0], {"repeats": 4, "quick": False})
    steady, noisy, missing, broken = report["results"]
    assert steady["samples"] == [1e-6, 1.01e-6, 0.99e-6, 1e-6] and steady["median"] == 1e-6 and steady["ratio"] == 1.0
    assert noisy["median"] == pytest.approx(52.5e-6) and noisy["ratio"] == pytest.approx(52.5) and noisy["noisy"]
    assert missing == {"side": "missing", "skipped": "Other is not installed"}
    assert broken == {"side": "broken", "skipped": "failed: ZeroDivisionError: division by zero"}
    zero = harness.run_case(
        harness.Case("zero", "a zero baseline", "x", [fake_side("a", [0.0]), fake_side("b", [1.0])]),
        {"repeats": 1, "quick": True},
    )
    assert [r["ratio"] for r in zero["results"]] == [None, None]  # never NaN, which JSON cannot hold


def test_the_table_shows_min_median_max_spread_and_flags_noise():
    out = io.StringIO()
    harness.print_table(harness.run_case(FAKE_CASES[0], {"repeats": 4, "quick": False}), out)
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["", "fake_spread: two sides 50x apart, one noisy"]
    assert lines[2].split() == ["side", "median", "min", "max", "IQR/median", "ratio", "(µs", "per", "call)"]
    assert lines[3].split() == ["steady", "1", "0.99", "1.01", "0.5%", "1.00"]
    assert lines[4].split() == ["noisy", "52.5", "40", "70", "21.4%", "52.50", "!"]  # IQR 47.5 to 58.75
    assert lines[5].split() == ["missing", "skipped:", "Other", "is", "not", "installed"]
    assert lines[7].startswith("  ! noisy: interquartile range above 10% of the median")


def test_the_summary_counts_cases_and_groups_the_reasons():
    reports = [harness.run_case(case, {"repeats": 2, "quick": True}) for case in FAKE_CASES]
    result = harness.summary(reports)
    assert result == {
        "cases": 3,
        "ran": ["fake_spread"],
        "could_not_run": {"no CUDA device; Other is not installed": ["fake_nodevice", "fake_nodevice_too"]},
        "sides_skipped": {"Other is not installed": 1, "failed: ZeroDivisionError: division by zero": 1},
    }
    out = io.StringIO()
    harness.print_summary(result, out)
    assert out.getvalue().splitlines() == [
        "",
        "Summary: 1 of 3 cases ran here; 2 could not:",
        "  no CUDA device; Other is not installed: 2 cases (fake_nodevice, fake_nodevice_too)",
        "Sides skipped in the cases that ran:",
        "  Other is not installed: 1 side",
        "  failed: ZeroDivisionError: division by zero: 1 side",
    ]


def test_the_chart_leaves_out_cases_without_data_and_goes_logarithmic_past_30x():
    reports = [harness.run_case(case, {"repeats": 4, "quick": False}) for case in FAKE_CASES]
    charted = harness.chart_reports(reports)
    assert [(report["case"], [r["side"] for r in sides]) for report, sides in charted] == [
        ("fake_spread", ["steady", "noisy"])
    ]
    assert harness.uses_log_scale([1.0, 52.5]) and harness.uses_log_scale([0.1, 3.01])
    assert not harness.uses_log_scale([1.0, 30.0]) and not harness.uses_log_scale([2.0])
    assert not harness.uses_log_scale([0.0, 100.0])  # nothing to place at 0 on a log axis
    assert harness.write_png(reports[1:], "never-written.png") is False


def test_library_versions_come_from_the_installed_packages():
    versions = harness.library_versions(["pytest", "json", "gpukit_no_such_module"])
    assert versions == {
        "pytest": {"package": "pytest", "version": pytest.__version__},
        "json": {"package": None, "version": None},  # importable, but from no package
        "gpukit_no_such_module": None,
    }


@pytest.fixture
def fake_cases(monkeypatch):
    monkeypatch.setattr(harness, "_all_cases", lambda: FAKE_CASES)


@pytest.fixture
def no_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError


def test_the_json_report_records_what_ran_where_and_when(tmp_path, capsys, fake_cases, no_matplotlib):
    path = tmp_path / "out" / "bench.json"
    assert command_line.main(["bench", "--repeats", "4", "--json", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "[1/3] fake_spread: 4 sides",
        "[2/3] fake_nodevice: 2 sides",
        "[3/3] fake_nodevice_too: 2 sides",
    ]
    assert "Summary: 1 of 3 cases ran here; 2 could not:" in captured.out
    report = json.loads(path.read_text())
    measured = {
        "side": str,
        "samples": [float],
        "min": float,
        "q1": float,
        "median": float,
        "q3": float,
        "max": float,
        "iqr": float,
        "spread": (float, None),
        "noisy": bool,
        "ratio": (float, None),
    }
    skipped = {"side": str, "skipped": str}
    check_schema(
        report,
        {
            "machine": {
                "date": str,
                "gpukit": SCHEMA["gpukit"],
                "cuda_driver": COMPONENT,
                "gpu": (dict, None),
                "host": SCHEMA["host"],
                "libraries": {name: (dict, None) for name in harness.LIBRARIES},
            },
            "settings": {"repeats": int, "quick": bool},
            "cases": [
                {
                    "case": str,
                    "description": str,
                    "unit": str,
                    "higher_is_better": bool,
                    "scale": float,
                    "results": list,
                }
            ],
            "summary": {
                "cases": int,
                "ran": [str],
                "could_not_run": {"no CUDA device; Other is not installed": [str]},
                "sides_skipped": dict,
            },
        },
    )
    for case in report["cases"]:
        for result in case["results"]:
            check_schema(result, measured if "samples" in result else skipped, case["case"])
    assert [c["case"] for c in report["cases"]] == [c.name for c in FAKE_CASES]
    assert report["settings"] == {"repeats": 4, "quick": False}
    when = datetime.datetime.fromisoformat(report["machine"]["date"])
    assert when.tzinfo is not None and abs(datetime.datetime.now(datetime.timezone.utc) - when).total_seconds() < 600
    assert report["machine"]["gpukit"]["version"] == gpukit.VERSION_TEXT
    assert report["machine"]["host"]["cpu_count"] == os.cpu_count()
    for info in report["machine"]["libraries"].values():
        assert info is None or set(info) == {"package", "version"}
    if not drv.driver_available():
        assert report["machine"]["gpu"] is None and not report["machine"]["cuda_driver"]["found"]


def test_no_chart_without_matplotlib_is_said_and_the_json_still_written(tmp_path, capsys, fake_cases, no_matplotlib):
    path = tmp_path / "bench.json"
    assert command_line.main(["bench", "--quick", "--json", str(path), "fake_spread"]) == 0
    assert path.exists()
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"results: {path}; no chart: matplotlib is not installed (pip install matplotlib)"
    )


def test_asking_for_a_chart_without_matplotlib_fails_before_running(tmp_path, capsys, fake_cases, no_matplotlib):
    path = tmp_path / "bench.json"
    with pytest.raises(SystemExit) as raised:
        command_line.main(["bench", "--json", str(path), "--png", str(tmp_path / "chart.png"), "fake_spread"])
    assert raised.value.code == 2
    captured = capsys.readouterr()
    assert "--png needs matplotlib: matplotlib is not installed (pip install matplotlib)" in captured.err
    assert not path.exists() and "fake_spread" not in captured.err  # nothing ran


def test_the_chart_is_drawn_with_matplotlib(tmp_path, capsys, fake_cases):
    pytest.importorskip("matplotlib")
    png = tmp_path / "charts" / "bench.png"
    assert command_line.main(["bench", "--quick", "--json", str(tmp_path / "b.json"), "--png", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert capsys.readouterr().out.splitlines()[-1].endswith(f"; chart: {png}")


def bench_in_fresh_process(tmp_path, *names):
    """Runs `python -m gpukit bench --quick names...` with 16 cached kernels for
    small_add_1000_kernels; its JSON report."""
    report = tmp_path / "bench.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), GPUKIT_BENCH_KERNELS="16")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpukit",
            "bench",
            "--quick",
            "--json",
            str(report),
            "--png",
            str(tmp_path / "bench.png"),
            *names,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(report.read_text())


def assert_gpukit_and_raw_sides_measured(report):
    """Every gpukit and raw side of the report has a median of positive samples."""
    for case in report["cases"]:
        for result in case["results"]:
            if result["side"].startswith(("gpukit", "raw")):
                assert "median" in result, (case["case"], result)
                assert all(sample > 0 for sample in result["samples"]), (case["case"], result)


@pytest.mark.gpu
def test_new_cases_measure_every_gpukit_side(tmp_path):
    report = bench_in_fresh_process(tmp_path, "small", "get_fresh_256MiB")
    assert [c["case"] for c in report["cases"]] == ["get_fresh_256MiB"] + SMALL_CASES  # the order of cases.ALL
    assert_gpukit_and_raw_sides_measured(report)


# ---- ReductionKernel (issue 16)


def test_reduction_kernel_cases_compare_the_three_libraries():
    big, per_call = by_name("reduction_kernel_sumsq"), by_name("reduction_kernel_sumsq_small")
    sides = ["gpukit ReductionKernel", "CuPy cupy.ReductionKernel", "PyCUDA ReductionKernel"]
    assert big.higher_is_better and big.unit == "GB/s" and "2^26" in big.description
    assert (
        not per_call.higher_is_better and per_call.unit == "µs per operation" and "1000 float32" in per_call.description
    )
    assert [side.name for side in big.sides] == sides and [side.name for side in per_call.sides] == sides
    assert reductions.BIG == 1 << 26


@pytest.mark.gpu
def test_reduction_kernel_sides_measure_and_compute_the_sum_of_squares():
    out = run_in_fresh_process("""
        import numpy as np
        from gpukit.bench import reductions, small
        settings = {"repeats": 2, "quick": True}
        rates = reductions.sum_of_squares_rate("gpukit")(settings)
        seconds = reductions.sum_of_squares_call("gpukit")(settings)
        assert len(rates) == 2 and all(rate > 0 for rate in rates), rates
        assert len(seconds) == 2 and all(s > 0 for s in seconds), seconds
        kernel, upload, synchronize, free = reductions.LIBRARIES["gpukit"]()
        host = small._host_operands()[0]
        np.testing.assert_allclose(kernel(upload(host)).get(), np.sum(host.astype(np.float64) ** 2), rtol=1e-5)
        print("measured")
    """)
    assert "measured" in out


@pytest.mark.opencl
def test_cl_array_cases_run_each_operation_on_each_device():
    from gpukit.bench import cl_arrays

    devices = cl_arrays.devices()
    if not devices:
        pytest.skip("no OpenCL device")
    names = [c.name for c in cases.ALL if c.name.startswith("cl_array_")]
    assert names == [f"cl_array_{op}_{short}" for short, _, _ in devices for op in cl_arrays.OPERATIONS]
    [case] = [c for c in cases.ALL if c.name == f"cl_array_add_small_{devices[0][0]}"]
    report = harness.run_case(case, {"quick": True, "repeats": 2})
    gpukit_side = report["results"][0]
    assert gpukit_side["side"] == "gpukit.cl.array" and len(gpukit_side["samples"]) == 2, report
    assert 0 < gpukit_side["median"] < 0.1, report


# ---- --compare ------------------------------------------------------------------------------


def test_mann_whitney_matches_the_textbook_values():
    from gpukit.bench import compare

    # Completely separated samples of five: U = 0, z = (12.5 - 0.5) / sqrt(25 * 11 / 12): p = 0.0122
    # (scipy.stats.mannwhitneyu, asymptotic with continuity correction, gives 0.01219).
    assert compare.mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(0.01219, abs=1e-4)
    assert compare.mann_whitney_p([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert compare.mann_whitney_p([5.0], [1.0, 2.0]) == 1.0  # too few to tell
    assert compare.mann_whitney_p([2, 2, 2], [2, 2, 2]) == 1.0  # all tied: no variance


def _report(cases, gpu="GPU A"):
    return {
        "machine": {"gpu": {"name": gpu}},
        "cases": [
            {
                "case": name,
                "unit": unit,
                "scale": scale,
                "higher_is_better": higher,
                "results": [
                    {"side": side, "samples": samples, "median": float(np.median(samples))}
                    if samples is not None
                    else {"side": side, "skipped": "no CUDA device"}
                    for side, samples in sides
                ],
            }
            for name, unit, scale, higher, sides in cases
        ],
    }


def test_compare_judges_each_side_measured_in_both_runs(tmp_path, capsys):
    old = _report(
        [
            (
                "t",
                "µs",
                1e6,
                False,
                [("gpukit", [1e-6, 1.1e-6, 1.05e-6, 0.98e-6, 1.02e-6]), ("cupy", [2e-6] * 5), ("skipped", None)],
            ),
            ("rate", "GB/s", 1e-9, True, [("gpukit", [100e9, 101e9, 99e9, 100.5e9, 99.5e9])]),
            ("gone", "µs", 1e6, False, [("gpukit", [1e-6] * 5)]),
        ]
    )
    new = _report(
        [
            (
                "t",
                "µs",
                1e6,
                False,
                [
                    ("gpukit", [0.5e-6, 0.52e-6, 0.51e-6, 0.49e-6, 0.5e-6]),
                    ("cupy", [2e-6] * 5),
                    ("skipped", [1e-6] * 5),
                ],
            ),
            ("rate", "GB/s", 1e-9, True, [("gpukit", [80e9, 81e9, 79e9, 80.5e9, 79.5e9])]),
        ],
        gpu="GPU B",
    )
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    assert command_line.main(["bench", "--compare", str(tmp_path / "old.json"), str(tmp_path / "new.json")]) == 0
    out = capsys.readouterr().out
    lines = {
        line.split(" / ")[0].strip() + "/" + line.split(" / ")[1].split()[0]: line
        for line in out.splitlines()
        if " / " in line and "case / side" not in line
    }
    assert "faster (p=" in lines["t/gpukit"] and " 0.490 " in lines["t/gpukit"], out  # 0.50 / 1.02 µs
    assert "same (p=" in lines["t/cupy"]
    assert "slower (p=" in lines["rate/gpukit"] and "GB/s" in lines["rate/gpukit"]  # a lower rate is slower
    assert "t/skipped" not in lines and "gone/gpukit" not in lines  # measured in one run only
    assert "note: measured on different GPUs (GPU A and GPU B)" in out
    assert out.rstrip().endswith("1 faster, 1 slower, 1 the same within noise")


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "cannot read"),
        ("{not json", "is not JSON"),
        ('{"cases": 3}', "is not a bench report"),
    ],
)
def test_compare_refuses_what_is_not_a_report(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as exited:
        command_line.main(["bench", "--compare", str(path), str(path)])
    assert exited.value.code == 2 and message in capsys.readouterr().err
