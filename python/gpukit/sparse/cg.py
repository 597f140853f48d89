"""The preconditioned conjugate gradient solver (PyCUDA's ``pycuda.sparse.cg``), for
symmetric (Hermitian) positive definite systems.

An iteration is four kernels (see _kernels): q = A d; alpha = delta / d^H q; x += alpha d with
r -= alpha q and delta = r^H M r; d = M r + beta d. The scalars alpha, beta and delta live on
the GPU and are computed there, by the last block of the kernel that sums them, so the host
never waits for an iteration: it only queues them. Every RESIDUAL_INTERVAL-th iteration
recomputes the residual from x (r = b - A x), as PyCUDA's does, so rounding errors in r do not
build up. The identity and DiagonalPreconditioner are applied inside these kernels; another
preconditioning operator is called once per iteration.

The convergence test is PyCUDA's, ``|delta| < tol^2 |delta_0|``, made on the GPU after every
iteration: once it holds, the GPU records the number of iterations and every later kernel of
the solve returns at once. The host learns it by reading that record back every
CHECK_INTERVAL iterations through page-locked memory and an event it polls, and waits for
the GPU only when more than MAX_PENDING such reads are outstanding (it is then far ahead).
"""

from __future__ import annotations

import bisect
import collections
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from gpukit import driver as drv
from gpukit import gpuarray
from gpukit.sparse import _kernels
from gpukit.sparse._checks import VALUE_DTYPES, check_vector
from gpukit.sparse._csr import CSROperator
from gpukit.sparse.inner import AsyncCopy, PagelockedAllocator, pagelocked_allocator_or_default
from gpukit.sparse.operator import DiagonalPreconditioner, IdentityOperator

if TYPE_CHECKING:
    from gpukit.gpuarray import GPUArray

#: The residual is recomputed from x every this many iterations (fewer for small systems).
RESIDUAL_INTERVAL = 50
#: The host reads the solve's status back every this many iterations.
CHECK_INTERVAL = 8
#: With this many reads outstanding, the host waits for the oldest.
MAX_PENDING = 4
#: PyCUDA's default max_iterations is max(this, 10 n).
MIN_DEFAULT_ITERATIONS = 61

#: debug_callback(what, iteration, x, residual, d, delta): what is "it", "it+residual" (an
#: iteration that recomputed the residual) or "end"; the arrays are the solver's, on the GPU.
DebugCallback: TypeAlias = Callable[[str, int, "GPUArray", "GPUArray", "GPUArray", "GPUArray"], object]

# scalars (see _kernels): delta, alpha, beta, delta_0. status: iterations + 1 once converged, a counter.
_DELTA, _DELTA_0 = 0, 3


class ConvergenceError(RuntimeError):
    """The solver did not meet its tolerance within max_iterations."""


