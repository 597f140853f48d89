"""The bench cases of gpuarray's module functions (gpukit.bench.gpuarray_functions): each
case and its sides, the operations computing what their names say (on numpy, which has the
same names, with CuPy's way of writing if_positive), and on a GPU every gpukit side measuring
something."""

import numpy as np
import pytest

from conftest import run_in_fresh_process

from gpukit.bench import cases, gpuarray_functions

NAMES = ["where", "if_positive", "take", "concatenate"]


def test_every_function_has_a_big_and_a_small_case():
    names = [c.name for c in cases.ALL if c.name.startswith("gpuarray_")]
    assert names == [f"gpuarray_{name}_{size}" for name in NAMES for size in ("big", "small")]
    for name in NAMES:
        [big] = [c for c in cases.ALL if c.name == f"gpuarray_{name}_big"]
        [small] = [c for c in cases.ALL if c.name == f"gpuarray_{name}_small"]
        assert big.higher_is_better and big.unit == "GB/s" and "2^26 float32" in big.description
        assert [s.name for s in big.sides] == [
            "raw cuMemcpyDtoD, same bytes (C++)",
            "gpukit gpuarray",
            "CuPy",
            "PyCUDA gpuarray",
        ]
        assert not small.higher_is_better and small.unit == "µs per call" and "1000 float32" in small.description
        assert [s.name for s in small.sides] == ["CuPy", "gpukit", "PyCUDA"]


def test_operations_compute_what_their_names_say():
    c = np.array([1.5, -2.0, 0.5, -0.25], np.float32)
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    y = np.array([-1.0, -2.0, -3.0, -4.0], np.float32)
    indices = np.array([3, 0, 0, 2], np.int32)
    expected = {
        "where": [1.0, 2.0, 3.0, 4.0],
        "if_positive": [1.0, -2.0, 3.0, -4.0],
        "take": [4.0, 1.0, 1.0, 3.0],
        "concatenate": [1.0, 2.0, -3.0, -4.0],
    }
    for name in NAMES:
        got = gpuarray_functions._operation(name, "cupy", np, c, x, y, indices)()
        np.testing.assert_array_equal(got, np.array(expected[name], np.float32), err_msg=name)
    # The bytes each element of the result moves: 3 operands read and 1 written, 3 of 4 bytes
    # (the index, the gathered element, the result), 1 read and 1 written.
    assert [gpuarray_functions.FUNCTIONS[name][1] for name in NAMES] == [16, 16, 12, 8]


@pytest.mark.gpu
def test_gpukit_sides_measure_something():
    out = run_in_fresh_process("""
        from gpukit.bench import gpuarray_functions as f
        for name in f.FUNCTIONS:
            settings = {"repeats": 2, "quick": True}
            for samples in (f.big(name, "gpukit")(settings), f.small_calls(name, "gpukit")(settings),
                            f.raw_dtod(name)(settings)):
                assert len(samples) == 2 and all(s > 0 for s in samples), (name, samples)
        print("measured")
    """)
    assert "measured" in out
