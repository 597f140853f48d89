"""gpukit.sparse (PyCUDA's pycuda.sparse): the kernels compile for every dtype, the host side
prepares matrices as the kernels expect them and refuses bad input, and on a GPU the
products match scipy's and the conjugate gradient solver matches numpy's solution."""

import math
import sys

import numpy as np
import pytest

from conftest import run_in_fresh_process
from gpukit import _gpukit, compiler
from gpukit.sparse import _checks, _csr, _kernels
from gpukit.sparse.cg import CGStateContainer, ConvergenceError, solve_pkt_with_cg
from gpukit.sparse.operator import DiagonalPreconditioner, IdentityOperator, OperatorBase

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
# Each product's error stays below this fraction of sum_j |a_ij x_j|.
PRODUCT_TOLERANCE = {np.float32: 1e-5, np.float64: 1e-13, np.complex64: 1e-5, np.complex128: 1e-13}
# The solver's tol by dtype, and how close its x comes to the exact solution then (relative).
SOLVER_TOL = {np.float32: 3e-5, np.float64: 1e-10, np.complex64: 3e-5, np.complex128: 1e-10}
SOLUTION_TOLERANCE = {np.float32: 1e-2, np.float64: 1e-7, np.complex64: 1e-2, np.complex128: 1e-7}


@pytest.fixture
def sp():
    return pytest.importorskip("scipy.sparse", reason="gpukit.sparse builds its matrices with scipy")


def random_values(rng, count, dtype):
    values = rng.standard_normal(count)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(count)
    return values.astype(dtype)


def random_matrix(sp, rng, shape, nnz, dtype):
    """A CSR matrix of `shape` with about nnz entries at random places (duplicates added up)."""
    rows = rng.integers(0, shape[0], nnz)
    columns = rng.integers(0, shape[1], nnz)
    return sp.csr_matrix((random_values(rng, nnz, dtype), (rows, columns)), shape=shape)


def laplacian_2d(sp, m, dtype):
    """The 5-point Laplacian of an m x m grid: symmetric positive definite, m^2 rows."""
    line = sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
    return (sp.kron(sp.eye(m), line) + sp.kron(line, sp.eye(m))).tocsr().astype(dtype)


def dominant_spd(sp, rng, n, dtype):
    """A random Hermitian matrix with a dominant positive diagonal: positive definite."""
    a = random_matrix(sp, rng, (n, n), 6 * n, dtype)
    a = a + a.conj().T
    return (a + sp.diags(abs(a).sum(axis=1).A1 + 1.0)).tocsr().astype(dtype)


def structured_matrices(sp, rng, dtype):
    """(name, matrix): the shapes and patterns the kernels treat apart."""
    dense_row = random_matrix(sp, rng, (3001, 3001), 9000, dtype).tolil()
    dense_row[1234, :] = random_values(rng, 3001, dtype)
    empty_rows = random_matrix(sp, rng, (700, 700), 2000, dtype)
    empty_rows = sp.csr_matrix(sp.diags((np.arange(700) % 3 != 0).astype(dtype)) @ empty_rows)
    lengths = rng.integers(0, 2600, 1500)  # after duplicates: rows of shared blocks, of a block, of one chunk
    positions = (np.repeat(np.arange(1500), lengths), rng.integers(0, 1500, lengths.sum()))
    mixed = sp.csr_matrix((random_values(rng, lengths.sum(), dtype), positions), shape=(1500, 1500))
    return [
        ("random odd size", random_matrix(sp, rng, (517, 517), 4000, dtype)),
        ("mixed row lengths", mixed),
        ("one entry per row", sp.csr_matrix(sp.diags(random_values(rng, 333, dtype)))),
        ("long rows", random_matrix(sp, rng, (257, 257), 257 * 60, dtype)),
        ("empty rows", empty_rows),
        ("one dense row", dense_row.tocsr()),
        ("no entries", sp.csr_matrix((129, 129), dtype=dtype)),
        ("1x1", sp.csr_matrix(np.array([[2.5]], dtype=dtype))),
    ]


def assert_product_close(matrix, x, y, dtype, y0=None):
    """y == matrix @ x (+ y0), each row within PRODUCT_TOLERANCE of sum_j |a_ij x_j|."""
    exact = matrix.astype(np.complex128) @ x.astype(np.complex128)
    bound = abs(matrix) @ abs(x)
    if y0 is not None:
        exact = exact + y0
        bound = bound + abs(y0)
    error = abs(y - exact)
    tolerance = PRODUCT_TOLERANCE[dtype] * (bound + 1e-30)
    assert np.all(error <= tolerance), f"worst row {np.argmax(error - tolerance)}: {error.max()} > {tolerance.max()}"