def _vector_grid(n: int) -> tuple[int, int]:
    """Blocks for the vector kernels: one per BLOCK elements, at most as many as the device
    runs at once (the kernels loop over the rest)."""
    device = drv.Context.get_device()
    resident = device.multiprocessor_count * (device.max_threads_per_multiprocessor // _kernels.BLOCK)
    return max(1, min((n + _kernels.BLOCK - 1) // _kernels.BLOCK, resident)), 1


def _positive_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what}: expected an int, got {type(value).__name__} {value!r}")
    if value < 1:
        raise ValueError(f"{what}: expected at least 1, got {value}")
    return int(value)


def _tolerance(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}: expected a real number, got {type(value).__name__} {value!r}")
    tol = float(value)
    if not (0 < tol < math.inf):
        raise ValueError(f"{what}: expected a positive finite number, got {value}")
    return tol


class CGStateContainer:
    """The state of a conjugate gradient solve of A x = b: `operator` is A (an operator of
    shape (n, n): PacketedSpMV, CoordinateSpMV or any with shape, dtype and __call__(x)),
    `precon` the preconditioner M (None: the identity). reset(rhs, x) starts a solve, run()
    iterates until convergence, one_iteration() queues one iteration.
    `pagelocked_allocator(shape, dtype)` (default drv.pagelocked_empty) makes the host
    memory that the status is read into.

    After reset: ``x`` (updated in place), ``residual``, ``d``, ``rhs`` and ``delta`` (0-d)
    are the solver's GPUArrays; after run: ``it_count`` and ``res_count``, the iterations
    done and those of them that recomputed the residual.
    """

    # Set by reset().
    rhs: GPUArray
    x: GPUArray
    residual: GPUArray
    d: GPUArray
    _q: GPUArray
    _partials: GPUArray
    _scalars: GPUArray
    _status: GPUArray
    _diag: GPUArray | int
    _functions: _kernels.CGKernels
    _grid: tuple[int, int]
    _iteration: int
    _residual_iterations: list[int]

    def __init__(
        self, operator: Any, precon: Any = None, pagelocked_allocator: PagelockedAllocator | None = None
    ) -> None:
        shape = getattr(operator, "shape", None)
        dtype = getattr(operator, "dtype", None)
        if not callable(operator) or not isinstance(shape, tuple) or dtype is None:
            raise TypeError(
                "CGStateContainer(operator): expected an operator with shape, dtype and __call__(x) (PacketedSpMV, "
                f"CoordinateSpMV, ...), got {type(operator).__name__}"
            )
        if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 1:
            raise ValueError(f"CGStateContainer(operator): expected a square operator of at least 1 x 1, got {shape}")
        if np.dtype(dtype) not in VALUE_DTYPES:
            raise TypeError(
                f"CGStateContainer(operator): unsupported dtype {dtype}; expected one of "
                f"{', '.join(map(str, VALUE_DTYPES))}"
            )
        self.operator = operator
        self.dtype: np.dtype[Any] = np.dtype(dtype)
        self.n: int = shape[0]
        self.precon = IdentityOperator(self.dtype, self.n) if precon is None else precon
        self._precon_kind = self._check_precon(self.precon)
        self.pagelocked_allocator = pagelocked_allocator_or_default(
            pagelocked_allocator, "CGStateContainer(pagelocked_allocator)"
        )
        self._tol2 = 1e-7**2  # run() sets it from its tol
        self._started = False
        self.it_count = 0
        self.res_count = 0

    def _check_precon(self, precon: Any) -> str:
        """The kernels' kind of `precon` (_kernels.PRECONDITIONERS), or the error."""
        shape = getattr(precon, "shape", None)
        if not callable(precon) or shape is None:
            raise TypeError(
                "CGStateContainer(precon): expected None or an operator with shape and __call__(x) "
                f"(DiagonalPreconditioner, IdentityOperator, ...), got {type(precon).__name__}"
            )
        if tuple(shape) != (self.n, self.n):
            raise ValueError(f"CGStateContainer(precon): expected shape {(self.n, self.n)}, got {tuple(shape)}")
        if isinstance(precon, IdentityOperator):
            return "none"
        if isinstance(precon, DiagonalPreconditioner):
            if precon.dtype != self.dtype:
                raise TypeError(
                    f"CGStateContainer(precon): the DiagonalPreconditioner's diagonal is {precon.dtype}, the "
                    f"operator's dtype {self.dtype}; make it {self.dtype} (diagonal.astype)"
                )
            return "diagonal"
        return "operator"

    @property
    def delta(self) -> GPUArray:
        """r^H M r of the latest iteration, a 0-d GPUArray."""
        self._require_reset("delta")
        return self._scalars[_DELTA]

    def _require_reset(self, what: str) -> None:
        if not self._started:
            raise RuntimeError(f"CGStateContainer.{what}: call reset(rhs, x) first")

    # ---- the kernels of an iteration

    def _apply_operator(self, x: GPUArray) -> None:
        """q = A x (nothing, for gpukit's matrices, once the solve has converged)."""
        if isinstance(self.operator, CSROperator):
            self.operator.multiply_into(x, self._q, self._status)
        else:
            self._q = check_vector(self.operator(x), self.n, self.dtype, "CGStateContainer: the operator's result")

    def _launch(self, kernel: drv.Function, *args: GPUArray | int | float) -> None:
        pointers = (argument if isinstance(argument, (int, float)) else _kernels.address(argument) for argument in args)
        kernel.prepared_call(self._grid, (_kernels.BLOCK, 1, 1), self.n, *pointers)

    def _finish(self, it: int) -> GPUArray | int:
        """Once r is updated in iteration `it`: with a preconditioning operator, z = M r and
        delta = r^H z, returning z (the kernels that updated r computed delta otherwise: 0)."""
        if self._precon_kind != "operator":
            return 0
        z = check_vector(self.precon(self.residual), self.n, self.dtype, "CGStateContainer: the precon's result")
        self._launch(
            self._functions.delta, self.residual, z, self._partials, self._scalars, self._status, it, self._tol2
        )
        return z

    def _direction(self, z: GPUArray | int) -> None:
        kind = self._precon_kind
        self._launch(self._functions.direction[kind], self.d, self.residual, self._diag, z, self._scalars, self._status)

    # ---- the solve

    def reset(self, rhs: GPUArray, x: GPUArray | None = None) -> None:
        """Start solving A x = rhs from `x` (zeros when None; a given x is updated in place):
        r = rhs - A x, d = M r. Queued, as everything here, on the default stream."""
        self.rhs = check_vector(rhs, self.n, self.dtype, "CGStateContainer.reset(rhs)")
        if x is None:
            x = gpuarray.zeros(self.n, self.dtype, allocator=rhs.allocator)
        self.x = check_vector(x, self.n, self.dtype, "CGStateContainer.reset(x)")
        self._functions = _kernels.cg_kernels(self.dtype)
        self._grid = _vector_grid(self.n)
        allocator = rhs.allocator
        self.residual = gpuarray.empty(self.n, self.dtype, allocator=allocator)
        self.d = gpuarray.zeros(self.n, self.dtype, allocator=allocator)  # d = M r + 0 d must not meet NaN
        self._q = gpuarray.empty(self.n, self.dtype, allocator=allocator)
        self._partials = gpuarray.empty(self._grid[0], self.dtype, allocator=allocator)
        self._scalars = gpuarray.zeros(4, self.dtype, allocator=allocator)
        self._status = gpuarray.to_gpu(np.zeros(2, dtype=np.int32), allocator=allocator)
        self._diag = self.precon.diagonal if isinstance(self.precon, DiagonalPreconditioner) else 0
        self._iteration = 0
        self._residual_iterations = []
        self._started = True
        self._apply_operator(self.x)
        self._residual(-1)
        self._direction(self._finish(-1))

    def _residual(self, it: int) -> None:
        """r = b - q (q = A x)."""
        kind = self._precon_kind
        self._launch(self._functions.residual[kind], self.residual, self.rhs, self._q, *self._residual_tail(it))

    def _residual_tail(self, it: int) -> tuple[GPUArray | int | float, ...]:
        """The arguments that end both kernels writing r (cg_residual_*, cg_update_*): the
        diagonal preconditioner, the reduction's partial sums, the scalars, the status, and the
        iteration and tol^2 of the convergence test."""
        return (self._diag, self._partials, self._scalars, self._status, it, self._tol2)

    def one_iteration(self, compute_real_residual: bool = False) -> None:
        """Queue one iteration; with `compute_real_residual`, r is recomputed as b - A x. The
        iterations after convergence do nothing on the GPU."""
        self._require_reset("one_iteration")
        if not isinstance(compute_real_residual, (bool, np.bool_)):
            raise TypeError(
                f"CGStateContainer.one_iteration(compute_real_residual): expected a bool, got "
                f"{type(compute_real_residual).__name__}"
            )
        it = self._iteration
        self._apply_operator(self.d)
        self._launch(self._functions.alpha, self.d, self._q, self._partials, self._scalars, self._status)
        if compute_real_residual:
            self._launch(self._functions.step_x, self.x, self.d, self._scalars, self._status)
            self._apply_operator(self.x)
            self._residual(it)
            self._residual_iterations.append(it)
        else:
            update = self._functions.update[self._precon_kind]
            self._launch(update, self.x, self.d, self.residual, self._q, *self._residual_tail(it))
        self._direction(self._finish(it))
        self._iteration += 1

    def run(
        self, max_iterations: int | None = None, tol: float = 1e-7, debug_callback: DebugCallback | None = None
    ) -> GPUArray:
        """Iterate until ``|delta| < tol^2 |delta_0|`` and return x (the same array as ``x``);
        ConvergenceError after `max_iterations` (default max(61, 10 n)) iterations without.
        `debug_callback`, if given, is called after every iteration and at the end (see
        DebugCallback)."""
        self._require_reset("run")
        limit = max(MIN_DEFAULT_ITERATIONS, 10 * self.n) if max_iterations is None else max_iterations
        limit = _positive_int(limit, "CGStateContainer.run(max_iterations)")
        self._tol2 = _tolerance(tol, "CGStateContainer.run(tol)") ** 2
        if debug_callback is not None and not callable(debug_callback):
            raise TypeError(
                "CGStateContainer.run(debug_callback): expected a callable or None, got "
                f"{type(debug_callback).__name__}"
            )
        interval = min(self.n, RESIDUAL_INTERVAL)
        slots = self.pagelocked_allocator((MAX_PENDING + 1, 2), np.dtype(np.int32))
        reads = 0
        pending: collections.deque[AsyncCopy] = collections.deque()
        for _ in range(limit):
            it = self._iteration
            real = it % interval == 0
            self.one_iteration(compute_real_residual=real)
            if debug_callback is not None:
                debug_callback("it+residual" if real else "it", it, self.x, self.residual, self.d, self.delta)
            if (it + 1) % CHECK_INTERVAL == 0:
                # The slot of the read MAX_PENDING + 1 reads ago, which has arrived.
                pending.append(AsyncCopy(self._status, slots[reads % (MAX_PENDING + 1)]))
                reads += 1
            while pending and (len(pending) > MAX_PENDING or pending[0].ready()):
                status = int(pending.popleft().wait()[0])
                if status:
                    return self._converged(status - 1, debug_callback)
        status = int(AsyncCopy(self._status, slots[reads % (MAX_PENDING + 1)]).wait()[0])
        if status:
            return self._converged(status - 1, debug_callback)
        self._count(self._iteration)
        scalars = self._scalars.get()
        raise ConvergenceError(
            f"cg failed to converge: {limit} iterations left |delta| = {abs(scalars[_DELTA]):.6g}, not below "
            f"tol^2 |delta_0| = {self._tol2 * abs(scalars[_DELTA_0]):.6g} (tol = {math.sqrt(self._tol2):.6g})"
        )

    def _count(self, iterations: int) -> None:
        self.it_count = iterations
        self.res_count = bisect.bisect_left(self._residual_iterations, iterations)

    def _converged(self, iterations: int, debug_callback: DebugCallback | None) -> GPUArray:
        self._count(iterations)
        if debug_callback is not None:
            debug_callback("end", iterations - 1, self.x, self.residual, self.d, self.delta)
        return self.x


def solve_pkt_with_cg(
    pkt_spmv: Any,
    b: GPUArray,
    precon: Any = None,
    x: GPUArray | None = None,
    tol: float = 1e-7,
    max_iterations: int | None = None,
    debug: bool = False,
    pagelocked_allocator: PagelockedAllocator | None = None,
) -> tuple[GPUArray, int, int]:
    """Solve A x = b for the matrix of `pkt_spmv` (a PacketedSpMV) by conjugate gradients:
    returns (x, it_count, res_count), x in the matrix's ordering (b and the initial `x` too;
    `precon` works in the solver's ordering, see PacketedSpMV.permute), it_count the
    iterations done and res_count those that recomputed the residual. ConvergenceError when
    ``|delta| < tol^2 |delta_0|`` is not reached in `max_iterations` (default max(61, 10 n)).
    `debug` prints ``|delta| / |delta_0|`` after every iteration (waiting for the GPU each time).
    `pagelocked_allocator(shape, dtype)`: see CGStateContainer."""
    if not all(callable(getattr(pkt_spmv, name, None)) for name in ("permute", "unpermute")):
        raise TypeError(
            f"solve_pkt_with_cg(pkt_spmv): expected a PacketedSpMV (with permute and unpermute), got "
            f"{type(pkt_spmv).__name__}"
        )
    if not isinstance(debug, (bool, np.bool_)):
        raise TypeError(f"solve_pkt_with_cg(debug): expected a bool, got {type(debug).__name__}")
    cg = CGStateContainer(pkt_spmv, precon, pagelocked_allocator)
    check_vector(b, cg.n, cg.dtype, "solve_pkt_with_cg(b)")
    if x is not None:
        x = pkt_spmv.permute(check_vector(x, cg.n, cg.dtype, "solve_pkt_with_cg(x)"))
    cg.reset(pkt_spmv.permute(b), x)
    result = cg.run(max_iterations, tol, _debug_printer(cg) if debug else None)
    return pkt_spmv.unpermute(result), cg.it_count, cg.res_count


def _debug_printer(cg: CGStateContainer) -> DebugCallback:
    """A debug_callback printing ``|delta| / |delta_0|`` of each iteration."""

    def report(what: str, iteration: int, x: GPUArray, residual: GPUArray, d: GPUArray, delta: GPUArray) -> None:
        if what == "end":
            print(f"cg: converged after {cg.it_count} iterations ({cg.res_count} recomputed the residual)")
            return
        scalars = cg._scalars.get()
        ratio = abs(scalars[_DELTA]) / abs(scalars[_DELTA_0]) if scalars[_DELTA_0] else 0.0
        recomputed = ", residual recomputed" if what == "it+residual" else ""
        print(f"cg: iteration {iteration}{recomputed}: |delta| / |delta_0| = {ratio:.6g}")

    return report
