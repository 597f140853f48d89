"""The layout arithmetic of gpukit's arrays, checked against numpy's own views on random
shapes, strides, indices and reshapes."""

import operator
import re

import numpy as np
import pytest

from gpukit import _gpukit
from gpukit._gpukit import Layout


def layout_of(a):
    base = a.base if a.base is not None else a
    offset = a.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return Layout(list(a.shape), list(a.strides), a.itemsize, offset)


def same(layout, a):
    expected = layout_of(a)
    if a.size == 0:  # an empty view's strides and offset are arbitrary
        return layout.shape == list(a.shape)
    # The stride of a length-1 axis is never used, and numpy leaves it arbitrary.
    used = [n != 1 for n in a.shape]
    strides = [s for s, u in zip(layout.strides, used) if u]
    expected_strides = [s for s, u in zip(expected.strides, used) if u]
    return (layout.shape, strides, layout.offset) == (expected.shape, expected_strides, expected.offset)


def random_base(rng):
    ndim = int(rng.integers(1, 5))
    shape = tuple(int(n) for n in rng.integers(1, 6, size=ndim))
    order = "C" if rng.random() < 0.5 else "F"
    dtype = rng.choice([np.int8, np.float32, np.float64, np.complex128])
    return np.zeros(shape, dtype=dtype, order=order)


def random_index(rng, ndim):
    items = []
    for _ in range(ndim):
        r = rng.random()
        if r < 0.25:
            items.append(int(rng.integers(-2, 2)))
        elif r < 0.85:
            start = None if rng.random() < 0.3 else int(rng.integers(-6, 6))
            stop = None if rng.random() < 0.3 else int(rng.integers(-6, 6))
            step = None if rng.random() < 0.3 else int(rng.choice([-3, -2, -1, 1, 2, 3]))
            items.append(slice(start, stop, step))
        elif r < 0.95:
            items.append(None)
        else:
            items.append(Ellipsis)
    if items.count(Ellipsis) > 1:
        items = [i for i in items if i is not Ellipsis]
    return tuple(items)


def test_contiguous_strides_match_numpy():
    for order in "CF":
        a = np.empty((3, 4, 5), dtype=np.float32, order=order)
        assert Layout.contiguous([3, 4, 5], 4, order).strides == list(a.strides)


def test_bare_keys_match_numpy():
    # A key that is not a tuple: a[None], a[...], a[1], a[::2].
    a = np.zeros((4, 6), np.float32)
    for key in (None, Ellipsis, 1, -1, slice(None, None, 2)):
        assert same(layout_of(a)[key], a[key]), key


def test_inserted_axes_have_numpys_zero_stride():
    # PyCUDA's test_newaxis compares the strides whole, length-1 axes included.
    a = np.zeros((10, 20, 30), np.float32)
    for key in ((slice(None), None), (None,), (Ellipsis, None), (1, None, slice(None, None, -2))):
        assert layout_of(a)[key].strides == list(a[key].strides), key


def test_random_indexing_matches_numpy():
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(3000):
        a = random_base(rng)
        key = random_index(rng, a.ndim)
        try:
            view = a[key]
        except IndexError:
            with pytest.raises(IndexError):
                layout_of(a)[key]
            continue
        if not isinstance(view, np.ndarray):  # a scalar: take the 0-d view instead
            if Ellipsis in key:
                continue
            view = a[key + (Ellipsis,)]
        assert same(layout_of(a)[key], view), (a.shape, a.strides, key)
        checked += 1
    assert checked > 1000


