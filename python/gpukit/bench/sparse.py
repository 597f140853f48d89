"""Sides of the sparse cases, on the matrix of a 2-D 5-point Laplacian of a GRID x GRID grid
plus SHIFT times the identity (symmetric positive definite, ~2.0e6 rows, ~1.0e7 non-zeros,
float64), made with scipy:

- sparse_spmv: y = A x, a new y each time, PRODUCTS_PER_SAMPLE products between
  synchronizations: gpukit's PacketedSpMV (x in its reverse Cuthill-McKee order) and
  CoordinateSpMV (the matrix's own order), CuPy's csr_matrix @ x (cuSPARSE);
- sparse_cg: a conjugate gradient solve of A x = b, b random, from x = 0 to ||r|| < TOL ||b||
  (the test both libraries then make; about a hundred iterations), unpreconditioned:
  gpukit's solve_pkt_with_cg against cupyx.scipy.sparse.linalg.cg.

Sides need a CUDA device and scipy (CuPy's, CuPy), else they raise Unavailable.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpukit.bench.gpu import cupy, primary_context
from gpukit.bench.harness import Unavailable, seconds_per_call

if TYPE_CHECKING:
    from gpukit.bench.harness import Run, Settings

GRID = 1414
SHIFT = 0.05
TOL = 1e-6
PRODUCTS_PER_SAMPLE = 20


@functools.lru_cache(maxsize=1)
def matrix() -> Any:
    """The case's matrix, a scipy.sparse.csr_matrix of float64 (Any: scipy has no type information here)."""
    try:
        import scipy.sparse as sp  # type: ignore[import-untyped, import-not-found, unused-ignore]  # optional, untyped here
    except ImportError:
        raise Unavailable("scipy is not installed") from None
    line = sp.diags([-np.ones(GRID - 1), 2 * np.ones(GRID), -np.ones(GRID - 1)], [-1, 0, 1])
    identity = sp.eye(GRID)
    laplacian = sp.kron(identity, line) + sp.kron(line, identity)
    return (laplacian + SHIFT * sp.eye(GRID * GRID)).tocsr()


@functools.lru_cache(maxsize=1)
def _host_vector() -> npt.NDArray[np.float64]:
    return np.random.default_rng(7).random(GRID * GRID)


def _per_product(product: Callable[[], object], synchronize: Callable[[], object], settings: Settings) -> list[float]:
    product()  # warm-up: compiles the kernels, fills the memory pool
    synchronize()
    return seconds_per_call(product, PRODUCTS_PER_SAMPLE, settings, synchronize)


def _per_solve(solve: Callable[[], object], synchronize: Callable[[], object], settings: Settings) -> list[float]:
    solve()  # warm-up
    synchronize()
    return seconds_per_call(solve, 1, settings, synchronize)


def spmv_side(kind: str) -> Run:
    """y = A x by "packeted" (gpukit PacketedSpMV), "coordinate" (gpukit CoordinateSpMV) or
    "cupy" (cupyx.scipy.sparse.csr_matrix @ x): seconds per product."""

    def run(settings: Settings) -> list[float]:
        primary_context()
        host = matrix()
        if kind == "cupy":
            cp = cupy()
            import cupyx.scipy.sparse  # type: ignore[import-untyped, import-not-found, unused-ignore]  # with CuPy, untyped

            device_matrix = cupyx.scipy.sparse.csr_matrix(host)
            x = cp.asarray(_host_vector())
            try:
                samples = _per_product(
                    functools.partial(operator.matmul, device_matrix, x), cp.cuda.Device().synchronize, settings
                )
                del device_matrix, x
                return samples
            finally:
                cp.get_default_memory_pool().free_all_blocks()
        import gpukit.driver as drv
        from gpukit import gpuarray
        from gpukit.sparse.coordinate import CoordinateSpMV
        from gpukit.sparse.packeted import PacketedSpMV

        spmv = PacketedSpMV(host, True, np.float64) if kind == "packeted" else CoordinateSpMV(host, np.float64)
        x_gpu = gpuarray.to_gpu(_host_vector())
        try:
            samples = _per_product(functools.partial(spmv, x_gpu), drv.Context.synchronize, settings)
            del spmv, x_gpu
            return samples
        finally:
            gpuarray.release_default_pools()

    return run


def cg_side(library: str) -> Run:
    """The solve by "gpukit" (solve_pkt_with_cg) or "cupy" (cupyx.scipy.sparse.linalg.cg):
    seconds per solve."""

    def run(settings: Settings) -> list[float]:
        primary_context()
        host = matrix()
        if library == "cupy":
            cp = cupy()
            import cupyx.scipy.sparse  # type: ignore[import-untyped, import-not-found, unused-ignore]  # with CuPy, untyped
            import cupyx.scipy.sparse.linalg  # type: ignore[import-untyped, import-not-found, unused-ignore]  # as above

            device_matrix = cupyx.scipy.sparse.csr_matrix(host)
            b = cp.asarray(_host_vector())
            # CuPy renamed tol to rtol as scipy did.
            tolerance = "rtol" if "rtol" in inspect.signature(cupyx.scipy.sparse.linalg.cg).parameters else "tol"

            def solve_cupy(a: Any, b: Any) -> None:
                _, info = cupyx.scipy.sparse.linalg.cg(a, b, maxiter=10 * GRID, **{tolerance: TOL})
                if info != 0:
                    raise RuntimeError(f"cupyx.scipy.sparse.linalg.cg did not converge (info {info})")

            try:
                samples = _per_solve(
                    functools.partial(solve_cupy, device_matrix, b), cp.cuda.Device().synchronize, settings
                )
                del device_matrix, b
                return samples
            finally:
                cp.get_default_memory_pool().free_all_blocks()
        import gpukit.driver as drv
        from gpukit import gpuarray
        from gpukit.sparse.cg import solve_pkt_with_cg
        from gpukit.sparse.packeted import PacketedSpMV

        spmv = PacketedSpMV(host, True, np.float64)
        b_gpu = gpuarray.to_gpu(_host_vector())
        solve = functools.partial(solve_pkt_with_cg, spmv, b_gpu, tol=TOL, max_iterations=10 * GRID)
        try:
            samples = _per_solve(solve, drv.Context.synchronize, settings)
            del spmv, b_gpu, solve
            return samples
        finally:
            gpuarray.release_default_pools()

    return run