def host_product(plan, x):
    """What the kernels compute from a HostCSR plan, done in numpy: block by block, the rows of
    a block entry by entry, a long row from its chunk sums."""
    chunk_sums = np.array(
        [plan.data[b:e] @ x[plan.indices[b:e]] for b, e in zip(plan.chunk_begin, plan.chunk_end)],
        dtype=np.complex128,
    )
    y = np.zeros(plan.shape[0], dtype=np.complex128)
    for first, end in zip(plan.row_blocks[:-1], plan.row_blocks[1:]):
        if plan.indptr[end] - plan.indptr[first] > _kernels.stream_entries(plan.data.dtype):
            assert end == first + 1 and first in plan.long_rows
            k = np.searchsorted(plan.long_rows, first)
            y[first] = chunk_sums[plan.chunk_ptr[k] : plan.chunk_ptr[k + 1]].sum()
            continue
        for row in range(first, end):
            begin, row_end = plan.indptr[row], plan.indptr[row + 1]
            y[row] = plan.data[begin:row_end] @ x[plan.indices[begin:row_end]]
    return y


# ---- the kernels compile (NVRTC, no device needed)


@pytest.mark.compile_sweep
@pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC is not installed")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("source", [_kernels.spmv_source, _kernels.cg_source])
def test_kernels_compile_for_sm90(source, dtype):
    text = source(np.dtype(dtype))
    assert compiler.compile(text, arch="sm_90", no_extern_c=True, cache_dir=False)


def test_kernel_sources_name_every_kernel_the_loader_prepares():
    spmv = _kernels.spmv_source(np.dtype(np.float32))
    assert "csr_spmv(" in spmv and "csr_chunks(" in spmv
    assert f"#define GK_STREAM_ENTRIES {_kernels.STREAM_BYTES // 4}" in spmv
    cg = _kernels.cg_source(np.dtype(np.complex64))
    assert "typedef pycuda::complex<float> value_type;" in cg and "typedef float real_type;" in cg
    for name in ("cg_alpha(", "cg_step_x(", "cg_delta("):
        assert name in cg
    for kind in _kernels.PRECONDITIONERS:
        assert f"GK_CG_KERNELS({kind}," in cg
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        _kernels.spmv_source(np.dtype(np.int32))


# ---- host side: preparing matrices


@pytest.mark.parametrize(
    "lengths",
    [[], [0] * 3000, [5] * 1000, [3, 0, 7, 1030, 0, 2, 4000, 1024, 1, 1], list(range(0, 3000, 7)), [1024] * 5],
)
def test_row_blocks_hold_the_most_rows_that_fit(lengths):
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    limit, most_rows = 1024, _kernels.STREAM_ROWS
    blocks = _csr.row_blocks(indptr, limit)
    assert blocks[0] == 0 and blocks[-1] == len(lengths) and np.all(np.diff(blocks) > 0)
    for first, end in zip(blocks[:-1], blocks[1:]):
        entries = indptr[end] - indptr[first]
        assert end - first <= most_rows
        assert entries <= limit or end == first + 1, (first, end)
        if end < len(lengths) and entries <= limit:  # greedy: the next row would not fit
            assert end - first == most_rows or indptr[end + 1] - indptr[first] > limit


@pytest.mark.parametrize("dtype", DTYPES)
def test_host_csr_holds_the_matrix_with_int32_indices(sp, dtype):
    rng = np.random.default_rng(1)
    for name, matrix in structured_matrices(sp, rng, dtype):
        plan = _csr.host_csr(matrix, np.dtype(dtype), "test")
        assert plan.indptr.dtype == plan.indices.dtype == np.int32, name
        assert plan.data.dtype == dtype, name
        assert plan.shape == matrix.shape, name
        assert (plan.to_scipy() != matrix).nnz == 0, name
        x = random_values(rng, matrix.shape[1], dtype)
        assert_product_close(matrix, x, host_product(plan, x), dtype)


