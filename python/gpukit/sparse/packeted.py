"""The matrix-vector product of a square sparse matrix, in the solver's ordering (PyCUDA's
``pycuda.sparse.packeted``).

PyCUDA's PacketedSpMV cut the matrix into METIS partitions that fitted in shared memory. This
one keeps the whole matrix in CSR form on the GPU (see gpukit.sparse._csr for the kernel),
its rows and columns in reverse Cuthill-McKee order (scipy.sparse.csgraph), which keeps the
entries of each row near the diagonal, so the reads of x that neighbouring rows make hit the
same cache lines. As in PyCUDA, the product works in that order: permute() takes a vector
into it and unpermute() back, and solve_pkt_with_cg does both for you.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpukit import gpuarray
from gpukit.sparse import _csr
from gpukit.sparse._checks import check_flag, check_vector, value_dtype

if TYPE_CHECKING:
    from gpukit.gpuarray import GPUArray


def solver_order(matrix: _csr.HostCSR, is_symmetric: bool) -> _csr.Int32Array:
    """new2old of the solver's order of a square `matrix`: its reverse Cuthill-McKee order.
    With `is_symmetric`, the caller vouches that the pattern is symmetric and scipy uses it
    as it is; otherwise scipy orders the pattern of A + A^T."""
    from scipy.sparse.csgraph import reverse_cuthill_mckee  # type: ignore[import-untyped, import-not-found, unused-ignore]  # optional, untyped here

    order: npt.NDArray[Any] = reverse_cuthill_mckee(matrix.to_scipy(), symmetric_mode=is_symmetric)
    return order.astype(np.int32)


class PacketedSpMV(_csr.CSROperator):
    """y = A x for a square scipy.sparse matrix `mat`, with values of `dtype` (float32,
    float64, complex64 or complex128), in the solver's ordering: ``spmv(x)`` returns A x in
    a new array, ``spmv(x, y)`` adds A x to y (both vectors in that ordering).

    `is_symmetric` (a bool; None counts as False) says that the matrix, or at least its
    pattern, is symmetric: the ordering then skips symmetrising it first. It changes only
    the ordering, never the product.
    """

    def __init__(self, mat: object, is_symmetric: bool | None, dtype: npt.DTypeLike) -> None:
        value_type = value_dtype(dtype, "PacketedSpMV(dtype)")
        symmetric = check_flag(is_symmetric, "PacketedSpMV(is_symmetric)")
        matrix = _csr.host_csr(mat, value_type, "PacketedSpMV(mat)")
        rows, columns = matrix.shape
        if rows != columns:
            raise ValueError(
                f"PacketedSpMV(mat): only square matrices are supported, got shape {matrix.shape} "
                "(CoordinateSpMV multiplies any shape)"
            )
        new2old = solver_order(matrix, symmetric)
        super().__init__(_csr.DeviceCSR(_csr.permuted(matrix, new2old)))
        self._new2old = gpuarray.to_gpu(new2old)
        self._old2new = gpuarray.to_gpu(_csr.inverse(new2old))

    def permute(self, x: GPUArray) -> GPUArray:
        """x (of the matrix's ordering, any dtype) in the solver's ordering, a new array."""
        check_vector(x, self.shape[0], None, "PacketedSpMV.permute(x)")
        return gpuarray.take(x, self._new2old)

    def unpermute(self, x: GPUArray) -> GPUArray:
        """x (of the solver's ordering, any dtype) back in the matrix's ordering, a new array."""
        check_vector(x, self.shape[0], None, "PacketedSpMV.unpermute(x)")
        return gpuarray.take(x, self._old2new)
