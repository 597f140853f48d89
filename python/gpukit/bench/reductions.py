"""Sides of the ReductionKernel cases: a sum of squares (map ``x[i]*x[i]``, reduce ``a+b``,
neutral 0, in float32) by each library's own ReductionKernel, on BIG float32 (bytes read per
second, batches of operations between synchronizations as in arrays.py) and on small.SIZE
float32 (seconds per call, queued and never read back, as in small.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

from gpukit.bench import arrays, small

if TYPE_CHECKING:
    from gpukit.bench.harness import Run, Settings
    from gpukit.bench.small import Upload

    #: (the kernel, called on an array of the library, upload from numpy, synchronize, free the pool).
    Library: TypeAlias = tuple[Callable[[Any], object], Upload, Callable[[], object], Callable[[], object]]

BIG = 1 << 26


@functools.lru_cache(maxsize=1)
def _big_host_data() -> npt.NDArray[np.float32]:
    return np.random.default_rng(26).random(BIG, dtype=np.float32)


def _gpukit() -> Library:
    """(the sum of squares kernel, upload from numpy, synchronize, free the pool)."""
    gpuarray, upload, synchronize = small.LIBRARIES["gpukit"]()
    from gpukit.reduction import ReductionKernel

    kernel = ReductionKernel(
        np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]", arguments="const float *x", name="sumsq"
    )
    return kernel, upload, synchronize, gpuarray.release_default_pools


def _cupy() -> Library:
    cp, upload, synchronize = small.LIBRARIES["cupy"]()
    kernel = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sumsq")
    return kernel, upload, synchronize, cp.get_default_memory_pool().free_all_blocks


def _pycuda() -> Library:
    _, upload, synchronize = small.LIBRARIES["pycuda"]()  # Unavailable unless the real PyCUDA imports
    from pycuda.reduction import ReductionKernel  # type: ignore[import-not-found, import-untyped, unused-ignore]  # optional, untyped

    kernel = ReductionKernel(
        np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]", arguments="const float *x", name="sumsq"
    )
    return kernel, upload, synchronize, lambda: None


LIBRARIES: dict[str, Callable[[], Library]] = {"gpukit": _gpukit, "cupy": _cupy, "pycuda": _pycuda}


def sum_of_squares_rate(library: str) -> Run:
    """The side running the sum of squares of BIG float32 with `library`: bytes read per second."""

    def run(settings: Settings) -> list[float]:
        kernel, upload, synchronize, free = LIBRARIES[library]()
        try:
            x = upload(_big_host_data())
            rates = arrays._rates(functools.partial(kernel, x), synchronize, BIG * 4, settings)
            del x
            return rates
        finally:
            free()

    return run


def sum_of_squares_call(library: str) -> Run:
    """The side running the sum of squares of small.SIZE float32 with `library`: seconds per call."""

    def run(settings: Settings) -> list[float]:
        kernel, upload, synchronize, _ = LIBRARIES[library]()
        x = upload(small._host_operands()[0])
        return small._per_operation(functools.partial(kernel, x), synchronize, settings)

    return run
