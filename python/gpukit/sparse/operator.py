"""Linear operators for the conjugate gradient solver (PyCUDA's ``pycuda.sparse.operator``):
the base class, the identity, and the diagonal (Jacobi) preconditioner.

An operator has ``dtype``, ``shape`` (n, n) and ``__call__(operand)`` returning a new
GPUArray of n elements (or, for the identity, the operand itself). The solver recognises
IdentityOperator and DiagonalPreconditioner and applies them inside its own kernels; any
other operator is called once per iteration.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from gpukit import gpuarray
from gpukit.sparse._checks import check_vector


class OperatorBase:
    """A linear operator: subclasses give ``dtype``, ``shape`` and ``__call__(operand)``."""

    @property
    def dtype(self) -> np.dtype[Any]:
        raise NotImplementedError

    @property
    def shape(self) -> tuple[int, int]:
        raise NotImplementedError

    def __call__(self, operand: gpuarray.GPUArray) -> gpuarray.GPUArray:
        raise NotImplementedError


class IdentityOperator(OperatorBase):
    """The n x n identity of `dtype`: calling it returns the operand itself."""

    def __init__(self, dtype: npt.DTypeLike, n: int) -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"IdentityOperator(n): expected an int, got {type(n).__name__}")
        if n < 0:
            raise ValueError(f"IdentityOperator(n): expected n >= 0, got {n}")
        self._dtype = np.dtype(dtype)
        self._n = int(n)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._dtype

    @property
    def shape(self) -> tuple[int, int]:
        return self._n, self._n

    def __call__(self, operand: gpuarray.GPUArray) -> gpuarray.GPUArray:
        return check_vector(operand, self._n, self._dtype, "IdentityOperator(operand)")


class DiagonalPreconditioner(OperatorBase):
    """Multiplication by a diagonal matrix, given as the GPUArray of its n entries (for Jacobi
    preconditioning, the inverses of the matrix's diagonal, in the solver's order: pass them
    through PacketedSpMV.permute)."""

    def __init__(self, diagonal: gpuarray.GPUArray) -> None:
        if not isinstance(diagonal, gpuarray.GPUArray):
            raise TypeError(f"DiagonalPreconditioner(diagonal): expected a GPUArray, got {type(diagonal).__name__}")
        if len(diagonal.shape) != 1:
            raise ValueError(f"DiagonalPreconditioner(diagonal): expected a 1-d array, got shape {diagonal.shape}")
        self.diagonal = check_vector(diagonal, diagonal.shape[0], None, "DiagonalPreconditioner(diagonal)")

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.diagonal.dtype

    @property
    def shape(self) -> tuple[int, int]:
        n = self.diagonal.shape[0]
        return n, n

    def __call__(self, operand: gpuarray.GPUArray) -> gpuarray.GPUArray:
        check_vector(operand, self.diagonal.shape[0], None, "DiagonalPreconditioner(operand)")
        return self.diagonal * operand
