"""The matrix-vector product of a sparse matrix of any shape (PyCUDA's
``pycuda.sparse.coordinate``).

PyCUDA multiplied the coordinate (COO) form with a segmented reduction; this takes a matrix in
any scipy.sparse format, COO included, stores it in CSR form and runs the CSR kernels that
PacketedSpMV runs (gpukit.sparse._csr). Duplicate entries add up, as in scipy. Vectors are in
the matrix's own ordering.
"""

from __future__ import annotations

import numpy.typing as npt

from gpukit.sparse import _csr
from gpukit.sparse._checks import value_dtype


class CoordinateSpMV(_csr.CSROperator):
    """y = A x for a scipy.sparse matrix `mat` of any shape (m, n), with values of `dtype`
    (float32, float64, complex64 or complex128): ``spmv(x)`` returns A x (x of n elements)
    in a new array of m elements, ``spmv(x, y)`` adds A x to y."""

    def __init__(self, mat: object, dtype: npt.DTypeLike) -> None:
        value_type = value_dtype(dtype, "CoordinateSpMV(dtype)")
        super().__init__(_csr.DeviceCSR(_csr.host_csr(mat, value_type, "CoordinateSpMV(mat)")))
