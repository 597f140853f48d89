"""CSR matrices on the GPU, shared by PacketedSpMV and CoordinateSpMV: HostCSR prepares a
scipy.sparse matrix on the host (int32 indices, the row blocks of the kernel, the chunks of
long rows), DeviceCSR uploads it and multiplies, and CSROperator is the operator both
classes are.

The product runs csr_spmv (see _kernels), the "stream" scheme of CSR-Adaptive (Greathouse
and Daga, SC14): the rows are cut into blocks of consecutive rows, each as many as fit in the
shared memory of a thread block (_kernels.stream_entries: 16 KiB, 2048 float64 entries; at
most STREAM_ROWS rows); a thread block reads its rows' entries in order, whatever their
lengths, so every read of the matrix is coalesced, and adds up each row from shared memory.
A longer row (a dense row) is cut into chunks of CHUNK entries, summed by one thread block
each (csr_chunks) before its own block adds the chunk sums. No atomics: the result is the same
from run to run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpukit import gpuarray
from gpukit.sparse import _kernels
from gpukit.sparse._checks import check_vector, scipy_sparse
from gpukit.sparse.operator import OperatorBase

if TYPE_CHECKING:
    from gpukit.gpuarray import GPUArray

#: Indices are int32: sizes and numbers of entries up to this.
MAX_INDEX = 2**31 - 1
#: The entries of a long row that one block of csr_chunks sums.
CHUNK = 8 * _kernels.BLOCK

Int32Array = npt.NDArray[np.int32]


def row_blocks(indptr: Int32Array, entries: int) -> Int32Array:
    """The first row of each block of csr_spmv, then the number of rows: each block the most
    consecutive rows that hold at most `entries` entries and number at most STREAM_ROWS, or
    one longer row."""
    rows = len(indptr) - 1
    starts = [0]
    row = 0
    while row < rows:
        # The rows row .. fit - 1 hold at most `entries` entries.
        fit = int(np.searchsorted(indptr, indptr[row] + entries, side="right")) - 1
        row = max(row + 1, min(fit, row + _kernels.STREAM_ROWS, rows))
        starts.append(row)
    return np.array(starts, dtype=np.int32)


@dataclass(frozen=True)
class HostCSR:
    """A matrix in CSR form with int32 indices, and how the kernels will run over it."""

    shape: tuple[int, int]
    indptr: Int32Array
    indices: Int32Array
    data: npt.NDArray[Any]
    #: Block b of csr_spmv computes rows row_blocks[b] .. row_blocks[b + 1].
    row_blocks: Int32Array
    #: The rows of more than _kernels.stream_entries(dtype) entries, ascending.
    long_rows: Int32Array
    #: Long row k has chunks chunk_ptr[k] .. chunk_ptr[k + 1].
    chunk_ptr: Int32Array
    #: Chunk c holds entries chunk_begin[c] .. chunk_end[c].
    chunk_begin: Int32Array
    chunk_end: Int32Array

    @staticmethod
    def build(shape: tuple[int, int], indptr: Int32Array, indices: Int32Array, data: npt.NDArray[Any]) -> HostCSR:
        """The plan for a CSR matrix (indptr, indices, data of `shape`)."""
        entries = _kernels.stream_entries(data.dtype)
        lengths = np.diff(indptr)
        long_rows = np.flatnonzero(lengths > entries).astype(np.int32)
        chunk_counts = (lengths[long_rows] + CHUNK - 1) // CHUNK
        chunk_ptr = np.zeros(len(long_rows) + 1, dtype=np.int64)
        np.cumsum(chunk_counts, out=chunk_ptr[1:])
        # Chunk c of long row k starts CHUNK * (c - chunk_ptr[k]) entries into the row.
        first = np.repeat(indptr[long_rows].astype(np.int64), chunk_counts)
        position = np.arange(chunk_ptr[-1], dtype=np.int64) - np.repeat(chunk_ptr[:-1], chunk_counts)
        chunk_begin = first + CHUNK * position
        chunk_end = np.minimum(chunk_begin + CHUNK, np.repeat(indptr[long_rows + 1].astype(np.int64), chunk_counts))
        return HostCSR(
            shape,
            indptr,
            indices,
            data,
            row_blocks(indptr, entries),
            long_rows,
            chunk_ptr.astype(np.int32),
            chunk_begin.astype(np.int32),
            chunk_end.astype(np.int32),
        )

    def to_scipy(self) -> Any:
        """The matrix as a scipy.sparse.csr_matrix (sharing the arrays)."""
        sparse = scipy_sparse("HostCSR.to_scipy")
        return sparse.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)


def host_csr(mat: object, dtype: np.dtype[Any], what: str) -> HostCSR:
    """The scipy.sparse matrix `mat` (CSR, or any format that .tocsr() converts) as a HostCSR
    of `dtype` values; `what` names the argument in errors."""
    sparse = scipy_sparse(what)
    if not sparse.issparse(mat):
        raise TypeError(
            f"{what}: expected a scipy.sparse matrix or array (CSR, or a format that .tocsr() converts), got "
            f"{type(mat).__module__}.{type(mat).__name__}"
        )
    if mat.ndim != 2:  # type: ignore[attr-defined]  # a scipy.sparse object, checked above
        raise ValueError(f"{what}: expected a 2-d matrix, got shape {mat.shape}")  # type: ignore[attr-defined]
    source_dtype = np.dtype(mat.dtype)  # type: ignore[attr-defined]
    if not np.can_cast(source_dtype, dtype, "same_kind"):
        raise TypeError(f"{what}: cannot convert a {source_dtype} matrix to {dtype} (it would drop imaginary parts)")
    rows, columns = (int(extent) for extent in mat.shape)  # type: ignore[attr-defined]
    if max(rows, columns) > MAX_INDEX:
        raise ValueError(
            f"{what}: shape {(rows, columns)} is too big: gpukit.sparse indexes with int32, at most {MAX_INDEX}"
        )
    csr = mat.tocsr()  # type: ignore[attr-defined]
    nnz = int(csr.indptr[-1])
    if nnz > MAX_INDEX:
        raise ValueError(
            f"{what}: {nnz} stored entries are too many: gpukit.sparse indexes with int32, at most {MAX_INDEX}"
        )
    indptr = np.asarray(csr.indptr, dtype=np.int32)
    indices = np.asarray(csr.indices[:nnz], dtype=np.int32)
    data = np.asarray(csr.data[:nnz], dtype=dtype)
    return HostCSR.build((rows, columns), indptr, indices, data)


def inverse(new2old: Int32Array) -> Int32Array:
    """old2new of the permutation new2old."""
    old2new = np.empty_like(new2old)
    old2new[new2old] = np.arange(len(new2old), dtype=new2old.dtype)
    return old2new


def permuted(matrix: HostCSR, new2old: Int32Array) -> HostCSR:
    """P A P^T of a square `matrix`: row and column i of the result are row and column
    new2old[i] of `matrix`."""
    n = matrix.shape[0]
    old2new = inverse(new2old)
    lengths = np.diff(matrix.indptr)[new2old]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    # Entry j of new row i is entry j of old row new2old[i].
    source = np.repeat(matrix.indptr[new2old].astype(np.int64) - indptr[:-1], lengths) + np.arange(indptr[-1])
    return HostCSR.build(matrix.shape, indptr.astype(np.int32), old2new[matrix.indices[source]], matrix.data[source])


def _upload(host: npt.NDArray[Any]) -> GPUArray:
    """`host` on the GPU; an empty array as one zero element, so that every kernel argument
    is an allocation."""
    return gpuarray.to_gpu(host if len(host) else np.zeros(1, dtype=host.dtype))


class DeviceCSR:
    """A HostCSR uploaded to the current context, with its kernels."""

    def __init__(self, host: HostCSR) -> None:
        self.shape = host.shape
        self.dtype: np.dtype[Any] = host.data.dtype
        self._block_count = len(host.row_blocks) - 1
        self._long_count = len(host.long_rows)
        self._chunk_count = len(host.chunk_begin)
        self._kernels = _kernels.spmv_kernels(self.dtype)
        self._row_blocks = _upload(host.row_blocks)
        self._row_ptr = _upload(host.indptr)
        self._cols = _upload(host.indices)
        self._vals = _upload(host.data)
        self._long_rows = _upload(host.long_rows)
        self._chunk_ptr = _upload(host.chunk_ptr)
        self._chunk_begin = _upload(host.chunk_begin)
        self._chunk_end = _upload(host.chunk_end)
        self._chunk_sums = gpuarray.empty(max(self._chunk_count, 1), self.dtype)
        address = _kernels.address
        self._chunk_args = tuple(map(address, (self._cols, self._vals)))
        self._chunk_ranges = tuple(map(address, (self._chunk_begin, self._chunk_end, self._chunk_sums)))
        self._row_args = tuple(map(address, (self._row_blocks, self._row_ptr, self._cols, self._vals)))
        self._long_args = (
            address(self._long_rows),
            self._long_count,
            address(self._chunk_ptr),
            address(self._chunk_sums),
        )

    def multiply(self, x: GPUArray, y: GPUArray, accumulate: bool, stop: GPUArray | None) -> None:
        """y = A x, or y += A x when `accumulate`; nothing while stop[0] is not 0 (stop: an
        int32 device array, or None). Queued on the default stream; x and y unchecked."""
        if self._block_count == 0:
            return
        block = (_kernels.BLOCK, 1, 1)
        stop_pointer = 0 if stop is None else _kernels.address(stop)
        x_pointer = _kernels.address(x) if x.size else 0  # no columns: x has no memory, and is never read
        if self._chunk_count:
            self._kernels.chunks.prepared_call(
                (self._chunk_count, 1), block, *self._chunk_args, x_pointer, *self._chunk_ranges, stop_pointer
            )
        self._kernels.rows.prepared_call(
            (self._block_count, 1),
            block,
            *self._row_args,
            x_pointer,
            _kernels.address(y),
            int(accumulate),
            *self._long_args,
            stop_pointer,
        )


def _shares_memory(a: GPUArray, b: GPUArray) -> bool:
    if a.nbytes == 0 or b.nbytes == 0:
        return False
    start_a, start_b = _kernels.address(a), _kernels.address(b)
    return start_a < start_b + b.nbytes and start_b < start_a + a.nbytes


class CSROperator(OperatorBase):
    """A matrix on the GPU as an operator: ``op(x)`` is A x, ``op(x, y)`` adds A x to y."""

    def __init__(self, matrix: DeviceCSR) -> None:
        self._matrix = matrix

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._matrix.dtype

    @property
    def shape(self) -> tuple[int, int]:
        return self._matrix.shape

    def __call__(self, x: GPUArray, y: GPUArray | None = None) -> GPUArray:
        """A x in a new array (of x's allocator), or, given y, y += A x; returns the result."""
        name = type(self).__name__
        rows, columns = self.shape
        check_vector(x, columns, self.dtype, f"{name}(x)")
        accumulate = y is not None
        if y is None:
            y = gpuarray.empty(rows, self.dtype, allocator=x.allocator)
        else:
            check_vector(y, rows, self.dtype, f"{name}(y)")
            if _shares_memory(x, y):
                raise ValueError(f"{name}(x, y): y shares memory with x; the product needs them apart")
        self._matrix.multiply(x, y, accumulate, None)
        return y

    def multiply_into(self, x: GPUArray, y: GPUArray, stop: GPUArray) -> None:
        """y = A x, unchecked, skipped while stop[0] is not 0 (the solver's use)."""
        self._matrix.multiply(x, y, False, stop)
