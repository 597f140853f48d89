"""Property tests (hypothesis) of the view arithmetic of Layout and GPUArray against numpy's
own views: basic indexing with every kind of key (integers, slices with bounds and steps up
to 2**63 and beyond, None, ...), reshape, transpose, squeeze, split, broadcast_to and
broadcast_shapes, over bases that are C or F ordered, sliced, reversed or broadcast (zero
strides).

The normal suite runs a fixed, derandomized set of examples ("ci" profile, bounded time);
`make test-properties-long` runs many more, randomly ("long" profile, GPUKIT_PROPERTY_EXAMPLES
examples per test). GPUArray needs no GPU here: its memory is given as an address and only
its metadata is compared."""

import os

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (scripts/setup.sh installs it)")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import gpukit.gpuarray as gpuarray  # noqa: E402
from gpukit import _gpukit  # noqa: E402
from gpukit._gpukit import Layout  # noqa: E402

settings.register_profile(
    "ci", max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "long",
    max_examples=int(os.environ.get("GPUKIT_PROPERTY_EXAMPLES", "20000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("GPUKIT_PROPERTY_PROFILE", "ci"))

ADDRESS = 1 << 40  # GPUArrays' memory: an address nothing uses
# Values at and around the 64-bit edges, where a wrapped computation would show.
EDGES = [2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**70]
BIG = st.sampled_from(EDGES + [-e for e in EDGES])


# ---- bases: numpy views of every stride kind


@st.composite
def bases(draw):
    """A numpy view: contiguous (C or F), then possibly sliced with steps (gaps, reversed
    axes, an offset), or a broadcast (zero-stride) view."""
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    dtype = draw(st.sampled_from([np.int8, np.float32, np.complex128]))
    kind = draw(st.sampled_from(["contiguous", "sliced", "broadcast"]))
    if kind == "broadcast":
        row = np.arange(shape[-1] if shape else 1, dtype=dtype)
        return np.broadcast_to(row, shape) if shape else row[0:1].reshape(())
    base = np.zeros(
        tuple(2 * n + 1 for n in shape) if kind == "sliced" else shape, dtype, order=draw(st.sampled_from("CF"))
    )
    if kind == "sliced":
        key = tuple(slice(draw(st.integers(0, 1)), None, draw(st.sampled_from([1, 2, -1, -2]))) for _ in shape)
        base = base[key + (Ellipsis,)]  # with ..., a 0-d base stays an array
    return base


def data_offset(view, base):
    return view.__array_interface__["data"][0] - base.__array_interface__["data"][0]


def root(a):
    while a.base is not None and isinstance(a.base, np.ndarray):
        a = a.base
    return a


def layout_of(a):
    """The Layout of numpy view `a`, offsets counted from its root buffer."""
    return Layout(list(a.shape), list(a.strides), a.itemsize, data_offset(a, root(a)))


def gpuarray_of(a):
    return gpuarray.GPUArray(a.shape, a.dtype, gpudata=ADDRESS + data_offset(a, root(a)), strides=a.strides)


def meaning(shape, strides, offset):
    """What a view means: its shape, the strides of axes that are ever stepped along, and
    (when it has elements) where element 0 lies. numpy leaves the rest arbitrary."""
    shape = tuple(shape)
    if 0 in shape:
        return shape, None, None
    return shape, tuple(s for n, s in zip(shape, strides) if n > 1), offset


def numpy_meaning(view, base):
    return meaning(view.shape, view.strides, data_offset(view, root(base)))


def layout_meaning(layout):
    return meaning(layout.shape, layout.strides, layout.offset)


def gpuarray_meaning(array):
    return meaning(array.shape, array.strides, array.ptr - ADDRESS)


def numpy_error(error):
    """The exception gpukit raises where numpy raised `error`. Out-of-range indices and axes
    are IndexError in gpukit (numpy's AxisError is one too); numpy fails earlier, with
    OverflowError or "integer won't fit into a C int" (ValueError), for indices and axes
    beyond its integer types, which gpukit reports as out of range as well."""
    if isinstance(error, (IndexError, OverflowError)) or "C int" in str(error):
        return IndexError
    return type(error)


def agree(numpy_call, gpukit_calls):
    """Run numpy_call and each gpukit call; they must both fail with the same exception
    type, or both succeed with the same meaning (each call returns (result, meaning))."""
    try:
        expected = numpy_call()
    except (IndexError, ValueError, TypeError, OverflowError) as e:
        for call in gpukit_calls:
            with pytest.raises(numpy_error(e)):
                call()
        return
    for call in gpukit_calls:
        assert call() == expected


# ---- indexing


def index_items(ndim):
    integer = st.one_of(st.integers(-ndim - 6, ndim + 6), BIG)
    bound = st.one_of(st.none(), st.integers(-8, 8), BIG)
    step = st.one_of(st.none(), st.integers(-4, 4), BIG)  # 0 included: numpy's ValueError
    item = st.one_of(integer, st.builds(slice, bound, bound, step), st.none(), st.just(Ellipsis))
    return st.lists(item, max_size=ndim + 2)


@given(data=st.data())
def test_basic_indexing_matches_numpy(data):
    base = data.draw(bases())
    items = data.draw(index_items(base.ndim))
    key = tuple(items) if data.draw(st.booleans()) or len(items) != 1 else items[0]
    agree(
        lambda: numpy_meaning(base[key] if not _all_integers(key, base.ndim) else base[_as_view_key(key)], base),
        [lambda: layout_meaning(layout_of(base)[key]), lambda: gpuarray_meaning(gpuarray_of(base)[key])],
    )


def _all_integers(key, ndim):
    items = key if isinstance(key, tuple) else (key,)
    return len(items) == ndim and all(isinstance(i, int) for i in items)


def _as_view_key(key):
    # numpy gives a scalar (a copy) for a full integer index; with a trailing ... it gives
    # the 0-d view that gpukit returns.
    return (key if isinstance(key, tuple) else (key,)) + (Ellipsis,)


# ---- reshape, transpose, squeeze, split


def factorisations(size):
    """Shapes of `size` elements: up to four extents whose product is `size`."""
    return st.builds(
        lambda parts, picks: _factor(size, parts, picks),
        st.integers(0, 4),
        st.lists(st.integers(0, 10**6), min_size=4, max_size=4),
    )


def _factor(size, parts, picks):
    if parts == 0:
        return [] if size == 1 else [size]
    shape, n = [], size
    for k in range(parts - 1):
        divisors = [d for d in range(1, n + 1) if n % d == 0] if n else [0, 1, 2]
        d = divisors[picks[k] % len(divisors)]
        shape.append(d)
        n = n // d if d else n
    return shape + [n]


def numpy_reshape(base, shape, order):
    # copy=False: numpy refuses (ValueError) where the view would need a copy, which is
    # where Layout.reshape raises LogicError.
    return numpy_meaning(np.reshape(base, shape, order=order, copy=False), base)


@given(data=st.data())
def test_reshape_matches_numpys_views(data):
    if tuple(int(v) for v in np.__version__.split(".")[:2]) < (2, 1):
        pytest.skip("numpy.reshape(copy=False) needs numpy 2.1")
    from gpukit.driver import LogicError

    base = data.draw(bases())
    # numpy takes any negative extent as the unknown one; gpukit only -1 (as documented).
    shape = data.draw(
        st.one_of(
            factorisations(base.size), st.lists(st.one_of(st.integers(-1, 7), st.sampled_from(EDGES)), max_size=4)
        )
    )
    if shape and data.draw(st.booleans()):
        shape[data.draw(st.integers(0, len(shape) - 1))] = -1
    order = data.draw(st.sampled_from("CF"))
    try:
        expected = numpy_reshape(base, shape, order)
    except ValueError as e:
        needs_copy = "copy" in str(e)
        with pytest.raises(LogicError if needs_copy else ValueError):
            layout_of(base).reshape(shape, order)
        return
    assert layout_meaning(layout_of(base).reshape(shape, order)) == expected
    assert gpuarray_meaning(gpuarray_of(base).reshape(shape, order=order)) == expected


@given(data=st.data())
def test_transpose_matches_numpy(data):
    base = data.draw(bases())
    axes = data.draw(
        st.one_of(
            st.permutations(range(base.ndim)),
            st.lists(st.one_of(st.integers(-base.ndim - 1, base.ndim), BIG), max_size=base.ndim + 1),
        )
    )
    if any(abs(axis) >= 2**31 for axis in axes):
        # numpy truncates such axes to C ints (2**62 becomes axis 0); gpukit refuses them.
        for call in (lambda: layout_of(base).transpose(axes), lambda: gpuarray_of(base).transpose(axes)):
            with pytest.raises((IndexError, ValueError)):
                call()
        return
    agree(
        lambda: numpy_meaning(base.transpose(axes), base),
        [
            lambda: layout_meaning(layout_of(base).transpose(axes)),
            lambda: gpuarray_meaning(gpuarray_of(base).transpose(axes)),
        ],
    )
    assert layout_meaning(layout_of(base).transpose()) == numpy_meaning(base.T, base)


@given(data=st.data())
def test_squeeze_matches_numpy(data):
    base = data.draw(bases())
    axes = data.draw(
        st.one_of(
            st.none(),
            st.integers(-base.ndim - 1, base.ndim),
            BIG,
            st.lists(st.integers(-base.ndim, max(base.ndim - 1, 0)), max_size=3),
        )
    )
    if base.ndim == 0:
        # numpy lets axis 0 and -1 through for 0-d arrays, a legacy exception gpukit does not copy.
        return
    agree(
        lambda: numpy_meaning(base.squeeze(tuple(axes) if isinstance(axes, list) else axes), base),
        [
            lambda: layout_meaning(layout_of(base).squeeze(axes)),
            lambda: gpuarray_meaning(gpuarray_of(base).squeeze(axes)),
        ],
    )


@given(data=st.data())
def test_split_matches_numpy_split(data):
    base = data.draw(bases().filter(lambda a: a.ndim > 0))
    axis = data.draw(st.integers(-base.ndim, base.ndim - 1))
    extent = base.shape[axis]
    if data.draw(st.booleans()):
        indices = data.draw(st.lists(st.one_of(st.integers(-extent - 3, extent + 3), BIG), max_size=5))
        got = lambda: [layout_meaning(part) for part in layout_of(base).split_at(indices, axis)]  # noqa: E731
        expected = lambda: [numpy_meaning(part, base) for part in np.split(base, indices, axis)]  # noqa: E731
    else:
        sections = data.draw(st.integers(1, 6))
        got = lambda: [layout_meaning(part) for part in layout_of(base).split(sections, axis)]  # noqa: E731
        expected = lambda: [numpy_meaning(part, base) for part in np.split(base, sections, axis)]  # noqa: E731
    agree(expected, [got])


# ---- broadcasting


@st.composite
def stretched(draw, shape):
    """A shape `shape` may broadcast to (new leading axes, length-1 axes stretched), or now
    and then one it may not: an extent changed, an axis dropped, a negative or huge extent."""
    target = draw(st.lists(st.integers(0, 4), max_size=2))
    for n in shape:
        if n == 1 and draw(st.booleans()):
            target.append(draw(st.integers(0, 4)))
        else:
            target.append(n)
    change = draw(st.integers(0, 7))
    if change == 0 and target:
        target[draw(st.integers(0, len(target) - 1))] = draw(st.one_of(st.integers(-2, 6), BIG))
    elif change == 1 and target:
        del target[0]
    return target


@given(data=st.data())
def test_broadcast_to_matches_numpy(data):
    base = data.draw(bases())
    shape = data.draw(stretched(base.shape))

    def numpy_view():
        view = np.broadcast_to(base, shape)
        return numpy_meaning(view, base), view.flags.c_contiguous, view.flags.f_contiguous

    def layout_view():
        view = layout_of(base).broadcast_to(shape)
        return layout_meaning(view), view.is_c_contiguous, view.is_f_contiguous

    agree(numpy_view, [layout_view])


@st.composite
def broadcastable_pairs(draw):
    """Two shapes, mostly ones that broadcast: both taken from one shape, each with some
    leading axes dropped and some extents made 1; now and then an extent changed to any value."""
    common = draw(st.lists(st.integers(0, 5), max_size=5))
    pair = []
    for _ in range(2):
        shape = common[draw(st.integers(0, len(common))) :]
        shape = [1 if draw(st.integers(0, 3)) == 0 else n for n in shape]
        if shape and draw(st.integers(0, 5)) == 0:
            shape[draw(st.integers(0, len(shape) - 1))] = draw(st.one_of(st.integers(-1, 6), BIG))
        pair.append(tuple(shape))
    return pair


@given(pair=broadcastable_pairs())
def test_broadcast_shapes_match_numpy(pair):
    a, b = pair
    try:
        expected = np.broadcast_shapes(a, b)
    except ValueError as e:
        if "too large" in str(e):
            # numpy refuses a result beyond 2**63 - 1 elements; gpukit, an array of it.
            with pytest.raises(ValueError, match="array is too big"):
                Layout.contiguous(_gpukit.broadcast_shapes(a, b), 1)
            return
        with pytest.raises(ValueError):
            _gpukit.broadcast_shapes(a, b)
        return
    assert _gpukit.broadcast_shapes(a, b) == expected
    assert _gpukit.broadcast_shapes(b, a) == expected


# ---- sizes at the 64-bit edge


def numpy_accepts(shape, dtype):
    """numpy's verdict on a new array's shape: np.empty raises ValueError or TypeError for a
    shape it refuses; a MemoryError means the shape was accepted (the memory is never
    touched, so accepted shapes cost nothing)."""
    try:
        np.empty(shape, dtype)
    except MemoryError:
        pass
    return True


@given(
    shape=st.lists(st.one_of(st.integers(0, 2**33), BIG, st.integers(-3, -1)), min_size=1, max_size=4),
    dtype=st.sampled_from([np.uint8, np.float16, np.float64, np.complex128]),
)
def test_new_array_sizes_match_numpy(shape, dtype):
    try:
        numpy_accepts(shape, dtype)
    except (ValueError, TypeError) as e:
        for make in (
            lambda: Layout.contiguous(shape, np.dtype(dtype).itemsize),
            lambda: gpuarray.GPUArray(shape, dtype, gpudata=ADDRESS),
        ):
            with pytest.raises(type(e)):
                make()
        return
    size = int(np.prod(shape, dtype=object))
    layout = Layout.contiguous(shape, np.dtype(dtype).itemsize)
    assert (layout.size, layout.nbytes) == (size, size * np.dtype(dtype).itemsize)
    array = gpuarray.GPUArray(shape, dtype, gpudata=ADDRESS)
    assert (array.size, array.nbytes, array.shape) == (size, size * np.dtype(dtype).itemsize, tuple(shape))