def test_random_reshapes_match_numpy():
    rng = np.random.default_rng(2)
    for _ in range(2000):
        a = random_base(rng)
        try:
            view = a[random_index(rng, a.ndim)]
        except IndexError:
            continue
        if view.ndim == 0 or view.size == 0:
            continue
        flat = int(np.prod(view.shape))
        shapes = [(flat,), (-1,), (1, flat), (flat, 1)]
        divisors = [d for d in range(1, flat + 1) if flat % d == 0]
        d = int(rng.choice(divisors))
        shapes += [(d, flat // d), (d, -1, 1), (1, d, 1, flat // d)]
        for shape in shapes:
            for order in "CF":
                layout = layout_of(view)
                reshaped = view.reshape(shape, order=order)
                shares = np.shares_memory(reshaped, view) or view.size <= 1
                if shares:
                    assert same(layout.reshape(list(shape), order), reshaped), (view.shape, view.strides, shape, order)
                else:
                    with pytest.raises(Exception, match="without a copy"):
                        layout.reshape(list(shape), order)


def test_transpose_squeeze_split_ravel():
    a = np.zeros((2, 1, 6, 3), dtype=np.float32)
    lay = layout_of(a)
    assert same(lay.transpose(), a.T)
    assert same(lay.transpose([2, 0, 3, 1]), a.transpose(2, 0, 3, 1))
    assert same(lay.squeeze(), a.squeeze())
    assert same(lay.squeeze([1]), a.squeeze(1))
    for part, expected in zip(lay.split(3, axis=2), np.split(a, 3, axis=2)):
        assert same(part, expected)
    for part, expected in zip(lay.split_at([1, 4, 10], axis=-2), np.split(a, [1, 4, 10], axis=-2)):
        assert same(part, expected)
    assert same(lay.ravel(), a.ravel())
    with pytest.raises(Exception, match="not F-contiguous"):
        lay.ravel("F")
    with pytest.raises(Exception, match="repeated"):
        lay.transpose([0, 0, 1, 2])
    with pytest.raises(Exception, match="length 6"):
        lay.squeeze([2])
    with pytest.raises(Exception, match="equal sections"):
        lay.split(4, axis=2)
    with pytest.raises(IndexError):
        lay.transpose([0, 1, 2, 7])


def test_bad_input():
    with pytest.raises(ValueError, match="negative"):
        Layout([2, -1], [4, 4], 4)
    with pytest.raises(ValueError, match="different lengths"):
        Layout([2, 2], [4], 4)
    lay = Layout.contiguous([4, 5], 8)
    with pytest.raises(ValueError, match="cannot reshape"):
        lay.reshape([3, 7])
    with pytest.raises(ValueError, match="only one dimension may be -1"):
        lay.reshape([-1, -1])
    with pytest.raises(ValueError, match="step cannot be zero"):
        lay[::0]
    with pytest.raises(IndexError, match="too many indices"):
        lay[0, 0, 0]
    with pytest.raises(IndexError, match="valid indices"):
        lay["a"]
    with pytest.raises(ValueError, match="order"):
        lay.reshape([20], "K")


def test_byte_extent():
    a = np.zeros((4, 5), dtype=np.float32)
    assert Layout.contiguous([4, 5], 4).byte_extent() == (0, 80)
    assert layout_of(a[::-1, 1:3]).byte_extent() == (4, 72)
    assert Layout.contiguous([0, 5], 4).byte_extent() == (0, 0)


# ---- sizes, indices and arguments at and beyond 64 bits


@pytest.mark.parametrize(
    "shape, itemsize",
    [
        ((2**32 + 1, 2**32), 1),  # 2**64 + 2**32 bytes: used to wrap to 2**32
        ((2**40, 2**40), 1),  # used to give size 0
        ((2**62,), 2),
        ((0, 2**62, 2**62), 1),  # numpy refuses it too: a zero extent does not help
    ],
)
def test_sizes_beyond_64_bits_are_too_big(shape, itemsize):
    with pytest.raises(ValueError, match="array is too big"):
        np.empty(shape, np.dtype(f"V{itemsize}"))
    with pytest.raises(ValueError, match="array is too big"):
        Layout.contiguous(shape, itemsize)


def test_extents_beyond_64_bits():
    with pytest.raises(ValueError, match="maximum allowed dimension exceeded"):
        Layout.contiguous([2**63], 1)
    with pytest.raises(ValueError, match="maximum allowed dimension exceeded"):
        Layout.contiguous([2**64, 0], 1)
    with pytest.raises(ValueError, match="negative dimensions"):
        Layout.contiguous([-(2**70)], 1)
    assert Layout.contiguous([2**63 - 1], 1).nbytes == 2**63 - 1
    assert Layout.contiguous([0, 2**61], 2).size == 0


def test_layout_reaching_beyond_64_bits_is_refused():
    with pytest.raises(ValueError, match="beyond 64-bit"):
        Layout([2**40], [2**40], 1)
    with pytest.raises(ValueError, match="beyond 64-bit"):
        Layout([2], [8], 8, 2**63 - 8)
    # The layout whose reshape crashed is refused when it is made.
    with pytest.raises(ValueError, match="array is too big"):
        Layout([2**33 + 1, 2**31], [2**31, 1], 1)
    assert Layout([1], [2**63 - 1], 8).byte_extent() == (0, 8)  # a length-1 axis never moves


@pytest.mark.parametrize(
    "bad, error, match",
    [
        ([2.7, 3.9], TypeError, "expected an integer, got float 2.7"),
        (2.5, TypeError, "expected an integer or a sequence of integers, got float"),
        (None, TypeError, "got NoneType"),
        ("3", TypeError, "got str"),
        ([True, 2], TypeError, "got bool"),
        ([None], TypeError, "got NoneType"),
        ([2**64], ValueError, "maximum allowed dimension exceeded"),
    ],
)
def test_shapes_that_are_not_integers(bad, error, match):
    with pytest.raises(error):
        np.empty(bad)
    with pytest.raises(error, match=match):
        Layout.contiguous(bad, 4)
    with pytest.raises(error, match=match):
        Layout.contiguous([6], 4).reshape(bad)


def test_shapes_take_numpy_integers_and_arrays():
    assert Layout.contiguous(np.int32(3), 4).shape == [3]
    assert Layout.contiguous(np.array([2, 3]), 4).shape == [2, 3]
    assert Layout.contiguous((np.uint64(2), np.int8(3)), 4).shape == [2, 3]
    assert Layout.contiguous(5, 4).shape == [5]


@pytest.mark.parametrize("name, value", [("strides", [2**64]), ("itemsize", 2**64), ("offset", 2**63)])
def test_strides_itemsize_offset_beyond_64_bits(name, value):
    args = {"shape": [3], "strides": [8], "itemsize": 8, "offset": 0}
    args[name] = value
    with pytest.raises(ValueError, match=f"Layout\\({name}\\).*does not fit in 64 bits"):
        Layout(**args)
    args[name] = 1.5 if name != "strides" else [1.5]
    with pytest.raises(TypeError, match=f"Layout\\({name}\\): expected an integer"):
        Layout(**args)


KEYS = [
    2**63 - 1,
    -(2**63),
    9,
    -10,
    np.int64(3),
    np.uint8(2),
    np.array(4),
    slice(None, 2**64),
    slice(-(2**64), None),
    slice(2**64, -(2**64), -1),
    slice(None, None, 2**64),
    slice(None, None, -(2**64)),
    slice(None, None, 2**63 - 1),
    slice(None, None, -(2**63)),
    slice(None, None, 2**62),
    slice(3, None, -(2**62)),
    slice(np.int64(1), np.int64(8), np.int64(3)),
    (Ellipsis, None),
    (None, 1),
    (slice(None), None, Ellipsis),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_keys_at_64_bit_edges_match_numpy(key):
    a = np.zeros(10)
    try:
        expected = a[key]
    except (IndexError, OverflowError):  # numpy: OverflowError for 2**63, IndexError beyond
        with pytest.raises(IndexError):
            layout_of(a)[key]
        return
    if not isinstance(expected, np.ndarray):  # an element: compare with the 0-d view of it
        expected = a[operator.index(key), ...]
    assert same(layout_of(a)[key], expected), key


@pytest.mark.parametrize("key", [2**64, -(2**64), 2**63, 10, -11], ids=repr)
def test_integer_keys_out_of_bounds(key):
    with pytest.raises(IndexError, match="out of bounds"):
        Layout.contiguous([10], 8)[key]


@pytest.mark.parametrize(
    "key, error, match",
    [
        (True, IndexError, "boolean"),
        (np.True_, IndexError, "boolean"),
        (np.array([True, False]), IndexError, "boolean"),
        ([1, 2], IndexError, "advanced indexing"),
        (np.array([1, 2]), IndexError, "advanced indexing"),
        (2.5, IndexError, "only integers"),
        ("a", IndexError, "only integers"),
        ((1, [0]), IndexError, "advanced indexing"),
        (slice(2.5), TypeError, "slice indices must be integers"),
        (slice(None, None, 1.0), TypeError, "slice indices must be integers"),
        (slice(None, None, np.True_), TypeError, "slice indices must be integers"),
        ((Ellipsis, Ellipsis), IndexError, "single ellipsis"),
        ((0, 0, 0), IndexError, "too many indices"),
        (slice(None, None, 0), ValueError, "step cannot be zero"),
    ],
)
def test_keys_numpy_refuses_or_gpukit_does_not_support(key, error, match):
    with pytest.raises(error, match=match):
        Layout.contiguous([2, 3], 8)[key]


def test_split_at_matches_numpy_for_unsorted_and_negative_indices():
    a = np.zeros((4, 10), np.float32)
    for indices in ([5, 2, 8], [-3, 2], [8, -8, 3], [0, 0, 10, 11], [-20, 20], [2**64, -(2**64)], []):
        parts = layout_of(a).split_at(indices, axis=1)
        expected = np.split(a, indices, axis=1)
        assert len(parts) == len(expected), indices
        for part, view in zip(parts, expected):
            assert same(part, view), (indices, part, view.shape)
    with pytest.raises(TypeError, match="split_at\\(indices\\): expected an integer"):
        layout_of(a).split_at([2.5])


def test_split_sections():
    lay = Layout.contiguous([0], 8)
    assert [p.shape for p in lay.split(3)] == [[0], [0], [0]]
    with pytest.raises(ValueError, match="more than a list can hold"):
        lay.split(2**64)
    with pytest.raises(ValueError, match="must be positive"):
        lay.split(0)
    with pytest.raises(ValueError, match="equal sections"):
        Layout.contiguous([4], 8).split(2**64)
    with pytest.raises(IndexError, match="out of bounds"):
        Layout.contiguous([4], 8).split(2, axis=2**40)


def test_squeeze_refuses_a_repeated_axis():
    a = np.zeros((1, 3, 1))
    for axes in ([0, 0], [0, -3], [2, -1]):
        with pytest.raises(ValueError):
            a.squeeze(tuple(axes))
        with pytest.raises(ValueError, match="repeated"):
            layout_of(a).squeeze(axes)
    assert same(layout_of(a).squeeze([0, -1]), a.squeeze((0, -1)))
    with pytest.raises(IndexError, match="out of bounds"):
        layout_of(a).squeeze([2**64])
    with pytest.raises(TypeError, match="squeeze\\(axes\\): expected an integer"):
        layout_of(a).squeeze([0.0])


def test_transpose_axes():
    a = np.zeros((2, 3, 4))
    assert same(layout_of(a).transpose(np.array([2, 0, 1])), a.transpose(2, 0, 1))
    with pytest.raises(ValueError, match="repeated"):
        layout_of(a).transpose([0, 0, 1])
    with pytest.raises(ValueError, match="got 2 axes"):
        layout_of(a).transpose([0, 1])
    with pytest.raises(IndexError, match="out of bounds"):
        layout_of(a).transpose([0, 1, 2**64])


def test_empty_axis_lists_mean_no_axes():
    # numpy: squeeze(()) removes nothing and transpose(()) is refused beyond 0-d; only None
    # (or no argument) means every length-1 axis or the reversed order.
    a = np.zeros((1, 3, 1))
    assert same(layout_of(a).squeeze(()), a.squeeze(()))
    assert same(layout_of(a).squeeze(None), a.squeeze())
    assert same(layout_of(a).transpose(None), a.transpose())
    with pytest.raises(ValueError, match="got 0 axes"):
        layout_of(a).transpose(())
    assert layout_of(np.zeros(())).transpose(()).shape == []


def test_python_bools_are_slice_bounds():
    # numpy slices with True and False as 1 and 0 (numpy's own bool_ is refused).
    a = np.zeros((4, 3))
    assert same(layout_of(a)[True:], a[True:])
    assert same(layout_of(a)[:, False:True], a[:, False:True])


# ---- broadcasting

# Shapes of every kind: 0-d, length-1 axes, empty axes, and ones that do not broadcast together.
SHAPES = [
    (),
    (1,),
    (0,),
    (3,),
    (4,),
    (1, 1),
    (3, 1),
    (1, 4),
    (3, 4),
    (4, 3),
    (0, 1),
    (1, 0),
    (0, 4),
    (2, 1, 4),
    (2, 3, 1),
    (5, 3, 4),
    (1, 1, 1, 1),
    (2, 3, 4, 0),
]


def numpy_text(shape):
    """A shape as numpy writes it in broadcasting errors: (2,3), (4,), ()."""
    return str(tuple(shape)).replace(" ", "")


def test_broadcast_shapes_match_numpy_for_every_pair():
    broadcast = 0
    for a in SHAPES:
        for b in SHAPES:
            try:
                expected = np.broadcast_shapes(a, b)
            except ValueError:
                message = f"operands could not be broadcast together with shapes {numpy_text(a)} {numpy_text(b)}"
                with pytest.raises(ValueError) as info:
                    _gpukit.broadcast_shapes(a, b)
                assert str(info.value) == message
                continue
            assert _gpukit.broadcast_shapes(a, b) == expected, (a, b)
            broadcast += 1
    assert 100 < broadcast < len(SHAPES) ** 2  # both outcomes were checked


def test_broadcast_shapes_arguments():
    assert _gpukit.broadcast_shapes(3, [2, 1]) == (2, 3)  # an integer is a 1-d shape, as in numpy
    assert _gpukit.broadcast_shapes(np.array([4, 1]), (5,)) == (4, 5)
    with pytest.raises(ValueError, match="negative dimensions"):
        _gpukit.broadcast_shapes((-1,), (1,))
    with pytest.raises(ValueError, match="maximum allowed dimension"):
        _gpukit.broadcast_shapes((2**64,), (1,))
    with pytest.raises(TypeError):
        _gpukit.broadcast_shapes((1.5,), (1,))
    # numpy refuses a result of more than 2**63 - 1 elements; gpukit where an array of that
    # shape is made.
    with pytest.raises(ValueError, match="too large"):
        np.broadcast_shapes((2**62,), (4, 1))
    with pytest.raises(ValueError, match="array is too big"):
        Layout.contiguous(_gpukit.broadcast_shapes((2**62,), (4, 1)), 1)


def broadcast_bases():
    """numpy views over one buffer of every stride kind, with their offset in that buffer."""
    buffer = np.zeros(4 * 3 * 2 * 8, np.int16)
    c = buffer[: 3 * 4].reshape(3, 4)
    f = buffer[: 3 * 4].reshape(3, 4, order="F")
    views = [
        c,
        f,
        c[::-1, 1:],
        c[1:, ::-2],
        c[2:3, :],
        c[:, 1:2],
        c[:, :0],
        c[1],
        c[1, 2, ...],
        buffer[5:11].reshape(2, 1, 3)[:, :, ::-1],
        np.broadcast_to(c[0], (2, 4)),
        buffer[7:7],
    ]
    for view in views:
        offset = view.__array_interface__["data"][0] - buffer.__array_interface__["data"][0]
        yield view, Layout(list(view.shape), list(view.strides), view.itemsize, offset), offset


def test_broadcast_to_matches_numpy():
    checked = refused = 0
    for view, layout, offset in broadcast_bases():
        for shape in SHAPES + [view.shape, (2,) + view.shape, (1, 2) + view.shape]:
            try:
                expected = np.broadcast_to(view, shape)
            except ValueError:
                with pytest.raises(
                    ValueError,
                    match=re.escape(
                        f"cannot broadcast an array of shape {numpy_text(view.shape)} "
                        f"to the requested shape {numpy_text(shape)}"
                    ),
                ):
                    layout.broadcast_to(shape)
                refused += 1
                continue
            got = layout.broadcast_to(shape)
            moved = expected.__array_interface__["data"][0] - view.__array_interface__["data"][0]
            assert (tuple(got.shape), tuple(got.strides), got.offset, got.itemsize) == (
                expected.shape,
                expected.strides,
                offset + moved,
                view.itemsize,
            ), (view.strides, shape)
            assert (got.is_c_contiguous, got.is_f_contiguous) == (
                expected.flags.c_contiguous,
                expected.flags.f_contiguous,
            ), (view.strides, shape)
            assert got.size == expected.size
            if expected.size:
                low, high = np.lib.array_utils.byte_bounds(expected)
                start = view.__array_interface__["data"][0] - offset
                assert got.byte_extent() == (low - start, high - start)
            checked += 1
    assert checked > 50 and refused > 50


def test_broadcast_to_bad_shapes():
    layout = Layout.contiguous([3, 1], 4)
    with pytest.raises(ValueError, match="negative dimensions"):
        layout.broadcast_to((3, -1))
    with pytest.raises(ValueError, match="maximum allowed dimension"):
        layout.broadcast_to((3, 2**64))
    with pytest.raises(ValueError, match="array is too big"):
        layout.broadcast_to((2**62, 3, 2))  # 2**64 elements of 4 bytes
    with pytest.raises(TypeError):
        layout.broadcast_to("3")
