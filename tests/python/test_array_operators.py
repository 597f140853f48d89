"""GPUArray operators against numpy: broadcasting, scalars of every kind, views (reversed,
transposed, strided, offset), 0-d and empty arrays, in-place operators with casts and
overlapping operands, comparisons numpy answers from the types, and the reductions."""

import operator

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def ga(pool_ctx):
    import gpukit.gpuarray as gpuarray

    return gpuarray


def host(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def check(got, expected):
    got_host = got.get()
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got_host, expected, rtol=1e-6 if expected.dtype.itemsize <= 8 else 1e-12)
    else:
        np.testing.assert_array_equal(got_host, expected)


OPS = [
    operator.add,
    operator.sub,
    operator.mul,
    operator.truediv,
    operator.eq,
    operator.ne,
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
]


@pytest.mark.parametrize(
    "shapes",
    [((5, 1), (1, 7)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (6,)), ((6,), ()), ((0, 3), (1, 3)), ((1,), (0,))],
)
def test_broadcasting_matches_numpy(ga, shapes):
    a, b = host(shapes[0], np.float32, 1), host(shapes[1], np.float64, 2) + 1
    da, db = ga.to_gpu(a), ga.to_gpu(b)
    for op in OPS:
        check(op(da, db), op(a, b))
        check(op(db, da), op(b, a))


@pytest.mark.parametrize(
    "shapes", [((3, 1), (1, 2000)), ((2, 3, 1), (1500,)), ((4, 1, 1100), (1, 3, 1)), ((1100,), (2, 1, 1))]
)
def test_broadcasting_along_long_rows(ga, shapes):
    # Last axes of 1024 elements and more run in the rows kernel variant.
    a, b = host(shapes[0], np.float32, 13), host(shapes[1], np.int16, 14)
    da, db = ga.to_gpu(a), ga.to_gpu(b)
    for op in (operator.add, operator.mul, operator.lt):
        check(op(da, db), op(a, b))
    big = host((6, 5000), np.float64, 15)
    dbig = ga.to_gpu(big)
    check(dbig[::2] * 2 - 1, big[::2] * 2 - 1)
    check(dbig[:, ::-1] + dbig[::-1, :], big[:, ::-1] + big[::-1, :])
    check(dbig[1, ::2] + 1, big[1, ::2] + 1)
    check(ga.to_gpu(big.T.copy()).T - dbig, big - big)  # a transposed operand with long rows


def test_shapes_that_do_not_broadcast_name_both(ga):
    a, b = ga.zeros((2, 3), np.float32), ga.zeros((4,), np.float32)
    with pytest.raises(ValueError, match=r"\(2,3\).*\(4,\)"):
        a + b
    with pytest.raises(ValueError, match="non-broadcastable output"):
        c = ga.zeros((3, 1), np.float32)
        c += ga.zeros((3, 4), np.float32)


@pytest.mark.parametrize("view", ["reversed", "transposed", "strided", "offset"])
def test_views_as_operands_and_results(ga, view):
    a, b = host((6, 8), np.int32, 3), host((6, 8), np.int32, 4)
    da, db = ga.to_gpu(a), ga.to_gpu(b)
    pick = {
        "reversed": lambda x: x[::-1, ::-1],
        "transposed": lambda x: x.T,
        "strided": lambda x: x[::2, 1::3],
        "offset": lambda x: x[1:, 2:],
    }[view]
    check(pick(da) * 3 - pick(db), pick(a) * 3 - pick(b))
    check(pick(da) / 2 + 1, pick(a) / 2 + 1)  # fused, on a view


@pytest.mark.parametrize(
    "dtype",
    [np.bool_, np.int8, np.uint8, np.int16, np.uint32, np.int64, np.uint64, np.float32, np.float64, np.complex64],
)
@pytest.mark.parametrize("scalar", [3, -2, 2.5, True, 1j, np.float32(1.5), np.int64(7), np.uint8(5)])
def test_scalars_follow_numpy_types_and_values(ga, dtype, scalar):
    a = host((17,), dtype, 5)
    da = ga.to_gpu(a)
    for op in (operator.add, operator.mul, operator.sub, operator.eq, operator.lt):
        for swap in (False, True):
            run = (lambda x, y: op(y, x)) if swap else op
            try:
                expected = run(a, scalar)
            except (TypeError, OverflowError) as e:
                with pytest.raises(type(e)):
                    run(da, scalar)
                continue
            check(run(da, scalar), expected)


def test_comparisons_numpy_answers_from_the_types(ga):
    a = np.array([0, 1, 255], np.uint8)
    da = ga.to_gpu(a)
    for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        for value in (-1, 1000, 2**70, -(2**70)):
            check(op(da, value), op(a, value))
            check(op(value, da), op(value, a))
    with pytest.raises(OverflowError, match="out of bounds"):
        da + 1000
    s, u = np.array([-5, 0, 7, -1], np.int64), np.array([2**64 - 1, 0, 7, 3], np.uint64)
    ds, du = ga.to_gpu(s), ga.to_gpu(u)
    for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        check(op(ds, du), op(s, u))
        check(op(du, ds), op(u, s))
        check(op(ds, np.uint64(2**63 + 5)), op(s, np.uint64(2**63 + 5)))


def test_zero_d_and_empty_arrays(ga):
    z = ga.to_gpu(np.array(2.5, np.float32))
    x = host((5,), np.float32, 6)
    check(z + ga.to_gpu(x), np.float32(2.5) + x)
    check(z * 2, np.array(2.5, np.float32) * 2)
    e = ga.to_gpu(np.zeros((0, 4), np.float64))
    check(e - 1, np.zeros((0, 4)) - 1)
    check(-e, -np.zeros((0, 4)))


