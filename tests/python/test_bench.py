"""The C++ baselines of the benchmark harness that can be checked without a GPU."""
import pytest

import gpukit.driver as drv


@pytest.mark.parametrize("elements, launches, batches, repeats", [(0, 200, 1, 1), (1000, 0, 1, 1), (1000, 200, -1, 1),
                                                                  (1000, 200, 1, 0)])
def test_the_raw_add_floor_refuses_counts_that_are_not_positive(elements, launches, batches, repeats):
    # Checked before anything touches the driver, so this runs without a GPU.
    from gpukit._gpukit import _bench
    with pytest.raises(drv.LogicError, match="must be positive"):
        _bench.raw_add_launch_seconds(elements, launches, batches, repeats)