def test_a_dense_row_is_cut_into_chunks(sp):
    rng = np.random.default_rng(2)
    matrix = random_matrix(sp, rng, (5000, 5000), 10000, np.float64).tolil()
    matrix[17, :] = 1.0
    plan = _csr.host_csr(matrix.tocsr(), np.dtype(np.float64), "test")
    assert plan.long_rows.tolist() == [17]
    assert 17 in plan.row_blocks and 18 in plan.row_blocks
    begin, end = plan.indptr[17], plan.indptr[18]
    assert plan.chunk_ptr.tolist() == [0, math.ceil((end - begin) / _csr.CHUNK)]
    assert plan.chunk_begin[0] == begin and plan.chunk_end[-1] == end
    assert np.all(plan.chunk_begin[1:] == plan.chunk_end[:-1])
    assert np.all(plan.chunk_end - plan.chunk_begin <= _csr.CHUNK)


def test_other_formats_are_converted_and_duplicates_kept(sp):
    coo = sp.coo_matrix(([1.0, 2.0, 3.0], ([0, 0, 2], [1, 1, 0])), shape=(3, 4))
    plan = _csr.host_csr(coo, np.dtype(np.float32), "test")
    assert plan.to_scipy().toarray().tolist() == [[0, 3, 0, 0], [0, 0, 0, 0], [3, 0, 0, 0]]
    assert _csr.host_csr(sp.csc_array(coo), np.dtype(np.float64), "test").to_scipy().toarray()[0, 1] == 3


def test_permuted_is_p_a_p_transposed(sp):
    rng = np.random.default_rng(3)
    matrix = random_matrix(sp, rng, (301, 301), 2000, np.float64)
    new2old = rng.permutation(301).astype(np.int32)
    result = _csr.permuted(_csr.host_csr(matrix, np.dtype(np.float64), "test"), new2old).to_scipy()
    np.testing.assert_array_equal(result.toarray(), matrix.toarray()[new2old][:, new2old])


@pytest.mark.parametrize("symmetric", [True, False])
def test_solver_order_is_reverse_cuthill_mckee(sp, symmetric):
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    from gpukit.sparse.packeted import solver_order

    rng = np.random.default_rng(4)
    shuffle = rng.permutation(900)
    matrix = laplacian_2d(sp, 30, np.float64)[shuffle][:, shuffle]
    if not symmetric:
        matrix = sp.csr_matrix(sp.triu(matrix))
    order = solver_order(_csr.host_csr(matrix, np.dtype(np.float64), "test"), symmetric)
    assert order.dtype == np.int32 and sorted(order) == list(range(900))
    np.testing.assert_array_equal(order, reverse_cuthill_mckee(matrix, symmetric_mode=symmetric))
    # The ordering brings the entries near the diagonal again.
    permuted = _csr.permuted(_csr.host_csr(matrix, np.dtype(np.float64), "test"), order).to_scipy().tocoo()
    assert abs(permuted.row - permuted.col).max() < 0.2 * abs(matrix.tocoo().row - matrix.tocoo().col).max()


# ---- host side: refusing bad input (all raised before anything touches a GPU)


def packeted(*args, **kwargs):
    from gpukit.sparse.packeted import PacketedSpMV

    return PacketedSpMV(*args, **kwargs)


def coordinate(*args, **kwargs):
    from gpukit.sparse.coordinate import CoordinateSpMV

    return CoordinateSpMV(*args, **kwargs)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda sp: packeted(np.eye(3), False, np.float32), TypeError, "expected a scipy.sparse matrix.*numpy.ndarray"),
        (lambda sp: coordinate([[1, 2]], np.float32), TypeError, "expected a scipy.sparse matrix.*list"),
        (lambda sp: packeted(sp.eye(3, format="csr"), False, np.int32), TypeError, "unsupported dtype int32"),
        (lambda sp: coordinate(sp.eye(3, format="csr"), np.float16), TypeError, "unsupported dtype float16"),
        (lambda sp: coordinate(sp.eye(3, format="csr"), "no such type"), TypeError, "expected a dtype"),
        (
            lambda sp: packeted(sp.eye(3, format="csr", dtype=np.complex64), False, np.float64),
            TypeError,
            "cannot convert a complex64 matrix to float64",
        ),
        (lambda sp: packeted(sp.eye(3, 4, format="csr"), False, np.float32), ValueError, "only square matrices"),
        (lambda sp: packeted(sp.eye(3, format="csr"), "yes", np.float32), TypeError, "is_symmetric.*expected a bool"),
        (lambda sp: packeted(sp.eye(3, format="csr"), False, np.float32, bogus=1), TypeError, "bogus"),
        (lambda sp: coordinate(sp.eye(3, format="csr"), np.float32, 5), TypeError, "positional"),
    ],
)
def test_bad_matrices_and_arguments_are_refused(sp, make, error, match):
    with pytest.raises(error, match=match):
        make(sp)