def test_in_place_operators_cast_and_refuse_as_numpy(ga):
    a = host((9,), np.int32, 7)
    da = ga.to_gpu(a)
    da += 3
    a += 3
    check(da, a)
    da *= ga.to_gpu(np.arange(9, dtype=np.int16))
    a *= np.arange(9, dtype=np.int16)
    check(da, a)
    with pytest.raises(TypeError, match="same_kind"):
        da += 1.5
    f = host((4, 3), np.float32, 8)
    df = ga.to_gpu(f)
    df -= ga.to_gpu(np.arange(3, dtype=np.float64))  # broadcast, float64 cast back to float32
    f -= np.arange(3, dtype=np.float64).astype(np.float32)
    check(df, f)


def test_overlapping_operands_are_read_before_written(ga):
    a = np.arange(20, dtype=np.float64)
    da = ga.to_gpu(a)
    da[1:] += da[:-1]
    a[1:] += a[:-1].copy()
    check(da, a)
    b = np.arange(12, dtype=np.int32)
    db = ga.to_gpu(b)
    db[:] = db[::-1]
    check(db, b[::-1].copy())


def test_unary_operators_and_conversions(ga):
    x = np.array([-2.5, -0.0, 0.0, 3.0, np.inf, -np.inf], np.float32)
    dx = ga.to_gpu(x)
    check(-dx, -x)
    got = abs(dx).get()
    np.testing.assert_array_equal(got, abs(x))
    assert not np.signbit(got).any()  # abs(-0.0) is +0.0, as numpy
    c = host((7,), np.complex128, 9)
    check(abs(ga.to_gpu(c)), abs(c))
    with pytest.raises(TypeError, match="boolean negative"):
        -ga.to_gpu(np.array([True]))
    i = host((3, 5), np.int16, 10)
    di = ga.to_gpu(i)
    check(di.T.astype(np.float64), i.T.astype(np.float64))
    check(di[::-1].copy(), i[::-1].copy())
    check(+di, +i)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.uint32, np.int64, np.uint64])
def test_bitwise_operators_match_numpy(ga, dtype):
    a, b = host((9, 11), dtype, 7), host((9, 11), dtype, 8)
    da, db = ga.to_gpu(a), ga.to_gpu(b)
    for va, vb, x, y in [
        (a, b, da, db),
        (a[::-2, 1::3], b[::-2, ::-3], da[::-2, 1::3], db[::-2, ::-3]),
        (a.T, b.T, da.T, db.T),
    ]:
        for got, want in [
            (x & y, va & vb),
            (x | y, va | vb),
            (x ^ y, va ^ vb),
            (~x, ~va),
            (x & 1, va & 1),
            (5 | y, 5 | vb),
            (x ^ True, va ^ True),
        ]:
            check(got, want)
    check(da[:, :1] ^ db, a[:, :1] ^ b)  # broadcast
    one = dtype(1)  # bool | 1 is an int64 (numpy's rule), which a bool array cannot hold
    target = da.copy()
    target &= db
    target |= one
    target ^= db
    check(target, ((a & b) | one) ^ b)
    if dtype is np.bool_:
        with pytest.raises(
            TypeError, match="Cannot cast ufunc '\\|' output from dtype\\('int64'\\) to dtype\\('bool'\\)"
        ):
            target |= 1
    f = ga.to_gpu(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="bitwise_or' not supported"):
        f | f
    with pytest.raises(TypeError, match="invert' not supported"):
        ~f


def test_foreign_operands_are_handed_to_python(ga):
    dx = ga.zeros(3, np.float32)
    for host_array in (np.ones(3, np.float32), np.ones((2, 3))):
        with pytest.raises(TypeError):
            dx + host_array  # a host array: not silently treated as a scalar
        with pytest.raises(TypeError):
            host_array * dx  # nor taken apart by numpy into an object array
    with pytest.raises(TypeError):
        dx + "text"
    assert (dx == None) is False  # noqa: E711  (identity comparison once both sides decline)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.float64])
def test_reductions_of_views(ga, dtype):
    a = host((33, 17), dtype, 11)
    da = ga.to_gpu(a)
    for view in (lambda x: x, lambda x: x[::-1], lambda x: x.T, lambda x: x[1:, ::2]):
        check(ga.sum(view(da)), np.asarray(view(a).sum()))
        check(ga.min(view(da)), np.asarray(view(a).min()))
        check(ga.max(view(da)), np.asarray(view(a).max()))
        check(ga.dot(view(da), view(da)), np.asarray(np.dot(view(a).ravel(), view(a).ravel())))
    c = (host((9,), np.float32, 3) + 1j * host((9,), np.float32, 4)).astype(np.complex64)
    check(ga.sum(ga.to_gpu(c)[::-2]), np.asarray(c[::-2].sum()))
    with pytest.raises(ValueError, match="zero-size"):
        ga.min(ga.zeros(0, np.float32))
    check(ga.sum(ga.zeros(0, np.int8)), np.asarray(np.zeros(0, np.int8).sum()))


def test_reshape_views_and_copies(ga):
    a = host((4, 6), np.float32, 12)
    da = ga.to_gpu(a)
    check(da.reshape(3, 8), a.reshape(3, 8))
    check(da.reshape((2, -1)), a.reshape((2, -1)))
    check(da.T.reshape(24), a.T.reshape(24))  # not a view: copied, as numpy
    check(da.reshape(6, 4, order="F"), a.reshape(6, 4, order="F"))
    with pytest.raises(ValueError):
        da.reshape(5, 5)