def test_too_many_entries_for_int32_are_refused(sp, monkeypatch):
    monkeypatch.setattr(_csr, "MAX_INDEX", 5)
    with pytest.raises(ValueError, match="6 stored entries are too many: gpukit.sparse indexes with int32, at most 5"):
        coordinate(sp.csr_matrix(np.ones((2, 3))), np.float32)
    with pytest.raises(ValueError, match=r"shape \(2, 6\) is too big"):
        coordinate(sp.csr_matrix((2, 6)), np.float32)


def test_without_scipy_the_error_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.sparse", None)
    with pytest.raises(ImportError, match=r"CoordinateSpMV\(mat\) needs scipy"):
        coordinate(object(), np.float32)


class Host3x3(OperatorBase):
    """An operator that is only a shape and a dtype: enough for the checks that need no GPU."""

    dtype = np.dtype(np.float64)
    shape = (3, 3)

    def __call__(self, operand):
        raise AssertionError("not called by these tests")


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: CGStateContainer(object()), TypeError, "expected an operator with shape, dtype"),
        (lambda: CGStateContainer(Host3x3(), precon=np.ones(3)), TypeError, "precon.*expected None or an operator"),
        (lambda: CGStateContainer(Host3x3(), precon=IdentityOperator(np.float64, 4)), ValueError, r"\(3, 3\)"),
        (lambda: CGStateContainer(Host3x3(), pagelocked_allocator=3), TypeError, "pagelocked_allocator"),
        (lambda: CGStateContainer(Host3x3()).run(), RuntimeError, r"call reset\(rhs, x\) first"),
        (lambda: CGStateContainer(Host3x3()).one_iteration(), RuntimeError, r"call reset\(rhs, x\) first"),
        (lambda: solve_pkt_with_cg(Host3x3(), None), TypeError, "expected a PacketedSpMV"),
        (lambda: IdentityOperator(np.float32, "3"), TypeError, "expected an int"),
        (lambda: IdentityOperator(np.float32, -1), ValueError, "n >= 0"),
        (lambda: DiagonalPreconditioner(np.ones(3)), TypeError, "expected a GPUArray, got ndarray"),
        (lambda: OperatorBase().shape, NotImplementedError, None),
    ],
)
def test_bad_solver_arguments_are_refused(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_a_non_square_operator_is_refused():
    class Wide(Host3x3):
        shape = (3, 4)

    with pytest.raises(ValueError, match=r"square operator.*\(3, 4\)"):
        CGStateContainer(Wide())


def test_flags_accept_pycudas_none_and_bools_only():
    assert _checks.check_flag(None, "f") is False and _checks.check_flag(np.bool_(True), "f") is True
    with pytest.raises(TypeError, match="f: expected a bool, got int 1"):
        _checks.check_flag(1, "f")


# ---- on the GPU: products


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_coordinate_products_match_scipy(pool_ctx, sp, dtype):
    from gpukit import gpuarray
    from gpukit.sparse.coordinate import CoordinateSpMV

    rng = np.random.default_rng(10)
    matrices = structured_matrices(sp, rng, dtype) + [
        ("wide", random_matrix(sp, rng, (300, 517), 3000, dtype)),
        ("tall", random_matrix(sp, rng, (517, 300), 3000, dtype)),
        ("tall, one dense column", sp.csr_matrix(sp.hstack([sp.csr_matrix(np.ones((2000, 1))), sp.eye(2000, 5)]))),
        ("coo with duplicates", sp.coo_matrix(([1.0, 2.0, 4.0], ([0, 0, 1], [2, 2, 0])), shape=(2, 3))),
    ]
    for name, matrix in matrices:
        spmv = CoordinateSpMV(matrix, dtype)
        assert spmv.shape == matrix.shape and spmv.dtype == dtype, name
        x = random_values(rng, matrix.shape[1], dtype)
        y = spmv(gpuarray.to_gpu(x))
        assert y.dtype == dtype and y.shape == (matrix.shape[0],), name
        assert_product_close(matrix, x, y.get(), dtype)
        y0 = random_values(rng, matrix.shape[0], dtype)
        y_gpu = gpuarray.to_gpu(y0)
        assert spmv(gpuarray.to_gpu(x), y_gpu) is y_gpu, name
        assert_product_close(matrix, x, y_gpu.get(), dtype, y0=y0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("symmetric", [False, True])
def test_packeted_products_match_scipy_through_the_permutation(pool_ctx, sp, dtype, symmetric):
    from gpukit import gpuarray
    from gpukit.sparse.packeted import PacketedSpMV

    rng = np.random.default_rng(11)
    for name, matrix in structured_matrices(sp, rng, dtype):
        if symmetric:
            matrix = (matrix + matrix.T).tocsr()
        spmv = PacketedSpMV(matrix, symmetric, dtype)
        assert spmv.shape == matrix.shape and spmv.dtype == dtype, name
        x = random_values(rng, matrix.shape[1], dtype)
        permuted_x = spmv.permute(gpuarray.to_gpu(x))
        assert np.array_equal(spmv.unpermute(permuted_x).get(), x), name
        assert_product_close(matrix, x, spmv.unpermute(spmv(permuted_x)).get(), dtype)
        y0 = random_values(rng, matrix.shape[0], dtype)
        y = spmv.permute(gpuarray.to_gpu(y0))
        spmv(permuted_x, y)
        assert_product_close(matrix, x, spmv.unpermute(y).get(), dtype, y0=y0)


@pytest.mark.gpu
def test_product_operands_are_checked(pool_ctx, sp):
    from gpukit import gpuarray
    from gpukit.sparse.coordinate import CoordinateSpMV

    spmv = CoordinateSpMV(sp.eye(4, 3, format="csr"), np.float32)
    x = gpuarray.zeros(3, np.float32)
    with pytest.raises(TypeError, match=r"CoordinateSpMV\(x\): expected a GPUArray, got ndarray"):
        spmv(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"CoordinateSpMV\(x\): expected shape \(3,\), got \(4,\)"):
        spmv(gpuarray.zeros(4, np.float32))
    with pytest.raises(TypeError, match=r"CoordinateSpMV\(x\): expected dtype float32, got float64"):
        spmv(gpuarray.zeros(3, np.float64))
    with pytest.raises(ValueError, match="expected a contiguous array"):
        spmv(gpuarray.zeros(6, np.float32)[::2])
    with pytest.raises(ValueError, match=r"CoordinateSpMV\(y\): expected shape \(4,\)"):
        spmv(x, gpuarray.zeros(3, np.float32))
    both = gpuarray.zeros(7, np.float32)
    with pytest.raises(ValueError, match="y shares memory with x"):
        spmv(both[:3], both[2:6])
    with pytest.raises(TypeError, match="unexpected keyword"):
        spmv(x, out=x)


# ---- on the GPU: the solver


def solve(sp, matrix, dtype, precon_kind, x0=None, tol=None, **kwargs):
    """solve_pkt_with_cg on `matrix` (b random), with no preconditioner, the diagonal one, or
    a preconditioning operator of the caller's kind; returns (x, exact x, it_count, res_count)."""
    from gpukit import gpuarray
    from gpukit.sparse.packeted import PacketedSpMV

    rng = np.random.default_rng(12)
    spmv = PacketedSpMV(matrix, True, dtype)
    b = random_values(rng, matrix.shape[0], dtype)
    inverse_diagonal = (1 / matrix.diagonal()).astype(dtype)
    precon = {
        "none": None,
        "identity": IdentityOperator(dtype, matrix.shape[0]),
        "diagonal": DiagonalPreconditioner(spmv.permute(gpuarray.to_gpu(inverse_diagonal))),
        "operator": ScaledOperator(spmv.permute(gpuarray.to_gpu(inverse_diagonal))),
    }[precon_kind]
    if tol is None:
        tol = SOLVER_TOL[dtype]
    x_gpu = None if x0 is None else gpuarray.to_gpu(x0.astype(dtype))
    x, it_count, res_count = solve_pkt_with_cg(spmv, gpuarray.to_gpu(b), precon, x_gpu, tol=tol, **kwargs)
    assert x.dtype == dtype and x.shape == b.shape
    exact = np.linalg.solve(matrix.toarray().astype(np.complex128), b.astype(np.complex128))
    return x.get(), exact, it_count, res_count


class ScaledOperator(OperatorBase):
    """Jacobi preconditioning as an operator of the user's own: the solver calls it."""

    def __init__(self, diagonal):
        self.diagonal = diagonal
        self.calls = 0

    @property
    def dtype(self):
        return self.diagonal.dtype

    @property
    def shape(self):
        return self.diagonal.shape * 2

    def __call__(self, operand):
        self.calls += 1
        return self.diagonal * operand


def assert_solution_close(x, exact, dtype):
    assert np.linalg.norm(x - exact) <= SOLUTION_TOLERANCE[dtype] * np.linalg.norm(exact)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("precon_kind", ["none", "identity", "diagonal", "operator"])
def test_cg_solves_spd_systems(pool_ctx, sp, dtype, precon_kind):
    rng = np.random.default_rng(13)
    systems = [("laplacian", laplacian_2d(sp, 23, dtype)), ("dominant", dominant_spd(sp, rng, 411, dtype))]
    for name, matrix in systems:
        x, exact, it_count, res_count = solve(sp, matrix, dtype, precon_kind)
        assert_solution_close(x, exact, dtype)
        assert 0 < it_count < 10 * matrix.shape[0], name
        assert res_count == math.ceil(it_count / 50), name


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cg_agrees_with_scipy_cg(pool_ctx, sp, dtype):
    from scipy.sparse.linalg import cg as scipy_cg

    # The same test (||r|| < tol ||b|| from x = 0): both stop at the same iterate.
    tol, tolerance = (1e-6, 1e-4) if dtype == np.float64 else (1e-4, 1e-2)
    matrix = laplacian_2d(sp, 31, dtype)
    x, _, _, _ = solve(sp, matrix, dtype, "none", tol=tol)
    b = random_values(np.random.default_rng(12), matrix.shape[0], dtype)  # solve()'s
    reference, info = scipy_cg(matrix.astype(np.float64), b.astype(np.float64), rtol=tol, maxiter=10000)
    assert info == 0
    assert np.linalg.norm(x - reference) <= tolerance * np.linalg.norm(reference)


@pytest.mark.gpu
def test_cg_counts_iterations_as_pycuda(pool_ctx, sp):
    """it_count is the first iteration (counted from 1) whose delta = r^T r passes the test,
    as a plain CG in numpy finds it; res_count the iterations 0, 50, 100, ... among them."""
    matrix = laplacian_2d(sp, 40, np.float64)
    rng = np.random.default_rng(12)
    b = random_values(rng, matrix.shape[0], np.float64)
    x, r = np.zeros_like(b), b.copy()
    d, delta = r.copy(), r @ r
    delta_0, expected = delta, None
    for iteration in range(1, 5000):
        q = matrix @ d
        alpha = delta / (d @ q)
        x, r = x + alpha * d, r - alpha * q
        delta, previous = r @ r, delta
        if delta < 1e-16 * delta_0:
            expected = iteration
            break
        d = r + delta / previous * d
    _, _, it_count, res_count = solve(sp, matrix, np.float64, "none", tol=1e-8)
    assert expected is not None and abs(it_count - expected) <= 1
    assert res_count == math.ceil(it_count / 50)


@pytest.mark.gpu
@pytest.mark.parametrize("precon_kind", ["none", "diagonal"])
def test_cg_starts_from_a_given_x(pool_ctx, sp, precon_kind):
    from gpukit import gpuarray
    from gpukit.sparse.coordinate import CoordinateSpMV

    matrix = laplacian_2d(sp, 20, np.float64)
    x0 = np.random.default_rng(15).standard_normal(400)
    x, exact, _, _ = solve(sp, matrix, np.float64, precon_kind, x0=x0)
    assert_solution_close(x, exact, np.float64)
    # The first iteration from x0, against the same step in numpy.
    b = np.arange(400.0)
    m = 1 / matrix.diagonal() if precon_kind == "diagonal" else np.ones(400)
    precon = DiagonalPreconditioner(gpuarray.to_gpu(m)) if precon_kind == "diagonal" else None
    cg = CGStateContainer(CoordinateSpMV(matrix, np.float64), precon)
    x0_gpu = gpuarray.to_gpu(x0)
    cg.reset(gpuarray.to_gpu(b), x0_gpu)
    cg.one_iteration()
    r = b - matrix @ x0
    d = m * r
    x1 = x0 + (r @ d) / (d @ (matrix @ d)) * d
    assert cg.x is x0_gpu  # updated in place, as PyCUDA's
    np.testing.assert_allclose(x0_gpu.get(), x1, rtol=1e-12, atol=1e-12 * abs(x1).max())


@pytest.mark.gpu
def test_cg_leaves_the_callers_x_and_b_alone(pool_ctx, sp):
    from gpukit import gpuarray
    from gpukit.sparse.packeted import PacketedSpMV

    matrix = laplacian_2d(sp, 10, np.float64)
    spmv = PacketedSpMV(matrix, True, np.float64)
    b, x0 = gpuarray.to_gpu(np.ones(100)), gpuarray.to_gpu(np.full(100, 0.5))
    x, _, _ = solve_pkt_with_cg(spmv, b, x=x0)
    assert np.all(b.get() == 1) and np.all(x0.get() == 0.5) and x is not x0


@pytest.mark.gpu
def test_cg_with_the_exact_answer_does_no_iteration(pool_ctx, sp):
    from gpukit import gpuarray
    from gpukit.sparse.packeted import PacketedSpMV

    spmv = PacketedSpMV(laplacian_2d(sp, 10, np.float32), True, np.float32)
    x, it_count, res_count = solve_pkt_with_cg(spmv, gpuarray.zeros(100, np.float32))
    assert (it_count, res_count) == (0, 0) and np.all(x.get() == 0)


@pytest.mark.gpu
def test_cg_raises_convergence_error_after_max_iterations(pool_ctx, sp):
    matrix = laplacian_2d(sp, 30, np.float64)
    with pytest.raises(ConvergenceError, match=r"cg failed to converge: 5 iterations left .*\(tol = 1e-10\)"):
        solve(sp, matrix, np.float64, "none", max_iterations=5)


@pytest.mark.gpu
def test_cg_calls_a_preconditioning_operator_every_iteration(pool_ctx, sp):
    from gpukit import gpuarray
    from gpukit.sparse.packeted import PacketedSpMV

    matrix = laplacian_2d(sp, 12, np.float64)
    spmv = PacketedSpMV(matrix, True, np.float64)
    precon = ScaledOperator(spmv.permute(gpuarray.to_gpu(1 / matrix.diagonal())))
    _, it_count, _ = solve_pkt_with_cg(spmv, gpuarray.to_gpu(np.ones(144)), precon, tol=1e-8)
    assert precon.calls >= it_count + 1  # reset, then one per iteration queued


@pytest.mark.gpu
def test_cg_runs_on_any_operator(pool_ctx, sp):
    """A matrix-free operator of the user's (here wrapping CoordinateSpMV) goes through the
    generic path: called once per product."""
    from gpukit import gpuarray
    from gpukit.sparse.coordinate import CoordinateSpMV

    matrix = dominant_spd(sp, np.random.default_rng(14), 200, np.float64)

    class MatrixFree:
        dtype = np.dtype(np.float64)
        shape = matrix.shape
        inner = CoordinateSpMV(matrix, np.float64)

        def __call__(self, x):
            return self.inner(x)

    cg = CGStateContainer(MatrixFree())
    b = np.arange(200.0)
    cg.reset(gpuarray.to_gpu(b))
    x = cg.run(tol=1e-10)
    np.testing.assert_allclose(x.get(), np.linalg.solve(matrix.toarray(), b), rtol=1e-8, atol=1e-10)


@pytest.mark.gpu
def test_cg_debug_prints_and_the_callback_sees_every_iteration(pool_ctx, sp, capsys):
    from gpukit import gpuarray
    from gpukit.sparse.packeted import PacketedSpMV

    spmv = PacketedSpMV(laplacian_2d(sp, 8, np.float64), True, np.float64)
    _, it_count, res_count = solve_pkt_with_cg(spmv, gpuarray.to_gpu(np.ones(64)), debug=True, tol=1e-8)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("cg: iteration 0, residual recomputed: |delta| / |delta_0| = ")
    assert lines[-1] == f"cg: converged after {it_count} iterations ({res_count} recomputed the residual)"
    seen = []
    cg = CGStateContainer(spmv)
    cg.reset(gpuarray.to_gpu(np.ones(64)))
    cg.run(tol=1e-8, debug_callback=lambda what, it, x, r, d, delta: seen.append((what, it)))
    assert seen[0] == ("it+residual", 0) and seen[-1] == ("end", cg.it_count - 1)
    assert [it for what, it in seen[:-1]] == list(range(len(seen) - 1))


@pytest.mark.gpu
def test_cg_arguments_are_checked(pool_ctx, sp):
    from gpukit import gpuarray
    from gpukit.sparse.packeted import PacketedSpMV

    spmv = PacketedSpMV(laplacian_2d(sp, 4, np.float32), True, np.float32)
    b = gpuarray.zeros(16, np.float32)
    for kwargs, error, match in [
        ({"b": gpuarray.zeros(16, np.float64)}, TypeError, r"solve_pkt_with_cg\(b\): expected dtype float32"),
        ({"x": gpuarray.zeros(15, np.float32)}, ValueError, r"solve_pkt_with_cg\(x\): expected shape \(16,\)"),
        ({"tol": 0}, ValueError, "tol.*positive"),
        ({"tol": "small"}, TypeError, "tol.*real number"),
        ({"max_iterations": 0}, ValueError, "max_iterations.*at least 1"),
        ({"max_iterations": 2.5}, TypeError, "max_iterations.*int"),
        ({"debug": "yes"}, TypeError, "debug.*bool"),
        ({"precon": DiagonalPreconditioner(gpuarray.zeros(16, np.float64))}, TypeError, "diagonal is float64"),
        ({"precon": IdentityOperator(np.float32, 15)}, ValueError, r"precon.*\(16, 16\)"),
        ({"tolerance": 1e-3}, TypeError, "unexpected keyword"),
    ]:
        arguments = {"b": b} | kwargs
        with pytest.raises(error, match=match):
            solve_pkt_with_cg(spmv, **arguments)


@pytest.mark.gpu
def test_async_inner_product_reaches_the_host(pool_ctx):
    from gpukit import gpuarray
    from gpukit.sparse.inner import AsyncInnerProduct

    a = np.arange(1000, dtype=np.float64)
    product = AsyncInnerProduct(gpuarray.to_gpu(a), gpuarray.to_gpu(a))
    pool_ctx.synchronize()
    value = None
    while value is None:
        value = product.get_host_result()
    assert value == a @ a and product.gpu_result.get() == a @ a


@pytest.mark.gpu
def test_pycuda_sparse_solve_program(sp, tmp_path):
    """PyCUDA's sparse_solve example, as a user runs it: a Matrix Market file, the pycuda.*
    names through gpukit.pycuda_compat, a memory pool and a pinned pool."""
    import scipy.io

    path = tmp_path / "laplacian.mtx"
    scipy.io.mmwrite(str(path), laplacian_2d(sp, 30, np.float64))
    out = run_in_fresh_process(f"""
        import numpy, numpy.linalg as la
        import gpukit.pycuda_compat
        import pycuda.autoinit
        import pycuda.driver as drv
        from pycuda import gpuarray
        from pycuda.tools import DeviceMemoryPool, PageLockedMemoryPool
        from pycuda.sparse.packeted import PacketedSpMV
        from pycuda.sparse.operator import DiagonalPreconditioner
        from pycuda.sparse.cg import solve_pkt_with_cg
        from scipy.io import mmread

        dev_pool, pagelocked_pool = DeviceMemoryPool(), PageLockedMemoryPool()
        csr_mat = mmread({str(path)!r}).tocsr().astype(numpy.float32)
        spmv = PacketedSpMV(csr_mat, None, csr_mat.dtype)
        rhs = numpy.random.rand(spmv.shape[0]).astype(spmv.dtype)
        inv_mat_diag = gpuarray.to_gpu(1 / csr_mat.diagonal(), allocator=dev_pool.allocate)
        precon = DiagonalPreconditioner(spmv.permute(inv_mat_diag))
        for _ in range(2):
            start, stop = drv.Event(), drv.Event()
            start.record()
            res_gpu, it_count, res_count = solve_pkt_with_cg(
                spmv, gpuarray.to_gpu(rhs, dev_pool.allocate), precon, tol=5e-5,
                pagelocked_allocator=pagelocked_pool.allocate)
            res = res_gpu.get()
            stop.record()
            stop.synchronize()
            print("residual", la.norm(csr_mat * res - rhs) / la.norm(rhs), it_count, res_count, stop.time_since(start))
        pagelocked_pool.stop_holding()
        dev_pool.stop_holding()
    """)
    lines = [line.split() for line in out.splitlines() if line.startswith("residual")]
    assert len(lines) == 2
    for _, residual, it_count, res_count, _ in lines:
        assert float(residual) < 1e-3 and int(it_count) > 0 and int(res_count) == math.ceil(int(it_count) / 50)
